"""The `layers` report: model loading from every accepted form, trends and their intervals (a
paired bootstrap over test instances and sentences decides whether a trend is reproduced),
markdown, the command."""

import dataclasses
import json
import os
from pathlib import Path

import numpy as np
import pytest
import torch

from elmo_tutorial.analyses import layer_report, wsd
from elmo_tutorial.analyses.layer_markdown import to_markdown
from elmo_tutorial.analyses.layer_report import (
    LayerPaper,
    LayerReport,
    Margin,
    NerScores,
    PosScores,
    ProbeSetting,
    TaggerScores,
    WsdScores,
    pos_sentence_counts,
    trends,
)
from elmo_tutorial.analyses.paired import paired_interval, scores_from_counts
from elmo_tutorial.commands import cli
from elmo_tutorial.formats.allennlp_format import load_model

SHIPPED = Path(__file__).resolve().parents[2] / "data" / "models" / "small"
TINY = SHIPPED.parent / "tiny"  # quick to load, where the model does not matter


def _fixture_dir() -> Path:
    root = os.environ.get("ELMO_TUTORIAL_DATA")
    path = Path(root or "") / "allennlp-elmo-fixture"
    if not root or not (path / "lm_weights.hdf5").exists():
        pytest.skip("the AllenNLP fixture is unavailable (ELMO_TUTORIAL_DATA)")
    return path


def _right_of_1000(score: float) -> np.ndarray:
    """Per-item counts of 1,000 items, the first ``10 · score`` of them right: ``(1000, 3)``."""
    return _instances(np.arange(1000) < round(10 * score))


def _fake_result(layer1=60.0, layer2=62.0, pos1=95.0, pos2=94.0,
                 ner_f1=(30.0, 20.0, 5.0)) -> LayerReport:
    """A report of one NER seed (F1 of the mix, layer 0, word types), trends from the numbers
    (on 1,000 test items each)."""
    wsd = {name: WsdScores(layer0=55.0, layer1=layer1, layer2=layer2, elmo=61.0,
                           first_sense=63.0) for name in layer_report.WSD_SETS}
    pos = {name: PosScores(layer0=90.0, layer1=pos1, layer2=pos2, most_frequent_tag=85.0)
           for name in ("ptb", "upos")}
    inputs = dict(zip(("elmo", "layer0", "word_type"), ner_f1, strict=True))
    ner = NerScores(runs={k: [f1] for k, f1 in inputs.items()}, seeds=[0], s=[0.2, 0.5, 0.3],
                    gamma=1.3, **inputs, std={k: 0.0 for k in inputs},
                    scores={k: TaggerScores(f1, f1, f1, 1, 10, 10, 5, 3)
                            for k, f1 in inputs.items()})
    outcomes = {name: {layer: _right_of_1000(getattr(scores[name], layer))
                       for layer in ("layer1", "layer2")}
                for scores, name in ((wsd, "ALL"), (pos, "ptb"), (pos, "upos"))}
    return LayerReport(model="fake", quick=False, wsd=wsd, pos=pos, ner={"wnut17": ner},
                       paper=LayerPaper.from_dict(layer_report.PAPER),
                       trends=trends(wsd, pos, outcomes))


def test_load_model_takes_a_run_directory_alone_as_a_path_not_as_its_characters():
    ids = torch.zeros(1, 2, 50, dtype=torch.long) + 5
    model = load_model([TINY])
    expected = model(ids)
    assert expected["lstm_outputs2"].shape[-1] == 2 * model.config.projection_dim
    torch.testing.assert_close(load_model(str(TINY))(ids)["elmo"], expected["elmo"])
    with pytest.raises(ValueError, match=r"no such file or directory: \S*missing$"):
        load_model(str(TINY / "missing"))


def test_load_model_from_an_options_weights_pair_in_either_order():
    folder = _fixture_dir()
    options, weights = folder / "options.json", folder / "lm_weights.hdf5"
    a, b = load_model([options, weights]), load_model([weights, options])
    ids = torch.randint(1, 200, (2, 3, 50))
    torch.testing.assert_close(a(ids)["elmo"], b(ids)["elmo"])


def test_load_model_refuses_what_is_not_a_model(tmp_path):
    with pytest.raises(ValueError, match="neither a run directory"):
        load_model([tmp_path])
    with pytest.raises(ValueError, match="no such file"):
        load_model([tmp_path / "missing"])
    (tmp_path / "a.json").write_text("{}")
    (tmp_path / "b.json").write_text("{}")
    with pytest.raises(ValueError, match="hdf5"):
        load_model([tmp_path / "a.json", tmp_path / "b.json"])


def test_trends_follow_the_numbers_both_ways():
    held = _fake_result(layer1=60.0, layer2=62.0, pos1=95.0, pos2=94.0).trends
    assert held["wsd_layer2_above_layer1"].verdict == "reproduced"
    assert held["pos_layer1_at_least_layer2"].verdict == "not established"  # one probe setting
    flipped = _fake_result(layer1=62.0, layer2=60.0, pos1=94.0, pos2=95.0).trends
    assert flipped["wsd_layer2_above_layer1"].verdict == "opposite"
    assert flipped["wsd_layer2_above_layer1"].margin == -2.0
    assert flipped["pos_layer1_at_least_layer2"].verdict == "opposite"


def test_markdown_has_every_table_the_papers_numbers_and_the_verdicts():
    result = _fake_result(layer1=62.0, layer2=60.0)
    text = to_markdown(result)
    for needle in ("semeval2013", "| ALL |", "69.0", "67.4", "65.9", "97.3", "96.8", "upos",
                   "WNUT-17", "γ = 1.30", "SemEval-2015",
                   "**the opposite of the paper's, beyond noise**"):
        assert needle in text, needle


def test_the_ner_ladder_is_a_table_of_steps_with_their_verdicts():
    from elmo_tutorial.analyses.layer_report import NerSettings, NerStep
    from elmo_tutorial.analyses.paired import PairedDifference

    settings = NerSettings(dropout=0.5, lr=2e-3, batch_size=32, lr_patience=None,
                           min_updates=0, layer_norm=True)

    def step(label, elmo, layer0):
        return NerStep(label=label, settings=settings, elmo=elmo, layer0=layer0,
                       difference=PairedDifference.between(layer0, elmo, test_std=0.1))

    ladder = {"probe": step("notebook 10's tagger", [17.0, 18.0, 17.5], [17.2, 17.9, 17.4]),
              "dropout": step("+ dropout 0.5", [21.0, 22.0, 21.5], [18.0, 18.4, 18.1])}
    result = dataclasses.replace(_fake_result(), ner_ladder=ladder)
    text = to_markdown(result).split("### The same question")[1].split("\n## ")[0]
    rows = [line for line in text.splitlines() if line.startswith("| ")][1:]
    assert rows[0].startswith("| notebook 10's tagger | 17.5 | 17.5 |")
    assert rows[0].endswith("| no difference shown |")
    assert rows[1].startswith("| + dropout 0.5 | 21.5 | 18.2 | +3.3 [")
    assert rows[1].endswith("| gain |")
    again = LayerReport.from_dict(json.loads(result.to_json()))
    assert again.ner_ladder["dropout"].difference.mean == pytest.approx(3.333, abs=1e-3)
    assert "### The same question" not in to_markdown(_fake_result())

    # the discussion says what the ladder shows about the two taggers' answers
    ner = result.ner["wnut17"]
    level = PairedDifference.between([17.0, 18.0], [17.5, 17.6])
    with_interval = dataclasses.replace(
        result, ner={"wnut17": dataclasses.replace(ner, differences={"elmo_vs_layer0": level})})
    moved = to_markdown(with_interval).split("- NER:")[1]
    assert "the settings move it: + dropout 0.5: gain." in moved
    flat = dict(ladder, dropout=step("+ dropout 0.5", [18.0, 18.1, 18.3], [18.2, 17.9, 18.2]))
    same = to_markdown(dataclasses.replace(with_interval, ner_ladder=flat)).split("- NER:")[1]
    assert "the training settings do not decide it" in same
    assert "not been tested one at a time" not in same
    assert "not been tested one at a time" in to_markdown(
        dataclasses.replace(with_interval, ner_ladder=None)).split("- NER:")[1]


def test_layers_command_refuses_a_ladder_without_ner_in_one_line(capsys):
    with pytest.raises(SystemExit) as stop:  # argparse's own error for incompatible options
        cli.main(["layers", str(SHIPPED), "--no-ner", "--ner-ladder"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "--ner-ladder extends the NER section: drop --no-ner" in err


def test_a_quick_report_says_why_its_ner_scores_are_zero():
    result = _fake_result(ner_f1=(0.0, 0.0, 0.0))
    assert "too few to find" not in to_markdown(result)
    ner = to_markdown(dataclasses.replace(result, quick=True)).split("## Named entities")[1]
    assert "300 sentences for 2 epochs: too few to find WNUT-17's rare entities" in ner


def test_layers_command_writes_json_and_markdown_and_refuses_to_overwrite(
        tmp_path, monkeypatch, capsys):
    fake = _fake_result()
    counts = {"ALL": {"layer1": _instances([1, 0, 1]), "layer2": _instances([1, 1, 1])}}

    def fake_report(model, ner, progress, name, quick, ner_ladder, outcomes):
        outcomes.update(counts)
        return fake

    monkeypatch.setattr(layer_report, "layer_report", fake_report)
    out_json, out_md = tmp_path / "r.json", tmp_path / "r.md"
    argv = ["layers", str(TINY), "--json", str(out_json), "--markdown", str(out_md)]
    assert cli.main(argv) == 0
    again = layer_report.read_outcomes(tmp_path / "r_outcomes.json")  # beside the JSON
    assert again.keys() == counts.keys() and all(
        np.array_equal(again["ALL"][rep], counts["ALL"][rep]) for rep in counts["ALL"])
    data = json.loads(out_json.read_text())
    assert set(data["wsd"]["ALL"]) == {"layer0", "layer1", "layer2", "elmo", "first_sense"}
    assert set(data["pos"]) == {"ptb", "upos"} and "s" in data["ner"]["wnut17"]
    assert out_md.read_text().startswith("# What the layers know")
    before = out_json.read_text()
    assert cli.main(argv) == 2
    assert "--force" in capsys.readouterr().err
    assert out_json.read_text() == before


def test_layers_command_reports_a_bad_model_in_one_line(tmp_path, capsys):
    assert cli.main(["layers", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("elmo-tutorial layers:") and err.count("\n") == 1


@pytest.mark.slow
def test_layers_command_end_to_end_on_the_tiny_model(tmp_path, monkeypatch):
    """Every task really runs (on subsets) and the JSON has the shape other tools read."""
    for name in ("ELMO_TUTORIAL_DATA", "NLTK_DATA"):
        if not os.environ.get(name):
            pytest.skip(f"{name} is not set: the offline datasets are unavailable")
    monkeypatch.setenv("ELMO_TUTORIAL_CACHE", str(tmp_path / "cache"))
    # a fifth of the command's quick subsets (SemCor, the WSD test sets, the POS and NER
    # sentences): embedding them was nearly all of the test's time
    monkeypatch.setattr(layer_report, "QUICK", {**layer_report.QUICK, "max_sentences": 60})
    framework = wsd.wsd_framework
    monkeypatch.setattr(wsd, "wsd_framework", lambda name: framework(name)[::5])
    out_json = tmp_path / "layers.json"
    assert cli.main(["layers", str(TINY), "--quick", "--json", str(out_json)]) == 0
    data = json.loads(out_json.read_text())
    assert data["quick"] is True
    for name in layer_report.WSD_SETS:
        scores = data["wsd"][name]
        assert set(scores) >= {"layer0", "layer1", "layer2", "elmo", "first_sense"}
        assert all(0.0 <= scores[k] <= 100.0 for k in scores)
    for name in ("ptb", "upos"):
        assert set(data["pos"][name]) >= {"layer0", "layer1", "layer2"}
        assert data["pos"][name]["layer0"] > data["pos"][name].get("most_frequent_tag", 0) - 50
    ner = data["ner"]["wnut17"]
    assert {"elmo", "layer0", "s", "gamma"} <= set(ner) and len(ner["s"]) == 3
    assert abs(sum(ner["s"]) - 1.0) < 1e-4
    assert set(data["trends"]) >= {"wsd_layer2_above_layer1", "pos_layer1_at_least_layer2"}
    _assert_recomputed(LayerReport.read(out_json),
                       layer_report.read_outcomes(tmp_path / "layers_outcomes.json"))


def _assert_recomputed(report: LayerReport, outcomes: dict) -> None:
    """Every score and every trend's interval of ``report`` follows from the per-item
    ``outcomes`` alone (to the report's own rounding)."""
    def score(counts):
        return float(scores_from_counts(np.asarray(counts, np.float64)[None])[0])

    for rep, counts in outcomes["ALL"].items():
        assert abs(score(counts) - getattr(report.wsd["ALL"], rep)) <= 0.005 + 1e-9, rep
    for name in ("ptb", "upos"):
        for rep, counts in outcomes[name].items():
            assert abs(score(counts) - getattr(report.pos[name], rep)) < 1e-4, (name, rep)
    pairs = {"wsd_layer2_above_layer1": ("ALL", "layer1", "layer2"),
             "pos_layer1_at_least_layer2": ("ptb", "layer2", "layer1"),
             "pos_layer1_at_least_layer2_upos": ("upos", "layer2", "layer1")}
    def interval(counts, other):
        margin, low, high = paired_interval(other, counts)
        return round(margin, 2), round(low, 2), round(high, 2)

    for key, trend in report.trends.items():
        name, other, favoured = pairs[key]
        assert interval(outcomes[name][favoured], outcomes[name][other]) == (
            trend.margin, trend.low, trend.high), key
    for rep, m in report.first_sense.items():
        assert interval(outcomes["ALL"]["first_sense"], outcomes["ALL"][rep]) == (
            m.margin, m.low, m.high), rep
    assert set(report.pos_settings) == {"ptb", "upos", *layer_report.probes.PROBE_SETTINGS}
    for key, setting in report.pos_settings.items():
        for rep, counts in outcomes[key].items():
            assert abs(score(counts) - getattr(setting, rep)) < 1e-4, (key, rep)
        m = setting.layer1_minus_layer2
        assert interval(outcomes[key]["layer1"], outcomes[key]["layer2"]) == (
            m.margin, m.low, m.high), key


def test_the_shipped_reports_scores_and_intervals_follow_from_its_shipped_outcomes():
    _assert_recomputed(LayerReport.read(SHIPPED / "layers.json"),
                       layer_report.read_outcomes(SHIPPED / "layers_outcomes.json"))


def test_outcomes_survive_their_file_and_a_changed_outcome_changes_the_interval(tmp_path):
    right = np.random.default_rng(0).random(400) < 0.6
    outcomes = {"ALL": {"layer1": _instances(right), "layer2": _instances(right | (
        np.arange(400) % 10 == 0))}}
    path = layer_report.write_outcomes(tmp_path / "o.json", outcomes)
    again = layer_report.read_outcomes(path)
    assert np.array_equal(again["ALL"]["layer2"], outcomes["ALL"]["layer2"])
    before = paired_interval(again["ALL"]["layer1"], again["ALL"]["layer2"])
    gained = np.flatnonzero(~right & (np.arange(400) % 10 == 0))
    again["ALL"]["layer2"][gained[0], 0] = 0  # one of layer 2's gains lost again
    assert paired_interval(again["ALL"]["layer1"], again["ALL"]["layer2"]) != before
    with pytest.raises(FileExistsError):
        layer_report.write_outcomes(path, outcomes)


def test_layers_command_refuses_a_file_another_run_wrote_while_it_worked(
        tmp_path, monkeypatch, capsys):
    out_json = tmp_path / "r.json"
    fake = _fake_result()

    def other_run_finishes_first(model, ner, progress, name, quick, ner_ladder, outcomes):
        out_json.write_text("the other run's results")  # after this run's check, before it writes
        return fake

    monkeypatch.setattr(layer_report, "layer_report", other_run_finishes_first)
    assert cli.main(["layers", str(TINY), "--json", str(out_json)]) == 2
    captured = capsys.readouterr()
    assert "# What the layers know" in captured.out  # the results are still shown
    assert "already exists" in captured.err and captured.err.count("\n") == 1
    assert out_json.read_text() == "the other run's results"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]  # no temporary file left


def test_layers_command_reports_an_unwritable_embedding_cache_in_one_line(
        tmp_path, monkeypatch, capsys):
    (tmp_path / "cache").write_text("a file where the cache folder should be")
    monkeypatch.setenv("ELMO_TUTORIAL_CACHE", str(tmp_path / "cache"))

    def embeds_a_corpus(model, ner, progress, name, quick, ner_ladder, outcomes):
        from elmo_tutorial.analyses.embedder import Embedder
        from elmo_tutorial.analyses.embedding_cache import embed_corpus

        embed_corpus(Embedder(model), [["a", "b"]], progress=False)

    monkeypatch.setattr(layer_report, "layer_report", embeds_a_corpus)
    assert cli.main(["layers", str(TINY)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("elmo-tutorial layers: the embedding cache cannot be written in ")
    assert "Not a directory" in err and err.count("\n") == 1


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
    assert trend.verdict == "reproduced" and trend.margin == 5.0 and trend.low > 0


def test_a_small_difference_on_few_instances_has_an_interval_that_includes_zero():
    """50 instances, layer 2 gains 3 and loses 1: +4 points, SE about 4: not beyond noise."""
    counts = _layers(50, right1=30, gained=3, lost=1)
    trend = _report(counts, _clustered_tokens([10] * 100)).trends["wsd_layer2_above_layer1"]
    assert trend.margin == 4.0 and trend.low < 0 < trend.high and trend.verdict == "within noise"


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
    assert trend.margin == 4.0 and trend.verdict == "within noise"


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


def test_an_interval_survives_the_json_and_the_shipped_report_renders_as_shipped():
    report = _report(_layers(2000, 1200, 100, 0), _clustered_tokens([10] * 100))
    again = LayerReport.from_dict(json.loads(report.to_json()))
    assert again == report and again.trends["wsd_layer2_above_layer1"].low == 4.03
    shipped = LayerReport.read(SHIPPED / "layers.json")
    assert to_markdown(shipped) == (SHIPPED / "LAYERS.md").read_text(encoding="utf-8")


def test_a_probe_trend_above_zero_at_one_setting_is_not_called_reproduced():
    # The shipped PTB lead's interval is above 0 at Table 6's probe setting, but not at every
    # other one: the report says so instead of "reproduced".
    shipped = LayerReport.read(SHIPPED / "layers.json")
    trend = shipped.trends["pos_layer1_at_least_layer2"]
    lows = [s.layer1_minus_layer2.low for s in shipped.pos_settings.values() if s.data == "ptb"]
    assert trend.low > 0 and min(lows) <= 0 and trend.verdict == "not established"
    pos_line = next(line for line in to_markdown(shipped).splitlines()
                    if line.startswith("- POS (ptb)"))
    assert "not established, since it is not beyond noise at every other setting" in pos_line
    assert f"beyond noise at {sum(low > 0 for low in lows)}" in pos_line


def _setting(data: str, low: float) -> ProbeSetting:
    return ProbeSetting(data=data, l2=1e-3, train_sentences=600, layer0=80.0, layer1=91.0,
                        layer2=90.0, layer1_minus_layer2=Margin(margin=1.0, low=low, high=2.0))


def test_a_probe_trend_beyond_noise_at_every_setting_is_reproduced():
    counts = _layers(2000, 1200, 100, 0)  # layer 2 five points ahead: flipped for POS
    pos = {"layer1": counts["layer2"], "layer2": counts["layer1"]}
    wsd = {"ALL": WsdScores(layer0=40.0, layer1=60.0, layer2=65.0, elmo=50.0, first_sense=55.0)}
    tags = {"ptb": PosScores(layer0=80.0, layer1=65.0, layer2=60.0, most_frequent_tag=75.0)}

    def verdict(*lows):
        settings = {f"s{i}": _setting(data, low) for i, (data, low) in enumerate(lows)}
        return trends(wsd, tags, {"ALL": counts, "ptb": pos},
                      settings)["pos_layer1_at_least_layer2"].verdict

    assert verdict(("ptb", 0.1), ("ptb", 0.2), ("upos", -1.0)) == "reproduced"
    assert verdict(("ptb", 0.1), ("ptb", -0.1)) == "not established"
    assert verdict(("upos", 0.1)) == "not established"  # no other setting of its own data
    assert verdict() == "not established"


def test_the_markdown_counts_the_settings_and_the_first_sense_margins():
    report = _report(_layers(2000, 1200, 100, 0), _clustered_tokens([10] * 100))
    report = dataclasses.replace(
        report, wsd={"ALL": dataclasses.replace(report.wsd["ALL"], first_sense=70.0)},
        pos_settings={"ptb": _setting("ptb", 0.5), "ptb l2=0.01": _setting("ptb", -0.5)},
        first_sense={"layer1": Margin(margin=3.0, low=1.0, high=5.0),
                     "layer2": Margin(margin=-1.0, low=-2.5, high=0.5)})
    text = to_markdown(report)
    assert "| ptb | 600 | 1e-03 | 80.0 | 91.0 | 90.0 | +1.00 [-0.50, +2.00] |" in text
    pos_line = next(line for line in text.splitlines() if line.startswith("- POS (ptb)"))
    assert pos_line.endswith("Over the probe's 2 settings (the table of settings above) layer 1 "
                             "is ahead at 2, beyond noise at 1.")
    sense_line = next(line for line in text.splitlines() if "first-sense baseline" in line)
    assert "each beyond noise" not in sense_line  # layer 2's margin includes 0
    assert "first sense − layer 1 +3.00 [+1.00, +5.00], − layer 2 -1.00 [-2.50, +0.50]" \
        in sense_line
