"""Reproducible runs: seeds, threads, devices and print precision in one call."""

from __future__ import annotations

import os
import random

import numpy as np
import torch


def seed_everything(seed: int = 0) -> None:
    """Seed Python's, NumPy's and PyTorch's generators (all devices)."""
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def setup_notebook(seed: int = 0, threads: int | None = 2, precision: int = 4) -> torch.device:
    """Make a notebook deterministic and readable; return the device it should use.

    Seeds every generator, fixes the number of CPU threads (results of a float reduction can
    depend on how it is split across threads), and prints tensors with ``precision`` decimals.
    The device is the CPU unless the environment variable ``ELMO_TUTORIAL_DEVICE`` names
    another (``cuda``, ``mps``): notebooks are checked on the CPU, and run faster on a GPU
    when you ask for one.
    """
    seed_everything(seed)
    if threads is not None:
        torch.set_num_threads(max(1, min(threads, os.cpu_count() or 1)))
    torch.set_printoptions(precision=precision, sci_mode=False, linewidth=100)
    np.set_printoptions(precision=precision, suppress=True, linewidth=100)
    return torch.device(os.environ.get("ELMO_TUTORIAL_DEVICE", "cpu"))
