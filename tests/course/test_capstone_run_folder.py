"""The capstone's run cell (notebook 14): the student copy's run folder is its own, a temporary
one in the tests, and running the cell again resumes or loads what the folder holds, never
deleting it.
"""

from __future__ import annotations

import os
import shutil

import nbformat
import pytest
import torch

from elmo_tutorial.course.material import NOTEBOOKS, STUDENT_RUNS, student_copy
from elmo_tutorial.training.checkpoints import latest_checkpoint
from elmo_tutorial.training.train import Trainer
from elmo_tutorial.training.train_config import TrainConfig, apply_overrides

SOLVED = nbformat.read(NOTEBOOKS / "14_your_own_bilm.ipynb", as_version=4)


def _run_cell(notebook: nbformat.NotebookNode, runs, last: str = "run_dir = ") -> dict:
    """The capstone's run cell of ``notebook``, executed up to the line starting with ``last``,
    with ELMO_TUTORIAL_RUNS set to ``runs``: the names it defined."""
    lines = next(c.source for c in notebook.cells if c.cell_type == "code"
                 and "\nrun_dir = " in c.source).splitlines()
    upto = next(i for i, line in enumerate(lines) if line.startswith(last))
    scope = {"os": os, "REPOSITORY": NOTEBOOKS.parent, "TrainConfig": TrainConfig,
             "apply_overrides": apply_overrides, "latest_checkpoint": latest_checkpoint,
             "Trainer": Trainer, "MyBiLM": None, "device": torch.device("cpu")}
    with pytest.MonkeyPatch.context() as env:
        env.setenv("ELMO_TUTORIAL_RUNS", str(runs))
        exec("\n".join(lines[:upto + 1]), scope)
    return scope


@pytest.mark.parametrize("quick", ["quick", ""])
def test_the_student_capstone_trains_into_its_own_run_folder(quick, monkeypatch, tmp_path):
    """Both copies in one runs folder, each in a run folder of its own."""
    monkeypatch.setenv("ELMO_TUTORIAL_CAPSTONE", quick)
    assert any(key in c.source for c in SOLVED.cells for key in STUDENT_RUNS), "rewrite unused"
    instructor = _run_cell(SOLVED, tmp_path)["run_dir"]
    student = _run_cell(student_copy(SOLVED), tmp_path)["run_dir"]
    assert instructor.parent == student.parent == tmp_path
    assert instructor != student and student.name.startswith("student-")
    assert _run_cell(SOLVED, "runs")["run_dir"] == NOTEBOOKS.parent / "runs" / instructor.name


def test_the_run_cell_resumes_a_finished_run_whose_checkpoints_were_removed(finished_run,
                                                                            tmp_path,
                                                                            monkeypatch):
    """A finished run whose checkpoints the student removed to save space is resumed, which
    loads its final weights (tests/training/test_checkpoints.py), never trained afresh."""
    monkeypatch.setenv("ELMO_TUTORIAL_CAPSTONE", "quick")
    run_dir = _run_cell(SOLVED, tmp_path)["run_dir"]
    shutil.copytree(finished_run, run_dir)
    shutil.rmtree(run_dir / "checkpoints")
    assert _run_cell(SOLVED, tmp_path, last="started = ")["started"]
