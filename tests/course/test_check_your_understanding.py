"""Every notebook ends with a "Check your understanding" section: one markdown cell after the
Summary, with 6 to 10 numbered questions, each followed by its own model answer between answer
markers, so that the instructor's notebook has the answers and the student copy none of them.
"""

import re

import nbformat
import pytest

from elmo_tutorial.course.exercises import ANSWER_BLANK, ANSWER_MARKER, marker_blocks
from elmo_tutorial.course.material import notebook_paths, student_copy

HEADING = "## Check your understanding"
QUESTION = re.compile(r"(\d+)\. \S")
LONGEST_ANSWER = 500  # characters: a few sentences, not an essay


def questionnaire(notebook):
    """[(number, question, answer)] of the notebook's last cell, checked for its layout."""
    cell = notebook.cells[-1]
    assert cell.cell_type == "markdown" and cell.source.startswith(HEADING + "\n"), (
        f"the last cell must be markdown starting with {HEADING!r}")
    lines = cell.source.split("\n")
    blocks = [(first, last) for first, last, _ in
              marker_blocks(lines, ANSWER_MARKER, len(notebook.cells) - 1)]
    starts = [i for i, line in enumerate(lines) if QUESTION.match(line)]
    assert starts and starts[0] > 1, "an introduction line, then questions numbered '1. ...'"
    items = []
    for k, start in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(lines)
        inside = [(first, last) for first, last in blocks if start < first and last < end]
        assert len(inside) == 1, (
            f"question {QUESTION.match(lines[start])[1]} needs exactly one answer block before "
            f"the next question, not {len(inside)}")
        first, last = inside[0]
        question = " ".join(line.strip() for line in lines[start:first]).strip()
        answer = " ".join(lines[first + 1:last]).strip()
        items.append((int(QUESTION.match(lines[start])[1]), question, answer))
    assert len(blocks) == len(items), "every answer block belongs to a question"
    return items


@pytest.mark.parametrize("path", notebook_paths(), ids=lambda p: p.stem)
def test_notebook_ends_with_questions_each_with_an_answer(path):
    notebook = nbformat.read(path, as_version=4)
    assert any(re.match(r"## Summary\b", line) for line in notebook.cells[-2].source.split("\n")), (
        f"{path.name}: the questions come right after the cell with the '## Summary' section")
    items = questionnaire(notebook)
    assert 6 <= len(items) <= 10, f"{path.name}: {len(items)} questions, not 6 to 10"
    assert [number for number, _, _ in items] == list(range(1, len(items) + 1)), (
        f"{path.name}: questions must be numbered 1..{len(items)}")
    for number, _, answer in items:
        assert answer, f"{path.name}, question {number} has an empty answer"
        assert len(answer) <= LONGEST_ANSWER, (
            f"{path.name}, question {number}: an answer of {len(answer)} characters; keep it "
            f"to a few sentences")


@pytest.mark.parametrize("path", notebook_paths(), ids=lambda p: p.stem)
def test_student_copy_keeps_the_questions_and_none_of_the_answers(path):
    notebook = nbformat.read(path, as_version=4)
    items = questionnaire(notebook)
    copy = student_copy(notebook).cells[-1].source
    assert "ANSWER" not in copy
    assert copy.count(ANSWER_BLANK) == len(items)
    flat = " ".join(copy.split())
    for number, question, answer in items:
        assert question in flat, f"{path.name}: question {number} is missing from the copy"
        assert answer not in flat, f"{path.name}: the answer to question {number} is in the copy"
    assert notebook.cells[-1].source.startswith(HEADING), "the original must not change"
