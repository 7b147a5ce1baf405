"""A training step of a preset (``tiny``): the LM directions one after the other or at once.

Usage (``NLTK_DATA`` / ``ELMO_TUTORIAL_DATA`` as for training)::

    python benchmarks/bench_direction_threads.py [--rounds 7] [--batches 8] [--config tiny]
        [--corpus embedded]

Forward and backward pass (no optimiser step, so every job sees the same weights) on the same
``--batches`` training batches of the preset, three jobs interleaved round by round so that
a change in the machine's load hits them alike:

- **1 thread**: the directions one after the other, ``torch.set_num_threads(1)``;
- **2 threads per product**: the same on 2 OpenMP threads;
- **2 direction threads**: ``DirectionThreads(1)``, one thread per direction (the trainer's
  choice with ``threads = 2``; gradients identical to the first job's, checked here).

The model is the preset's with dropout 0 (the threaded path draws no random numbers) and the
full softmax; ``--corpus`` replaces the preset's corpus (``embedded``: about 600 words, so
the softmax is small, as in ``bench_training.py``).

Reported: median wall-clock ms per step and the speed-up over the first job, per round.
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch
from machine import cpu_name

from elmo_tutorial.data.corpora import load_sentences
from elmo_tutorial.fast.direction_threads import DirectionThreads, lm_loss_in_threads
from elmo_tutorial.model.batching import bucket_batches, make_lm_batch
from elmo_tutorial.model.lm import BidirectionalLM
from elmo_tutorial.model.vocab import Vocabulary
from elmo_tutorial.training.train_config import TrainConfig


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="tiny")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--batches", type=int, default=8)
    parser.add_argument("--corpus", default=None, help="instead of the preset's corpus")
    args = parser.parse_args()
    config = TrainConfig.preset(args.config)
    config.corpus = args.corpus or config.corpus
    config.dropout = 0.0  # the threaded path needs no dropout; the tiny preset has none
    sentences = [s[: config.max_sentence_words] for s in load_sentences(config.corpus, "train")
                 if s]
    vocab = Vocabulary.from_sentences(sentences)
    torch.manual_seed(0)
    model = BidirectionalLM(config.model_config(len(vocab)))
    order = bucket_batches([len(s) + 2 for s in sentences], config.batch_size, seed=0)
    batches = [make_lm_batch([sentences[i] for i in b], vocab) for b in order[: args.batches]]
    threads = DirectionThreads(1)

    def step(batch, direction_threads=None):
        model.zero_grad(set_to_none=True)
        if direction_threads is None:
            out = model(batch)
        else:
            out = lm_loss_in_threads(model, batch, direction_threads)
        out.loss.backward()
        return [p.grad.clone() for p in model.parameters()]

    def job(n_threads, direction_threads=None):
        def run():
            torch.set_num_threads(n_threads)
            start = time.perf_counter()
            for batch in batches:
                step(batch, direction_threads)
            return (time.perf_counter() - start) / len(batches) * 1e3
        return run

    jobs = {"1 thread": job(1), "2 threads per product": job(2),
            "2 direction threads": job(1, direction_threads=threads)}
    torch.set_num_threads(1)
    same = all(torch.equal(a, b) for a, b in zip(
        step(batches[0]), step(batches[0], direction_threads=threads), strict=True))
    times = {name: [] for name in jobs}
    for _ in range(args.rounds):
        for name, run in jobs.items():
            times[name].append(run())
    threads.__exit__()
    print(f"{cpu_name()}, {args.config} preset, {config.corpus} corpus ({len(vocab)} words), "
          f"{args.batches} batches of {config.batch_size} "
          f"sentences, {args.rounds} rounds; threaded gradients identical: {same}")
    print("| job | ms per step (median, range) | speed-up over 1 thread (median, range) |")
    print("|---|---:|---:|")
    base = times["1 thread"]
    for name, values in times.items():
        ratios = [b / v for b, v in zip(base, values, strict=True)]
        print(f"| {name} | {statistics.median(values):.0f} ({min(values):.0f}-{max(values):.0f})"
              f" | {statistics.median(ratios):.2f}× ({min(ratios):.2f}-{max(ratios):.2f}×) |")


if __name__ == "__main__":
    main()
