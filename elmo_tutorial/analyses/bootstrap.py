r"""The test set is a sample too: how much a paired difference would move on other test sentences.

Taught in notebook 12 (``12_elmo_in_a_task_model``).

Two arms trained on the same seeds and scored on one test set differ for two reasons that
chance decides: which seeds (initial weights, dropout, batch order) and which test sentences.
The paired t interval of :mod:`~elmo_tutorial.analyses.paired` covers the first only: another
draw of WNUT-17's 1,287 test tweets could move the difference as much as another seed does.

This module measures the second. Each run keeps, per test sentence, what its score is made of
(:func:`sentence_counts`): for accuracy whether the sentence is right (1 or 0); for span F1 its
correct, predicted and gold spans (F1 is a ratio of sums, not a mean of per-sentence F1s).
:func:`sentence_bootstrap_std` draws the test sentences again with replacement, ``draws`` times, the
**same** draw for every run of both arms (the comparison stays paired), recomputes each run's
score on the draw, and returns the standard deviation of the seed-averaged difference: the
standard error that the test sample alone gives :math:`\bar d`.

:meth:`PairedDifference.between <elmo_tutorial.analyses.paired.PairedDifference.between>` adds
the two variances, the seeds' :math:`s_d^2 / n` and this one's square, and keeps Student's
:math:`t_{0.975,\,n-1}`:

.. math::
    \bar d \pm t_{0.975,\,n-1} \sqrt{s_d^2 / n + \mathrm{SE}_{\text{test}}^2}

(the two sources are independent: the seeds do not choose the test sentences; keeping the
seeds' :math:`t` with :math:`n - 1` degrees of freedom errs on the wide side).

Example:
    >>> a = [[1, 0, 1, 1, 0, 1, 0, 1], [1, 1, 0, 1, 0, 1, 0, 1]]   # 2 seeds × 8 sentences
    >>> b = [[1, 1, 1, 1, 0, 1, 1, 1], [1, 1, 1, 1, 0, 1, 0, 1]]
    >>> scores_from_counts(a).tolist(), scores_from_counts(b).tolist()
    ([62.5, 62.5], [87.5, 75.0])
    >>> 5.0 < sentence_bootstrap_std(a, b) < 15.0            # 8 sentences: a wide spread
    True
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["DRAWS", "scores_from_counts", "sentence_counts", "sentence_bootstrap_std"]

DRAWS = 2000  # resamples of the test sentences: the standard error to about 2 % of itself


def sentence_counts(gold: Sequence, predicted: Sequence, spans=None) -> list:
    """What each test sentence adds to the score.

    Args:
        gold, predicted: per sentence a label (accuracy) or a tag sequence (span F1).
        spans: for tags, a function ``tags → set of spans``
            (:func:`~elmo_tutorial.analyses.spans.bio_spans`); None for labels.

    Returns:
        Per sentence ``1``/``0`` (right or wrong label), or ``[correct, predicted, gold]``
        span counts.

    >>> from elmo_tutorial.analyses.spans import bio_spans
    >>> sentence_counts([["B-NP", "I-NP", "O"]], [["B-NP", "B-NP", "O"]], bio_spans)
    [[0, 2, 1]]
    """
    if len(gold) != len(predicted):
        raise ValueError(f"{len(gold)} gold sentences but {len(predicted)} predicted ones")
    if spans is None:
        return [int(g == p) for g, p in zip(gold, predicted, strict=True)]
    out = []
    for g, p in zip(gold, predicted, strict=True):
        g_spans, p_spans = spans(g), spans(p)
        out.append([len(g_spans & p_spans), len(p_spans), len(g_spans)])
    return out


def scores_from_counts(counts, weights: np.ndarray | None = None) -> np.ndarray:
    """The score (percent) of every run from its sentences' counts.

    Args:
        counts: ``(S, N)`` right/wrong (accuracy) or ``(S, N, 3)`` span counts (F1), for ``S``
            runs and ``N`` sentences.
        weights: ``(B, N)``: how often each sentence is drawn in each of ``B`` resamples
            (None: the test set as it is).

    Returns:
        ``(S,)``, or ``(B, S)`` with ``weights``.
    """
    counts = np.asarray(counts, dtype=np.float64)
    if weights is None:
        weights = np.ones((1, counts.shape[1]))
        squeeze = True
    else:
        squeeze = False
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
    are drawn again (see the module docstring).

    Args:
        counts_a, counts_b: per seed (the same seeds, in the same order), the counts of every
            test sentence (:func:`sentence_counts`); the same sentences for both arms.
        draws: resamples of the test sentences.
        seed: of the resampling (the same draws every time).
    """
    a, b = np.asarray(counts_a, dtype=np.float64), np.asarray(counts_b, dtype=np.float64)
    if a.shape != b.shape or a.ndim not in (2, 3) or a.shape[0] < 1 or a.shape[1] < 2:
        raise ValueError("both arms need counts of the same ≥ 2 test sentences for the same "
                         f"seeds: got shapes {a.shape} and {b.shape}")
    n = a.shape[1]
    rng = np.random.default_rng(seed)
    weights = rng.multinomial(n, np.full(n, 1.0 / n), size=draws).astype(np.float64)  # (B, N)
    differences = scores_from_counts(b, weights) - scores_from_counts(a, weights)  # (B, S)
    return float(differences.mean(1).std(ddof=1))
