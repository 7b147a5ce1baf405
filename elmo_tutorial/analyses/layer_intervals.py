r"""How sure a layer trend is: a paired bootstrap over the test items.

The layer report (:mod:`~elmo_tutorial.analyses.layer_report`) checks two of the paper's trends
on one model: word senses, layer 2 above layer 1; part of speech, layer 1 at least layer 2. Both
layers are scored on the *same* test items, so another sample of test items would move both
scores together, and their difference far less than either score. This module measures how far
it would move, with the test-sample bootstrap of :mod:`~elmo_tutorial.analyses.bootstrap`
(there: two arms over several seeds; here: two layers of one model, a single "seed" per arm):

- **WSD**, on ALL: the items are the test *instances*. Each adds ``[right, answered, 1]`` to
  the sums, and F1 is computed from the sums as :func:`.wsd.score` computes it: with precision
  ``c / a`` and recall ``c / t``, :math:`F_1 = 2PR / (P + R) = 2c / (a + t)`, the span-F1 form of
  :func:`.bootstrap.scores_from_counts` (with the first-sense backoff every instance is
  answered, so F1 is the accuracy).
- **POS**: the items are the test *sentences*, since the tokens of a sentence are not
  independent (one odd sentence makes several errors). Each adds ``[right tokens, tokens,
  tokens]``: the same F1 form then gives right tokens / tokens, the token accuracy over the
  drawn sentences (every token gets one tag, so precision = recall = accuracy).

:func:`paired_interval` draws the items again with replacement (2,000 draws, seed 0), the
**same** draw for both layers, and takes the standard deviation of the difference over the
draws as its standard error (:func:`.bootstrap.sentence_bootstrap_std`). The 95 % interval is
the difference on the whole test set ± 1.96 standard errors (a normal approximation: the
difference is a mean over thousands of items).

Example:
    >>> a = [[1, 1, 1]] * 40 + [[0, 1, 1]] * 60     # layer 1: 40 of 100 instances right
    >>> b = [[1, 1, 1]] * 70 + [[0, 1, 1]] * 30     # layer 2: 70 right, 40 of them the same
    >>> margin, low, high = paired_interval(a, b)
    >>> round(margin, 1), 0 < low < margin < high   # +30 points, the interval above 0
    (30.0, True)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from elmo_tutorial.analyses.bootstrap import DRAWS, scores_from_counts, sentence_bootstrap_std

__all__ = ["Z_95", "item_outcomes", "paired_interval", "pos_sentence_counts",
           "wsd_instance_counts"]

Z_95 = 1.96  # the normal quantile of a two-sided 95 % interval
LAYERS = ("layer1", "layer2")  # the two layers the paper's trends compare


def wsd_instance_counts(details: Mapping, rep: str) -> np.ndarray:
    """Per test instance of ALL, ``[right, answered, 1]``: ``(N, 3)``, ``N`` instances.

    Args:
        details: what :func:`.wsd.evaluate_all` filled in (``"predictions"`` and ``"gold"``);
            ALL is every test set in it, instances in the framework's order.
        rep: the representation, e.g. ``"layer2"``.

    >>> details = {"gold": {"s2": {"a": ("x",), "b": ("y", "z")}, "s3": {"c": ("x",)}},
    ...            "predictions": {"layer1": {"s2": {"a": "x", "b": "w"}, "s3": {"c": None}}}}
    >>> wsd_instance_counts(details, "layer1").tolist()
    [[1, 1, 1], [0, 1, 1], [0, 0, 1]]
    """
    predictions = details["predictions"][rep]
    rows = [[int(predictions[name].get(i) in keys), int(predictions[name].get(i) is not None), 1]
            for name, gold in details["gold"].items() for i, keys in gold.items()]
    return np.array(rows, dtype=np.int64).reshape(-1, 3)


def pos_sentence_counts(labels: np.ndarray, predicted: np.ndarray, lengths: Sequence[int]
                        ) -> np.ndarray:
    """Per test sentence, ``[right tokens, tokens, tokens]``: ``(S, 3)`` for ``S`` sentences.

    Args:
        labels, predicted: ``(N,)`` gold and predicted class ids of the test tokens, sentences
            one after another (:func:`.probes.probe_layers`' ``details``).
        lengths: tokens per sentence, ``(S,)``, summing to ``N``.

    >>> pos_sentence_counts(np.array([0, 1, 2, 2, 1]), np.array([0, 1, 1, 2, 0]), [2, 3]).tolist()
    [[2, 2, 2], [1, 3, 3]]
    """
    labels, predicted = np.asarray(labels), np.asarray(predicted)
    lengths = np.asarray(lengths, dtype=np.int64)
    if labels.shape != predicted.shape or lengths.sum() != len(labels):
        raise ValueError(f"{len(labels)} gold tags, {len(predicted)} predicted ones and "
                         f"sentences of {int(lengths.sum())} tokens in all: they must agree")
    # right tokens up to each sentence boundary: a sentence's count is the step between two
    right_so_far = np.concatenate([[0], np.cumsum(labels == predicted)])  # (N + 1,)
    ends = np.cumsum(lengths)  # (S,)
    right = right_so_far[ends] - right_so_far[ends - lengths]
    return np.stack([right, lengths, lengths], axis=1)


def paired_interval(counts_a, counts_b, draws: int = DRAWS, seed: int = 0
                    ) -> tuple[float, float, float]:
    """The difference ``score(b) − score(a)`` on the whole test set and its 95 % interval.

    Args:
        counts_a, counts_b: ``(N, 3)`` per-item counts of the two layers on the same ``N``
            items, in the same order (:func:`wsd_instance_counts`, :func:`pos_sentence_counts`).
        draws, seed: of the bootstrap (the same draws every time).

    Returns:
        ``(difference, low, high)`` in points, ``low, high = difference ∓ 1.96 · SE`` with SE
        the standard deviation of the difference over ``draws`` paired resamples of the items.
    """
    a, b = np.asarray(counts_a, np.float64)[None], np.asarray(counts_b, np.float64)[None]
    difference = float(scores_from_counts(b)[0] - scores_from_counts(a)[0])
    half = Z_95 * sentence_bootstrap_std(a, b, draws=draws, seed=seed)
    return difference, difference - half, difference + half


def item_outcomes(wsd_details: Mapping, pos_details: Mapping) -> dict[str, dict[str, np.ndarray]]:
    """Layers 1 and 2's per-item counts on every test set a trend is checked on.

    Args:
        wsd_details: from :func:`.wsd.evaluate_all` (``details=``).
        pos_details: from :func:`.probes.evaluate_pos` (``details=``).

    Returns:
        ``{"ALL": {"layer1": (N, 3), "layer2": (N, 3)}, "ptb": {...}, "upos": {...}}``, the input
        of :func:`.layer_report.trends`.
    """
    out = {"ALL": {rep: wsd_instance_counts(wsd_details, rep) for rep in LAYERS}}
    for name, tokens in pos_details.items():
        out[name] = {rep: pos_sentence_counts(tokens["labels"], tokens["predicted"][rep],
                                               tokens["lengths"]) for rep in LAYERS}
    return out
