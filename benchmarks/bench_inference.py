"""Inference and training throughput of the biLM on this CPU, against AllenNLP's strategy.

Usage (2 threads, as in RESULTS.md; NLTK_DATA gives real English sentences, else synthetic):

    NLTK_DATA=... python benchmarks/bench_inference.py [--rounds 5] [--threads 2]

Model: the paper's character CNN (2048 filters, 2 highway layers) with a 512-cell LSTM
projected to 128, 2 layers per direction, clipping at 3 (faithful path). Three workloads, all
with batches of 32 sentences:

- **one batch** of 32 sentences × 20 tokens, the same every time: the cost of a cold batch,
  every distinct token through the character CNN;
- **a corpus of 20-token sentences**: 960 new sentences (19,200 tokens) through a fresh
  ``Embedder.embed_sentences(..., batch_size=32)`` (every distinct token through the character
  CNN once; every sentence has the same length, so the batches are the corpus's 30 batches in
  order), against the AllenNLP strategy on the same 30 batches: that effect without bucketing;
- **running text**: 960 consecutive Brown sentences of their natural lengths (1 to 139 tokens),
  ``Embedder.embed_sentences(..., batch_size=32)`` as shipped (length bucketing + distinct tokens),
  against the AllenNLP strategy on the same sentences sorted by length into batches of 32
  (the best way to feed it; AllenNLP's own ``ElmoEmbedder`` batches them in the order given).

Every measurement is repeated ``--rounds`` times, interleaved, and the median is reported;
ratios compare medians from the same run, because the absolute numbers move with whatever else
the machine is doing.
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import replace

import torch
from allennlp_baseline import bilm_layers
from machine import cpu_name, matmul_peak
from torch.utils.flop_counter import FlopCounterMode

from elmo_tutorial import batch_to_ids
from elmo_tutorial.analyses.embedder import Embedder
from elmo_tutorial.data.corpora import nltk_corpus
from elmo_tutorial.data.downloads import DatasetNotAvailable
from elmo_tutorial.data.sense_corpus import sense_corpus
from elmo_tutorial.fast import speed_up
from elmo_tutorial.model.batching import make_lm_batch
from elmo_tutorial.model.config import PAPER_FILTERS, ModelConfig
from elmo_tutorial.model.elmo import ELMo
from elmo_tutorial.model.lm import BidirectionalLM
from elmo_tutorial.model.vocab import Vocabulary

CONFIG = ModelConfig(filters=PAPER_FILTERS, lstm_dim=512, projection_dim=128, dropout=0.1)
BATCH, LENGTH = 32, 20
STREAM = 30  # batches of new sentences in the corpus workloads


def sentences(n: int, length: int) -> list[list[str]]:
    """``n`` real sentences cut to ``length`` tokens (Brown corpus), or synthetic ones."""
    try:
        brown = nltk_corpus("brown")
        found = [s[:length] for s in brown.sents()[:20000] if len(s) >= length]
    except DatasetNotAvailable:
        words = [w for s in sense_corpus("train") for w in s]
        found = [words[i : i + length] for i in range(0, len(words) - length, length)]
    return found[:n]


def running_text(n: int) -> list[list[str]]:
    """``n`` consecutive sentences of natural length (Brown from sentence 20,000 on)."""
    try:
        return [list(s) for s in nltk_corpus("brown").sents()[20000 : 20000 + n]]
    except DatasetNotAvailable:
        return sense_corpus("valid")[:n]


def timed(fn) -> tuple[float, float]:
    """Wall-clock and CPU seconds of one call. On a shared machine the CPU time is the steadier
    measure: time spent waiting for a core while others run is not counted."""
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def flops(fn) -> int:
    with FlopCounterMode(display=False) as counter:
        fn()
    return counter.get_total_flops()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)

    stream = sentences(BATCH * (STREAM + 1), LENGTH)
    batch = stream[:BATCH]
    stream = [stream[i : i + BATCH] for i in range(BATCH, len(stream), BATCH)]
    text = running_text(BATCH * STREAM)
    by_length = sorted(text, key=len)
    text_batches = [by_length[i : i + BATCH] for i in range(0, len(by_length), BATCH)]
    faithful = ELMo(CONFIG).eval()  # clipping → faithful step loop
    fused = ELMo(replace(CONFIG, cell_clip=None, proj_clip=None)).eval()  # → nn.LSTM
    fused.load_state_dict(faithful.state_dict())
    embed = {"faithful": Embedder(faithful), "fused": Embedder(fused)}
    ids = batch_to_ids(batch)

    # Same function? The baseline must compute what the faithful model computes.
    with torch.inference_mode():
        ours = embed["faithful"].embed_batch(batch)
        theirs = torch.stack(bilm_layers(faithful, ids), 1).numpy()  # (B, L + 1, T, 2P)
    error = max(abs(o - t[:, : len(s)]).max() for o, t, s in zip(ours, theirs, batch, strict=True))

    vocab = Vocabulary.from_sentences(sentences(2000, LENGTH))
    lm_batch = make_lm_batch(batch, vocab)
    lms = {}
    for name, model in (("faithful", faithful), ("fused", fused)):
        lm = BidirectionalLM(replace(model.config, vocab_size=len(vocab), dropout=0.1)).train()
        lm.load_state_dict(model.bilm.state_dict(), strict=False)
        lms[name] = speed_up(lm)  # as the trainer runs it

    def train_step(lm):
        lm.zero_grad(set_to_none=True)
        lm(lm_batch).loss.backward()

    def baseline(batches):
        with torch.inference_mode():
            for b in batches:
                bilm_layers(faithful, batch_to_ids(b))

    def char_cnn():
        with torch.inference_mode():
            faithful.bilm.char_cnn(batch_to_ids(batch))

    def embed_stream():
        corpus = [s for b in stream for s in b]  # all 20 tokens long: the same 30 batches
        Embedder(faithful).embed_sentences(corpus, batch_size=BATCH)

    jobs = {
        "embedder_faithful": lambda: embed["faithful"].embed_batch(batch),
        "embedder_fused": lambda: embed["fused"].embed_batch(batch),
        "allennlp_strategy": lambda: baseline([batch]),
        "char_cnn_only": char_cnn,
        "train_faithful": lambda: train_step(lms["faithful"]),
        "train_fused": lambda: train_step(lms["fused"]),
        "corpus_allennlp": lambda: baseline(stream),
        "corpus_embedder": embed_stream,
        "text_allennlp": lambda: baseline(text_batches),
        "text_embedder": lambda: Embedder(faithful).embed_sentences(text, batch_size=BATCH),
    }
    n_tokens = sum(len(s) for s in batch)
    stream_tokens = sum(len(s) for b in stream for s in b)
    text_tokens = sum(len(s) for s in text)
    tokens = {name: stream_tokens if name.startswith("corpus") else
              text_tokens if name.startswith("text") else n_tokens for name in jobs}
    batches = {name: len(stream) if name.startswith(("corpus", "text")) else 1 for name in jobs}
    for name, job in jobs.items():  # warm-up
        if not name.startswith(("corpus", "text")):
            job()
    times = {name: [] for name in jobs}
    cpu_times = {name: [] for name in jobs}
    for _ in range(args.rounds):  # interleaved, so that load changes hit every job alike
        for name, job in jobs.items():
            wall, cpu = timed(job)
            times[name].append(wall)
            cpu_times[name].append(cpu)
    seconds = {name: statistics.median(t) for name, t in times.items()}
    cpu_seconds = {name: statistics.median(t) for name, t in cpu_times.items()}
    work = {name: flops(jobs[name]) for name in ("embedder_faithful", "embedder_fused")}
    model_like = ((1024, 1024, 1024), (704, 2048, 4096), (2048, 2048, 2048))
    peak = matmul_peak(shapes=model_like, repeats=5) / 1e9  # GFLOP/s

    print(f"CPU: {cpu_name()}; threads: {torch.get_num_threads()}; torch {torch.__version__}")
    print(f"batch: {BATCH} x {LENGTH} = {n_tokens} tokens; rounds: {args.rounds} (median)")
    print(f"baseline vs faithful Embedder, max abs difference: {error:.2e}")
    print(f"fp32 matmul peak measured: {peak:.1f} GFLOP/s")
    print("tokens/s: wall-clock median | wall-clock best round | per CPU-second (median), "
          f"the last divided by {args.threads} threads' worth, i.e. comparable to wall-clock")
    print(f"{'job':<20} {'ms/batch':>9} {'median':>8} {'best':>8} {'CPU-time':>9}")
    for name, s in seconds.items():
        best = tokens[name] / min(times[name])
        by_cpu = tokens[name] / (cpu_seconds[name] / args.threads)
        print(f"{name:<20} {1000 * s / batches[name]:>9.0f} {tokens[name] / s:>8.0f} "
              f"{best:>8.0f} {by_cpu:>9.0f}")
    for name, total in work.items():
        achieved = total / seconds[name] / 1e9
        print(f"{name}: {total / 1e9:.2f} GFLOP/batch, {achieved:.1f} GFLOP/s "
              f"= {100 * achieved / peak:.0f}% of the matmul peak")
    for label, table in (("wall-clock median", seconds), ("CPU time", cpu_seconds)):
        print(f"[{label}] char CNN share of faithful inference: "
              f"{100 * table['char_cnn_only'] / table['embedder_faithful']:.0f}%; speed-up over "
              f"the AllenNLP strategy (faithful, same weights): one cold batch "
              f"{table['allennlp_strategy'] / table['embedder_faithful']:.2f}x; corpus of "
              f"{len(stream)} batches {table['corpus_allennlp'] / table['corpus_embedder']:.2f}x "
              f"as shipped; running text "
              f"{table['text_allennlp'] / table['text_embedder']:.2f}x")
    best = {name: min(t) for name, t in times.items()}
    print(f"[best rounds] one cold batch "
          f"{best['allennlp_strategy'] / best['embedder_faithful']:.2f}x; "
          f"corpus {best['corpus_allennlp'] / best['corpus_embedder']:.2f}x; "
          f"running text {best['text_allennlp'] / best['text_embedder']:.2f}x")
    floor = work["embedder_faithful"] / (peak * 1e9)
    print(f"one cold batch at the matmul peak would take {1000 * floor:.0f} ms: at most "
          f"{seconds['allennlp_strategy'] / floor:.1f}x the AllenNLP strategy in this run")


if __name__ == "__main__":
    main()
