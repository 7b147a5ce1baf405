"""Modules that moved into the packages (files, tasks, course) still import by their old names,
so a student copy made before the move keeps working, and the warning says where they went."""

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import elmo_tutorial
from elmo_tutorial import MOVED

PACKAGE = Path(elmo_tutorial.__file__).parent


@pytest.mark.parametrize(("old", "new"), sorted(MOVED.items()))
def test_an_old_name_gives_the_moved_module_with_a_warning(old, new):
    """One module under two names (not a copy: a monkeypatch or a class check sees one)."""
    sys.modules.pop(f"elmo_tutorial.{old}", None)
    with pytest.warns(FutureWarning, match=f"moved to elmo_tutorial.{new}"):
        module = importlib.import_module(f"elmo_tutorial.{old}")
    assert module is importlib.import_module(f"elmo_tutorial.{new}")
    assert not (PACKAGE / f"{old}.py").exists()  # no stale copy beside the alias


@pytest.mark.slow  # a subprocess, several processes or a whole command
def test_a_notebook_of_before_the_move_still_runs_its_imports():
    code = ("from elmo_tutorial.task_experiments import prepare_task\n"
            "from elmo_tutorial.task_model import TaskModel\n"
            "from elmo_tutorial.tasks import TaskModel as Same\n"
            "assert TaskModel is Same\n")
    done = subprocess.run([sys.executable, "-W", "error::DeprecationWarning", "-c", code],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "moved to elmo_tutorial.tasks.experiments" in done.stderr


def test_a_helper_that_moved_to_the_fast_paths_is_found_through_its_old_module():
    """Old code: ``from elmo_tutorial.char_cnn import conv1d_max`` (now a fast path)."""
    from elmo_tutorial.fast.char_cnn import conv1d_max

    sys.modules.pop("elmo_tutorial.char_cnn", None)
    with pytest.warns(FutureWarning, match="moved to elmo_tutorial.fast.char_cnn"):
        from elmo_tutorial.char_cnn import conv1d_max as old  # noqa: F401
    assert old is conv1d_max
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        _ = importlib.import_module("elmo_tutorial.model.char_cnn").no_such_name
