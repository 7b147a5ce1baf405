"""The `tasks` report: the comparison rule, markdown and figures, and the command end to end."""

import json
import os
from pathlib import Path

import pytest

from elmo_tutorial import cli, task_report
from elmo_tutorial.task_markdown import FIGURES, compare, to_markdown, write_report
from elmo_tutorial.task_report import PAPER

SHIPPED = Path(__file__).resolve().parent.parent / "data" / "models" / "small"


def _s(mean, std=0.5):
    return {"mean": mean, "std": std, "runs": [mean - std, mean, mean + std]}


def _fake_result() -> dict:
    tasks = {t: {"metric": m, "sizes": {"train": 100, "dev": 10, "test": 20},
                 "baseline": _s(40.0), "elmo": _s(e), "error_reduction": 100 * (e - 40.0) / 60.0}
             for t, m, e in (("sst5", "accuracy", 45.0), ("chunking", "F1", 40.5),
                             ("ner", "F1", 30.0))}
    curve = [{"fraction": f, "baseline": 30.0, "elmo": 36.0, "baseline_std": 1.0,
              "elmo_std": 1.0} for f in (0.01, 0.1, 1.0)]
    return {"model": "fake", "quick": False, "corpus": "english_mix", "seeds": [0, 1, 2],
            "epochs": 5, "tasks": tasks,
            "table2": {"task": "chunking", "top": _s(38.0), "lambda1": _s(40.0), "elmo": _s(40.5)},
            "table3": {"task": "chunking", "input": _s(40.0), "elmo": _s(40.5),
                       "output": _s(35.0)},
            "sample_efficiency": {t: curve for t in tasks},
            "weights": {t: {"input": [0.2, 0.5, 0.3], "output": [0.4, 0.3, 0.3]} for t in tasks},
            "paper": PAPER}


def test_a_difference_within_the_seed_spread_is_called_so():
    assert compare(_s(40.0), _s(40.9)) == "within the spread"
    assert compare(_s(40.0), _s(41.1)) == "higher" and compare(_s(41.1), _s(40.0)) == "lower"
    assert compare(_s(40.0, 0.0), _s(40.0, 0.0)) == "within the spread"


def test_markdown_has_every_table_the_paper_beside_and_a_discussion_from_the_numbers():
    text = to_markdown(_fake_result())
    for needle in ("## Table 1", "## Table 2", "## Table 3", "## Figure 1", "## Figure 2",
                   "54.70", "92.22", "SQUAD (paper)", "40.0 ± 0.5", "+8.3 %",
                   FIGURES["sample_efficiency"], FIGURES["weights"]):
        assert needle in text, needle
    assert "ELMo improves the baseline" in text  # SST-5: 40 → 45, far beyond the spread
    assert "hurts the baseline" in text  # NER: 40 → 30
    assert "changes nothing beyond the seed spread on" in text  # chunking: 40 → 40.5
    assert ("removes the largest share of the baseline's errors on SST-5 (sentiment, 5 classes) "
            "(8 %); it does not help CoNLL-2000 chunking, WNUT-17 NER.") in text


def test_the_discussion_says_which_models_were_still_learning_and_how_the_baseline_reads():
    result = _fake_result()
    text = to_markdown(result)
    assert "still improving" not in text  # the fake result has no epoch counts
    assert "c_k from a character CNN trained with the tagger" in text  # x_k = [w_k; c_k]
    result["tasks"]["ner"]["baseline"] = _s(1.0)
    for t, r in result["tasks"].items():
        r["still_learning"] = {"baseline": 3 if t == "ner" else 0, "elmo": 0}
    text = to_markdown(result)
    assert "WNUT-17 NER, 3 of 3 baseline and 0 of 3 + ELMo runs" in text
    assert "SST-5 (sentiment, 5 classes), 0 of" not in text  # no run still learning there
    assert "The NER baseline finds few entities (1.0 F1) although its character CNN" in text
    assert "lower-cased, so it cannot see capitals" not in text


def test_write_report_writes_json_markdown_and_two_figures(tmp_path):
    written = write_report(_fake_result(), tmp_path / "t.json", tmp_path / "T.md")
    assert {p.name for p in written} == {"t.json", "T.md", *FIGURES.values()}
    assert all(p.stat().st_size > 0 for p in written)
    assert json.loads((tmp_path / "t.json").read_text())["tasks"]["sst5"]["elmo"]["mean"] == 45.0


def test_tasks_command_writes_its_files_and_refuses_to_overwrite(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(task_report, "task_report", lambda model, **kw: _fake_result())
    argv = ["tasks", str(SHIPPED), "--json", str(tmp_path / "t.json"),
            "--markdown", str(tmp_path / "T.md")]
    assert cli.main(argv) == 0
    assert (tmp_path / FIGURES["weights"]).exists()
    before = (tmp_path / "t.json").read_text()
    capsys.readouterr()
    assert cli.main(argv) == 2
    assert "--force" in capsys.readouterr().err
    assert (tmp_path / "t.json").read_text() == before
    assert cli.main([*argv, "--force"]) == 0


def test_tasks_command_reports_bad_input_in_one_line(tmp_path, capsys):
    for argv in (["tasks", str(tmp_path)], ["tasks", str(SHIPPED), "--corpus", "nonsense"]):
        assert cli.main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith("elmo-tutorial tasks:") and err.count("\n") == 1, err


@pytest.mark.slow
def test_tasks_command_end_to_end_on_the_tiny_model(tmp_path, monkeypatch):
    """Every experiment really runs (on subsets) and the JSON has the shape other tools read."""
    for name in ("ELMO_TUTORIAL_DATA", "NLTK_DATA"):
        if not os.environ.get(name):
            pytest.skip(f"{name} is not set: the offline datasets are unavailable")
    monkeypatch.setenv("ELMO_TUTORIAL_CACHE", str(tmp_path / "cache"))
    out_json, out_md = tmp_path / "tasks.json", tmp_path / "TASKS.md"
    tiny = SHIPPED.parent / "tiny"
    assert cli.main(["tasks", str(tiny), "--quick", "--json", str(out_json),
                     "--markdown", str(out_md)]) == 0
    data = json.loads(out_json.read_text())
    assert data["quick"] is True and data["corpus"] == "embedded"  # the run's own corpus
    for task in ("sst5", "chunking", "ner"):
        r = data["tasks"][task]
        assert set(r["sizes"]) == {"train", "dev", "test"}
        for model in ("baseline", "elmo"):
            assert len(r[model]["runs"]) == 3 and 0.0 <= r[model]["mean"] <= 100.0
        assert [p["fraction"] for p in data["sample_efficiency"][task]] == [0.1, 1.0]
        for place in ("input", "output"):
            assert len(data["weights"][task][place]) == 3
            assert abs(sum(data["weights"][task][place]) - 1.0) < 1e-4
        assert set(r["still_learning"]) == {"baseline", "elmo"}
    assert set(data["table2"]) == {"task", "top", "lambda1", "elmo"}
    assert set(data["table3"]) == {"task", "input", "elmo", "output"}
    # chunking gains from context even with the tiny biLM: its layers see the phrase around
    assert data["tasks"]["chunking"]["elmo"]["mean"] > data["tasks"]["chunking"]["baseline"]["mean"]
    assert out_md.read_text().startswith("# What ELMo adds to a task model")


def test_tasks_command_refuses_files_another_run_wrote_while_it_worked(tmp_path, monkeypatch,
                                                                       capsys):
    figure = tmp_path / FIGURES["weights"]

    def other_run_finishes_first(model, **kw):
        figure.write_bytes(b"the other run's figure")
        return _fake_result()

    monkeypatch.setattr(task_report, "task_report", other_run_finishes_first)
    argv = ["tasks", str(SHIPPED), "--markdown", str(tmp_path / "T.md")]
    assert cli.main(argv) == 2
    assert "already exists" in capsys.readouterr().err
    assert figure.read_bytes() == b"the other run's figure"
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
