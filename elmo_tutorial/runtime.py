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
    another (``cuda``, ``cuda:1``, ``mps``): notebooks are checked on the CPU, and the ones
    that train or run models (04-07) move them to this device, so they run faster on a GPU
    when you ask for one (their numbers then differ from the committed ones in the last
    digits).

    Raises:
        RuntimeError: ``ELMO_TUTORIAL_DEVICE`` names a device PyTorch cannot use here.
    """
    seed_everything(seed)
    if threads is not None:
        torch.set_num_threads(max(1, min(threads, os.cpu_count() or 1)))
    torch.set_printoptions(precision=precision, sci_mode=False, linewidth=100)
    np.set_printoptions(precision=precision, suppress=True, linewidth=100)
    return notebook_device()


def notebook_device() -> torch.device:
    """The device named by ``ELMO_TUTORIAL_DEVICE`` (default: the CPU), checked to be usable."""
    name = os.environ.get("ELMO_TUTORIAL_DEVICE", "cpu").strip() or "cpu"
    try:
        device = torch.device(name)
    except RuntimeError as err:
        raise RuntimeError(f"ELMO_TUTORIAL_DEVICE={name!r} is not a device name ({err}); use "
                           "cpu, cuda, cuda:N or mps") from None
    usable = {
        "cpu": True,
        "cuda": torch.cuda.is_available()
        and (device.index is None or device.index < torch.cuda.device_count()),
        "mps": getattr(torch.backends, "mps", None) is not None
        and torch.backends.mps.is_available(),
    }.get(device.type, False)
    if not usable:
        raise RuntimeError(f"ELMO_TUTORIAL_DEVICE={name!r}, but PyTorch cannot use that device "
                           "here (`elmo-tutorial doctor` shows what it sees); unset the variable "
                           "to run on the CPU")
    return device


def best_device() -> torch.device:
    """CUDA if available, then Apple's MPS, else the CPU."""
    if torch.cuda.is_available():
        return torch.device("cuda")
    if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")
