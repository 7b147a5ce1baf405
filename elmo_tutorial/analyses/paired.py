r"""Comparing two models run on the same seeds: the paired difference and its 95 % interval.

Taught in notebook 12 (``12_elmo_in_a_task_model``).

When two arms (a baseline and + ELMo) are trained with the same seeds, seed ``i`` gives both
the same training sample and batch order (and draws their initial weights from the same
seed), so the fair question is about the differences :math:`d_i = b_i - a_i`, not about two
separate spreads. With :math:`n` seeds, mean :math:`\bar d` and sample standard deviation
:math:`s_d`, the 95 % interval of the mean difference is Student's

.. math::
    \bar d \pm t_{0.975,\, n-1} \, s_d / \sqrt{n}.

A difference is called a **gain** (or a **loss**) only when that interval excludes 0; otherwise
the seeds do not show one ("no difference shown": which is not "no difference").

The test set is a sample as well. Given ``test_std``, the standard error that resampling the
test sentences gives :math:`\bar d`
(:func:`~elmo_tutorial.analyses.bootstrap.sentence_bootstrap_std`), the interval covers both
sources of chance:
:math:`\bar d \pm t_{0.975,\, n-1} \sqrt{s_d^2 / n + \mathrm{SE}_{\text{test}}^2}`.

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
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from elmo_tutorial.files.records import Record, optional

__all__ = ["PairedDifference", "paired_difference", "t_quantile", "verdict"]

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
    ``"test_std"`` when given).

    ``low``/``high`` bound the 95 % t interval of the mean difference; with one pair they are
    ``-inf``/``inf`` (one seed shows nothing). ``test_std``: the standard error the test
    sample gives the mean difference; its variance is added to the seeds' (module docstring).
    """
    if len(a) != len(b) or not a:
        raise ValueError(f"paired runs must come in equal, non-empty numbers: {len(a)} and "
                         f"{len(b)}")
    d = [float(y) - float(x) for x, y in zip(a, b, strict=True)]
    n, mean = len(d), sum(d) / len(d)
    if test_std is not None and not test_std >= 0.0:
        raise ValueError(f"test_std must be a standard error ≥ 0, got {test_std}")
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


def verdict(difference: PairedDifference | Mapping) -> str:
    """``"gain"``, ``"loss"`` or ``"no difference shown"``: does the interval exclude 0?

    ``difference``: a :class:`PairedDifference` or :func:`paired_difference`'s dict."""
    if isinstance(difference, Mapping):
        low, high = difference["low"], difference["high"]
    else:
        low, high = difference.low, difference.high
    if low > 0:
        return "gain"
    if high < 0:
        return "loss"
    return "no difference shown"
