r"""A floor for sentence classification: bag-of-words logistic regression.

Each sentence becomes the set of its lower-cased words (binary features, the words of the
training set), and a multinomial logistic regression scores the classes:

.. math::
    p(y \mid x) = \mathrm{softmax}(W \mathbf{1}_x + b)_y, \qquad
    \min_{W, b} \; -\tfrac1N \textstyle\sum_i \log p(y_i \mid x_i) + \alpha \lVert W \rVert^2

Convex, so there is no seed: L-BFGS finds the one optimum; :math:`\alpha` is chosen on dev. A
model that reads word order and vectors learned on millions of words should beat it.

Example:
    >>> train = [(["a", "good", "film"], 1), (["a", "bad", "film"], 0)] * 5
    >>> result = bag_of_words_baseline(train, train, train)
    >>> result["test"], result["features"]
    (100.0, 4)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import torch
from torch import nn

__all__ = ["ALPHAS", "bag_of_words_baseline", "majority_rate"]

ALPHAS = (1e-5, 1e-4, 1e-3, 1e-2)  # the L2 strengths tried on dev


def _bags(pairs, index: dict[str, int]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Word ids of every sentence, flat, with offsets (``nn.EmbeddingBag``), and labels."""
    ids, offsets = [], []
    for tokens, _ in pairs:
        offsets.append(len(ids))
        ids.extend(sorted({index[t.lower()] for t in tokens if t.lower() in index}))
    labels = torch.tensor([int(y) for _, y in pairs])
    return torch.tensor(ids, dtype=torch.long), torch.tensor(offsets), labels


def _fit(bags, n_words: int, n_classes: int, alpha: float, steps: int) -> nn.EmbeddingBag:
    ids, offsets, labels = bags
    torch.manual_seed(0)  # the optimum does not depend on it; the path to it should not vary
    model = nn.EmbeddingBag(n_words, n_classes, mode="sum")  # W 1_x: a row per word, summed
    nn.init.zeros_(model.weight)
    model.bias = nn.Parameter(torch.zeros(n_classes))  # b: registered after W, as LBFGS reads them
    optimizer = torch.optim.LBFGS(model.parameters(), lr=1.0, max_iter=steps,
                                  line_search_fn="strong_wolfe")

    def closure():
        optimizer.zero_grad()
        logits = model(ids, offsets) + model.bias  # (N, C)
        loss = nn.functional.cross_entropy(logits, labels) + alpha * model.weight.pow(2).sum()
        loss.backward()
        return loss

    optimizer.step(closure)
    return model


@torch.no_grad()
def _accuracy(model: nn.EmbeddingBag, bags) -> float:
    ids, offsets, labels = bags
    predicted = (model(ids, offsets) + model.bias).argmax(-1)
    return 100.0 * float((predicted == labels).float().mean())


def bag_of_words_baseline(train: Sequence, valid: Sequence, test: Sequence,
                          alphas: Sequence[float] = ALPHAS, steps: int = 200) -> dict:
    """Fit on ``train`` (``[(tokens, label from 0), ...]``) for every ``alpha`` (``steps`` of
    L-BFGS: SST-5 reaches the optimum well before 200), keep the best on ``valid``, score
    ``test``: ``{"test", "valid": accuracy (percent), "alpha", "features": training words,
    "dev_by_alpha": {alpha: dev accuracy}}``."""
    index: dict[str, int] = {}
    for tokens, _ in train:
        for t in tokens:
            index.setdefault(t.lower(), len(index))
    if not index:
        raise ValueError("the training sentences hold no words")
    n_classes = 1 + max(int(y) for _, y in (*train, *valid, *test))
    bags = {name: _bags(pairs, index) for name, pairs in
            (("train", train), ("valid", valid), ("test", test))}
    dev, models = {}, {}
    for alpha in alphas:
        models[alpha] = _fit(bags["train"], len(index), n_classes, alpha, steps)
        dev[alpha] = _accuracy(models[alpha], bags["valid"])
    best = max(alphas, key=lambda a: dev[a])
    return {"test": _accuracy(models[best], bags["test"]), "valid": dev[best], "alpha": best,
            "features": len(index), "dev_by_alpha": {str(a): s for a, s in dev.items()}}


def majority_rate(labels: Sequence) -> float:
    """The other floor: the accuracy (percent) of always answering the commonest label."""
    return 100.0 * max(Counter(str(label) for label in labels).values()) / max(1, len(labels))
