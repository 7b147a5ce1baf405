"""Where the time of ``embed_corpus`` over SemCor goes, stage by stage (CPU time, one thread).

Usage (the WSD Evaluation Framework must be available, e.g. through ELMO_TUTORIAL_DATA)::

    python benchmarks/profile_embed_corpus.py [--every 6]

Embeds every ``--every``-th SemCor sentence with the shipped small model into a temporary
cache, under ``cProfile``, with the directions one after the other on one thread (so that the
profile sees all the work; ``Embedder`` runs them at once in two threads), and adds up the
functions' own time by stage: LSTM (``torch.lstm``), sequence reversal for the backward
direction, token table (character CNN: convolutions and highway products), batch index and
results (building each batch's rows, copying the layers into the result), writing the
float16 file, checksums, and the rest. Then times the result copy of the old ``Embedder``
(float32 arrays converted to float16 by NumPy while writing) against the new one (float16
straight from PyTorch) on the same batch, interleaved.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import tempfile
import time
from collections import defaultdict

import numpy as np
import torch
from bench_embed_corpus import semcor_sentences
from machine import cpu_name

from elmo_tutorial.analyses.embedder import Embedder
from elmo_tutorial.analyses.embedding_cache import embed_corpus
from elmo_tutorial.training.run_folder import load_elmo

STAGES = [  # (stage, substrings of the profile's function names), first match wins
    ("LSTM (torch.lstm)", ("torch.lstm",)),
    ("backward direction's reversal (gather)", ("'gather'",)),
    ("token table (character CNN)", ("addmm", "conv", "unfold", "linear", "char_cnn",
                                     "highway", "max'", "relu", "sigmoid", "lerp")),
    ("writing the float16 file", ("embedding_cache.py", "memmap", "flush")),
    ("checksums", ("HASH", "sha256", "digest")),
    ("batches: index, results", ("embedder.py", "torch.tensor", "copy_", "numpy", "index")),
]


def stage_of(name: str) -> str:
    for stage, keys in STAGES:
        if any(k in name for k in keys):
            return stage
    return "other"


def copy_out(embedder: Embedder, batch, dtype) -> list[np.ndarray]:
    from elmo_tutorial.analyses.embedder import index_tokens

    rows = index_tokens(batch)
    with torch.inference_mode():
        table = embedder._table(list(rows))
        arrays = embedder._run_batch(batch, rows, table, map, dtype)
    out = np.empty((arrays[0].shape[0], sum(a.shape[1] for a in arrays), arrays[0].shape[2]),
                   dtype=np.float16)
    offset = 0
    for a in arrays:
        out[:, offset : offset + a.shape[1]] = a  # NumPy converts float32 → float16 here
        offset += a.shape[1]
    return arrays


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--every", type=int, default=6)
    args = parser.parse_args()
    torch.set_num_threads(1)
    model = load_elmo("data/models/small")
    corpus = semcor_sentences()[:: args.every]
    profile = cProfile.Profile()
    with tempfile.TemporaryDirectory() as folder:
        profile.enable()
        embed_corpus(Embedder(model), corpus, "semcor",
                     progress=False, directory=folder)
        profile.disable()
    totals = defaultdict(float)
    for (file, line, name), (_, _, own, _, _) in pstats.Stats(profile).stats.items():
        totals[stage_of(f"{file}:{line}({name})")] += own
    total = sum(totals.values())
    print(f"{cpu_name()}, 1 thread; SemCor every {args.every}th sentence "
          f"({sum(map(len, corpus))} tokens), the shipped small model")
    print("| stage | CPU s (profiled) | share |\n|---|---:|---:|")
    for stage in sorted(totals, key=totals.get, reverse=True):
        print(f"| {stage} | {totals[stage]:.1f} | {totals[stage] / total:.1%} |")
    embedder = Embedder(model)
    batch = sorted(corpus, key=len)[len(corpus) // 2 :][:64]
    times = {torch.float32: [], torch.float16: []}
    for _ in range(7):
        for dtype in times:
            start = time.process_time()
            copy_out(embedder, batch, dtype)
            times[dtype].append(time.process_time() - start)
    ratio = statistics.median(a / b for a, b in zip(times[torch.float32], times[torch.float16],
                                                     strict=True))
    print(f"one batch of 64 mid-length sentences, model + result + float16 copy: "
          f"float32 result {statistics.median(times[torch.float32]) * 1e3:.0f} ms, float16 "
          f"result {statistics.median(times[torch.float16]) * 1e3:.0f} ms CPU ({ratio:.2f}×)")


if __name__ == "__main__":
    main()
