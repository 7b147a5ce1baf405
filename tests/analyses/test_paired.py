"""Paired differences: Student's t interval over seeds, a verdict only when it excludes 0, and
the test-sample bootstrap (per-sentence counts give the scores back exactly; its standard error
agrees with the closed form where there is one)."""

import math
import statistics

import numpy as np
import pytest

from elmo_tutorial.analyses.paired import (
    PairedDifference,
    paired_difference,
    paired_runs,
    scores_from_counts,
    sentence_bootstrap_std,
    sentence_counts,
    t_quantile,
    verdict,
)
from elmo_tutorial.analyses.spans import bio_spans, entity_scores


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


def _random_tags(rng, n_sentences):
    tags = ["O", "B-NP", "I-NP", "B-VP", "I-VP"]
    return [[tags[i] for i in rng.integers(0, 5, rng.integers(1, 12))]
            for _ in range(n_sentences)]


def test_span_counts_give_entity_scores_f1_back():
    rng = np.random.default_rng(0)
    gold = _random_tags(rng, 300)
    predicted = [[t if rng.random() < 0.7 else "O" for t in s] for s in gold]
    counts = sentence_counts(gold, predicted, bio_spans)
    assert scores_from_counts([counts])[0] == pytest.approx(
        entity_scores(gold, predicted)["f1"], abs=1e-9)


def test_label_counts_give_accuracy_back():
    assert scores_from_counts([sentence_counts([1, 2, 3, 4], [1, 0, 3, 4])])[0] == 75.0


def test_the_bootstrap_standard_error_matches_the_closed_form_for_accuracy():
    """One seed, paired right/wrong outcomes: SE(accuracy_b − accuracy_a) is
    100 · sd(b_i − a_i) / √N (the bootstrap's, to within its own noise)."""
    rng = np.random.default_rng(1)
    n = 2000
    a = (rng.random(n) < 0.7).astype(int)
    b = np.where(rng.random(n) < 0.2, 1 - a, a)  # b differs from a on about 20 % of them
    exact = 100 * np.std(b - a, ddof=0) / math.sqrt(n)
    assert sentence_bootstrap_std([a], [b], draws=4000) == pytest.approx(exact, rel=0.05)


def test_agreeing_arms_have_no_test_sample_error_and_the_interval_adds_the_variances():
    same = [[1, 0, 1, 1, 0]] * 3
    assert sentence_bootstrap_std(same, same) == 0.0
    a, b = [50.0, 51.0, 49.5], [52.0, 52.5, 51.0]
    d = PairedDifference.between(a, b, test_std=0.5)
    seeds = PairedDifference.between(a, b)
    half = t_quantile(2) * math.sqrt(seeds.std**2 / 3 + 0.25)
    assert (d.low, d.high) == pytest.approx((d.mean - half, d.mean + half))
    assert d.low < seeds.low and d.high > seeds.high and seeds.test_std is None


def test_paired_runs_adds_the_test_sample_only_when_both_arms_kept_their_counts():
    a, b = [62.5, 62.5], [87.5, 75.0]
    counts_a = [[1, 0, 1, 1, 0, 1, 0, 1], [1, 1, 0, 1, 0, 1, 0, 1]]
    counts_b = [[1, 1, 1, 1, 0, 1, 1, 1], [1, 1, 1, 1, 0, 1, 0, 1]]
    counted = paired_runs(a, b, counts_a, counts_b)
    assert counted == PairedDifference.between(a, b, sentence_bootstrap_std(counts_a, counts_b))
    assert paired_runs(a, b, counts_a, None) == paired_runs(a, b) == PairedDifference.between(a, b)
