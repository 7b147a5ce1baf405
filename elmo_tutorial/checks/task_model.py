"""Self-checks for notebooks 12 and 13 (ELMo in a task model): ELMo at the BiLSTM's output, the
relative error reduction (Table 1), the top layer alone (Table 2), the paired differences."""

from __future__ import annotations

import random
from collections.abc import Callable

import torch

from elmo_tutorial.analyses.paired import paired_difference
from elmo_tutorial.checks._core import (
    CheckFailed,
    assert_close,
    check,
    filled_dict,
    forbidding,
    not_none,
    one_number,
)
from elmo_tutorial.tasks.model import TaskModel
from elmo_tutorial.tasks.training import TaskSplit

__all__ = ["check_elmo_at_output", "check_error_reduction", "check_seed_counts",
           "check_top_layer_only"]


@check
def check_elmo_at_output(fn: Callable) -> str:
    """``fn(model, words, mask, layers)`` must return the logits of ``model``, a classifier
    :class:`TaskModel` with ``elmo_at=("output",)``, from its parts: ``[h_k; ELMo_k]`` pooled
    (mean and max), then ``model.output``."""
    torch.manual_seed(1)
    model = TaskModel(torch.randn(20, 6), n_classes=3, task="classify", elmo_layers=3,
                      elmo_dim=8, elmo_at=("output",), hidden_size=5).eval()
    with torch.no_grad():
        model.mixes["output"].scalar_parameters.copy_(torch.tensor([0.5, -1.0, 2.0]))
        model.mixes["output"].gamma.fill_(1.7)
    words = torch.tensor([[3, 4, 5, 6], [7, 8, 0, 0]])
    mask = torch.tensor([[1, 1, 1, 1], [1, 1, 0, 0]]).bool()
    layers = torch.randn(2, 4, 3, 8)
    with torch.no_grad():
        expected = model(words, mask, layers)
        with forbidding(fn, (TaskModel, "forward"), instead=(
                "build the forward pass from the model's parts: model.words and model.unk, "
                "model.lstm, model.elmo('output', layers, mask), then model.output")):
            got = fn(model, words, mask, layers)
    not_none(got, "your function", "the logits, a tensor (B, n_classes)")
    if not isinstance(got, torch.Tensor):
        raise CheckFailed(f"got {type(got).__name__}; return the logits tensor (B, n_classes)")
    assert_close(got, expected, "logits with ELMo at the output",
                 hint="The LSTM reads the word vectors only; concatenate "
                      "model.elmo('output', layers, mask) to its states h (B, T, 2H) along the "
                      "last axis, then pool the mean and the max over real tokens only.")
    return "ELMo at the output: your logits equal TaskModel(elmo_at=('output',))"


@check
def check_error_reduction(fn: Callable[[float, float], float]) -> str:
    """``fn(baseline, elmo)`` must return the relative error reduction in percent (Table 1)."""
    cases = [(51.4, 54.7, 6.8), (90.15, 92.22, 21.0), (80.0, 80.0, 0.0), (60.0, 50.0, -25.0)]
    draw = random.Random()  # fresh cases on every run: no table of known answers passes
    for _ in range(8):
        baseline, elmo = round(draw.uniform(5, 98), 2), round(draw.uniform(5, 99.5), 2)
        cases.append((baseline, elmo, 100.0 * (elmo - baseline) / (100.0 - baseline)))
    for baseline, elmo, expected in cases:
        got = one_number(fn(baseline, elmo), "the reduction in percent")
        if not abs(got - expected) <= 0.05:
            raise CheckFailed(
                f"baseline {baseline}, +ELMo {elmo}: got {got:.2f}, expected {expected:.1f}. "
                "The error is 100 - score; the reduction is (error before - error after) / "
                "error before, in percent.")
    return "relative error reduction: SST-5 6.8 %, NER 21.0 %, as in the paper's Table 1"


@check
def check_top_layer_only(fn: Callable) -> str:
    """``fn(split)`` must return a copy of a :class:`TaskSplit` with only the biLM's top layer,
    each sentence's ``(T, 1, D)``, and the same words, characters, targets and classes."""
    torch.manual_seed(2)
    layers = [torch.randn(n, 3, 4) for n in (5, 2)]  # (T, L + 1, D) per sentence
    chars = [torch.randint(1, 200, (n, 6)) for n in (5, 2)]  # (T, C) per sentence
    split = TaskSplit([torch.arange(n) for n in (5, 2)], layers, [1, 0], ["neg", "pos"], chars)
    got = fn(split)
    not_none(got, "top_layer_only", "a TaskSplit (like the one given)")
    if not isinstance(got, TaskSplit):
        raise CheckFailed(f"got {type(got).__name__}; return a TaskSplit (like the one given)")
    if got.layers is None or len(got.layers) != 2:
        raise CheckFailed("the returned split must keep one layers tensor per sentence")
    for x, full in zip(got.layers, layers, strict=True):
        if x.shape != (full.shape[0], 1, full.shape[2]):
            raise CheckFailed(
                f"a sentence's layers have shape {tuple(x.shape)}, expected "
                f"{(full.shape[0], 1, full.shape[2])}: keep the layer axis, with one layer "
                "(x[:, -1:], not x[:, -1])")
        if not torch.equal(x, full[:, -1:]):
            raise CheckFailed("the kept layer is not the top one: the layers axis runs from "
                              "0 (the character CNN) to L (the top LSTM); take the last")
    if got.targets != split.targets or any(
            not torch.equal(a, b) for a, b in zip(got.words, split.words, strict=True)):
        raise CheckFailed("change only the layers: words and targets must stay as they were")
    if got.chars is None or any(not torch.equal(a, b)
                                for a, b in zip(got.chars, chars, strict=True)):
        raise CheckFailed("the characters were lost: pass split.chars on too (the task model's "
                          "character CNN reads them)")
    return "top layer only: each sentence keeps layer L alone, as (T, 1, D)"


@check
def check_seed_counts(by_n: dict, tasks: dict, seed_counts) -> str:
    """``by_n[task, n]``, for every task of ``tasks`` and every ``n`` in ``seed_counts``, must be
    ``paired_difference`` of the baseline's and ELMo's first ``n`` runs, baseline first."""
    filled_dict(by_n, "by_n", "it must map (task, n) to the paired difference of the task's "
                "first n seeds.")
    for task, entry in tasks.items():
        baseline, elmo = (entry["arms"][arm]["runs"] for arm in ("baseline", "elmo"))
        for n in seed_counts:
            if (task, n) not in by_n:
                raise CheckFailed(f"by_n has no entry for ({task!r}, {n}): one for every task "
                                  "and every n in seed_counts.")
            got, want = by_n[task, n], paired_difference(baseline[:n], elmo[:n])
            where = f"by_n[{task!r}, {n}]"
            if not isinstance(got, dict) or not all(isinstance(got.get(k), int | float)
                                                    for k in ("mean", "std", "low", "high")):
                raise CheckFailed(f"{where} is not what paired_difference returns: a dict "
                                  "with the mean, std, low and high of the differences.")
            if all(abs(got[k] - want[k]) <= 1e-9 or got[k] == want[k]
                   for k in ("mean", "std", "low", "high")):
                continue
            hint = "pair the first n runs of each arm, baseline first: runs[:n]"
            if abs(got["mean"] + want["mean"]) <= 1e-9 and want["mean"]:
                hint = "ELMo − baseline, not baseline − ELMo: pass the baseline's runs first"
            elif n < len(elmo) and abs(got["mean"] - paired_difference(
                    baseline[-n:], elmo[-n:])["mean"]) <= 1e-9:
                hint = "those are the last n seeds: take the first n, runs[:n]"
            raise CheckFailed(f"{where}: mean {got['mean']:.4g}, std {got['std']:.4g}, "
                              f"expected {want['mean']:.4g} and {want['std']:.4g}: {hint}.")
    return (f"the paired differences of {len(tasks)} tasks from their first "
            f"{', '.join(map(str, seed_counts))} seeds, each recomputed and equal")
