"""The exercises of a course notebook, and the markers that fence their solutions and answers.

Every exercise opens with a markdown heading ``### Exercise N (kind): task``, numbered 1, 2, ...
in notebook order, where kind is one of :data:`KINDS`:

* **implement** and **experiment**: a code cell whose solution (or changed line) sits between
  ``# BEGIN SOLUTION`` and ``# END SOLUTION`` lines, followed by a self-check;
* **predict** and **explain**: a markdown cell whose model answer sits between
  ``<!-- BEGIN ANSWER -->`` and ``<!-- END ANSWER -->`` lines (a predict exercise then runs
  the cell that shows what happens).

Student copies (:mod:`elmo_tutorial.course.material`) replace each solution block with
``raise NotImplementedError("Exercise N: ...")`` and each answer block with a blank for the
student's answer; slides (:mod:`elmo_tutorial.course.slides`) show the answers on a click.

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
_BEGIN = re.compile(r"^(?P<indent>[ \t]*)# BEGIN SOLUTION[ \t]*$")
_END = re.compile(r"^[ \t]*# END SOLUTION[ \t]*$")
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
    """One exercise as its heading announces it, with the cells that belong to it.

    Attributes:
        number: the number in the heading.
        kind: one of :data:`KINDS`.
        task: what to do (``"write layer norm"``).
        cell: index of the markdown cell holding the heading.
        end: index of the first cell after the exercise (the next heading's cell, or the end).
        solution_cells: code cells of the exercise with a ``# BEGIN SOLUTION`` block.
        answer_cells: markdown cells of the exercise with an answer block.
    """

    number: int
    kind: str
    task: str
    cell: int
    end: int
    solution_cells: list[int] = field(default_factory=list)
    answer_cells: list[int] = field(default_factory=list)

    @property
    def message(self) -> str:
        """The text of the stub's NotImplementedError: the task as plain text, then what to do.

        >>> Exercise(4, "implement", "which $w$ gives the mix?", 3, 5).message.split(" Replace")[0]
        'Exercise 4: which w gives the mix?'
        """
        task = plain_text(self.task)
        end = "" if task.endswith((".", "?", "!")) else "."
        return f"Exercise {self.number}: {task}{end} {STUB_ADVICE}"


_MATH = re.compile(r"\$(?P<math>[^$]+)\$")
_LATEX_COMMAND = re.compile(r"\\(?P<name>[A-Za-z]+)")
_GREEK = {"alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε",
          "varepsilon": "ε", "lambda": "λ", "mu": "μ", "sigma": "σ", "tau": "τ", "theta": "θ",
          "Sigma": "Σ"}


def plain_text(markdown: str) -> str:
    r"""A heading's markdown as plain text, for a message: math without its ``$`` markup and
    LaTeX commands, no emphasis stars, no code backticks.

    >>> plain_text("which $w$ gives *the* mix of `h_j`, $\\gamma \\mathrm{ELMo}_k$?")
    'which w gives the mix of h_j, γ ELMo_k?'
    """
    def math(match: re.Match) -> str:
        text = _LATEX_COMMAND.sub(lambda m: _GREEK.get(m["name"], ""), match["math"])
        return text.replace("{", "").replace("}", "").strip()

    text = re.sub(r"\*{1,2}(\S(?:.*?\S)?)\*{1,2}", r"\1", _MATH.sub(math, markdown))
    return text.replace("`", "").replace("$", "")


def solution_blocks(lines: list[str], cell: int) -> list[tuple[int, int, str]]:
    """(first line, last line, indentation) of each BEGIN ... END SOLUTION block, markers
    included. Raises :class:`CourseError` naming the cell and line of an unbalanced marker."""
    blocks, begin, indent = [], None, ""
    for number, line in enumerate(lines):
        if _BEGIN.match(line):
            if begin is not None:
                raise CourseError(f"cell {cell}: '# BEGIN SOLUTION' on line {number + 1} inside "
                                  f"another solution block; close the first with '# END SOLUTION'")
            begin, indent = number, _BEGIN.match(line)["indent"]
        elif _END.match(line):
            if begin is None:
                raise CourseError(f"cell {cell}: '# END SOLUTION' on line {number + 1} has no "
                                  f"'# BEGIN SOLUTION' before it")
            blocks.append((begin, number, indent))
            begin = None
    if begin is not None:
        raise CourseError(f"cell {cell}: '# BEGIN SOLUTION' on line {begin + 1} is never closed "
                          f"by '# END SOLUTION'")
    return blocks


def answer_blocks(text: str, cell: int = 0) -> list[tuple[int, int]]:
    """(first line, last line) of each answer block of a markdown cell's ``text``, markers
    included. Raises :class:`CourseError` naming the cell and line of a marker that is
    unbalanced or shares its line with other text."""
    blocks, begin = [], None
    for number, line in enumerate(text.split("\n")):
        marker = ANSWER_MARKER.search(line)
        if not marker:
            continue
        where = f"cell {cell}: '<!-- {marker['which']} ANSWER -->' on line {number + 1}"
        if line.strip() != marker[0]:
            raise CourseError(f"{where} shares its line with other text; put it on a line "
                              f"of its own")
        if marker["which"] == "BEGIN":
            if begin is not None:
                raise CourseError(f"{where} is inside another answer block; close the first "
                                  f"with '<!-- END ANSWER -->'")
            begin = number
        elif begin is None:
            raise CourseError(f"{where} has no '<!-- BEGIN ANSWER -->' before it")
        else:
            blocks.append((begin, number))
            begin = None
    if begin is not None:
        raise CourseError(f"cell {cell}: '<!-- BEGIN ANSWER -->' on line {begin + 1} is never "
                          f"closed by '<!-- END ANSWER -->'")
    return blocks


def strip_answers(text: str, cell: int = 0) -> str:
    """``text`` (markdown) with every answer block, markers included, replaced by
    :data:`ANSWER_BLANK`; a "**Model answer.**" line just above a block goes with it."""
    lines = text.split("\n")
    for first, last in reversed(answer_blocks(text, cell)):
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
    for first, last, indent in reversed(solution_blocks(lines, cell)):
        one = f"{indent}raise NotImplementedError({json.dumps(message, ensure_ascii=False)})"
        if len(one) <= STUB_WIDTH:
            lines[first:last + 1] = [one]
            continue
        room, pieces = STUB_WIDTH - len(indent) - 7, [""]  # the pieces' indent, quotes, ")"
        for word in message.split(" "):
            if pieces[-1] and len(pieces[-1]) + 1 + len(word) > room:
                pieces[-1] += " "
                pieces.append(word)
            else:
                pieces[-1] = f"{pieces[-1]} {word}" if pieces[-1] else word
        quoted = [f"{indent}    {json.dumps(p, ensure_ascii=False)}" for p in pieces]
        lines[first:last + 1] = [f"{indent}raise NotImplementedError(", *quoted[:-1],
                                 quoted[-1] + ")"]
    return "\n".join(lines)


def _answer_before_next_heading(source: str, level: int) -> bool:
    """Whether a markdown cell that ends an exercise holds its answer above the heading that
    ends it (a model answer followed, in the same cell, by the next section)."""
    marker = ANSWER_MARKER.search(source)
    ending = [m.start() for m in _ANY_HEADING.finditer(source) if len(m["hashes"]) <= level]
    ending += [m.start() for m in [_HEADING.search(source)] if m]
    return marker is not None and marker.start() < min(ending, default=len(source))


def list_exercises(notebook: nbformat.NotebookNode) -> list[Exercise]:
    """Every exercise of ``notebook``, in order, with its kind and its cells.

    An exercise runs from its heading to the next heading of the same or a higher level
    (``###`` ends at the next ``#``, ``##`` or ``###``), the next exercise, or the end.

    Raises:
        CourseError: for a kind not in :data:`KINDS`, unbalanced markers, or a solution block
            outside an exercise.
    """
    exercises: list[Exercise] = []
    current, level = None, 0
    for index, cell in enumerate(notebook.cells):
        answers = answer_blocks(cell.source, index) if cell.cell_type == "markdown" else []
        if cell.cell_type == "markdown":
            heading = _HEADING.search(cell.source)
            levels = [len(m["hashes"]) for m in _ANY_HEADING.finditer(cell.source)]
            if current is not None and (heading or any(n <= level for n in levels)):
                if answers and _answer_before_next_heading(cell.source, level):
                    current.answer_cells.append(index)  # the answer, then the next section
                current.end, current = index, None
            if heading:
                kind = heading["kind"].strip().lower()
                if kind not in KINDS:
                    raise CourseError(f"cell {index}: exercise kind {heading['kind']!r} is not "
                                      f"one of {', '.join(KINDS)}")
                current = Exercise(int(heading["number"]), kind,
                                   heading["task"].strip().rstrip("."), index,
                                   len(notebook.cells))
                level = len(heading["hashes"])
                exercises.append(current)
        solutions = (solution_blocks(cell.source.splitlines(), index)
                     if cell.cell_type == "code" else [])
        if solutions and current is None:
            raise CourseError(f"cell {index}: a solution block outside an exercise; put it "
                              f"below a '### Exercise N (kind): task' heading")
        if solutions:
            current.solution_cells.append(index)
        elif answers and current is not None:
            current.answer_cells.append(index)
    return exercises
