"""Why more threads can make training slower on a busy machine: 1 thread against 2.

Usage:  python benchmarks/bench_threads.py [--rounds 3] [--steps 4] [--write RESULTS.md]

Trains the ``small`` preset (embedded corpus, as in bench_training.py) in child processes, one
per variant of the OpenMP runtime, each alternating 1 and 2 intra-op threads
(``torch.set_num_threads``) every ``--steps`` steps, so that both see the same load. Variants:

- ``as installed``: PyTorch's OpenMP as it comes; its idle threads spin while they wait;
- ``OMP_WAIT_POLICY=PASSIVE``: waiting threads sleep instead of spinning;
- ``1 inter-op thread``: ``torch.set_num_interop_threads(1)``, to rule the inter-op pool out.

What is not varied, because training does not use it: DataLoader workers (batches are built
in the training process) and the tokenizer (the corpus is tokenized once, before the first step).
The children run one after another, variant by variant, ``--rounds`` times.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

SECTION = "## Threads on a busy machine (bench_threads.py)"
VARIANTS = {
    "as installed": {},
    "OMP_WAIT_POLICY=PASSIVE": {"OMP_WAIT_POLICY": "PASSIVE"},
    "1 inter-op thread": {"BENCH_INTEROP_THREADS": "1"},
}


def child(steps: int, alternations: int) -> None:
    """In a child process: tokens/s with 1 and with 2 threads, alternating; one JSON line."""
    import tempfile

    import torch

    if os.environ.get("BENCH_INTEROP_THREADS"):
        torch.set_num_interop_threads(int(os.environ["BENCH_INTEROP_THREADS"]))
    from elmo_tutorial.training.train import Trainer
    from elmo_tutorial.training.train_config import TrainConfig, apply_overrides

    config = apply_overrides(TrainConfig.preset("small"), {
        "corpus": "embedded", "threads": 1, "device": "cpu", "progress": False,
        "out_dir": tempfile.mkdtemp(), "eval_sentences": 10})
    trainer = Trainer(config)
    batches = iter(trainer._batches(0))
    result = {1: [], 2: [], "busy": os.getloadavg()[0]}  # the one-minute load
    for _ in range(alternations):
        for threads in (1, 2):
            torch.set_num_threads(threads)
            trainer.train_step(next(batches))  # warm-up at this thread count
            tokens, start = 0, time.perf_counter()
            for _ in range(steps):
                tokens += trainer.train_step(next(batches))["tokens"]
            result[threads].append(tokens / (time.perf_counter() - start))
    print(json.dumps(result))


def to_markdown(results: dict[str, list[dict]]) -> str:
    from machine import cpu_name

    busy = [r["busy"] for runs in results.values() for r in runs]
    lines = [SECTION, "",
             f"CPU: {cpu_name()}, {os.cpu_count()} cores; the `small` preset, embedded corpus. "
             f"Other programs kept {min(busy):.0f}–{max(busy):.0f} cores busy. Per variant: "
             "median (range) over all alternations of all its runs; the ratio is 2 threads "
             "over 1 thread within each alternation.", "",
             "| OpenMP | tokens/s, 1 thread | tokens/s, 2 threads | 2 threads ÷ 1 thread |",
             "|---|---|---|---|"]

    def spread(values, fmt):
        return (f"{format(statistics.median(values), fmt)} "
                f"({format(min(values), fmt)}–{format(max(values), fmt)})")

    for name, runs in results.items():
        one = [v for r in runs for v in r["1"]]
        two = [v for r in runs for v in r["2"]]
        ratio = [b / a for a, b in zip(one, two, strict=True)]
        lines.append(f"| {name} | {spread(one, '.0f')} | {spread(two, '.0f')} | "
                     f"{spread(ratio, '.2f')} |")
    return "\n".join(lines) + "\n"


def write_section(path: Path, text: str) -> None:
    old = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n\n"
    pattern = re.compile(re.escape(SECTION) + r".*?(?=^## |\Z)", re.S | re.M)
    new = pattern.sub(lambda _: text, old) if pattern.search(old) else old.rstrip() + "\n\n" + text
    path.write_text(new, encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--alternations", type=int, default=2)
    parser.add_argument("--write", type=Path, default=None)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.steps, args.alternations)
        return
    results: dict[str, list[dict]] = {name: [] for name in VARIANTS}
    for r in range(args.rounds):
        for name, env in VARIANTS.items():
            out = subprocess.run(
                [sys.executable, __file__, "--child", "--steps", str(args.steps),
                 "--alternations", str(args.alternations)],
                env={**os.environ, **env}, capture_output=True, text=True, check=True)
            results[name].append(json.loads(out.stdout.strip().splitlines()[-1]))
            print(f"round {r + 1}, {name}: {results[name][-1]}", flush=True)
    text = to_markdown(results)
    print(text)
    if args.write:
        write_section(args.write, text)


if __name__ == "__main__":
    main()
