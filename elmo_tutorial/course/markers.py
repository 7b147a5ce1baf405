"""The markers that fence a solution or a model answer in a course notebook: finding the
blocks they enclose, and replacing them in a student copy.

A code cell's solution sits between ``# BEGIN SOLUTION`` and ``# END SOLUTION`` lines; a
markdown cell's model answer between ``<!-- BEGIN ANSWER -->`` and ``<!-- END ANSWER -->``
lines. These are rules about lines of text, which student copies
(:mod:`elmo_tutorial.course.material`) and slides (:mod:`elmo_tutorial.course.slides`) apply
cell by cell; what makes an exercise (its heading, kind, number and task) is
:mod:`elmo_tutorial.course.exercises`, which re-exports every name here. A marker out of place
is the first thing a course tool can find wrong in a notebook, so :class:`CourseError` is
defined here too.

Example:
    >>> print(strip_answers("**Model answer.**\\n<!-- BEGIN ANSWER -->\\nGradients.\\n"
    ...                     "<!-- END ANSWER -->"))
    *Your answer:* …
"""

from __future__ import annotations

import json
import re

import nbformat

__all__ = ["ANSWER_BLANK", "ANSWER_MARKER", "CourseError", "answer_blocks", "has_answer",
           "has_solution", "solution_blocks", "strip_answers", "stub_source", "student_wording"]

ANSWER_BLANK = "*Your answer:* …"
# "**Model answer.**" on a line of its own above a model answer: a student copy drops it with
# the answer (a "**Prediction.**" label stays: it tells the student what to write there).
_MODEL_ANSWER_LABEL = re.compile(r"^\s*\*\*Model answer\.?\*\*\s*$")

_BEGIN = re.compile(r"^(?P<indent>[ \t]*)# BEGIN SOLUTION[ \t]*$")
_END = re.compile(r"^[ \t]*# END SOLUTION[ \t]*$")
ANSWER_MARKER = re.compile(r"<!--\s*(?P<which>BEGIN|END)\s+ANSWER\s*-->")


class CourseError(Exception):
    """A notebook or an output folder that the course tools cannot work with, and why."""


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


# "... before you open the model answer" / "the instructor's answer": a student copy has none
_OPEN_THE_ANSWER = re.compile(
    r"before\s+(?:you\s+open|opening)\s+the\s+(?:(?:model|instructor's)\s+)?answer")
STUDENT_WORDING = "before you compare with the instructor's notebook (in `notebooks/`)"


def student_wording(text: str) -> str:
    """``text`` with every pointer to an answer the student copy does not hold turned to the
    instructor's notebook, which holds it.

    >>> student_wording("Answer it before you open the instructor's answer.")
    "Answer it before you compare with the instructor's notebook (in `notebooks/`)."
    >>> student_wording("Write your interpretation before opening the answer.")
    "Write your interpretation before you compare with the instructor's notebook (in `notebooks/`)."
    """
    return _OPEN_THE_ANSWER.sub(STUDENT_WORDING, text)


def stub_source(source: str, message: str, cell: int = 0) -> str:
    """``source`` with each solution block replaced by ``raise NotImplementedError(message)``.

    >>> print(stub_source("def f(x):\\n    # BEGIN SOLUTION\\n    return x\\n    # END SOLUTION",
    ...                   "Exercise 1: return x"))
    def f(x):
        raise NotImplementedError("Exercise 1: return x")
    """
    lines = source.splitlines()
    for first, last, indent in reversed(solution_blocks(lines, cell)):
        lines[first:last + 1] = _raise_lines(message, indent)
    return "\n".join(lines)


STUB_WIDTH = 92  # characters per stub line: the editor's width, less a margin


def _raise_lines(message: str, indent: str) -> list[str]:
    """``raise NotImplementedError("...")``, its message cut at spaces into string pieces on
    lines of their own when one line would run past :data:`STUB_WIDTH`."""
    one = f"{indent}raise NotImplementedError({json.dumps(message, ensure_ascii=False)})"
    if len(one) <= STUB_WIDTH:
        return [one]
    room = STUB_WIDTH - len(indent) - 4 - 3  # the pieces' indent, quotes and ")"
    pieces, piece = [], ""
    for word in message.split(" "):
        if piece and len(piece) + 1 + len(word) > room:
            pieces.append(piece + " ")
            piece = word
        else:
            piece = f"{piece} {word}" if piece else word
    pieces.append(piece)
    quoted = [f"{indent}    {json.dumps(p, ensure_ascii=False)}" for p in pieces]
    return [f"{indent}raise NotImplementedError(", *quoted[:-1], quoted[-1] + ")"]


def has_solution(cell: nbformat.NotebookNode) -> bool:
    return cell.cell_type == "code" and bool(re.search(r"# (BEGIN|END) SOLUTION", cell.source))


def has_answer(cell: nbformat.NotebookNode) -> bool:
    return cell.cell_type == "markdown" and bool(ANSWER_MARKER.search(cell.source))
