"""Two trees of this package, before and after a change, timed on whole training commands.

Usage:  python benchmarks/bench_commands.py BEFORE AFTER [--rounds 3] [--jobs tiny,capstone,small]

BEFORE and AFTER are two checkouts, each with its own virtual environment in ``TREE/.venv``
(``python3 -m venv TREE/.venv && TREE/.venv/bin/pip install -e TREE``), or two Python
interpreters with a tree installed. Each job is one whole ``python -m elmo_tutorial train``
command, start-up, corpus and vocabulary included, into a fresh temporary ``--out`` folder:

- ``tiny``: the preset as shipped (600 steps);
- ``capstone``: the preset, capped at 200 steps;
- ``small``: the preset on the offline English mix, 2 threads, capped at 20 steps.

The caps keep each run near 30-60 s on a quiet 2-core machine. The two trees run in turn,
before then after, ``--rounds`` times, so that a drift of the machine's speed hits both alike;
printed per pair: the seconds of each, after / before, and the load average (1 min) before
and after the pair. The summary gives the medians and the median of the per-pair ratios.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

JOBS = {
    "tiny": ["--config", "tiny"],
    "capstone": ["--config", "capstone", "--max-steps=200"],
    "small": ["--config", "small", "--corpus=english_mix", "--threads=2", "--max-steps=20"],
}


def interpreter(tree_or_python: str) -> str:
    """A tree's own ``.venv`` interpreter, or the interpreter given."""
    if os.path.isdir(tree_or_python):
        return os.path.join(tree_or_python, ".venv", "bin", "python")
    return tree_or_python


def timed(python: str, args: list[str]) -> float:
    """Wall seconds of one whole ``train`` command into a fresh folder (it must succeed)."""
    with tempfile.TemporaryDirectory() as tmp:
        command = [python, "-m", "elmo_tutorial", "train", *args, "--out", os.path.join(tmp, "run")]
        start = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       cwd=tmp)
        return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--jobs", default=",".join(JOBS))
    options = parser.parse_args()
    before, after = interpreter(options.before), interpreter(options.after)
    summary = []
    for job in options.jobs.split(","):
        times = {"before": [], "after": []}
        ratios = []
        for pair in range(1, options.rounds + 1):
            load_start = os.getloadavg()[0]
            times["before"].append(timed(before, JOBS[job]))
            times["after"].append(timed(after, JOBS[job]))
            ratios.append(times["after"][-1] / times["before"][-1])
            print(f"{job} pair {pair}: before {times['before'][-1]:.1f} s, after "
                  f"{times['after'][-1]:.1f} s, after/before {ratios[-1]:.2f}, load "
                  f"{load_start:.1f} -> {os.getloadavg()[0]:.1f}", flush=True)
        summary.append((job, statistics.median(times["before"]),
                        statistics.median(times["after"]), statistics.median(ratios),
                        min(ratios), max(ratios)))
    print("\n| job | before (s) | after (s) | after/before, median of pairs (range) |")
    print("|---|--:|--:|--:|")
    for job, t_before, t_after, ratio, low, high in summary:
        print(f"| {job} | {t_before:.1f} | {t_after:.1f} | {ratio:.2f} ({low:.2f}-{high:.2f}) |")


if __name__ == "__main__":
    sys.exit(main())
