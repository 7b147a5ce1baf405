"""The exercises of a course notebook, and the markers that fence their solutions and answers.

Every exercise opens with a markdown heading ``### Exercise N (kind): task``, numbered 1, 2, ...
in notebook order, kind one of :data:`KINDS`. An *implement* or *experiment* exercise's solution
sits between ``# BEGIN SOLUTION`` and ``# END SOLUTION`` lines of a code cell; a *predict* or
*explain* exercise's model answer between ``<!-- BEGIN ANSWER -->`` and ``<!-- END ANSWER -->``
lines of a markdown cell.

Example:
    >>> import nbformat
    >>> notebook = nbformat.v4.new_notebook(cells=[
    ...     nbformat.v4.new_markdown_cell("### Exercise 1 (explain): why a residual?"),
    ...     nbformat.v4.new_markdown_cell("**Model answer.**\\n<!-- BEGIN ANSWER -->\\n"
    ...                                   "Gradients.\\n<!-- END ANSWER -->")])
    >>> [(e.number, e.kind, e.task, e.answer_cells) for e in list_exercises(notebook)]
    [(1, 'explain', 'why a residual?', [1])]
    >>> print(strip_answers(notebook.cells[1].source))
    *Your answer:* …
"""

from __future__ import annotations

import json
import re
import textwrap
from dataclasses import dataclass, field

import nbformat

KINDS = ("implement", "predict", "experiment", "explain")
# What a stub's error tells the student to do, Run All having stopped there.
STUB_ADVICE = ("Replace this line with your code (Run All stops here until you do; then run "
               "this cell and the ones below it).")
ANSWER_BLANK = "*Your answer:* …"
STUB_WIDTH = 92  # characters per stub line: the editor's width, less a margin

_HEADING = re.compile(r"^(?P<hashes>#+)\s*Exercise\s+(?P<number>\d+)\s*\((?P<kind>[^)]*)\)"
                      r"\s*:\s*(?P<task>.+)$", re.MULTILINE)
_ANY_HEADING = re.compile(r"^(?P<hashes>#{1,6})\s", re.MULTILINE)
SOLUTION_MARKER = re.compile(r"^(?P<indent>[ \t]*)# (?P<which>BEGIN|END) SOLUTION[ \t]*$")
ANSWER_MARKER = re.compile(r"<!--\s*(?P<which>BEGIN|END)\s+ANSWER\s*-->")
# "**Model answer.**" above a model answer goes with it in a student copy ("**Prediction.**"
# stays: it tells the student what to write there).
_MODEL_ANSWER_LABEL = re.compile(r"^\s*\*\*Model answer\.?\*\*\s*$")
# "... before you open the model answer": a student copy has none to open
_OPEN_THE_ANSWER = re.compile(
    r"before\s+(?:you\s+open|opening)\s+the\s+(?:(?:model|instructor's)\s+)?answer")
STUDENT_WORDING = "before you compare with the instructor's notebook (in `notebooks/`)"


class CourseError(Exception):
    """A notebook or an output folder that the course tools cannot work with, and why."""


@dataclass
class Exercise:
    """One exercise as its heading announces it: ``cell`` is the heading's index, ``end`` that of
    the first cell after the exercise; then its cells with a solution and with an answer block."""

    number: int
    kind: str
    task: str
    cell: int
    end: int
    solution_cells: list[int] = field(default_factory=list)
    answer_cells: list[int] = field(default_factory=list)

    @property
    def message(self) -> str:
        r"""The text of the stub's NotImplementedError: the task as plain text (no math,
        emphasis or code markup), then what to do.

        >>> Exercise(4, "implement", r"which $w$ gives `mix` of $\gamma \mathrm{ELMo}_k$?", 3,
        ...          5).message.split(" Replace")[0]
        'Exercise 4: which w gives mix of gamma ELMo_k?'
        """
        task = re.sub(r"\\[A-Za-z]+\{|[{}$`*]", "", self.task).replace("\\", "")
        end = "" if task.endswith((".", "?", "!")) else "."
        return f"Exercise {self.number}: {task}{end} {STUB_ADVICE}"


def marker_blocks(lines: list[str], marker: re.Pattern, cell: int) -> list[tuple[int, int, str]]:
    """(first line, last line, indentation) of each BEGIN ... END block of ``marker``
    (:data:`SOLUTION_MARKER` or :data:`ANSWER_MARKER`), markers included; an unbalanced marker
    is a :class:`CourseError` that names its cell and line."""
    blocks, begin = [], None
    for number, line in enumerate(lines):
        found = marker.search(line)
        if not found:
            continue
        if line.strip() != found[0].strip() or (found["which"] == "BEGIN") != (begin is None):
            raise CourseError(f"cell {cell}: {found[0].strip()!r} on line {number + 1} is out "
                              f"of place: each BEGIN needs its END after it, each marker on a "
                              f"line of its own")
        if begin is None:
            begin = (number, line[:len(line) - len(line.lstrip())])
        else:
            blocks.append((begin[0], number, begin[1]))
            begin = None
    if begin is not None:
        raise CourseError(f"cell {cell}: {lines[begin[0]].strip()!r} on line {begin[0] + 1} is "
                          f"never closed")
    return blocks


def strip_answers(text: str, cell: int = 0) -> str:
    """``text`` (markdown) with every answer block, markers included, replaced by
    :data:`ANSWER_BLANK`; a "**Model answer.**" line just above a block goes with it."""
    lines = text.split("\n")
    for first, last, _ in reversed(marker_blocks(lines, ANSWER_MARKER, cell)):
        above = first - 1
        while above >= 0 and not lines[above].strip():  # blank lines between label and block
            above -= 1
        if above >= 0 and _MODEL_ANSWER_LABEL.match(lines[above]):
            first = above
        lines[first:last + 1] = [ANSWER_BLANK]
    return "\n".join(lines)


def student_wording(text: str) -> str:
    """``text`` with every pointer to an answer the student copy does not hold turned to the
    instructor's notebook, which holds it.

    >>> student_wording("Write your interpretation before opening the answer.")
    "Write your interpretation before you compare with the instructor's notebook (in `notebooks/`)."
    """
    return _OPEN_THE_ANSWER.sub(STUDENT_WORDING, text)


def stub_source(source: str, message: str, cell: int = 0) -> str:
    """``source`` with each solution block replaced by ``raise NotImplementedError(message)``,
    the message cut at spaces into pieces on lines of their own past :data:`STUB_WIDTH`.

    >>> print(stub_source("def f(x):\\n    # BEGIN SOLUTION\\n    return x\\n    # END SOLUTION",
    ...                   "Exercise 1: return x"))
    def f(x):
        raise NotImplementedError("Exercise 1: return x")
    """
    lines = source.splitlines()
    for first, last, indent in reversed(marker_blocks(lines, SOLUTION_MARKER, cell)):
        one = f"{indent}raise NotImplementedError({json.dumps(message, ensure_ascii=False)})"
        if len(one) <= STUB_WIDTH:
            lines[first:last + 1] = [one]
            continue
        pieces = textwrap.wrap(message, STUB_WIDTH - len(indent) - 7)  # indent, quotes, ")"
        quoted = [f"{indent}    {json.dumps(p + ' ', ensure_ascii=False)}" for p in pieces[:-1]]
        lines[first:last + 1] = [f"{indent}raise NotImplementedError(", *quoted,
                                 f"{indent}    {json.dumps(pieces[-1], ensure_ascii=False)})"]
    return "\n".join(lines)


def list_exercises(notebook: nbformat.NotebookNode) -> list[Exercise]:
    """Every exercise of ``notebook``, in order, with its kind and its cells.

    An exercise runs from its heading to the next heading of the same or a higher level
    (``###`` ends at the next ``#``, ``##`` or ``###``), the next exercise, or the end. A cell
    that ends it still belongs to it if its model answer comes before that heading. A kind not
    in :data:`KINDS`, unbalanced markers or a solution outside an exercise: :class:`CourseError`.
    """
    exercises: list[Exercise] = []
    current, level = None, 0
    for index, cell in enumerate(notebook.cells):
        text = cell.source
        if cell.cell_type == "code":
            if marker_blocks(text.splitlines(), SOLUTION_MARKER, index):
                if current is None:
                    raise CourseError(f"cell {index}: a solution block outside an exercise; "
                                      f"put it below a '### Exercise N (kind): task' heading")
                current.solution_cells.append(index)
            continue
        answers = marker_blocks(text.split("\n"), ANSWER_MARKER, index)
        ending = [m.start() for m in _ANY_HEADING.finditer(text) if len(m["hashes"]) <= level]
        if current is not None and ending:
            if answers and ANSWER_MARKER.search(text).start() < min(ending):
                current.answer_cells.append(index)  # its answer, then the next section
            current.end, current = index, None
        heading = _HEADING.search(text)
        if heading:
            kind = heading["kind"].strip().lower()
            if kind not in KINDS:
                raise CourseError(f"cell {index}: exercise kind {heading['kind']!r} is not one "
                                  f"of {', '.join(KINDS)}")
            current = Exercise(int(heading["number"]), kind, heading["task"].strip().rstrip("."),
                               index, len(notebook.cells))
            level = len(heading["hashes"])
            exercises.append(current)
        if answers and current is not None:
            current.answer_cells.append(index)
    return exercises
