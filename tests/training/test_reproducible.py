"""Same seed, same bits: training with dropout gives the same weights however it is run.

The trainer seeds PyTorch's generator once and every checkpoint holds every random state
(torch's, NumPy's, Python's), so runs started side by side, runs sharing a machine with other
programs, and runs killed and resumed all train the very same weights.
"""

import os
import random
import signal
import subprocess
import sys
import time

import pytest
from safetensors.torch import load_file

from elmo_tutorial.training.checkpoints import latest_checkpoint

# The tiny preset with dropout: every step draws masks from the global generator.
TRAIN = ["--config", "tiny", "--dropout=0.1", "--threads=1", "--max_steps=12",
         "--checkpoint_interval=2", "--eval_interval=0", "--eval_sentences=20",
         "--progress=false", "--device=cpu"]


def _command(out, *more) -> list[str]:
    return [sys.executable, "-m", "elmo_tutorial", "train", "--out", str(out), *TRAIN, *more]


def _weights(run) -> dict:
    return load_file(str(run / "model.safetensors"))


def _assert_same_bits(a: dict, b: dict, what: str) -> None:
    assert a.keys() == b.keys()
    different = [name for name in a if not a[name].equal(b[name])]
    assert not different, f"{what}: {len(different)} tensors differ, e.g. {different[:3]}"


@pytest.mark.slow  # three commands at once
def test_three_runs_started_together_with_dropout_train_identical_weights(tmp_path):
    runs = [tmp_path / f"run{i}" for i in range(3)]
    procs = [subprocess.Popen(_command(run), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True) for run in runs]
    for proc in procs:
        _, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err[-2000:]
    first = _weights(runs[0])
    for run in runs[1:]:
        _assert_same_bits(first, _weights(run), f"{run.name} against run0")


def _kill_at_a_random_moment(out, rng: random.Random, busy: subprocess.Popen) -> bool:
    """Start (or resume) the run and SIGKILL it a random moment after its first checkpoint;
    True if it finished before the kill."""
    resume = ["--resume"] if latest_checkpoint(out) else []
    proc = subprocess.Popen(_command(out, *resume), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while not latest_checkpoint(out) and proc.poll() is None:
        assert time.monotonic() < deadline, "no checkpoint after 300 s"
        time.sleep(0.05)
    time.sleep(rng.uniform(0.0, 1.5))
    if proc.poll() is not None:
        return True
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    return False


@pytest.mark.slow  # several commands, killed
def test_a_run_killed_four_times_and_resumed_equals_the_uninterrupted_run(tmp_path):
    reference = tmp_path / "reference"
    subprocess.run(_command(reference), check=True, capture_output=True, timeout=600)
    # Another program keeps a core busy meanwhile: the load must not change the numbers.
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        out, rng, kills = tmp_path / "killed", random.Random(os.getpid()), 0
        while kills < 4 and not _kill_at_a_random_moment(out, rng, busy):
            kills += 1
        # resumed without --threads: the run keeps the count its config.json recorded
        command = [a for a in _command(out, "--resume") if not a.startswith("--threads")]
        result = subprocess.run(command, capture_output=True, text=True, timeout=600)
        assert result.returncode == 0, result.stderr[-2000:]
    finally:
        busy.kill()
        busy.wait()
    assert kills >= 1, "the run was never interrupted: the test checked nothing"
    _assert_same_bits(_weights(reference), _weights(out), f"after {kills} kills and resumes")
