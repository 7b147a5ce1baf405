"""Paired differences over seeds: Student's t interval, and a verdict only when it excludes 0."""

import math
import statistics

import pytest

from elmo_tutorial.analyses.paired import paired_difference, t_quantile, verdict


@pytest.mark.parametrize("df, expected", [(1, 12.706), (4, 2.776), (9, 2.262), (30, 2.042),
                                          (40, 2.021), (60, 2.000), (120, 1.980)])
def test_t_quantiles_match_the_published_table(df, expected):
    assert t_quantile(df) == pytest.approx(expected, abs=1.5e-3)


def test_the_interval_is_the_mean_difference_plus_minus_t_times_the_standard_error():
    a, b = [50.0, 51.0, 49.0, 52.0, 50.5], [51.0, 53.5, 49.5, 54.0, 51.0]
    d = [y - x for x, y in zip(a, b, strict=True)]
    result = paired_difference(a, b)
    half = 2.776 * statistics.stdev(d) / math.sqrt(5)
    assert result["mean"] == pytest.approx(statistics.mean(d))
    assert (result["low"], result["high"]) == pytest.approx((result["mean"] - half,
                                                             result["mean"] + half))
    assert result["differences"] == pytest.approx(d) and result["n"] == 5


def test_pairing_removes_what_the_seeds_share():
    """Two arms whose seeds scatter widely but move together: the unpaired spreads overlap,
    the paired interval does not include 0."""
    a = [40.0, 50.0, 45.0, 55.0, 42.0]
    b = [x + 1.0 + 0.1 * i for i, x in enumerate(a)]
    assert verdict(paired_difference(a, b)) == "gain"
    assert verdict(paired_difference(b, a)) == "loss"
    assert verdict(paired_difference(a, [x + (1 if i % 2 else -1) for i, x in enumerate(a)])) \
        == "no difference shown"


def test_one_seed_shows_nothing_and_unequal_runs_are_refused():
    one = paired_difference([50.0], [60.0])
    assert verdict(one) == "no difference shown" and one["low"] == -math.inf
    with pytest.raises(ValueError, match="equal, non-empty"):
        paired_difference([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="at least 2 runs"):
        t_quantile(0)
