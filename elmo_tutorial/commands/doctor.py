"""``elmo-tutorial doctor``: what this environment can run, and what it is missing."""

from __future__ import annotations

import argparse
import importlib
import os
import platform
import sys

from elmo_tutorial.analyses.embedding_cache import CACHE_VARIABLE, cache_problem
from elmo_tutorial.data.downloads import cache_dir
from elmo_tutorial.data.registry import REGISTRY, how_to_get, is_available
from elmo_tutorial.runtime import default_threads

DESCRIPTION = """\
The versions of Python and the packages the course uses; the device PyTorch sees, its threads
and the CPU count; where the data and the caches are; which datasets are available locally,
with how to get each missing one. Run it first when something fails, and paste its output
into bug reports."""

PACKAGES = ("torch", "numpy", "nltk", "h5py", "safetensors", "tqdm", "matplotlib",
            "ipywidgets", "jupyterlab")
VARIABLES = ("ELMO_TUTORIAL_DATA", "ELMO_TUTORIAL_CACHE", "NLTK_DATA", "ELMO_TUTORIAL_DEVICE")


def package_versions() -> dict[str, str]:
    """``{package: version}`` for Python and the packages the course uses ("missing" if absent)."""
    versions = {"python": platform.python_version(), "executable": sys.executable}
    for name in PACKAGES:
        try:
            versions[name] = getattr(importlib.import_module(name), "__version__", "installed")
        except Exception as err:  # a broken install is reported, not a crash of the report
            versions[name] = f"missing ({type(err).__name__})"
    return versions


def device_summary() -> dict[str, str]:
    """The device PyTorch would use, its thread settings and the environment variables."""
    import torch

    info = {"cpu count": str(os.cpu_count()), "torch threads": str(torch.get_num_threads()),
            "training threads": f"{default_threads()} (one per core; --threads N)"}
    if torch.cuda.is_available():
        names = [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]
        info["device"] = f"CUDA {torch.version.cuda}: " + ", ".join(names)
    elif torch.backends.mps.is_available():
        info["device"] = "MPS (Apple GPU)"
    else:
        info["device"] = "CPU (no CUDA or MPS device found)"
    for var in VARIABLES:
        info[var] = os.environ.get(var, "(unset)")
    problem = cache_problem(cache_dir())
    info["cache"] = f"{cache_dir()}  " + (
        f"PROBLEM: {problem}; set {CACHE_VARIABLE} to a writable folder" if problem
        else "writable")
    return info


def _section(title: str, items: dict[str, str]) -> list[str]:
    width = max(len(k) for k in items)
    return [title] + [f"  {k.ljust(width)}  {v}" for k, v in items.items()]


def report() -> str:
    """The whole doctor report as text."""
    available = {name: is_available(name) for name in REGISTRY}
    lines = _section("Versions", package_versions()) + [""]
    lines += _section("Device", device_summary()) + [""]
    lines += _section("Datasets (available locally?)",
                      {name: "yes" if ok else "no" for name, ok in available.items()})
    if not all(available.values()):
        lines += ["", "To get the missing datasets:"]
        lines += [f"  {name}: {how_to_get(name)}" for name, ok in available.items() if not ok]
    return "\n".join(lines)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The doctor takes no options."""


def run(args: argparse.Namespace) -> int:
    print(report())
    return 0
