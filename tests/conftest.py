"""Fixtures shared by several test files."""

import gc
import os
import shutil
import signal

import pytest
import torch
from _train_helpers import MICRO_CLI

from elmo_tutorial.commands.cli import main as cli

# Notebook 14 (the capstone) trains for 10 minutes; the notebooks the tests run (student copies,
# JupyterLab saves) take its one-minute version, as nbval does (Makefile).
os.environ.setdefault("ELMO_TUTORIAL_CAPSTONE", "quick")

# The tests' models are tiny: on one intra-op thread they run as fast, and use a third of the
# CPU time on a busy machine, where two threads wait for each other at every operation. Tests
# of thread counts set the count they test (training sets the run's own).
torch.set_num_threads(1)


def pytest_collection_finish(session):
    """What the collection imported (torch, matplotlib, every test module) lives until the end:
    keep it out of the garbage collector's full passes, which otherwise walk all of it again
    whenever a test builds many small lists (a corpus's sentences, a vocabulary)."""
    gc.freeze()


@pytest.fixture(autouse=True, scope="session")
def _temporary_runs(tmp_path_factory):
    """Notebook 14 trains into ELMO_TUTORIAL_RUNS: a notebook a test runs never writes into the
    repository's runs/, where a student's own run may be training."""
    os.environ["ELMO_TUTORIAL_RUNS"] = str(tmp_path_factory.mktemp("runs"))


class Hung(Exception):
    """A reader waited on a planted FIFO (raised by the ``alarm`` fixture)."""


@pytest.fixture
def alarm():
    """A reader that waits on a FIFO raises ``Hung`` after 10 seconds instead of hanging."""
    def ring(signum, frame):
        raise Hung("the reader waited on the planted file")

    previous = signal.signal(signal.SIGALRM, ring)
    signal.alarm(10)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


@pytest.fixture
def keep_threads():
    """Training and setup_notebook set the process's thread count; put it back afterwards."""
    threads = torch.get_num_threads()
    yield
    torch.set_num_threads(threads)


@pytest.fixture
def one_thread():
    """Small recurrent models run fastest, and steadiest on a busy machine, on one thread."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory):
    """A finished 4-step run made by the command line (checkpoints at steps 2 and 4)."""
    run = tmp_path_factory.mktemp("finished") / "run"
    assert cli(["train", "--out", str(run), *MICRO_CLI]) == 0
    return run


@pytest.fixture
def run_copy(finished_run, tmp_path):
    """A copy of the finished run that a test may change."""
    return shutil.copytree(finished_run, tmp_path / "run")
