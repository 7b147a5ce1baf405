"""Every notebook of the course has at least three exercises of at least two kinds.

Each exercise opens with ``### Exercise N (kind): task``, numbered 1..N in notebook order;
an implement or experiment exercise has a ``# BEGIN SOLUTION`` block (which the student copy
stubs), a predict or explain exercise a model answer between answer markers (which the student
copy blanks and the slides reveal on a click).
"""

from pathlib import Path

import nbformat
import pytest

from elmo_tutorial.course.exercises import KINDS, list_exercises
from elmo_tutorial.course.material import notebook_paths

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"


@pytest.mark.parametrize("path", notebook_paths(NOTEBOOKS), ids=lambda p: p.stem)
def test_each_notebook_has_three_exercises_of_two_kinds_numbered_in_order(path):
    exercises = list_exercises(nbformat.read(path, as_version=4))
    summary = [(e.number, e.kind, e.task) for e in exercises]
    assert len(exercises) >= 3, f"{path.name} has {len(exercises)} exercises: {summary}"
    untyped = [e.number for e in exercises if e.kind not in KINDS]
    assert not untyped, (f"{path.name}: exercises {untyped} have no kind; write their headings "
                         f"as '### Exercise N (implement|predict|experiment|explain): task'")
    kinds = {e.kind for e in exercises}
    assert len(kinds) >= 2, f"{path.name}: every exercise is of kind {kinds}"
    assert [e.number for e in exercises] == list(range(1, len(exercises) + 1)), (
        f"{path.name}: exercises must be numbered 1..{len(exercises)} in order: {summary}")
    for e in exercises:
        where = f"{path.name}, exercise {e.number} ({e.kind}, cell {e.cell})"
        if e.kind in ("implement", "experiment"):
            assert e.solution_cells, f"{where}: no '# BEGIN SOLUTION' block before the next heading"
        else:
            assert e.answer_cells, f"{where}: no answer block before the next heading"
