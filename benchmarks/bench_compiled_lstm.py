"""Would ``torch.compile`` make the `small` model's LSTM faster on a CPU? One layer, three ways.

Usage:  python benchmarks/bench_compiled_lstm.py [--rounds 3] [--threads 2]

A third of a `small` training step on a CPU is elementwise work around the LSTM's products
(gate activations, the cell update, copies; ``profile_training_ops.py``). A compiler that
fuses it into one loop per time step is the usual remedy, and ``torch.compile`` (TorchInductor,
which writes and builds C++ on a CPU) is PyTorch's own. This script runs one LSTM layer of the
`small` shapes (a batch of 64 sentences of 25 tokens, input 128, 512 cells, projection 128),
forward + backward and forward alone (``no_grad``), as:

- **nn.LSTM**: what the package runs (``lstm.LSTMStack``, no clipping);
- **eager loop**: the package's fast loop, ``fast.lstm.lstmp_sequence_columns`` (what the
  trainer and the ``Embedder`` run for the paper's clipped weights): the input product of all
  steps at once, then per step one ``addmm`` and the elementwise update;
- **compiled step**: one step (``addmm`` + the elementwise update of ``lstmp.lstmp_step``, in
  rows) through ``torch.compile`` (static shapes), the loop over the time steps still in
  Python.

It prints the time the first compiled call took (compilation), the largest difference from
``nn.LSTM``'s output, and the median milliseconds per call over the rounds (jobs interleaved
round by round). ``torch.compile`` needs a C++ compiler on a CPU; without one the compiled
job is reported as unavailable.
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings

import torch
from machine import cpu_name
from torch import Tensor, nn

from elmo_tutorial.fast.lstm import lstmp_sequence_columns

BATCH, STEPS, INPUT, CELLS, PROJECTION = 64, 25, 128, 512, 128


def step(xw_t: Tensor, h: Tensor, c: Tensor, w_hh: Tensor, w_hr: Tensor):
    """One time step, rows as ``nn.LSTM``: ``xw_t (B, 4C)`` = the input's product with both
    biases; ``h (B, P)``, ``c (B, C)`` → the next ``h``, ``c`` (``lstmp.lstmp_step`` without
    clipping, its input product done before)."""
    i, f, g, o = torch.addmm(xw_t, h, w_hh.t()).chunk(4, dim=-1)  # each (B, C)
    c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
    return (torch.sigmoid(o) * torch.tanh(c)) @ w_hr.t(), c  # (B, P), (B, C)


def run_steps(step_fn, lstm: nn.LSTM, x: Tensor) -> Tensor:
    """``x (B, T, I)`` → ``(B, T, P)`` with ``step_fn`` in a Python loop over the time steps."""
    xw = nn.functional.linear(x, lstm.weight_ih_l0, lstm.bias_ih_l0 + lstm.bias_hh_l0)
    h = x.new_zeros(x.shape[0], lstm.proj_size)
    c = x.new_zeros(x.shape[0], lstm.hidden_size)
    outputs = []
    for t in range(x.shape[1]):
        h, c = step_fn(xw[:, t], h, c, lstm.weight_hh_l0, lstm.weight_hr_l0)
        outputs.append(h)
    return torch.stack(outputs, dim=1)


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--calls", type=int, default=10, help="timed calls per job and round")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    warnings.filterwarnings("ignore", message="LSTM with projections")  # no oneDNN kernel
    torch.manual_seed(0)
    lstm = nn.LSTM(INPUT, CELLS, proj_size=PROJECTION, batch_first=True)
    x = torch.randn(BATCH, STEPS, INPUT, requires_grad=True)

    weights = [getattr(lstm, f"{name}_l0") for name in
               ("weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_hr")]
    forwards = {"nn.LSTM": lambda: lstm(x)[0],
                "eager loop": lambda: lstmp_sequence_columns(x, *weights)}
    compiled = torch.compile(step, dynamic=False)
    try:
        seconds = timed(lambda: run_steps(compiled, lstm, x).sum().backward())
        forwards["compiled step"] = lambda: run_steps(compiled, lstm, x)
        print(f"torch.compile: first forward + backward {seconds:.1f} s (compilation)")
    except Exception as error:  # no C++ compiler, or an unsupported platform
        print(f"torch.compile unavailable here: {type(error).__name__}: {error}"[:300])
    with torch.no_grad():
        reference = lstm(x)[0]
        for name, forward in forwards.items():
            difference = (forward() - reference).abs().max()
            print(f"{name}: largest difference from nn.LSTM {difference:.1e}")

    jobs = {}
    for name, forward in forwards.items():
        jobs[f"{name}, forward + backward"] = lambda f=forward: f().sum().backward()
        jobs[f"{name}, forward (no_grad)"] = lambda f=forward: torch.no_grad()(f)()
    times = {name: [] for name in jobs}
    for _ in range(args.rounds):
        for name, job in jobs.items():
            job()  # warm-up
            times[name].append(statistics.median(timed(job) for _ in range(args.calls)))

    print(f"\nCPU: {cpu_name()}; threads: {args.threads}; torch {torch.__version__}; one layer, "
          f"batch {BATCH} x {STEPS} steps, {CELLS} cells, projection {PROJECTION}")
    print(f"{'job':42s} {'ms per call (median, range)':>30s} {'nn.LSTM / job':>14s}")
    for name, values in times.items():
        base = times[name.replace(name.split(',')[0], "nn.LSTM")]
        ratios = [b / v for b, v in zip(base, values, strict=True)]
        print(f"{name:42s} {statistics.median(values) * 1e3:12.1f} "
              f"({min(values) * 1e3:.1f}-{max(values) * 1e3:.1f}) "
              f"{statistics.median(ratios):13.2f}x")


if __name__ == "__main__":
    main()
