"""Would int8 make the `small` model's LSTM faster on a CPU? Its products, float32 against int8.

Usage:  python benchmarks/bench_int8_products.py [--rounds 5] [--threads 1]

Embedding a corpus with the `small` biLM is mostly its LSTM layers' products (512 cells,
projection 128; ``benchmarks/RESULTS.md``, "Where a student waits"). PyTorch's dynamic int8
quantisation (``torch.ao.quantization.quantize_dynamic``: int8 weights, activations quantised
on the fly) is the off-the-shelf way to make such products cheaper. This script measures, per
product of one LSTM layer at the shapes of a batch of 64 sentences of 25 tokens:

- the input product of all time steps at once, ``(B·T, P) @ (P, 4C)``;
- the recurrent product of one step, ``(B, P) @ (P, 4C)``;
- the projection of one step, ``(B, C) @ (C, P)``;

float32 ``nn.Linear`` against its ``quantize_dynamic`` int8 copy (per-tensor weights, the
default), interleaved round by round; and the int8 result's error relative to the largest
float32 output. It also records whether ``quantize_dynamic`` accepts an ``nn.LSTM`` with a
projection (``proj_size``), which is how the package runs each layer.
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings
from functools import partial

import torch
from machine import cpu_name
from torch import nn
from torch.ao.quantization import quantize_dynamic

CELLS, PROJECTION, BATCH, STEPS = 512, 128, 64, 25
PRODUCTS = {  # name: (rows, in_features, out_features)
    "input product, all steps": (BATCH * STEPS, PROJECTION, 4 * CELLS),
    "recurrent product, one step": (BATCH, PROJECTION, 4 * CELLS),
    "projection, one step": (BATCH, CELLS, PROJECTION),
}


def microseconds(fn, repeats: int) -> float:
    fn()  # warm up: first calls pack weights and allocate
    start = time.perf_counter()
    for _ in range(repeats):
        fn()
    return (time.perf_counter() - start) / repeats * 1e6


def lstm_with_projection_quantises() -> str:
    lstm = nn.LSTM(PROJECTION, CELLS, proj_size=PROJECTION, batch_first=True)
    try:
        quantised = quantize_dynamic(nn.Sequential(lstm), {nn.LSTM}, dtype=torch.qint8)
        quantised(torch.randn(2, 3, PROJECTION))
    except (RuntimeError, AssertionError, ValueError) as error:
        return f"no ({type(error).__name__}: {str(error).splitlines()[0]})"
    return "yes"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    # torch.ao.quantization and quantised tensors are deprecated (torch says: move to torchao);
    # the notices would bury the table.
    warnings.filterwarnings("ignore", category=UserWarning)
    warnings.filterwarnings("ignore", category=DeprecationWarning)

    jobs = {}
    for name, (rows, k, n) in PRODUCTS.items():
        dense = nn.Linear(k, n)
        int8 = quantize_dynamic(nn.Sequential(dense), {nn.Linear}, dtype=torch.qint8)
        x = torch.randn(rows, k)
        with torch.inference_mode():
            reference = dense(x)
            error = float((int8(x) - reference).abs().max() / reference.abs().max())
        jobs[name] = (dense, int8, x, error)

    times = {(name, kind): [] for name in PRODUCTS for kind in ("float32", "int8")}
    with torch.inference_mode():
        for _ in range(args.rounds):
            for name, (dense, int8, x, _) in jobs.items():
                repeats = 20 if name.startswith("input") else 400
                times[name, "float32"].append(microseconds(partial(dense, x), repeats))
                times[name, "int8"].append(microseconds(partial(int8, x), repeats))

    print(f"CPU: {cpu_name()}, PyTorch {torch.__version__}; {args.threads} thread(s); "
          f"{args.rounds} rounds, interleaved; median µs per product")
    print()
    print("| product | shape | float32 µs | int8 µs | float32 / int8 | int8 error |")
    print("|---|---|--:|--:|--:|--:|")
    for name, (rows, k, n) in PRODUCTS.items():
        f32 = statistics.median(times[name, "float32"])
        i8 = statistics.median(times[name, "int8"])
        print(f"| {name} | ({rows}, {k}) @ ({k}, {n}) | {f32:.0f} | {i8:.0f} | {f32 / i8:.2f}× | "
              f"{jobs[name][3]:.1e} |")
    print()
    print("quantize_dynamic accepts nn.LSTM(proj_size=...):", lstm_with_projection_quantises())


if __name__ == "__main__":
    main()
