r"""Comparing two models on the same seeds and test set: paired differences, 95 % intervals.

Taught in notebook 12 (``12_elmo_in_a_task_model``); the layer report uses the same intervals.

**Over seeds.** Seed ``i`` gives both arms the same training sample, batch order and initial
weights' seed, so the question is about the differences :math:`d_i = b_i - a_i`. With :math:`n`
seeds, mean :math:`\bar d` and sample standard deviation :math:`s_d`, the 95 % interval is
Student's :math:`\bar d \pm t_{0.975,\, n-1} \, s_d / \sqrt{n}`. A **gain** (or **loss**) is
called only when it excludes 0; otherwise "no difference shown" (which is not "no difference").

**Over test sentences.** The test set is a sample too. Each run keeps, per test sentence, what
its score is made of (:func:`sentence_counts`): right or wrong for accuracy, correct, predicted
and gold spans for F1 (a ratio of sums, not a mean of per-sentence F1s).
:func:`sentence_bootstrap_std` redraws the test sentences, the **same** draw for every run of
both arms, and gives the standard error :math:`\mathrm{SE}_{\text{test}}` of :math:`\bar d`.
The two sources of chance are independent (keeping the seeds' :math:`t` errs on the wide side):

.. math::
    \bar d \pm t_{0.975,\,n-1} \sqrt{s_d^2 / n + \mathrm{SE}_{\text{test}}^2}.

Two layers of one model are one "seed" per arm: :func:`paired_interval`.

Example:
    >>> d = paired_difference([50.0, 51.0, 49.5, 50.5, 50.0], [52.0, 52.5, 51.0, 53.0, 51.5])
    >>> round(d["mean"], 2), round(d["low"], 2), round(d["high"], 2), verdict(d)
    (1.8, 1.24, 2.36, 'gain')

A report keeps each comparison as a :class:`PairedDifference`, the same numbers typed:

    >>> p = PairedDifference.between([50.0, 51.0, 49.5, 50.5], [52.0, 52.5, 51.0, 53.0])
    >>> p.n, round(p.mean, 2), verdict(p)
    (4, 1.88, 'gain')

and with the test sample's share of chance, a wider interval:

    >>> w = PairedDifference.between([50.0, 51.0, 49.5, 50.5], [52.0, 52.5, 51.0, 53.0],
    ...                              test_std=0.8)
    >>> round(w.low, 2), round(w.high, 2), verdict(w)
    (-0.78, 4.53, 'no difference shown')

The test sample's share, from per-sentence outcomes (2 seeds × 8 sentences):

    >>> a = [[1, 0, 1, 1, 0, 1, 0, 1], [1, 1, 0, 1, 0, 1, 0, 1]]
    >>> b = [[1, 1, 1, 1, 0, 1, 1, 1], [1, 1, 1, 1, 0, 1, 0, 1]]
    >>> scores_from_counts(a).tolist(), scores_from_counts(b).tolist()
    ([62.5, 62.5], [87.5, 75.0])
    >>> 5.0 < sentence_bootstrap_std(a, b) < 15.0            # 8 sentences: a wide spread
    True
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from elmo_tutorial.files.records import Record, optional

__all__ = ["DRAWS", "Z_95", "PairedDifference", "ci", "paired_difference", "paired_interval",
           "paired_runs", "scores_from_counts", "sentence_bootstrap_std", "sentence_counts",
           "t_quantile", "verdict"]

DRAWS = 2000  # resamples of the test sentences: the standard error to about 2 % of itself
Z_95 = 1.96  # the normal quantile of a two-sided 95 % interval

# Student's t, two-sided 95 % (the 0.975 quantile), for 1-30 degrees of freedom.
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
         2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
         2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)


def t_quantile(df: int) -> float:
    """Student's t 0.975 quantile for ``df`` degrees of freedom (a table up to 30, then the
    Cornish-Fisher expansion around the normal's 1.96, within 0.001 of the exact value).

    >>> t_quantile(4), t_quantile(1000) < 1.963
    (2.776, True)
    """
    if df < 1:
        raise ValueError(f"a t interval needs at least 2 runs (1 degree of freedom), got df={df}")
    if df <= len(_T975):
        return _T975[df - 1]
    z = 1.959964
    return z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)


def paired_difference(a: Sequence[float], b: Sequence[float],
                      test_std: float | None = None) -> dict:
    """``b - a`` seed by seed: ``{"mean", "low", "high", "std", "n", "differences"}`` (and
    ``"test_std"``, the test sample's standard error, when given).

    ``low``/``high`` bound the 95 % interval; with one pair ``-inf``/``inf`` (one seed shows
    nothing).
    """
    if len(a) != len(b) or not a:
        raise ValueError(f"paired runs must come in equal, non-empty numbers: {len(a)} and "
                         f"{len(b)}")
    d = [float(y) - float(x) for x, y in zip(a, b, strict=True)]
    n, mean = len(d), sum(d) / len(d)
    extra = {} if test_std is None else {"test_std": float(test_std)}
    if n == 1:
        return {"mean": mean, "low": -math.inf, "high": math.inf, "std": 0.0, "n": 1,
                "differences": d, **extra}
    std = math.sqrt(sum((x - mean) ** 2 for x in d) / (n - 1))
    half = t_quantile(n - 1) * math.sqrt(std**2 / n + (test_std or 0.0) ** 2)
    return {"mean": mean, "low": mean - half, "high": mean + half, "std": std, "n": n,
            "differences": d, **extra}


@dataclass(frozen=True)
class PairedDifference(Record):
    """``b - a`` over the same seeds, as a report keeps it (points: the scores' unit)."""

    mean: float  # the mean difference d̄
    low: float  # the 95 % t interval's lower end (-inf for one seed)
    high: float  # its upper end (inf for one seed)
    std: float  # sample standard deviation s_d of the differences
    n: int  # seeds (pairs)
    differences: list[float]  # d_i, seed by seed
    # the standard error the test sample gives the mean (None: the interval covers seeds only)
    test_std: float | None = optional()

    @classmethod
    def between(cls, a: Sequence[float], b: Sequence[float],
                test_std: float | None = None) -> PairedDifference:
        """:func:`paired_difference` of ``a`` and ``b``, typed."""
        return cls(**paired_difference(a, b, test_std))


def ci(d: PairedDifference) -> str:
    """A paired difference and its 95 % interval as the reports write it (points).

    >>> ci(PairedDifference(mean=1.04, low=-0.5, high=2.5, std=1.2, n=5, differences=[]))
    '+1.0 [-0.5, +2.5]'
    """
    return f"{d.mean:+.1f} [{d.low:+.1f}, {d.high:+.1f}]"


def verdict(difference: PairedDifference | Mapping) -> str:
    """``"gain"``, ``"loss"`` or ``"no difference shown"``: does the interval exclude 0?"""
    if isinstance(difference, Mapping):
        low, high = difference["low"], difference["high"]
    else:
        low, high = difference.low, difference.high
    if low > 0:
        return "gain"
    if high < 0:
        return "loss"
    return "no difference shown"


def sentence_counts(gold: Sequence, predicted: Sequence, spans=None) -> list:
    """What each test sentence adds to the score: ``1``/``0`` for labels, or
    ``[correct, predicted, gold]`` for tag sequences, with ``spans`` (tags → set of spans).

    >>> from elmo_tutorial.analyses.spans import bio_spans
    >>> sentence_counts([["B-NP", "I-NP", "O"]], [["B-NP", "B-NP", "O"]], bio_spans)
    [[0, 2, 1]]
    """
    if spans is None:
        return [int(g == p) for g, p in zip(gold, predicted, strict=True)]
    out = []
    for g, p in zip(gold, predicted, strict=True):
        g_spans, p_spans = spans(g), spans(p)
        out.append([len(g_spans & p_spans), len(p_spans), len(g_spans)])
    return out


def scores_from_counts(counts, weights: np.ndarray | None = None) -> np.ndarray:
    """The score (percent) of every run from its sentences' counts.

    Shape:
        ``counts`` ``(S, N)`` right/wrong or ``(S, N, 3)`` span counts, for ``S`` runs and
        ``N`` sentences; ``weights`` ``(B, N)``, each sentence's draws in ``B`` resamples
        (None: the test set as it is) → ``(S,)``, or ``(B, S)`` with ``weights``.
    """
    counts = np.asarray(counts, dtype=np.float64)
    squeeze = weights is None
    if squeeze:
        weights = np.ones((1, counts.shape[1]))
    if counts.ndim == 2:  # accuracy: the share of right sentences
        scores = 100.0 * (weights @ counts.T) / weights.sum(1, keepdims=True)  # (B, S)
    else:  # F1 = 2 · correct / (predicted + gold), summed over the drawn sentences
        sums = np.einsum("bn,snk->bsk", weights, counts)  # (B, S, 3)
        total = sums[..., 1] + sums[..., 2]
        scores = np.divide(200.0 * sums[..., 0], total, out=np.zeros_like(total),
                           where=total > 0)  # (B, S)
    return scores[0] if squeeze else scores


def sentence_bootstrap_std(counts_a, counts_b, draws: int = DRAWS, seed: int = 0) -> float:
    """The standard deviation of ``mean(score_b − score_a)`` over seeds when the test sentences
    are drawn again; ``counts_a``, ``counts_b``: per seed (the same, in order) every test
    sentence's :func:`sentence_counts`."""
    a, b = np.asarray(counts_a, dtype=np.float64), np.asarray(counts_b, dtype=np.float64)
    n = a.shape[1]
    rng = np.random.default_rng(seed)
    weights = rng.multinomial(n, np.full(n, 1.0 / n), size=draws).astype(np.float64)  # (B, N)
    differences = scores_from_counts(b, weights) - scores_from_counts(a, weights)  # (B, S)
    return float(differences.mean(1).std(ddof=1))


def paired_interval(counts_a, counts_b, draws: int = DRAWS, seed: int = 0
                    ) -> tuple[float, float, float]:
    """``(difference, low, high)``: ``score(b) − score(a)`` of two runs' ``(N, 3)`` counts on the
    same items, ∓ 1.96 · SE (:func:`sentence_bootstrap_std`; thousands of items: normal).

    >>> a = [[1, 1, 1]] * 40 + [[0, 1, 1]] * 60     # 40 of 100 items right
    >>> b = [[1, 1, 1]] * 70 + [[0, 1, 1]] * 30     # 70 right, 40 of them the same
    >>> margin, low, high = paired_interval(a, b)
    >>> round(margin, 1), 0 < low < margin < high   # +30 points, the interval above 0
    (30.0, True)
    """
    a, b = np.asarray(counts_a, np.float64)[None], np.asarray(counts_b, np.float64)[None]
    difference = float(scores_from_counts(b)[0] - scores_from_counts(a)[0])
    half = Z_95 * sentence_bootstrap_std(a, b, draws=draws, seed=seed)
    return difference, difference - half, difference + half


def paired_runs(scores_a: Sequence[float], scores_b: Sequence[float],
                counts_a=None, counts_b=None) -> PairedDifference:
    """``b − a`` of two arms' test scores (same seeds, same order), with the test sample's
    standard error when both arms' per-seed sentence counts are given."""
    counted = counts_a is not None and counts_b is not None
    test_std = sentence_bootstrap_std(counts_a, counts_b) if counted else None
    return PairedDifference.between(scores_a, scores_b, test_std)
