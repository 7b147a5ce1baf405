"""Training a :class:`~elmo_tutorial.tasks.model.TaskModel`: the data, the protocol, one run.

:func:`prepare_task` turns a task of :mod:`~elmo_tutorial.tasks.registry` into one
:class:`TaskSplit` per split (word ids, cached biLM layers, character ids, targets);
:func:`train_task_model` trains on them with the course's one training loop
(:func:`~elmo_tutorial.analyses.supervised.fit`) under one :data:`PROTOCOL` for every arm;
:func:`run_variant` trains one variant on one seed and scores it on test (accuracy, or the F1
of exact spans as ``conlleval`` counts them). The variants (``places``: where ELMo goes)::

    baseline    x_k = [w_k; c_k] → BiLSTM (no biLM)
    elmo        + ELMo (the scalar mix of all layers) at ``places``, λ = 0.001   (Table 1)
    layer0      + the biLM's layer 0 alone at ``places``: its context-free half  (Table 1)
    top         + the top layer alone at ``places`` (no mix)                     (Table 2)
    lambda1     as ``elmo`` with λ = 1: the mix held near the average           (Table 2)
    input, input_output, output: as ``elmo``, at that place whatever ``places`` (Table 3)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn
from torch.nn.utils.rnn import pad_sequence

from elmo_tutorial.analyses.embedding_cache import embed_corpus
from elmo_tutorial.analyses.paired import sentence_counts
from elmo_tutorial.analyses.probes import sentence_layers
from elmo_tutorial.analyses.spans import bio_spans, entity_scores
from elmo_tutorial.analyses.supervised import Fit, fit, length_batches
from elmo_tutorial.fast import speed_up
from elmo_tutorial.model.softmax import IGNORE_INDEX
from elmo_tutorial.tasks.model import TaskModel, encode_chars, pad_chars
from elmo_tutorial.tasks.registry import read_task

__all__ = ["CHAR_FILTERS", "PROTOCOL", "VARIANTS", "TaskSplit", "encode_words",
           "evaluate", "predict", "prepare_task", "run_variant",
           "train_task_model", "training_subset"]

CHAR_FILTERS = 40  # the character features c_k (filters of width 3 over 16-dim characters)
# One protocol for every arm (the report's Protocol paragraph says it in words). An epoch is at
# most 2,500 updates: SST-5's phrases' pass of 4,978 is scored twice. (Rounds of 500 stopped
# the phrase runs within one pass at 31-34 %: dev is too noisy to judge 16,000 phrases.)
PROTOCOL = {"max_epochs": 30, "patience": 5, "lr_patience": 2, "wait_while_zero": True,
            "min_updates": 1000, "round_updates": 50, "max_round_updates": 2500, "hard_cap": 200,
            "batch_size": 32, "lr": 2e-3, "dropout": 0.5, "hidden_size": 64}
VARIANTS = {  # name: (where ELMo goes (None: the run's places), λ, the layers it mixes)
    "baseline": ((), 0.0, None),
    "elmo": (None, 1e-3, slice(None)),
    "layer0": (None, 0.0, slice(0, 1)),
    "top": (None, 0.0, slice(-1, None)),
    "lambda1": (None, 1.0, slice(None)),
    "input": (("input",), 1e-3, slice(None)),
    "input_output": (("input", "output"), 1e-3, slice(None)),
    "output": (("output",), 1e-3, slice(None)),
}


@dataclass
class TaskSplit:
    """One split of a task, ready for the model.

    Attributes:
        words: per sentence ``(T_i,)`` row ids into the model's word vectors (0: ``<UNK>``).
        layers: per sentence ``(T_i, L + 1, D)`` biLM layers, or ``None`` (baseline only).
        targets: per sentence an ``int`` label, or ``(T_i,)`` tag ids.
        classes: the label or tag names; ``targets`` index into them.
        chars: per sentence ``(T_i, C_i)`` character ids
            (:func:`~elmo_tutorial.tasks.model.encode_chars`), or ``None`` (no ``c_k``).
    """

    words: list[torch.Tensor]
    layers: list[torch.Tensor] | None
    targets: list
    classes: Sequence[str]
    chars: list[torch.Tensor] | None = None

    def __len__(self) -> int:
        return len(self.words)

    def subset(self, indices: Sequence[int]) -> TaskSplit:
        """The sentences at ``indices`` (e.g. a fraction of the training set)."""
        return TaskSplit([self.words[i] for i in indices],
                         None if self.layers is None else [self.layers[i] for i in indices],
                         [self.targets[i] for i in indices], self.classes,
                         None if self.chars is None else [self.chars[i] for i in indices])

    def with_layers(self, which: slice) -> TaskSplit:
        """The same sentences with only the biLM layers ``which`` (e.g. ``slice(0, 1)``)."""
        return TaskSplit(self.words, [x[:, which] for x in self.layers], self.targets,
                         self.classes, self.chars)

    @property
    def is_tagging(self) -> bool:
        return isinstance(self.targets[0], torch.Tensor)


def encode_words(sentences: Sequence[Sequence[str]], index: dict[str, int]) -> list[torch.Tensor]:
    """Row ids of lower-cased tokens (``index`` maps a word to its row ≥ 1; others get 0)."""
    return [torch.tensor([index.get(t.lower(), 0) for t in s], dtype=torch.long)
            for s in sentences]


def _inputs(model: TaskModel, split: TaskSplit, index: Sequence[int]):
    """The model's inputs ``(words, mask, layers, chars)`` for the sentences at ``index``,
    and the targets ``y``."""
    words = pad_sequence([split.words[i] for i in index], batch_first=True)  # (B, T)
    lengths = torch.tensor([len(split.words[i]) for i in index])
    mask = torch.arange(words.shape[1]) < lengths.unsqueeze(1)  # (B, T)
    layers = (pad_sequence([split.layers[i] for i in index], batch_first=True)
              if model.elmo_at else None)  # (B, T, L + 1, D)
    chars = pad_chars([split.chars[i] for i in index]) if model.chars is not None else None
    if split.is_tagging:
        y = pad_sequence([split.targets[i] for i in index], batch_first=True,
                         padding_value=IGNORE_INDEX)  # (B, T)
    else:
        y = torch.tensor([split.targets[i] for i in index])  # (B,)
    return (words, mask, layers, chars), y  # chars (B, T, C) or None


@torch.no_grad()
def predict(model: TaskModel, split: TaskSplit, batch_size: int = 128) -> list:
    """The best class of every sentence (an int) or token (a list of ints), in order."""
    model.eval()
    out: list = [None] * len(split)
    for index in length_batches([len(w) for w in split.words], batch_size, None):
        inputs, _ = _inputs(model, split, index)
        best = model(*inputs).argmax(-1)  # (B,) or (B, T)
        for row, i in enumerate(index):
            out[i] = best[row, : len(split.words[i])].tolist() if split.is_tagging else int(
                best[row])
    return out


def evaluate(model: TaskModel, split: TaskSplit, counts: bool = False):
    """Accuracy (sentence labels) or span F1 (tags), in percent; with ``counts``, also what
    each sentence adds to it (:func:`~elmo_tutorial.analyses.paired.sentence_counts`: 1/0, or
    its correct, predicted and gold spans), for the test-sample bootstrap."""
    predicted = predict(model, split)
    if not split.is_tagging:
        score = 100.0 * float(np.mean([p == t for p, t in zip(predicted, split.targets,
                                                               strict=True)]))
        return (score, sentence_counts(split.targets, predicted)) if counts else score
    gold = [[split.classes[t] for t in tags.tolist()] for tags in split.targets]
    guess = [[split.classes[t] for t in tags] for tags in predicted]
    score = entity_scores(gold, guess)["f1"]
    return (score, sentence_counts(gold, guess, bio_spans)) if counts else score


def train_task_model(model: TaskModel, train: TaskSplit, valid: TaskSplit,
                     max_epochs: int = 30, batch_size: int = 32, lr: float = 2e-3,
                     mix_penalty: float = 1e-3, seed: int = 0, fast: bool = True,
                     **schedule) -> Fit:
    """Adam on cross-entropy + ``mix_penalty · model.penalty()`` (λ of Sec. 3.3) until dev
    stops improving; the model ends with the weights of its best epoch.

    ``schedule`` (``patience``, ``hard_cap``, ...) and ``seed`` are
    :func:`~elmo_tutorial.analyses.supervised.fit`'s (``max_epochs`` its ``max_rounds``).
    ``fast`` first switches the model's dropout to its fast version
    (:func:`elmo_tutorial.fast.speed_up`: the same distribution), in place.
    """
    if fast:
        speed_up(model)  # before any draw: the reports' numbers were made with it
    batches = [_inputs(model, train, index)
               for index in length_batches([len(w) for w in train.words], batch_size, None)]

    def loss_of(batch) -> torch.Tensor:
        inputs, y = batch
        logits = model(*inputs)  # (B, C) or (B, T, C)
        loss = nn.functional.cross_entropy(logits.flatten(0, -2), y.flatten(),
                                           ignore_index=IGNORE_INDEX)
        if mix_penalty and model.elmo_at:
            loss = loss + mix_penalty * model.penalty()
        return loss

    return fit(model, batches, loss_of, lambda: evaluate(model, valid), lr=lr, seed=seed,
               max_rounds=max_epochs, **schedule)


def prepare_task(name: str, embedder, index: dict[str, int], max_sentences: int | None = None,
                 samples: dict[str, int] | None = None,
                 progress: bool = False) -> dict[str, TaskSplit]:
    """Every split of task ``name`` as a :class:`TaskSplit`, its layers from ``embedder``
    (cached on disk) and its word ids from ``index`` (the baseline's ``{word: row}``);
    ``max_sentences`` keeps the first sentences of each split (quick runs), ``samples``
    (``{split: n}``) a fixed random sample of ``n`` sentences of a split, the same every time.
    """
    data = {split: pairs[:max_sentences] for split, pairs in read_task(name).items()}
    for split, n in (samples or {}).items():
        if len(data[split]) > n:
            keep = training_subset(len(data[split]), n / len(data[split]), seed=0)
            data[split] = [data[split][i] for i in keep]
    tagging = isinstance(data["train"][0][1], list)
    if tagging:  # "O" first, then the tags of the training set (unseen ones count as "O")
        classes = ["O", *sorted({t for _, tags in data["train"] for t in tags} - {"O"})]
    else:  # every label of the task (a quick run's first phrases may lack one)
        classes = [str(c) for c in sorted({label for pairs in data.values()
                                           for _, label in pairs})]
    ids = {c: i for i, c in enumerate(classes)}
    splits = {}
    for split, pairs in data.items():
        sentences = [tokens for tokens, _ in pairs]
        targets = ([torch.tensor([ids.get(t, 0) for t in tags]) for _, tags in pairs] if tagging
                   else [ids[str(label)] for _, label in pairs])
        # the biLM's layers, embedded once and then read from the cache
        embedded = embed_corpus(embedder, sentences, f"{name}-{split}", progress)  # (L+1, N, D)
        layers = sentence_layers(embedded.data, np.diff(embedded.offsets).tolist())  # (T_i, L+1, D)
        splits[split] = TaskSplit(encode_words(sentences, index), layers, targets, classes,
                                  encode_chars(sentences))
    return splits


def training_subset(n: int, fraction: float, seed: int) -> list[int]:
    """A seeded random ``fraction`` of ``range(n)`` (at least 10 sentences), in order."""
    k = min(n, max(10, round(fraction * n)))
    return sorted(np.random.default_rng(seed).permutation(n)[:k].tolist())


def run_variant(splits: dict[str, TaskSplit], vectors: torch.Tensor, variant: str, seed: int,
                fraction: float = 1.0, places: Sequence[str] = ("input",),
                protocol: dict | None = None) -> dict:
    """Train one variant (see :data:`VARIANTS`) on one seed, to convergence; score it on test.

    A fraction below 1 trains on a seeded random part of ``train`` (the same part for every
    variant of a seed) in batches of 8, with at least ``protocol["min_updates"]`` updates.
    Returns the fields of :class:`~elmo_tutorial.tasks.results.RunResult`, and ``test_counts``
    (what each test sentence adds to the score, for the test-sample bootstrap).
    """
    protocol = {**PROTOCOL, **(protocol or {})}
    own_places, penalty, which = VARIANTS[variant]
    places = tuple(places if own_places is None else own_places)
    train, valid, test = splits["train"], splits["valid"], splits["test"]
    batch_size, min_updates = protocol["batch_size"], 0
    if fraction < 1.0:
        train = train.subset(training_subset(len(train), fraction, seed))
        batch_size, min_updates = 8, protocol["min_updates"]
    if places and which != slice(None):  # the mix of one layer is γ · h_j: no mix to learn
        train, valid, test = (s.with_layers(which) for s in (train, valid, test))
    n_layers, width = train.layers[0].shape[1:]
    torch.manual_seed(seed)  # initial weights
    model = TaskModel(vectors, len(train.classes), "tag" if train.is_tagging else "classify",
                      elmo_layers=n_layers, elmo_dim=width, elmo_at=places,
                      hidden_size=protocol["hidden_size"], dropout=protocol["dropout"],
                      char_filters=CHAR_FILTERS)
    schedule = {k: protocol[k] for k in ("max_epochs", "lr", "patience", "round_updates",
                                         "hard_cap", "lr_patience", "wait_while_zero",
                                         "max_round_updates")}
    result = train_task_model(model, train, valid, batch_size=batch_size, mix_penalty=penalty,
                              seed=seed, min_updates=min_updates, **schedule)
    history = result.history
    score, counts = evaluate(model, test, counts=True)
    return {"score": score, "valid": result.best_valid,
            "best_epoch": result.best_round, "last_epoch": result.last_round, "cap": result.cap,
            "stopped": result.stopped, "updates": history[-1]["updates"],
            "epochs_per_round": history[0]["epochs"], "curve": [r["valid"] for r in history],
            "places": list(places), "weights": model.mix_weights(),
            "gamma": {p: m.gamma.item() for p, m in model.mixes.items()},
            "test_counts": counts}
