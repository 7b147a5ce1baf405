"""A micro training configuration shared by the trainer's tests (seconds on a CPU)."""

import os
import subprocess
import sys
from pathlib import Path

from elmo_tutorial.training.train_config import TrainConfig, apply_overrides

MICRO = {
    "model.char_embed_dim": 4, "model.filters": [[1, 8], [2, 8]], "model.n_highway": 1,
    "model.lstm_dim": 16, "model.projection_dim": 8, "model.n_layers": 2,
    "batch_size": 8, "max_steps": 6, "eval_interval": 0, "eval_sentences": 20,
    "checkpoint_interval": 2, "log_interval": 1, "threads": 1, "progress": False,
    "device": "cpu", "warmup_steps": 2, "schedule": "cosine",
}


def micro_config(out_dir, **overrides) -> TrainConfig:
    """The tiny preset shrunk to a few thousand parameters, with dropout and sampling on so
    that resuming must restore the random generators exactly."""
    values = {**MICRO, "dropout": 0.2, "sampled_softmax": 40, "out_dir": str(out_dir),
              **overrides}
    return apply_overrides(TrainConfig.preset("tiny"), values)


# The same micro model as command-line flags (``elmo-tutorial train --out RUN *MICRO_CLI``):
# 4 steps, checkpoints at steps 2 and 4, no dropout or sampling (a resumed run is exact anyway).
MICRO_CLI = [
    "--model.lstm_dim=16", "--model.projection_dim=8", "--model.filters=[[1, 8]]",
    "--model.char_embed_dim=4", "--batch_size=8", "--max_steps=4", "--checkpoint_interval=2",
    "--threads=1", "--eval_sentences=10", "--progress=false", "--device=cpu",
]

# Sizes at which the thread count changes the numbers: with 32 sentences (about 700 tokens)
# and projections of 64, the gradient of the character CNN's projection bias sums more than
# 32 768 numbers, which PyTorch splits between its threads; 1 and 2 threads then differ in
# the last bits from the fourth batch on. (At the micro sizes above they never differ.)
THREAD_SENSITIVE = {"model.lstm_dim": 64, "model.projection_dim": 64, "batch_size": 32}


# MICRO_CLI without its length and checkpoint interval, for a run that a test stops itself.
MICRO_CLI_OPEN = [f for f in MICRO_CLI if not f.startswith(("--max_steps",
                                                             "--checkpoint_interval"))]


def start_endless_training(run, *more: str, **popen) -> subprocess.Popen:
    """``elmo-tutorial train`` of the micro model into ``run``, until it is stopped: a log line
    every step, no checkpoint but the one a stop writes; this checkout first on its path.
    ``more`` are further flags, ``popen`` goes to ``subprocess.Popen`` (stderr is piped)."""
    repository = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [repository, *filter(None, [os.environ.get("PYTHONPATH")])])}
    return subprocess.Popen(
        [sys.executable, "-m", "elmo_tutorial", "train", "--out", str(run), *MICRO_CLI_OPEN, *more,
         "--max_steps=1000000", "--checkpoint_interval=1000000", "--log_interval=1"],
        stderr=subprocess.PIPE, text=True, env=env, **popen)
