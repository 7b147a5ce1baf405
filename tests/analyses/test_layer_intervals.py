"""The layer trends' intervals: a paired bootstrap over test instances (WSD) and sentences (POS)
decides whether a trend is reproduced, and the markdown says what each interval shows."""

import json

import numpy as np
import pytest

from elmo_tutorial.analyses import layer_report
from elmo_tutorial.analyses.bootstrap import scores_from_counts
from elmo_tutorial.analyses.layer_intervals import paired_interval, pos_sentence_counts
from elmo_tutorial.analyses.layer_markdown import to_markdown
from elmo_tutorial.analyses.layer_report import trends
from elmo_tutorial.analyses.layer_results import (
    LayerPaper,
    LayerReport,
    PosScores,
    Trend,
    WsdScores,
)
from elmo_tutorial.model.run_dir import shipped_model


def _instances(right: np.ndarray) -> np.ndarray:
    """WSD counts ``[right, answered, 1]`` of instances that are all answered: ``(N, 3)``."""
    right = np.asarray(right, dtype=np.int64)
    return np.stack([right, np.ones_like(right), np.ones_like(right)], axis=1)


def _layers(n: int, right1: int, gained: int, lost: int) -> dict[str, np.ndarray]:
    """Layer 1 right on the first ``right1`` of ``n`` instances; layer 2 right on the same ones
    but the first ``lost``, and on ``gained`` more."""
    layer1 = np.arange(n) < right1
    layer2 = layer1.copy()
    layer2[:lost] = False
    layer2[right1 : right1 + gained] = True
    return {"layer1": _instances(layer1), "layer2": _instances(layer2)}


def _report(wsd_counts: dict, pos_counts: dict) -> LayerReport:
    """A report whose scores are computed from the per-item counts, trends with intervals."""
    def score(counts):
        return float(scores_from_counts([counts])[0])

    wsd = {"ALL": WsdScores(layer0=40.0, layer1=round(score(wsd_counts["layer1"]), 2),
                            layer2=round(score(wsd_counts["layer2"]), 2), elmo=50.0,
                            first_sense=55.0)}
    pos = {"ptb": PosScores(layer0=80.0, layer1=score(pos_counts["layer1"]),
                            layer2=score(pos_counts["layer2"]), most_frequent_tag=75.0)}
    return LayerReport(model="fake", quick=False, wsd=wsd, pos=pos,
                       paper=LayerPaper.from_dict(layer_report.PAPER),
                       trends=trends(wsd, pos, {"ALL": wsd_counts, "ptb": pos_counts}))


def _clustered_tokens(lengths):
    """1,000 tokens; layer 1 is right and layer 2 wrong on tokens 0-79, the other way round on
    tokens 80-119, both right on the rest: sentences of 10 tokens keep each block together."""
    labels = np.zeros(1000, dtype=np.int64)
    layer1, layer2 = labels.copy(), labels.copy()
    layer2[:80] = 1
    layer1[80:120] = 1
    return {rep: pos_sentence_counts(labels, predicted, lengths)
            for rep, predicted in (("layer1", layer1), ("layer2", layer2))}


def test_a_clear_difference_on_many_instances_has_an_interval_above_zero():
    """2,000 instances, layer 2 right on 100 more: +5 points, SE about 0.49."""
    counts = _layers(2000, right1=1200, gained=100, lost=0)
    difference, low, high = paired_interval(counts["layer1"], counts["layer2"])
    assert difference == pytest.approx(5.0)
    assert 3.8 < low < 4.2 and 5.8 < high < 6.2  # 5 ± 1.96 · 100 · √(0.05 · 0.95 / 2000)
    trend = _report(counts, _clustered_tokens([10] * 100)).trends["wsd_layer2_above_layer1"]
    assert trend.reproduced and trend.margin == 5.0 and trend.low > 0


def test_a_small_difference_on_few_instances_has_an_interval_that_includes_zero():
    """50 instances, layer 2 gains 3 and loses 1: +4 points, SE about 4: not beyond noise."""
    counts = _layers(50, right1=30, gained=3, lost=1)
    trend = _report(counts, _clustered_tokens([10] * 100)).trends["wsd_layer2_above_layer1"]
    assert trend.margin == 4.0 and trend.low < 0 < trend.high and not trend.reproduced


def test_the_pos_interval_resamples_sentences_not_tokens():
    """The same token outcomes: as 1,000 one-token sentences the +4 points exclude 0; as 100
    sentences whose errors come ten at a time they do not (SE about 3.4 instead of 1.1)."""
    by_token = _clustered_tokens([1] * 1000)
    by_sentence = _clustered_tokens([10] * 100)
    assert by_sentence["layer1"].shape == (100, 3)
    tokens = paired_interval(by_token["layer2"], by_token["layer1"])
    sentences = paired_interval(by_sentence["layer2"], by_sentence["layer1"])
    assert tokens[0] == pytest.approx(4.0) and sentences[0] == pytest.approx(4.0)
    assert tokens[1] > 0 and sentences[1] < 0 < sentences[2]
    trend = _report(_layers(2000, 1200, 100, 0), by_sentence).trends["pos_layer1_at_least_layer2"]
    assert trend.margin == 4.0 and not trend.reproduced


def test_pos_counts_refuse_sentences_that_do_not_cover_the_tokens():
    with pytest.raises(ValueError, match="must agree"):
        pos_sentence_counts(np.zeros(5, int), np.zeros(5, int), [2, 2])


def test_outcomes_of_another_run_are_refused():
    counts = _layers(2000, right1=1200, gained=100, lost=0)  # +5 points
    wsd = {"ALL": WsdScores(layer0=40.0, layer1=60.0, layer2=62.0, elmo=50.0,
                            first_sense=55.0)}  # +2 points
    with pytest.raises(ValueError, match="another run"):
        trends(wsd, {}, {"ALL": counts})


def test_the_markdown_says_reproduced_only_when_the_interval_excludes_zero():
    clear = _layers(2000, right1=1200, gained=100, lost=0)
    text = to_markdown(_report(clear, _clustered_tokens([10] * 100)))
    assert "from 2,000 resamples of the test items" in text
    assert "no interval was computed" not in text
    wsd_line = next(line for line in text.splitlines() if line.startswith("- word senses"))
    assert wsd_line.endswith("reproduced (difference +5.00 points [+4.03, +5.97]: the whole "
                             "interval is above 0).")
    pos_line = next(line for line in text.splitlines() if line.startswith("- POS (ptb)"))
    assert "the same sign as the paper's, but the interval includes 0: not shown beyond " \
           "noise (difference +4.00 points [" in pos_line
    flipped = {"layer1": clear["layer2"], "layer2": clear["layer1"]}  # layer 1 5 points ahead
    text = to_markdown(_report(flipped, _clustered_tokens([10] * 100)))
    assert "**the opposite of the paper's, beyond noise** (difference -5.00 points" in text
    few = _layers(50, right1=30, gained=1, lost=3)  # layer 1 ahead by 4, on 50 instances
    text = to_markdown(_report(few, _clustered_tokens([10] * 100)))
    assert "**the opposite sign to the paper's**, but the interval includes 0: not shown " \
           "beyond noise (difference -4.00 points" in text


def test_an_interval_survives_the_json_and_an_old_report_still_says_it_has_none():
    report = _report(_layers(2000, 1200, 100, 0), _clustered_tokens([10] * 100))
    again = LayerReport.from_dict(json.loads(report.to_json()))
    assert again == report and again.trends["wsd_layer2_above_layer1"].low == 4.03
    shipped = json.loads((shipped_model("small") / "layers.json").read_text(encoding="utf-8"))
    for trend in shipped["trends"].values():  # as a report written before intervals has them
        trend.pop("low", None)
        trend.pop("high", None)
    old = LayerReport.from_dict(shipped)
    assert all(t.low is None and t.high is None for t in old.trends.values())
    text = to_markdown(old)
    assert text.count("no interval was computed") == len(old.trends) >= 3
    assert "standard errors" not in text and "reproduced (" not in text
    assert Trend.from_dict({"claim": "c", "reproduced": True, "margin": 0.3}).high is None
