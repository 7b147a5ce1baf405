"""What a training step's CPU time is made of: matrix products, elementwise kernels, the rest.

Usage:  python benchmarks/profile_training_ops.py [--preset small] [--threads 2] [--steps 6]

``bench_training.py`` reports the model FLOPs utilisation (MFU) of a step: its products' FLOPs
over the time, against this machine's measured float32 matmul peak. This script says why the
MFU is what it is. It runs the same step (``Trainer.train_step`` on the embedded corpus's
bucketed batches, as ``bench_training.py`` does) under ``torch.profiler`` and sorts the self
CPU time of every operator into

- **products**: ``mm``, ``addmm``, ``bmm`` and convolutions, the only kernels the FLOP count
  counts;
- **elementwise, reductions, copies**: every other ATen kernel that touches data (gate
  activations, the cell update, ``cat``, ``copy_``, sums, the optimiser's update, ...);
- **views and framework**: ATen views (``t``, ``transpose``, ``as_strided``, ...), the
  self time of composite operators that only call others (``lstm``, ``linear``, ``matmul``)
  and what is not an ATen kernel (autograd's bookkeeping).

From the MFU and the products' share it derives how fast the products themselves run (MFU /
share, as a fraction of the peak) and the MFU a step would reach if everything but its
products took no time at all: the ceiling for any change that keeps PyTorch's products.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections import Counter
from pathlib import Path

import torch
from bench_training import make_job
from machine import cpu_name, matmul_peak
from torch.profiler import profile

PRODUCTS = {"aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::addbmm",
            "aten::_convolution", "aten::mkldnn_convolution", "aten::convolution"}
VIEWS = {"aten::t", "aten::transpose", "aten::as_strided", "aten::view", "aten::reshape",
         "aten::_reshape_alias", "aten::expand", "aten::slice", "aten::select", "aten::unbind",
         "aten::unsqueeze", "aten::squeeze", "aten::permute", "aten::narrow", "aten::split",
         "aten::unsafe_split", "aten::chunk", "aten::unsafe_chunk", "aten::detach",
         "aten::alias", "aten::empty", "aten::empty_like", "aten::empty_strided",
         "aten::resize_", "aten::contiguous", "aten::_unsafe_view", "aten::lift_fresh",
         "aten::matmul", "aten::linear", "aten::lstm", "aten::result_type", "aten::to",
         "aten::_to_copy"}


def category(op: str) -> str:
    if op in PRODUCTS:
        return "products"
    if op.startswith("aten::") and op not in VIEWS:
        return "elementwise, reductions, copies"
    return "views and framework"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="small", choices=["tiny", "small"])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--steps", type=int, default=6, help="profiled steps (after 2 warm-up)")
    parser.add_argument("--top", type=int, default=12, help="operators listed one by one")
    args = parser.parse_args()

    job = make_job(args.preset, args.threads, "cpu", Path(tempfile.mkdtemp()))
    trainer, batches = job.trainer, job.trainer._batches(0)
    torch.set_num_threads(job.threads)
    for batch in batches[1:3]:
        trainer.train_step(batch)
    tokens = 0
    with profile() as prof:
        start = time.perf_counter()
        for batch in batches[3:3 + args.steps]:
            tokens += trainer.train_step(batch)["tokens"]
        seconds = time.perf_counter() - start
    peak = matmul_peak("cpu", repeats=5)

    by_category: Counter = Counter()
    by_operator: Counter = Counter()
    for event in prof.key_averages():
        by_category[category(event.key)] += event.self_cpu_time_total
        by_operator[event.key] += event.self_cpu_time_total
    total = sum(by_category.values())
    mfu = job.flops_per_token * tokens / seconds / peak
    share = by_category["products"] / total

    print(f"CPU: {cpu_name()}; preset {args.preset}; threads {job.threads}; torch "
          f"{torch.__version__}; {args.steps} steps, {seconds / args.steps * 1e3:.0f} ms each "
          "under the profiler")
    print(f"{'self CPU time (calling thread)':34s} {'ms per step':>12s} {'share':>7s}")
    for name, micros in by_category.most_common():
        print(f"{name:34s} {micros / 1e3 / args.steps:12.1f} {micros / total:7.1%}")
    print(f"\nthe {args.top} largest operators (ms per step): " + ", ".join(
        f"{name.removeprefix('aten::')} {micros / 1e3 / args.steps:.1f}"
        for name, micros in by_operator.most_common(args.top)))
    print(f"matmul peak {peak / 1e9:.0f} GFLOP/s; MFU {mfu:.0%} (under the profiler)")
    print(f"the products run at {mfu / share:.0%} of the peak; with everything else free the "
          f"MFU would be at most {mfu / share:.0%}, and {0.6 / (mfu / share):.0%} of the step "
          "would have to be products for an MFU of 60 %")


if __name__ == "__main__":
    main()
