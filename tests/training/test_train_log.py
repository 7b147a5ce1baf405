"""The training log's plot leaves matplotlib as the user set it up."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from elmo_tutorial.training.train_log import TrainLog, plot_log, read_log

ROOT = Path(__file__).resolve().parents[2]


def _log(run_dir: Path) -> TrainLog:
    log = TrainLog(run_dir)
    for step in (10, 20):
        log.train(step, 0, {"loss": 8.0 - step / 10, "grad_norm": 1.0}, 0.01, 1000.0)
    log.eval(20, {"fwd_nll": 3.0, "bwd_nll": 3.2, "fwd_ppl": 20.1, "bwd_ppl": 24.5,
                  "avg_ppl": 22.2})
    return log


def test_plot_writes_a_png_and_returns_a_two_panel_figure(tmp_path):
    log = _log(tmp_path)
    log.plot(baseline=30.0)
    assert (tmp_path / "loss.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    fig = plot_log(read_log(tmp_path))
    assert len(fig.axes) == 2


@pytest.mark.slow  # a subprocess, several processes or a whole command
def test_saving_the_plot_keeps_the_users_backend_and_pyplot_state(tmp_path):
    # A notebook's inline backend used to be switched to Agg by training, so a later
    # plt.show() drew nothing. Run with a non-Agg backend and check nothing changed.
    script = f"""
import matplotlib, matplotlib.pyplot as plt
from pathlib import Path
import sys
sys.path.insert(0, {str(ROOT)!r}); sys.path.insert(0, {str(Path(__file__).parent)!r})
from test_train_log import _log
before = matplotlib.get_backend()
_log(Path({str(tmp_path)!r})).plot()
assert matplotlib.get_backend() == before, (before, matplotlib.get_backend())
assert plt.get_fignums() == [], plt.get_fignums()
print("ok", before)
"""
    env = {**os.environ, "MPLBACKEND": "svg"}
    result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok svg"
    assert (tmp_path / "loss.png").exists()


NOT_EVENTS = ['{"kind": "train", "step": 30, "lo', '{"kind": "eval", "st']  # cut short


def test_lines_cut_short_are_passed_over(tmp_path):
    log = _log(tmp_path)
    with open(log.path, "a", encoding="utf-8") as file:
        file.write("\n".join(NOT_EVENTS) + "\n")
    events = read_log(tmp_path)
    assert [(e["kind"], e["step"]) for e in events] == [("train", 10), ("train", 20),
                                                        ("eval", 20)]
    log.plot()  # draws what is there
    assert (tmp_path / "loss.png").exists()


def test_a_resume_goes_on_past_lines_cut_short(run_copy, capsys):
    from _train_helpers import MICRO_CLI

    from elmo_tutorial.commands.cli import main as cli

    (run_copy / "model.safetensors").unlink()
    with open(run_copy / "log.jsonl", "a", encoding="utf-8") as file:
        file.write("\n".join(NOT_EVENTS) + "\n")
    assert cli(["train", "--out", str(run_copy), *MICRO_CLI, "--max_steps=6", "--resume"]) == 0
    assert read_log(run_copy)[-1]["step"] == 6
    assert (run_copy / "model.safetensors").exists() and (run_copy / "loss.png").exists()
