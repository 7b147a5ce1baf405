"""Progress bars are drawn where someone watches them (a terminal, a notebook), never into a
log: `make demo > demo.log` used to write a thousand lines of redrawn bars."""

import io
import os
import subprocess
import sys

import pytest

from elmo_tutorial.runtime import PROJECT_AFTER, REPOSITORY, progress_bar, projected_finish


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_bar_is_off_in_a_log_and_on_a_terminal(monkeypatch):
    monkeypatch.delitem(sys.modules, "ipykernel", raising=False)
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert progress_bar(total=3).disable
    monkeypatch.setattr(sys, "stderr", _Terminal())
    assert not progress_bar(total=3).disable
    assert progress_bar(False, total=3).disable  # asked off, off everywhere


def test_a_long_bar_says_once_when_it_will_finish(monkeypatch):
    """On a loaded machine a capstone step took 30 times as long, and the bar looked hung."""
    monkeypatch.delitem(sys.modules, "ipykernel", raising=False)
    monkeypatch.setattr(sys, "stderr", _Terminal())
    bar = progress_bar(total=1875 + 100, initial=100, unit="step")
    bar.start_t -= 30.0  # 30 s for the first updates: 3 s a step
    for _ in range(PROJECT_AFTER + 5):
        bar.update(1)
    bar.close()
    printed = [line for line in sys.stderr.getvalue().replace("\r", "\n").splitlines()
               if line.startswith("at ")]
    assert len(printed) == 1 and "s a step: about 1 h 3" in printed[0], printed
    assert "min to go, finished near" in printed[0] and "quick" not in printed[0]  # no notebook


@pytest.mark.parametrize("seconds, says", [
    (0.5, None), (3.5, "about 11 min to go"), (100.0, "about 5 h 11 min to go")])
def test_the_projection_counts_what_is_left(seconds, says):
    line = projected_finish(10, 1875, seconds, notebook=True)
    assert line == says if says is None else says in line
    if line and "h " in line:  # hours away, in a notebook: the load, and the quick mode
        assert "busy or shared machine" in line and "ELMO_TUTORIAL_CAPSTONE=quick" in line


@pytest.mark.slow  # a subprocess
def test_training_into_a_log_writes_no_bar(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(REPOSITORY)}
    done = subprocess.run(
        [sys.executable, "-m", "elmo_tutorial", "train", "--config", "tiny", "--out",
         str(tmp_path / "run"), "--max_steps=3", "--eval_interval=0", "--threads=1"],
        capture_output=True, text=True, env=env, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "step/s" not in done.stderr and "\r" not in done.stderr, done.stderr[-500:]


def test_a_bar_that_is_off_counts_without_projecting(monkeypatch):
    monkeypatch.delitem(sys.modules, "ipykernel", raising=False)
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    bar = progress_bar(total=100, unit="step")
    for _ in range(PROJECT_AFTER + 1):
        bar.update(1)
    assert bar.disable and sys.stderr.getvalue() == ""
