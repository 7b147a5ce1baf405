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
The markers' own rules (finding a block, replacing it) are :mod:`elmo_tutorial.course.markers`,
whose names this module re-exports; this one says what makes an exercise.

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

import re
from dataclasses import dataclass, field

import nbformat

from elmo_tutorial.course.markers import (
    ANSWER_BLANK,
    ANSWER_MARKER,
    CourseError,
    answer_blocks,
    has_answer,
    has_solution,
    solution_blocks,
    strip_answers,
    stub_source,
    student_wording,
)

__all__ = [
    "ANSWER_BLANK", "KINDS", "STUB_ADVICE", "CourseError", "Exercise", "ExerciseHeading",
    "answer_blocks", "find_exercises", "has_answer", "has_solution", "list_exercises",
    "plain_text", "solution_blocks", "strip_answers", "student_wording", "stub_source",
]

KINDS = ("implement", "predict", "experiment", "explain")
# What a stub's error tells the student to do, Run All having stopped there.
STUB_ADVICE = ("Replace this line with your code (Run All stops here until you do; then run "
               "this cell and the ones below it).")
_DEF = re.compile(r"^[ \t]*def (?P<name>\w+)\s*\(")
# "### Exercise 2 (predict): the loss", "### Exercise 2: ...", "## 5. Exercise: the joint loss"
_HEADING = re.compile(r"^(?P<hashes>#+)\s*(?:\d+\.\s*)?Exercise(?:\s+(?P<number>\d+))?"
                      r"(?:\s*\((?P<kind>[^)]*)\))?\s*[:.]\s*(?P<task>.+)$", re.MULTILINE)
_ANY_HEADING = re.compile(r"^(?P<hashes>#{1,6})\s", re.MULTILINE)
# "**Exercise.** Write `f(x)`: ..." (an exercise announced inside a paragraph)
_INLINE = re.compile(r"\*\*Exercise[^*]*\*\*\s*(?P<task>[^:.\n]+)")


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
    marker = ANSWER_MARKER.search(source)
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
