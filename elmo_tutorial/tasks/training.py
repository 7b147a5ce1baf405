"""Training a :class:`~elmo_tutorial.tasks.model.TaskModel`: batches, Adam, model selection on dev.

A task split is a :class:`TaskSplit`: per sentence its word ids ``(T,)``, its biLM layers
``(T, L + 1, D)`` (float16, precomputed once: the biLM is frozen), its character ids ``(T, C)``
(for the character CNN), and its target, a label (sentence classification) or a tag id per
token (tagging). :func:`train_task_model` pads the training batches once and hands them to the
course's one training loop, :func:`~elmo_tutorial.analyses.supervised.fit`: Adam on
cross-entropy plus ``λ · Σ‖w‖²`` of the mixes, dev scored after every epoch, the best epoch's
weights kept, and a stop only when dev has not improved for ``patience`` epochs (the cap grows
while it might): the baseline and the ELMo model are each trained to convergence on dev by the
same rule.

Scores (percent): accuracy for sentence labels; for tags, the F1 of exact spans (chunks or
entities, :func:`~elmo_tutorial.analyses.spans.entity_scores`), as CoNLL's ``conlleval`` counts
them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn
from torch.nn.utils.rnn import pad_sequence

from elmo_tutorial.analyses.bootstrap import sentence_counts
from elmo_tutorial.analyses.spans import bio_spans, entity_scores
from elmo_tutorial.analyses.supervised import Fit, fit, length_batches
from elmo_tutorial.fast import speed_up
from elmo_tutorial.model.softmax import IGNORE_INDEX
from elmo_tutorial.tasks.characters import pad_chars
from elmo_tutorial.tasks.model import TaskModel

__all__ = ["TaskSplit", "encode_words", "evaluate", "predict", "score_and_counts",
           "train_task_model"]


@dataclass
class TaskSplit:
    """One split of a task, ready for the model.

    Attributes:
        words: per sentence ``(T_i,)`` row ids into the model's word vectors (0: ``<UNK>``).
        layers: per sentence ``(T_i, L + 1, D)`` biLM layers, or ``None`` (baseline only).
        targets: per sentence an ``int`` label, or ``(T_i,)`` tag ids.
        classes: the label or tag names; ``targets`` index into them.
        chars: per sentence ``(T_i, C_i)`` character ids
            (:func:`~elmo_tutorial.tasks.characters.encode_chars`), or ``None`` (no ``c_k``).

    A split with ``layers`` of one width can be narrowed to some of them
    (:meth:`with_layers`): the top layer alone, or layer 0, the biLM's context-free half.
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
    """The model's inputs for the sentences at ``index``, and the targets ``y``."""
    words, mask, layers, y = _batch(split, index, bool(model.elmo_at))
    chars = pad_chars([split.chars[i] for i in index]) if model.chars is not None else None
    return (words, mask, layers, chars), y  # chars (B, T, C) or None


def _batch(split: TaskSplit, index: Sequence[int], with_layers: bool):
    """``words (B, T)``, ``mask (B, T)``, ``layers (B, T, L + 1, D)`` or None, ``y``."""
    words = pad_sequence([split.words[i] for i in index], batch_first=True)  # (B, T)
    lengths = torch.tensor([len(split.words[i]) for i in index])
    mask = torch.arange(words.shape[1]) < lengths.unsqueeze(1)  # (B, T)
    layers = (pad_sequence([split.layers[i] for i in index], batch_first=True)
              if with_layers else None)  # (B, T, L + 1, D)
    if split.is_tagging:
        y = pad_sequence([split.targets[i] for i in index], batch_first=True,
                         padding_value=IGNORE_INDEX)  # (B, T)
    else:
        y = torch.tensor([split.targets[i] for i in index])  # (B,)
    return words, mask, layers, y


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


def evaluate(model: TaskModel, split: TaskSplit) -> float:
    """Accuracy (sentence labels) or span F1 (tags), in percent."""
    return _score(split, predict(model, split))


def score_and_counts(model: TaskModel, split: TaskSplit) -> tuple[float, list]:
    """:func:`evaluate`'s score and what each sentence adds to it
    (:func:`~elmo_tutorial.analyses.bootstrap.sentence_counts`: 1/0 per sentence, or its
    correct, predicted and gold spans), from one pass of predictions."""
    predicted = predict(model, split)
    if not split.is_tagging:
        return _score(split, predicted), sentence_counts(split.targets, predicted)
    names = split.classes
    gold = [[names[t] for t in tags.tolist()] for tags in split.targets]
    return _score(split, predicted), sentence_counts(
        gold, [[names[t] for t in tags] for tags in predicted], bio_spans)


def _score(split: TaskSplit, predicted: list) -> float:
    if not split.is_tagging:
        return 100.0 * float(np.mean([p == t for p, t in zip(predicted, split.targets,
                                                              strict=True)]))
    names = split.classes
    gold = [[names[t] for t in tags.tolist()] for tags in split.targets]
    return entity_scores(gold, [[names[t] for t in tags] for tags in predicted])["f1"]


def train_task_model(model: TaskModel, train: TaskSplit, valid: TaskSplit,
                     max_epochs: int = 30, patience: int = 5, batch_size: int = 32,
                     lr: float = 2e-3, mix_penalty: float = 1e-3, seed: int = 0,
                     min_updates: int = 0, round_updates: int = 1, hard_cap: int = 200,
                     lr_patience: int | None = None, wait_while_zero: bool = False,
                     max_round_updates: int | None = None, fast: bool = True) -> Fit:
    """Adam on cross-entropy + ``mix_penalty · model.penalty()`` until dev stops improving.

    Args:
        max_epochs: the planned cap, extended while patience has not acted
            (:func:`~elmo_tutorial.analyses.supervised.fit`).
        patience: stop after this many epochs (rounds) without a better dev score.
        mix_penalty: λ of Sec. 3.3 (the paper's Table 2 compares 1 and 0.001).
        seed: seeds dropout and the batch order (seed torch before building the model for
            reproducible initial weights).
        min_updates, round_updates: for small training sets (see ``fit``).
        hard_cap: the most epochs in any case.
        lr_patience: halve the learning rate after this many epochs without a better dev
            score (None: a constant rate; see ``fit``).
        wait_while_zero: epochs before the first dev score above 0 count for neither (``fit``).
        max_round_updates: score dev at least every this many updates (None: once a pass).
        fast: first switch the model's modules to their fast versions, in place
            (:func:`elmo_tutorial.fast.speed_up`: its dropout draws its masks with
            ``rand_like``, the same distribution, faster); False trains it as built.

    Returns:
        The :class:`~elmo_tutorial.analyses.supervised.Fit`: the dev score of every epoch, the
        best and the last one; the model ends with the weights of the best.
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
               max_rounds=max_epochs, patience=patience, min_updates=min_updates,
               round_updates=round_updates, hard_cap=hard_cap, lr_patience=lr_patience,
               wait_while_zero=wait_while_zero, max_round_updates=max_round_updates)
