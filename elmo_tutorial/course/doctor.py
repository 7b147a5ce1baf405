"""``elmo-tutorial doctor``: what this environment can run, and what it is missing.

The report answers the questions asked first when a notebook fails on someone's machine:
which versions of Python, PyTorch, NumPy and nltk are installed; which device PyTorch sees
(CUDA and its GPU, Apple's MPS, or the CPU); how many threads it uses; and which datasets are
available locally, with how to get each missing one.

Example:
    >>> from elmo_tutorial.course.doctor import report
    >>> print(report())  # doctest: +SKIP
"""

from __future__ import annotations

import importlib
import os
import platform
import sys

from elmo_tutorial.analyses.embedding_cache import CACHE_VARIABLE, cache_problem
from elmo_tutorial.data.downloads import cache_dir
from elmo_tutorial.data.registry import REGISTRY, how_to_get, is_available
from elmo_tutorial.runtime import default_threads

__all__ = ["cache_lines", "dataset_status", "device_summary", "package_versions", "report"]

PACKAGES = ("torch", "numpy", "nltk", "h5py", "safetensors", "tqdm", "matplotlib",
            "ipywidgets", "jupyterlab")


def package_versions() -> dict[str, str]:
    """``{package: version}`` for Python and the packages the course uses ("missing" if absent)."""
    versions = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            module = importlib.import_module(name)
        except Exception as err:  # a broken install should be reported, not crash the report
            versions[name] = f"missing ({type(err).__name__})"
        else:
            versions[name] = getattr(module, "__version__", "installed")
    return versions


def device_summary() -> dict[str, str]:
    """The device PyTorch would use and its thread settings."""
    import torch


    info = {"cpu count": str(os.cpu_count()), "torch threads": str(torch.get_num_threads()),
            "training threads": f"{default_threads()} (one per core; --threads N)"}
    if torch.cuda.is_available():
        names = [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]
        info["device"] = f"CUDA {torch.version.cuda}: " + ", ".join(names)
    elif getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
        info["device"] = "MPS (Apple GPU)"
    else:
        info["device"] = "CPU (no CUDA or MPS device found)"
    for var in ("ELMO_TUTORIAL_DATA", "ELMO_TUTORIAL_CACHE", "NLTK_DATA", "ELMO_TUTORIAL_DEVICE"):
        info[var] = os.environ.get(var, "(unset)")
    for var, absent in missing_data_folders().items():
        info[var] += f"  <- no such folder: {', '.join(absent)}"
    return info


def missing_data_folders() -> dict[str, list[str]]:
    """The data variables that name folders that do not exist: ``{variable: [folder, ...]}``.

    A typo in ``ELMO_TUTORIAL_DATA`` or ``NLTK_DATA`` otherwise shows only as every dataset
    missing, which sends a user to download what is already on the disk.
    """
    problems = {}
    for var in ("ELMO_TUTORIAL_DATA", "NLTK_DATA"):  # NLTK_DATA may list several folders
        folders = [f for f in os.environ.get(var, "").strip().split(os.pathsep) if f]
        absent = [f for f in folders if not os.path.isdir(f)]
        if absent:
            problems[var] = absent
    return problems


def dataset_status() -> list[tuple[str, bool, str]]:
    """``(name, available, how to get it)`` for every registry entry."""
    rows = []
    for name in REGISTRY:
        ok = is_available(name)
        rows.append((name, ok, "" if ok else how_to_get(name)))
    return rows


def cache_lines() -> list[str]:
    """Where downloads and the embedding cache go, and whether they can be written there."""
    folder = cache_dir()
    problem = cache_problem(folder)
    state = (f"PROBLEM: {problem}; set {CACHE_VARIABLE} to a writable folder" if problem
             else "writable")
    return ["Cache", f"  {folder}  {state}"]


def _section(title: str, items: dict[str, str]) -> list[str]:
    width = max(len(k) for k in items)
    return [title] + [f"  {k.ljust(width)}  {v}" for k, v in items.items()]


def report() -> str:
    """The whole doctor report as text."""
    lines = _section("Versions", package_versions())
    lines += [f"  {'executable'.ljust(11)}  {sys.executable}", ""]
    lines += _section("Device", device_summary()) + [""]
    lines += cache_lines() + [""]
    rows = dataset_status()
    width = max(len(name) for name, _, _ in rows)
    lines.append("Datasets (available locally?)")
    lines += [f"  {name.ljust(width)}  {'yes' if ok else 'no'}" for name, ok, _ in rows]
    missing = [(name, how) for name, ok, how in rows if not ok]
    if missing:
        lines += ["", "To get the missing datasets:"]
        lines += [f"  first: {var} names {', '.join(absent)}, which does not exist, so nothing "
                  "is read from it: check the spelling"
                  for var, absent in missing_data_folders().items()]
        lines += [f"  {name}: {how}" for name, how in missing]
    return "\n".join(lines)
