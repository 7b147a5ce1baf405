"""What machine a benchmark ran on: its CPU's name and its measured fp32 matmul peak."""

from __future__ import annotations

import platform
import statistics
import time

import torch


def cpu_name() -> str:
    """The CPU's model name from ``/proc/cpuinfo`` (e.g. "AMD EPYC"), else what Python knows."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def matmul_peak(
    device: str | torch.device = "cpu",
    shapes: tuple[tuple[int, int, int], ...] = ((1024, 1024, 1024),),
    repeats: int = 10,
) -> float:
    """The best fp32 FLOP/s of ``(m, k) @ (k, n)`` products over ``shapes`` (median of
    ``repeats`` timings each), on the current threads: the peak a benchmark compares with."""
    device = torch.device(device)
    best = 0.0
    for m, k, n in shapes:
        a, b = torch.randn(m, k, device=device), torch.randn(k, n, device=device)
        a @ b  # warm-up
        seconds = []
        for _ in range(repeats):
            start = time.perf_counter()
            a @ b
            if device.type == "cuda":
                torch.cuda.synchronize()
            seconds.append(time.perf_counter() - start)
        best = max(best, 2 * m * k * n / statistics.median(seconds))
    return best
