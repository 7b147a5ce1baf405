"""Training a :class:`~elmo_tutorial.task_model.TaskModel`: batches, Adam, model selection on dev.

A task split is a :class:`TaskSplit`: per sentence its word ids ``(T,)``, its biLM layers
``(T, L + 1, D)`` (float16, precomputed once: the biLM is frozen), for a tagger with character
features its character ids ``(T, C)``, and its target, a label (sentence classification) or a
tag id per token (tagging). :func:`train_task_model` trains with Adam on cross-entropy plus
``λ · Σ‖w‖²`` of the mixes, scores the dev split after every epoch, keeps the weights of the
best epoch and stops early when dev has not improved for ``patience`` epochs: the baseline and
the ELMo model are each tuned on dev the same way.

Scores (percent): accuracy for sentence labels; for tags, the F1 of exact spans (chunks or
entities, :func:`~elmo_tutorial.tagger.entity_scores`), as CoNLL's ``conlleval`` counts them.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn
from torch.nn.utils.rnn import pad_sequence

from .softmax import IGNORE_INDEX
from .tagger import entity_scores, length_batches
from .task_chars import pad_chars
from .task_model import TaskModel

__all__ = ["TaskSplit", "encode_words", "evaluate", "predict", "train_task_model"]


@dataclass
class TaskSplit:
    """One split of a task, ready for the model.

    Attributes:
        words: per sentence ``(T_i,)`` row ids into the model's word vectors (0: ``<UNK>``).
        layers: per sentence ``(T_i, L + 1, D)`` biLM layers, or ``None`` (baseline only).
        targets: per sentence an ``int`` label, or ``(T_i,)`` tag ids.
        classes: the label or tag names; ``targets`` index into them.
        chars: per sentence ``(T_i, C_i)`` character ids
            (:func:`~elmo_tutorial.task_chars.encode_chars`), or ``None`` (no ``c_k``).
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
    predicted = predict(model, split)
    if not split.is_tagging:
        return 100.0 * float(np.mean([p == t for p, t in zip(predicted, split.targets,
                                                              strict=True)]))
    names = split.classes
    gold = [[names[t] for t in tags.tolist()] for tags in split.targets]
    return entity_scores(gold, [[names[t] for t in tags] for tags in predicted])["f1"]


def train_task_model(model: TaskModel, train: TaskSplit, valid: TaskSplit, epochs: int = 10,
                     patience: int = 3, batch_size: int = 32, lr: float = 2e-3,
                     mix_penalty: float = 1e-3, seed: int = 0) -> list[dict]:
    """Adam on cross-entropy + ``mix_penalty · model.penalty()``; keep the best dev epoch.

    Args:
        mix_penalty: λ of Sec. 3.3 (the paper's Table 2 compares 1 and 0.001).
        patience: stop after this many epochs without a better dev score.
        seed: seeds dropout and the batch order (seed torch before building the model for
            reproducible initial weights).

    Returns:
        One dict per epoch: ``{"epoch", "loss", "valid"}``; the model ends with the weights of
        the epoch with the best ``valid`` score.
    """
    torch.manual_seed(seed)  # dropout
    generator = torch.Generator().manual_seed(seed)  # batch order
    optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=lr)
    history, best, best_state, waited = [], -1.0, None, 0
    for epoch in range(1, epochs + 1):
        model.train()
        total = 0.0
        for index in length_batches([len(w) for w in train.words], batch_size, generator):
            inputs, y = _inputs(model, train, index)
            logits = model(*inputs)  # (B, C) or (B, T, C)
            loss = nn.functional.cross_entropy(logits.flatten(0, -2), y.flatten(),
                                               ignore_index=IGNORE_INDEX)
            if mix_penalty and model.elmo_at:
                loss = loss + mix_penalty * model.penalty()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += float(loss.detach()) * len(index)
        score = evaluate(model, valid)
        history.append({"epoch": epoch, "loss": total / len(train), "valid": score})
        if score > best:
            best, best_state, waited = score, copy.deepcopy(model.state_dict()), 0
        else:
            waited += 1
            if waited >= patience:
                break
    model.load_state_dict(best_state)
    return history
