"""The tasks of notebook 12 and the ``tasks`` command, ready for :class:`TaskModel`, and one run.

Three tasks, each read by :mod:`elmo_tutorial.annotated` and split into train / valid / test:

- ``sst5``: Stanford Sentiment Treebank, five sentence labels (the paper's Table 1), accuracy;
- ``chunking``: CoNLL-2000 (WSJ), chunk spans, F1; the shared task has no validation set, so
  the last 1,000 sentences of its training file are held out for it (7,936 train);
- ``ner``: WNUT-17 emerging entities, entity spans, F1.

:func:`prepare_task` attaches to every sentence its word ids (the baseline's static vectors,
:mod:`elmo_tutorial.corpus_vectors`), for the two tagging tasks its character ids (the
taggers' character CNN, :mod:`elmo_tutorial.task_chars`, as in the paper's tagging baselines)
and its biLM layers (embedded once, then read from the
cache of :mod:`elmo_tutorial.embedding_cache`). :func:`run_variant` trains one model of one
experiment on one seed and scores it on test. The variants::

    baseline    static vectors (+ character CNN when tagging) → BiLSTM (no biLM)
    elmo        + ELMo at the input and the output, all layers, λ = 0.001 (Tables 1, 2, 3)
    input       + ELMo at the input only                                  (Table 3)
    output      + ELMo at the output only                                 (Table 3)
    top         + the top layer alone at the input and output (no mix)    (Table 2)
    lambda1     as ``elmo`` with λ = 1: the mix held near the average      (Table 2)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from .tagger import sentence_layers
from .task_chars import encode_chars
from .task_model import TaskModel
from .task_training import TaskSplit, encode_words, evaluate, train_task_model

__all__ = ["CHAR_FILTERS", "METRICS", "TASKS", "VARIANTS", "layers_per_sentence", "prepare_task",
           "read_task", "run_variant", "spread", "training_subset", "word_vectors"]

TASKS = ("sst5", "chunking", "ner")
METRICS = {"sst5": "accuracy", "chunking": "F1", "ner": "F1"}
CHUNKING_VALID = 1000  # sentences at the end of CoNLL-2000's train file held out for dev
CHAR_FILTERS = 40  # the taggers' character features c_k (filters of width 3 over 16-dim chars)
VARIANTS = {  # name: (where ELMo goes, λ, only the top layer)
    "baseline": ((), 0.0, False),
    "elmo": (("input", "output"), 1e-3, False),
    "input": (("input",), 1e-3, False),
    "output": (("output",), 1e-3, False),
    "top": (("input", "output"), 0.0, True),
    "lambda1": (("input", "output"), 1.0, False),
}


def read_task(name: str) -> dict[str, list[tuple[list[str], object]]]:
    """``{"train", "valid", "test": [(tokens, target), ...]}``: a label or a list of tags."""
    from . import annotated

    if name == "sst5":
        return {split: annotated.sst(split) for split in ("train", "valid", "test")}
    if name == "chunking":
        train = annotated.conll2000_chunks("train")
        return {"train": train[:-CHUNKING_VALID], "valid": train[-CHUNKING_VALID:],
                "test": annotated.conll2000_chunks("test")}
    if name == "ner":
        return {split: annotated.wnut17(split) for split in ("train", "valid", "test")}
    raise ValueError(f"unknown task {name!r}; choose from {', '.join(TASKS)}")


def word_vectors(corpus: str, dim: int = 100) -> tuple[torch.Tensor, dict[str, int]]:
    """The baseline's static vectors from ``corpus``: ``(V + 1, dim)`` (row 0: ``<UNK>``,
    zeros) scaled to unit variance, and ``{word: row}``."""
    from .corpus_vectors import corpus_vectors

    static = corpus_vectors(corpus, dim=dim, min_count=1 if corpus == "embedded" else 5)
    vectors = torch.from_numpy(np.asarray(static.vectors, dtype=np.float32))  # (V, dim)
    vectors = vectors / vectors.std()  # the scale of a usual embedding initialisation
    table = torch.cat([torch.zeros(1, vectors.shape[1]), vectors])  # (V + 1, dim)
    return table, {w: i for i, w in enumerate(static.words, start=1)}


def layers_per_sentence(embedded) -> list[torch.Tensor]:
    """A cached corpus's ``(L + 1, N, D)`` float16 layers (``embed_corpus``) → one
    ``(T_i, L + 1, D)`` float16 tensor per sentence (``tagger.sentence_layers``)."""
    return sentence_layers(embedded.data, np.diff(embedded.offsets).tolist())


def prepare_task(name: str, embedder, index: dict[str, int], max_sentences: int | None = None,
                 max_train: int | None = None, progress: bool = False) -> dict[str, TaskSplit]:
    """Every split of task ``name`` as a :class:`TaskSplit` with word ids and biLM layers.

    Args:
        embedder: an :class:`~elmo_tutorial.embedder.Embedder` (layers are cached on disk).
        index: ``{word: row}`` of the baseline's vectors (:func:`word_vectors`).
        max_sentences: keep only the first this many sentences of each split (quick runs).
        max_train: train on a fixed random sample of this many training sentences (the same
            sample for every model and seed); dev and test stay whole.
    """
    from .embedding_cache import embed_corpus

    data = {split: pairs[:max_sentences] for split, pairs in read_task(name).items()}
    if max_train is not None and len(data["train"]) > max_train:
        keep = training_subset(len(data["train"]), max_train / len(data["train"]), seed=0)
        data["train"] = [data["train"][i] for i in keep]
    tagging = isinstance(data["train"][0][1], list)
    if tagging:  # "O" first, then the tags of the training set (unseen ones count as "O")
        classes = ["O", *sorted({t for _, tags in data["train"] for t in tags} - {"O"})]
    else:
        classes = [str(c) for c in sorted({label for _, label in data["train"]})]
    ids = {c: i for i, c in enumerate(classes)}
    splits = {}
    for split, pairs in data.items():
        sentences = [tokens for tokens, _ in pairs]
        embedded = embed_corpus(embedder, sentences, f"{name}-{split}", progress)
        targets = ([torch.tensor([ids.get(t, 0) for t in tags]) for _, tags in pairs] if tagging
                   else [ids[str(label)] for _, label in pairs])
        splits[split] = TaskSplit(encode_words(sentences, index), layers_per_sentence(embedded),
                                  targets, classes, encode_chars(sentences) if tagging else None)
    return splits


def training_subset(n: int, fraction: float, seed: int) -> list[int]:
    """A seeded random ``fraction`` of ``range(n)`` (at least 10 sentences), in order."""
    k = min(n, max(10, round(fraction * n)))
    return sorted(np.random.default_rng(seed).permutation(n)[:k].tolist())


def run_variant(splits: dict[str, TaskSplit], vectors: torch.Tensor, variant: str, seed: int,
                fraction: float = 1.0, epochs: int = 5, hidden_size: int = 64) -> dict:
    """Train one variant (see :data:`VARIANTS`) on one seed; its test score and mix weights.

    A fraction below 1 trains on a seeded random part of ``train`` (the same part for every
    variant of a seed) with batches of 8 (and, below 5 %, up to three times the epochs), so
    that a small training set still gets enough updates; dev and test stay whole.

    Returns:
        ``{"score": test score (percent), "valid": best dev score, "epochs": epochs run,
        "best_epoch": the epoch kept, "last_epoch": the most epochs allowed,
        "weights": {place: softmax(w)}, "gamma": {place: γ}}``.
    """
    places, penalty, top_only = VARIANTS[variant]
    train, valid, test = splits["train"], splits["valid"], splits["test"]
    batch_size, n_epochs = 32, epochs
    if fraction < 1.0:
        train = train.subset(training_subset(len(train), fraction, seed))
        batch_size = 8
        n_epochs = 3 * epochs if fraction < 0.05 else epochs  # a few sentences: more passes
    if top_only:  # the mix of one layer is γ · h_L: the paper's "last only"
        train, valid, test = (_top_layer(s) for s in (train, valid, test))
    n_layers, width = train.layers[0].shape[1:]
    torch.manual_seed(seed)  # initial weights
    model = TaskModel(vectors, len(train.classes), "tag" if train.is_tagging else "classify",
                      elmo_layers=n_layers, elmo_dim=width, elmo_at=places,
                      hidden_size=hidden_size,
                      char_filters=CHAR_FILTERS if train.chars is not None else 0)
    history = train_task_model(model, train, valid, epochs=n_epochs, mix_penalty=penalty,
                               seed=seed, batch_size=batch_size)
    valid = [r["valid"] for r in history]
    return {"score": evaluate(model, test), "valid": max(valid), "epochs": len(history),
            "best_epoch": 1 + valid.index(max(valid)), "last_epoch": n_epochs,
            "weights": model.mix_weights(),
            "gamma": {p: m.gamma.item() for p, m in model.mixes.items()}}


def _top_layer(split: TaskSplit) -> TaskSplit:
    return TaskSplit(split.words, [x[:, -1:] for x in split.layers], split.targets, split.classes,
                     split.chars)


def spread(scores: Sequence[float]) -> dict:
    """``{"mean", "std", "runs"}`` over seeds (sample standard deviation, 0 for one run)."""
    runs = [float(s) for s in scores]
    std = float(np.std(runs, ddof=1)) if len(runs) > 1 else 0.0
    return {"mean": float(np.mean(runs)), "std": std, "runs": runs}
