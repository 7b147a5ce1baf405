"""Training throughput of the biLM presets: tokens/s and model FLOPs utilisation (MFU).

Usage:  python benchmarks/bench_training.py [--presets tiny small] [--threads 1 2]
        [--steps 10] [--device cpu] [--write benchmarks/RESULTS.md]

One "token" is one predicted word per direction (what the loss averages over). A step is
exactly what ``Trainer.train_step`` does: forward, joint loss, backward, clipping, optimiser
update, on a real bucketed batch of the embedded corpus (the same sentences for every preset,
so only the model differs; the ``small`` preset's sampled softmax makes its cost independent of
the vocabulary size). FLOPs are counted by ``torch.utils.flop_counter.FlopCounterMode`` on one
step (matmuls and convolutions, forward and backward; elementwise ops not counted). MFU divides
the achieved FLOP/s by the peak of this machine *measured* as a large float32 matmul on the same
threads, so it says how well the model's shapes use the hardware, not a datasheet fraction.
"""

from __future__ import annotations

import argparse
import re
import time
from pathlib import Path

import torch
from machine import cpu_name, matmul_peak
from torch.utils.flop_counter import FlopCounterMode

from elmo_tutorial.train import Trainer
from elmo_tutorial.train_config import TrainConfig, apply_overrides

SECTION = "## Training throughput (bench_training.py)"


def bench(preset: str, threads: int, steps: int, device: str, out_dir: Path) -> dict:
    config = apply_overrides(TrainConfig.preset(preset), {
        "corpus": "embedded", "threads": threads, "device": device, "progress": False,
        "out_dir": str(out_dir / f"{preset}-{threads}"), "eval_sentences": 10})
    trainer = Trainer(config)
    batches = trainer._batches(0)
    sizes = [len(batches[i]) for i in range(steps + 3)]
    shapes = [max(len(trainer.train_sents[j]) for j in batches[i]) + 2 for i in range(steps + 3)]
    with FlopCounterMode(display=False) as counter:
        trainer.train_step(batches[0])
    flops_per_token = counter.get_total_flops() / trainer.last_tokens
    for i in range(1, 3):  # warm-up
        trainer.train_step(batches[i])
    tokens, start = 0, time.perf_counter()
    for i in range(3, steps + 3):
        tokens += trainer.train_step(batches[i])["tokens"]
    if trainer.dist.device.type == "cuda":
        torch.cuda.synchronize()
    seconds = time.perf_counter() - start
    peak = matmul_peak(trainer.dist.device)
    achieved = flops_per_token * tokens / seconds
    params = sum(p.numel() for p in trainer.model.parameters())
    return {"preset": preset, "threads": threads, "device": str(trainer.dist.device),
            "dtype": "float32", "params_M": params / 1e6,
            "batch": f"{sizes[3]} sentences × T≈{sum(shapes) / len(shapes):.0f}",
            "tokens_per_s": tokens / seconds, "gflop_per_token": flops_per_token / 1e9,
            "achieved_gflops": achieved / 1e9, "peak_gflops": peak / 1e9,
            "mfu": achieved / peak}


def to_markdown(rows: list[dict]) -> str:
    cpu = cpu_name()
    lines = [SECTION, "",
             f"CPU: {cpu}, {torch.get_num_threads()} threads available to PyTorch "
             f"{torch.__version__}; float32; embedded corpus; a shared machine, so expect ±30%.",
             "", "| preset | params | device | threads | batch | tokens/s | GFLOP/token | "
             "achieved GFLOP/s | matmul peak GFLOP/s | MFU |", "|---" * 10 + "|"]
    for r in rows:
        lines.append(f"| {r['preset']} | {r['params_M']:.2f} M | {r['device']} | {r['threads']} | "
                     f"{r['batch']} | {r['tokens_per_s']:.0f} | {r['gflop_per_token']:.4f} | "
                     f"{r['achieved_gflops']:.2f} | {r['peak_gflops']:.1f} | {r['mfu']:.1%} |")
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
    parser.add_argument("--threads", nargs="+", type=int, default=[1, 2])
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--write", type=Path, default=None, help="RESULTS.md to update")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for preset in args.presets:
            for threads in args.threads:
                rows.append(bench(preset, threads, args.steps, args.device, Path(tmp)))
                print(rows[-1], flush=True)
    text = to_markdown(rows)
    print(text)
    if args.write:
        write_section(args.write, text)


if __name__ == "__main__":
    main()
