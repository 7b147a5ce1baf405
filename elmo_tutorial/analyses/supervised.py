"""One supervised training loop for every task model of the course: Adam, dev, the best epoch.

Taught in notebook 12 (``12_elmo_in_a_task_model``).

Notebook 10's NER tagger (:func:`~elmo_tutorial.analyses.tagger.train_tagger`) and notebook 12's
task model (:func:`~elmo_tutorial.tasks.training.train_task_model`) share :func:`fit`, so both
stop by the same rule: dev has not improved for ``patience`` rounds, never before
``min_updates`` steps, and never at a cap while it may still improve (a run reaching
``max_rounds`` gets ``patience`` more rounds, up to ``hard_cap``). A **round** is one pass, as
many passes as make ``round_updates`` steps (a small set), or part of a long pass
(``max_round_updates``).

Example:
    >>> torch.manual_seed(0) and None
    >>> model = nn.Linear(1, 1)
    >>> x, y = torch.randn(64, 1), None
    >>> y = 3 * x
    >>> batches = [(x[i:i + 16], y[i:i + 16]) for i in range(0, 64, 16)]
    >>> loss = lambda b: nn.functional.mse_loss(model(b[0]), b[1])
    >>> score = lambda: -float(nn.functional.mse_loss(model(x), y))
    >>> result = fit(model, batches, loss, score, lr=0.1, max_rounds=30, patience=5)
    >>> result.stopped, result.best_round <= result.last_round
    ('patience', True)
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

import torch
from torch import nn

__all__ = ["Fit", "fit", "length_batches"]


def length_batches(lengths: Sequence[int], batch_size: int, generator: torch.Generator | None
                   ) -> list[list[int]]:
    """Indices grouped into batches of similar length; batch order shuffled if ``generator``
    (the groups themselves do not depend on it: pad each once, shuffle only the order)."""
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    batches = [order[i:i + batch_size] for i in range(0, len(order), batch_size)]
    if generator is not None:
        batches = [batches[i] for i in torch.randperm(len(batches), generator=generator)]
    return batches


@dataclass
class Fit:
    """What :func:`fit` did.

    Attributes:
        history: one dict per round: ``{"round", "epochs" (passes so far), "updates", "loss"
            (the round's mean), "valid" (dev score), "lr"}``.
        best_round: the round whose weights the model ends with.
        cap: the most rounds the run was allowed in the end (``max_rounds``, extended).
        stopped: ``"patience"`` or ``"cap"`` (``hard_cap`` reached: a report counts none).
    """

    history: list[dict] = field(default_factory=list)
    best_round: int = 0
    last_round: int = 0
    cap: int = 0
    stopped: str = "patience"

    @property
    def best_valid(self) -> float:
        return self.history[self.best_round - 1]["valid"]


def fit(model: nn.Module, batches: Sequence, loss_of: Callable[[object], torch.Tensor],
        score_dev: Callable[[], float], *, lr: float, seed: int = 0, max_rounds: int = 30,
        patience: int = 5, min_updates: int = 0, round_updates: int = 1,
        hard_cap: int = 200, lr_patience: int | None = None, lr_factor: float = 0.5,
        wait_while_zero: bool = False, max_round_updates: int | None = None,
        progress: bool = False) -> Fit:
    """Train ``model`` with Adam until dev stops improving; end with the best round's weights.

    Args:
        batches: the training batches, in any form ``loss_of`` (batch → scalar loss) accepts;
            their order is shuffled every pass.
        score_dev: the dev score, higher is better (called after every round).
        seed: seeds dropout and the batch order (seed torch before building the model).
        lr_patience: multiply the learning rate by ``lr_factor`` after this many rounds
            without a better dev score since the best round or the last cut (None: never).
        wait_while_zero: for span F1, where 0 means nothing found yet: rounds until the first
            dev score above 0 count towards neither patience (a start not yet made is not
            convergence), at most ``max_rounds`` of them (then ``stopped="cap"``).
    """
    if not batches:
        raise ValueError("fit needs at least one training batch")
    torch.manual_seed(seed)  # dropout
    generator = torch.Generator().manual_seed(seed)  # batch order
    passes_per_round = max(1, math.ceil(round_updates / len(batches)))
    steps_per_round = passes_per_round * len(batches)
    if max_round_updates is not None:  # a large set: dev is scored within a pass
        steps_per_round = min(steps_per_round, max_round_updates)
    order = _shuffled_passes(len(batches), generator)  # one shuffled pass after another
    optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=lr)
    result, cap, best, best_state, updates = Fit(), max_rounds, -math.inf, None, 0
    last_cut = 0  # the round after which the learning rate was last lowered
    rounds = range(1, hard_cap + 1)
    if progress:
        from elmo_tutorial.runtime import progress_bar

        rounds = progress_bar(iterable=rounds, desc="training", unit="round", leave=False)
    for round_ in rounds:
        model.train()
        total, seen = 0.0, 0
        for _ in range(steps_per_round):
            loss = loss_of(batches[next(order)])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total, seen, updates = total + float(loss.detach()), seen + 1, updates + 1
        score = float(score_dev())
        rate = optimizer.param_groups[0]["lr"]
        epochs = updates / len(batches)  # a whole number unless rounds split passes
        result.history.append({"round": round_,
                               "epochs": int(epochs) if epochs.is_integer() else epochs,
                               "updates": updates, "loss": total / seen, "valid": score,
                               "lr": rate})
        result.last_round = round_
        if score > best:
            best, best_state, result.best_round = score, copy.deepcopy(model.state_dict()), round_
        started = best > 0.0 or not wait_while_zero
        done = started and round_ - result.best_round >= patience and updates >= min_updates
        if done:
            break
        if started and lr_patience is not None \
                and round_ - max(result.best_round, last_cut) >= lr_patience:
            for group in optimizer.param_groups:  # a plateau: try smaller steps
                group["lr"] = rate * lr_factor
            last_cut = round_
        if round_ == cap:
            if started:  # patience has not acted: the run may still improve, so allow more
                cap = min(hard_cap, cap + patience)
            if round_ == cap:  # (a run that has not started gets no more)
                result.stopped = "cap"
                break
    result.cap = cap
    model.load_state_dict(best_state)
    return result


def _shuffled_passes(n: int, generator: torch.Generator) -> Iterator[int]:
    """Batch indices, pass after pass, each pass a new permutation of ``range(n)``."""
    while True:
        yield from torch.randperm(n, generator=generator).tolist()
