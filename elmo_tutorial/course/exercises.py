"""The exercises of a course notebook: their headings, solution blocks and model answers.

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
ANSWER_BLANK = "*Your answer:* …"
# What a stub's error tells the student to do, Run All having stopped there.
STUB_ADVICE = ("Replace this line with your code (Run All stops here until you do; then run "
               "this cell and the ones below it).")
# "**Model answer.**" on a line of its own above a model answer: a student copy drops it with
# the answer (a "**Prediction.**" label stays: it tells the student what to write there).
_MODEL_ANSWER_LABEL = re.compile(r"^\s*\*\*Model answer\.?\*\*\s*$")

_BEGIN = re.compile(r"^(?P<indent>[ \t]*)# BEGIN SOLUTION[ \t]*$")
_END = re.compile(r"^[ \t]*# END SOLUTION[ \t]*$")
_ANSWER_MARKER = re.compile(r"<!--\s*(?P<which>BEGIN|END)\s+ANSWER\s*-->")
_DEF = re.compile(r"^[ \t]*def (?P<name>\w+)\s*\(")
# "### Exercise 2 (predict): the loss", "### Exercise 2: ...", "## 5. Exercise: the joint loss"
_HEADING = re.compile(r"^(?P<hashes>#+)\s*(?:\d+\.\s*)?Exercise(?:\s+(?P<number>\d+))?"
                      r"(?:\s*\((?P<kind>[^)]*)\))?\s*[:.]\s*(?P<task>.+)$", re.MULTILINE)
_ANY_HEADING = re.compile(r"^(?P<hashes>#{1,6})\s", re.MULTILINE)
# "**Exercise.** Write `f(x)`: ..." (an exercise announced inside a paragraph)
_INLINE = re.compile(r"\*\*Exercise[^*]*\*\*\s*(?P<task>[^:.\n]+)")


class CourseError(Exception):
    """A notebook or an output folder that the course tools cannot work with, and why."""


@dataclass
class ExerciseHeading:
    """One exercise as its heading announces it, with the cells that belong to it.

    Attributes:
        number: the number in the heading (``None`` if it has none).
        kind: one of :data:`KINDS`, or ``None`` for a heading without one.
        task: what to do (``"write layer norm"``).
        cell: index of the markdown cell holding the heading.
        end: index of the first cell after the exercise (the next heading's cell, or the end).
        solution_cells: code cells of the exercise with a ``# BEGIN SOLUTION`` block.
        answer_cells: markdown cells of the exercise with an answer block.
    """

    number: int | None
    kind: str | None
    task: str
    cell: int
    end: int
    solution_cells: list[int] = field(default_factory=list)
    answer_cells: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class Exercise:
    """One code cell with solution blocks, as the student copy stubs it.

    Attributes:
        cell: index of the code cell holding the solution block(s).
        number: the exercise's number: its heading's, else 1, 2, ... in notebook order.
        function: the function the solution sits in (None if it is at top level).
        task: what to do, from the exercise's heading (``"write layer norm"``).
        heading_number: the number the notebook's heading gives it, if any.
    """

    cell: int
    number: int
    function: str | None
    task: str
    heading_number: int | None = None

    @property
    def message(self) -> str:
        """The text of the stub's NotImplementedError: the task as plain text (no math or
        markdown markup), then what to do.

        >>> Exercise(3, 4, None, "which $w$ gives the mix you want?").message.split(" Replace")[0]
        'Exercise 4: which w gives the mix you want?'
        """
        task = plain_text(self.task)
        end = "" if task.endswith((".", "?", "!")) else "."
        return f"Exercise {self.number}: {task}{end} {STUB_ADVICE}"


_MATH = re.compile(r"\$(?P<math>[^$]+)\$")
_LATEX_COMMAND = re.compile(r"\\(?P<name>[A-Za-z]+)")
_GREEK = {name: chr(code) for name, code in (
    ("alpha", 0x3B1), ("beta", 0x3B2), ("gamma", 0x3B3), ("delta", 0x3B4), ("epsilon", 0x3B5),
    ("varepsilon", 0x3B5), ("lambda", 0x3BB), ("mu", 0x3BC), ("sigma", 0x3C3),
    ("tau", 0x3C4), ("theta", 0x3B8), ("Sigma", 0x3A3))}


def _plain_math(math: str) -> str:
    r"""``$...$`` math as plain text: ``\mathrm{ELMo}_k`` → ``ELMo_k``, ``\gamma`` → ``γ``."""
    math = _LATEX_COMMAND.sub(lambda m: _GREEK.get(m["name"], ""), math)
    return math.replace("{", "").replace("}", "").strip()


def plain_text(markdown: str) -> str:
    r"""A heading's markdown as plain text, for a message: math without its ``$`` markup and
    LaTeX commands, no emphasis stars, no code backticks.

    >>> plain_text("which $w$ gives *the* mix of `h_j`, $\\gamma \\mathrm{ELMo}_k$?")
    'which w gives the mix of h_j, γ ELMo_k?'
    """
    text = _MATH.sub(lambda m: _plain_math(m["math"]), markdown)
    text = re.sub(r"\*{1,2}(\S(?:.*?\S)?)\*{1,2}", r"\1", text)
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
    """(first line, last line) of each ``<!-- BEGIN ANSWER -->`` ... ``<!-- END ANSWER -->``
    block of a markdown cell's ``text``, markers included.

    Raises:
        CourseError: naming the cell and line of a marker that is unbalanced or shares its
            line with other text.
    """
    blocks, begin = [], None
    for number, line in enumerate(text.split("\n")):
        marker = _ANSWER_MARKER.search(line)
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
        else:
            if begin is None:
                raise CourseError(f"{where} has no '<!-- BEGIN ANSWER -->' before it")
            blocks.append((begin, number))
            begin = None
    if begin is not None:
        raise CourseError(f"cell {cell}: '<!-- BEGIN ANSWER -->' on line {begin + 1} is never "
                          f"closed by '<!-- END ANSWER -->'")
    return blocks


def strip_answers(text: str, cell: int = 0, blank: str = ANSWER_BLANK) -> str:
    """``text`` (markdown) with every answer block, markers included, replaced by ``blank``;
    a "**Model answer.**" line just above a block goes with it, so that the student's blank
    is not announced as a model answer.
    """
    lines = text.split("\n")
    for first, last in reversed(answer_blocks(text, cell)):
        above = first - 1
        while above >= 0 and not lines[above].strip():  # blank lines between label and block
            above -= 1
        if above >= 0 and _MODEL_ANSWER_LABEL.match(lines[above]):
            first = above
        lines[first:last + 1] = [blank]
    return "\n".join(lines)


def stub_source(source: str, message: str, cell: int = 0) -> str:
    """``source`` with each solution block replaced by ``raise NotImplementedError(message)``.

    >>> print(stub_source("def f(x):\\n    # BEGIN SOLUTION\\n    return x\\n    # END SOLUTION",
    ...                   "Exercise 1: return x"))
    def f(x):
        raise NotImplementedError("Exercise 1: return x")
    """
    lines = source.splitlines()
    for first, last, indent in reversed(solution_blocks(lines, cell)):
        stub = f"{indent}raise NotImplementedError({json.dumps(message, ensure_ascii=False)})"
        lines[first:last + 1] = [stub]
    return "\n".join(lines)


def has_solution(cell: nbformat.NotebookNode) -> bool:
    return cell.cell_type == "code" and bool(re.search(r"# (BEGIN|END) SOLUTION", cell.source))


def has_answer(cell: nbformat.NotebookNode) -> bool:
    return cell.cell_type == "markdown" and bool(_ANSWER_MARKER.search(cell.source))


def list_exercises(notebook: nbformat.NotebookNode) -> list[ExerciseHeading]:
    """Every exercise heading of ``notebook``, in order, with its kind and its cells.

    An exercise runs from its heading to the next heading of the same or a higher level
    (``###`` ends at the next ``#``, ``##`` or ``###``), the next exercise (also one announced
    as ``**Exercise.**`` in a paragraph), or the notebook's end.

    Raises:
        CourseError: for a kind that is not one of :data:`KINDS`, or unbalanced markers.
    """
    exercises: list[ExerciseHeading] = []
    current: ExerciseHeading | None = None
    level = 0
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type == "markdown":
            heading = _HEADING.search(cell.source)
            levels = [len(m["hashes"]) for m in _ANY_HEADING.finditer(cell.source)]
            ends = heading or _INLINE.search(cell.source) or any(n <= level for n in levels)
            if current is not None and ends:
                if _answer_before_next_heading(cell.source, level, index):
                    current.answer_cells.append(index)  # the answer, then the next section
                current.end, current = index, None
            if heading:
                kind = heading["kind"].strip().lower() if heading["kind"] else None
                if kind is not None and kind not in KINDS:
                    raise CourseError(f"cell {index}: exercise kind {heading['kind']!r} is not "
                                      f"one of {', '.join(KINDS)}")
                number = int(heading["number"]) if heading["number"] else None
                current = ExerciseHeading(number, kind, heading["task"].strip().rstrip("."),
                                          index, len(notebook.cells))
                level = len(heading["hashes"])
                exercises.append(current)
            if has_answer(cell):
                answer_blocks(cell.source, index)  # validates the markers
        if current is not None:
            if has_solution(cell):
                solution_blocks(cell.source.splitlines(), index)
                current.solution_cells.append(index)
            elif has_answer(cell) and answer_blocks(cell.source, index):
                current.answer_cells.append(index)
    return exercises


def _answer_before_next_heading(source: str, level: int, cell: int) -> bool:
    """Whether a markdown cell that ends an exercise holds an answer block above the heading
    that ends it (a model answer followed, in the same cell, by the next section)."""
    marker = _ANSWER_MARKER.search(source)
    if marker is None or marker["which"] != "BEGIN":
        return False
    answer_blocks(source, cell)  # validates the markers
    ending = [m.start() for m in _ANY_HEADING.finditer(source) if len(m["hashes"]) <= level]
    ending += [m.start() for m in (_HEADING.search(source), _INLINE.search(source)) if m]
    return marker.start() < min(ending, default=len(source))


def _inline_task(cells: list, index: int) -> str | None:
    """The task of an exercise announced as ``**Exercise.** ...`` in the text above ``index``."""
    for cell in reversed(cells[:index]):
        if cell.cell_type == "code":
            break
        inline = _INLINE.search(cell.source) if cell.cell_type == "markdown" else None
        if inline:
            return inline["task"].strip()
    return None


def find_exercises(notebook: nbformat.NotebookNode) -> list[Exercise]:
    """Every code cell with a ``# BEGIN SOLUTION`` block, with the number and task of the
    exercise it belongs to.

    Raises:
        CourseError: for a block that is not closed, or an END without a BEGIN.
    """
    owner = {cell: heading for heading in list_exercises(notebook)
             for cell in heading.solution_cells}
    exercises = []
    for index, cell in enumerate(notebook.cells):
        if not has_solution(cell):
            continue
        lines = cell.source.splitlines()
        blocks = solution_blocks(lines, index)
        functions = [_DEF.match(line)["name"] for line in lines[:blocks[0][0]] if _DEF.match(line)]
        function = functions[-1] if functions else None
        heading = owner.get(index)
        task = heading.task if heading else _inline_task(notebook.cells, index)
        if task is None:
            task = f"write the body of `{function}`" if function else "write the missing code"
        heading_number = heading.number if heading else None
        number = heading_number if heading_number is not None else (
            exercises[-1].number + 1 if exercises else 1)
        exercises.append(Exercise(index, number, function, task, heading_number))
    return exercises
