"""What a shared machine does to a student's run: a whole `train` command, alone and beside
busy programs.

Usage:  python benchmarks/bench_busy.py [--config tiny] [--busy 2] [--rounds 2] [--max-steps N]

Each round times the whole command (``elmo-tutorial train --config CONFIG`` into a temporary
folder) once with the machine as it is and once beside ``--busy`` processes that spin on a
core each, in that order, so that a drift of the machine's speed hits both alike. Printed: the
wall-clock seconds of each run, and busy ÷ alone per round. On an otherwise idle machine this
is the figure a student on a shared one should expect.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import statistics
import subprocess
import sys
import tempfile
import time


def spin() -> None:
    while True:
        pass


def timed_train(config: str, max_steps: int | None, *flags: str) -> float:
    """Seconds of one whole ``train --config CONFIG`` command (and ``flags``) into a new folder."""
    with tempfile.TemporaryDirectory() as tmp:
        command = [sys.executable, "-m", "elmo_tutorial", "train", "--config", config,
                   "--out", os.path.join(tmp, "run"), "--progress", "false", *flags]
        if max_steps:
            command += ["--max-steps", str(max_steps)]
        start = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="tiny")
    parser.add_argument("--busy", type=int, default=2, help="spinning processes beside it")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--max-steps", type=int, default=None)
    args = parser.parse_args()
    alone, busy = [], []
    for _ in range(args.rounds):
        alone.append(timed_train(args.config, args.max_steps))
        spinners = [mp.Process(target=spin, daemon=True) for _ in range(args.busy)]
        for p in spinners:
            p.start()
        try:
            busy.append(timed_train(args.config, args.max_steps))
        finally:
            for p in spinners:
                p.terminate()
                p.join()
    ratios = [b / a for a, b in zip(alone, busy, strict=True)]
    print(f"{args.config}, {os.cpu_count()} cores, beside {args.busy} busy process(es)")
    print("alone (s):", " ".join(f"{t:.1f}" for t in alone))
    print("busy (s): ", " ".join(f"{t:.1f}" for t in busy))
    print(f"busy ÷ alone: median {statistics.median(ratios):.2f} "
          f"({min(ratios):.2f}-{max(ratios):.2f})")


if __name__ == "__main__":
    main()
