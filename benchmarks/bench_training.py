"""Training throughput of the biLM presets: tokens/s and model FLOPs utilisation (MFU).

Usage:  python benchmarks/bench_training.py [--presets tiny small] [--threads 0 1 2]
        [--rounds 5] [--steps 5] [--device cpu] [--write benchmarks/RESULTS.md]

``--threads 0`` is the package's default, what ``elmo-tutorial train`` uses without
``--threads``: ``runtime.default_threads()``, decided once when the run starts.

One "token" is one predicted word per direction (what the loss averages over). A step is
exactly what ``Trainer.train_step`` does: forward, joint loss, backward, clipping, optimiser
update, on a real bucketed batch of the embedded corpus (the same sentences for every preset,
so only the model differs; its vocabulary of about 600 words is smaller than the ``small``
preset's 1024 sampled negatives, so both presets train the full softmax here). FLOPs are
counted by ``torch.utils.flop_counter.FlopCounterMode`` on one step (matmuls and
convolutions, forward and backward; elementwise ops not counted). MFU divides
the achieved FLOP/s by the peak of this machine *measured* as a large float32 matmul on the same
threads, right after, so it says how well the model's shapes use the hardware, not a datasheet
fraction.

On a shared machine the load changes from one second to the next, so the configurations are
interleaved: every round runs each of them for ``--steps`` steps (in a rotated order), and the
table gives the median over the rounds with the range.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path

import torch
from machine import cpu_name, matmul_peak
from torch.utils.flop_counter import FlopCounterMode

from elmo_tutorial.runtime import available_cores
from elmo_tutorial.training.train import Trainer
from elmo_tutorial.training.train_config import TrainConfig, apply_overrides

SECTION = "## Training throughput (bench_training.py)"


@dataclass
class Job:
    """One configuration: a trainer and what its rounds measured."""

    preset: str
    asked: int  # --threads as given (0 = the default)
    threads: int  # what that meant when the run started
    trainer: Trainer
    flops_per_token: float
    next_batch: int = 1
    tokens_per_s: list[float] = field(default_factory=list)
    peaks: list[float] = field(default_factory=list)


def make_job(preset: str, threads: int, device: str, out_dir: Path) -> Job:
    config = apply_overrides(TrainConfig.preset(preset), {
        "corpus": "embedded", "threads": threads, "device": device, "progress": False,
        "out_dir": str(out_dir / f"{preset}-{threads}"), "eval_sentences": 10})
    trainer = Trainer(config)  # with threads 0 it picks the default, as a training run does
    with FlopCounterMode(display=False) as counter:
        trainer.train_step(trainer._batches(0)[0])
    return Job(preset, threads, torch.get_num_threads(), trainer,
               counter.get_total_flops() / trainer.last_tokens)


def run_round(job: Job, steps: int) -> None:
    """One warm-up step, ``steps`` timed steps and a matmul peak, on the job's threads."""
    torch.set_num_threads(job.threads)
    batches, trainer = job.trainer._batches(0), job.trainer
    trainer.train_step(batches[job.next_batch])
    tokens, start = 0, time.perf_counter()
    for i in range(job.next_batch + 1, job.next_batch + 1 + steps):
        tokens += trainer.train_step(batches[i])["tokens"]
    if trainer.dist.device.type == "cuda":
        torch.cuda.synchronize()
    job.tokens_per_s.append(tokens / (time.perf_counter() - start))
    job.peaks.append(matmul_peak(trainer.dist.device, repeats=5))
    job.next_batch += steps + 1


def summary(job: Job) -> dict:
    mfu = [job.flops_per_token * t / p for t, p in zip(job.tokens_per_s, job.peaks, strict=True)]
    params = sum(p.numel() for p in job.trainer.model.parameters())
    return {"preset": job.preset, "threads": job.threads,
            "asked": "default" if job.asked == 0 else str(job.asked),
            "params_M": params / 1e6, "gflop_per_token": job.flops_per_token / 1e9,
            "tokens_per_s": job.tokens_per_s, "peak_gflops": [p / 1e9 for p in job.peaks],
            "mfu": mfu}


def _spread(values: list[float], fmt: str) -> str:
    return (f"{format(statistics.median(values), fmt)} "
            f"({format(min(values), fmt)}–{format(max(values), fmt)})")


def to_markdown(rows: list[dict], rounds: int, steps: int, busy: list[float]) -> str:
    lines = [SECTION, "",
             f"CPU: {cpu_name()}, {available_cores()} cores, PyTorch {torch.__version__}; "
             f"float32; embedded corpus. {rounds} rounds of {steps} steps per configuration, "
             "interleaved; median (range) over the rounds. Other programs kept about "
             f"{min(busy):.0f}–{max(busy):.0f} cores busy (the one-minute load average at "
             "each round).", "",
             "| preset | params | GFLOP/token | threads | tokens/s | matmul peak GFLOP/s | "
             "MFU |", "|---" * 7 + "|"]
    for r in rows:
        threads = (f"default → {r['threads']}" if r["asked"] == "default" else r["asked"])
        lines.append(
            f"| {r['preset']} | {r['params_M']:.2f} M | {r['gflop_per_token']:.4f} | {threads} "
            f"| {_spread(r['tokens_per_s'], '.0f')} | {_spread(r['peak_gflops'], '.0f')} | "
            f"{_spread([100 * m for m in r['mfu']], '.0f')} % |")
    lines += ["", "tokens/s counts predicted words per direction. FLOPs: FlopCounterMode on one "
              "training step (forward + backward matmuls and convolutions).", ""]
    return "\n".join(lines)


def write_section(path: Path, text: str) -> None:
    """Replace this benchmark's section of RESULTS.md (or add it), keeping the others."""
    old = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n\n"
    pattern = re.compile(re.escape(SECTION) + r".*?(?=^## |\Z)", re.S | re.M)
    new = pattern.sub(lambda _: text, old) if pattern.search(old) else old.rstrip() + "\n\n" + text
    path.write_text(new, encoding="utf-8")


def main() -> None:
    import tempfile

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presets", nargs="+", default=["tiny", "small"])
    parser.add_argument("--threads", nargs="+", type=int, default=[0, 1, 2],
                        help="thread counts to compare; 0 = the package's default")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=5, help="timed steps per round")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--write", type=Path, default=None, help="RESULTS.md to update")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        jobs = [make_job(preset, threads, args.device, Path(tmp))
                for preset in args.presets for threads in args.threads]
        need = (args.steps + 1) * args.rounds + 1
        short = [j.preset for j in jobs if len(j.trainer._batches(0)) < need]
        if short:
            raise SystemExit(f"{short}: fewer than {need} batches in an epoch; fewer --rounds")
        busy = []
        for r in range(args.rounds):
            busy.append(os.getloadavg()[0])  # the one-minute load: the other programs
            for job in jobs[r % len(jobs):] + jobs[: r % len(jobs)]:  # rotate the order
                run_round(job, args.steps)
            print(f"round {r + 1}: " + ", ".join(
                f"{j.preset}/{j.asked}→{j.threads}: {j.tokens_per_s[-1]:.0f} tok/s"
                for j in jobs), flush=True)
    text = to_markdown([summary(j) for j in jobs], args.rounds, args.steps, busy)
    print(text)
    if args.write:
        write_section(args.write, text)


if __name__ == "__main__":
    main()
