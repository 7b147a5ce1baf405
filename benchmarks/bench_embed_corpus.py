"""Embedding SemCor with the shipped small model: tokens per second, and a cached rerun.

Usage (the WSD Evaluation Framework must be available, e.g. through ELMO_TUTORIAL_DATA):

    python benchmarks/bench_embed_corpus.py [--every 8] [--rounds 3] [--threads 2] [--full]

SemCor's sentences (multiword expressions split into their words, as ``elmo_tutorial.analyses.wsd``
embeds them) go through two jobs, interleaved round by round so that a change in the
machine's load hits them alike; ``--every N`` takes every N-th sentence:

- **model**: length-sorted batches of 64 through ``ELMo.layers(batch_to_ids(batch))``, the
  model's own forward with its fast modules (``fast.speed_up``: the character CNN on each
  batch's distinct tokens);
- **embedder**: ``Embedder(model).embed_sentences`` as shipped: one table of token vectors
  per call, which the batches index.

``--full`` then embeds all of SemCor with ``embed_corpus`` into a temporary directory, twice:
cold (embedding and writing the float16 file) and warm (checksum and memory map only).
Reported: tokens per wall-clock second, and per CPU-second divided by the thread count (the
rate a machine with that many idle cores would reach; steadier on a shared machine).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time

import torch
from machine import cpu_name

from elmo_tutorial import ELMo, batch_to_ids
from elmo_tutorial.analyses.embedder import Embedder
from elmo_tutorial.analyses.embedding_cache import embed_corpus
from elmo_tutorial.data.annotated import wsd_framework
from elmo_tutorial.fast import speed_up
from elmo_tutorial.training.run_folder import load_elmo


def semcor_sentences() -> list[list[str]]:
    return [[w for token in s["tokens"] for w in token.split()] for s in wsd_framework("semcor")]


def timed(fn) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def plain_model(model: ELMo, sentences: list[list[str]], batch_size: int = 64) -> None:
    ordered = sorted(sentences, key=len)
    with torch.inference_mode():
        for start in range(0, len(ordered), batch_size):
            layers, _, _ = model.layers(batch_to_ids(ordered[start : start + batch_size]))
            torch.stack(layers, 1).numpy()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--every", type=int, default=8, help="take every N-th sentence")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--full", action="store_true", help="also embed all of SemCor")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    model = speed_up(load_elmo("data/models/small"))  # the fast modules, as Embedder runs
    corpus = semcor_sentences()
    subset = corpus[:: args.every]
    n_tokens = sum(map(len, subset))
    jobs = {
        "model": lambda: plain_model(model, subset),
        "embedder": lambda: Embedder(model).embed_sentences(subset),
    }
    walls = {name: [] for name in jobs}
    cpus = {name: [] for name in jobs}
    for _ in range(args.rounds):
        for name, job in jobs.items():
            wall, cpu = timed(job)
            walls[name].append(wall)
            cpus[name].append(cpu)
    print(f"CPU: {cpu_name()}; threads: {args.threads}; torch {torch.__version__}")
    print(f"SemCor every {args.every}th sentence: {len(subset)} sentences, {n_tokens} tokens; "
          f"{args.rounds} rounds (median, in brackets the range)")
    print(f"{'job':<22} {'tokens/s wall':>24} {'tokens/s per CPU-s/thread':>28}")
    for name in jobs:
        wall = [n_tokens / t for t in walls[name]]
        cpu = [n_tokens / (t / args.threads) for t in cpus[name]]
        print(f"{name:<22} {statistics.median(wall):>8.0f} ({min(wall):.0f}-{max(wall):.0f})"
              f" {statistics.median(cpu):>12.0f} ({min(cpu):.0f}-{max(cpu):.0f})")
    ratios = [b / e for b, e in zip(walls["model"], walls["embedder"], strict=True)]
    print(f"embedder vs model: {statistics.median(ratios):.2f}x wall-clock "
          f"(rounds {min(ratios):.2f}-{max(ratios):.2f}), "
          f"{statistics.median(cpus['model']) / statistics.median(cpus['embedder']):.2f}x CPU")
    if args.full:
        n_all = sum(map(len, corpus))
        with tempfile.TemporaryDirectory() as folder:
            for label in ("cold", "warm"):
                wall, cpu = timed(lambda: embed_corpus(Embedder(model), corpus, "semcor",
                                                       progress=False, directory=folder))
                print(f"all of SemCor ({len(corpus)} sentences, {n_all} tokens), {label}: "
                      f"{wall:.1f} s wall ({n_all / wall:.0f} tokens/s), {cpu:.1f} s CPU "
                      f"({n_all / (cpu / args.threads):.0f} tokens/s per CPU-s/thread)")


if __name__ == "__main__":
    main()
