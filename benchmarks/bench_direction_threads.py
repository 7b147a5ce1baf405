"""The biLM's directions at once (two threads) against one thread, on whole `train` commands.

Usage:  python benchmarks/bench_direction_threads.py [--config tiny] [--rounds 3] [--busy 0]
        [--max-steps N]

Each round times ``elmo-tutorial train --config CONFIG --threads 1`` (the directions one after
the other) and ``--threads 2`` (one thread per direction, ``elmo_tutorial/fast/directions.py``)
in turn, each into a fresh temporary folder, start-up and corpus included; the two train the
same bits. With ``--busy N``, N processes spin on a core each for the whole benchmark, as other
programs on a shared machine would. Printed: the seconds of each run, and per round the one
thread's time over the two threads' (above 1: the threads are faster).
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import statistics

from bench_busy import spin, timed_train


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="tiny")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--busy", type=int, default=0, help="spinning processes beside it")
    parser.add_argument("--max-steps", type=int, default=None)
    args = parser.parse_args()
    spinners = [mp.Process(target=spin, daemon=True) for _ in range(args.busy)]
    for p in spinners:
        p.start()
    ratios = []
    try:
        for round_ in range(1, args.rounds + 1):
            one = timed_train(args.config, args.max_steps, "--threads", "1")
            two = timed_train(args.config, args.max_steps, "--threads", "2")
            ratios.append(one / two)
            print(f"round {round_}: 1 thread {one:6.1f} s   2 threads {two:6.1f} s   "
                  f"1 / 2 = {one / two:.2f}   load {os.getloadavg()[0]:.1f}", flush=True)
    finally:
        for p in spinners:
            p.terminate()
            p.join()
    print(f"median 1 thread / 2 threads: {statistics.median(ratios):.2f} "
          f"({min(ratios):.2f}-{max(ratios):.2f}), {args.busy} busy processes beside")


if __name__ == "__main__":
    main()
