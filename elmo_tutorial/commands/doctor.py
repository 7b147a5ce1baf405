"""``elmo-tutorial doctor``: print versions, device, threads and dataset availability."""

from __future__ import annotations

import argparse

DESCRIPTION = """\
Print the versions of Python, PyTorch, NumPy, nltk and the other packages the course uses,
the device PyTorch sees (CUDA GPU, Apple MPS or CPU), its thread count, the CPU count, and
which datasets are available locally, with how to get each missing one.

Run it first when something fails, and paste its output into bug reports."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The doctor takes no options."""


def run(args: argparse.Namespace) -> int:
    from elmo_tutorial.course.doctor import report

    print(report())
    return 0
