"""Progress bars are drawn where someone watches them (a terminal, a notebook), never into a
log: `make demo > demo.log` used to write a thousand lines of redrawn bars."""

import io
import os
import subprocess
import sys

import pytest

from elmo_tutorial.runtime import REPOSITORY, progress_bar


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


@pytest.mark.slow  # a subprocess
def test_training_into_a_log_writes_no_bar(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(REPOSITORY)}
    done = subprocess.run(
        [sys.executable, "-m", "elmo_tutorial", "train", "--config", "tiny", "--out",
         str(tmp_path / "run"), "--max_steps=3", "--eval_interval=0", "--threads=1"],
        capture_output=True, text=True, env=env, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "step/s" not in done.stderr and "\r" not in done.stderr, done.stderr[-500:]
