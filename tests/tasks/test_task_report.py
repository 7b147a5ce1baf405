"""The `tasks` report: the runs it plans, resuming, the paired verdicts, markdown and figures,
and the command end to end."""

import copy
import dataclasses
import json
import os
import shutil
from pathlib import Path

import pytest
import torch

from elmo_tutorial.analyses.paired import PairedDifference
from elmo_tutorial.commands import cli
from elmo_tutorial.tasks import report as task_report
from elmo_tutorial.tasks import runs as task_runs
from elmo_tutorial.tasks.report import place_jobs, plan, summarise
from elmo_tutorial.tasks.report_markdown import FIGURES, to_markdown, write_report
from elmo_tutorial.tasks.results import QualityPoint, TaskReport
from elmo_tutorial.tasks.runs import FULL, Job, RunStore, StoreMismatch
from elmo_tutorial.tasks.vectors import VECTORS_FILE, task_word_vectors, word_vectors

SHIPPED = Path(__file__).resolve().parents[2] / "data" / "models" / "small"
TASKS = ("sst5", "chunking", "ner")
PLACES = {"sst5": ("input",), "chunking": ("input",), "ner": ("input",)}
# test scores of the fake arms: ELMo gains on SST-5 and chunking, loses on NER
ARM = {"baseline": 40.0, "layer0": 41.0, "elmo": 45.0, "top": 44.0, "lambda1": 45.0,
       "input": 45.0, "input_output": 46.0, "output": 38.0}


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    """The command keeps its runs in the cache folder: a test's own, never the user's."""
    monkeypatch.setenv("ELMO_TUTORIAL_CACHE", str(tmp_path / "cache"))


def _fake_run(job: Job) -> dict:
    score = ARM[job.variant] + 0.3 * job.seed + (0.1 if job.seed % 2 else -0.1)
    if job.task == "ner" and job.variant == "elmo":
        score = 35.0 + 0.3 * job.seed
    curve = [score - 5, score - 1, score, score - 0.5]
    return {"score": score, "valid": score, "best_epoch": 3, "last_epoch": 4, "cap": 30,
            "stopped": "patience", "updates": 100, "epochs_per_round": 1, "curve": curve,
            "places": list(job.places), "seconds": 1.0,
            "weights": {p: [0.2, 0.5, 0.3] for p in job.places},
            "gamma": {p: 1.0 for p in job.places}}


def _fake_result(edit=None, tasks=TASKS, places=PLACES) -> TaskReport:
    """A report summarised from fake runs; ``edit(job, run)`` may change each run first."""
    store = RunStore(None)
    for job in place_jobs("chunking", FULL) + plan(tasks, FULL, places):
        run = _fake_run(job)
        if edit is not None:
            edit(job, run)
        store.add(job, run)
    facts = {"places": places, "place_dev": {"input": 45.0, "input_output": 44.0},
             "sizes": {t: {"train": 1000, "dev": 100, "test": 200} for t in tasks},
             "perplexity": {}, "names": {}, "majority": {"sst5": 28.6},
             "bag_of_words": {"sst5": {"test": 38.0, "valid": 37.0, "alpha": 1e-3,
                                       "features": 500, "dev_by_alpha": {}}}}
    return summarise(store, tasks, FULL, facts, model="fake", quick=False,
                     corpus="english_mix", wall_seconds=60.0)


def test_the_report_plans_every_arm_on_the_same_seeds():
    jobs = plan(TASKS, FULL, PLACES, ["tiny-60"])
    table1 = [j for j in jobs if j.fraction == 1.0 and j.sample is None and j.bilm == "main"]
    assert len(table1) == 3 * 3 * 5
    assert {j.variant for j in table1} == {"baseline", "layer0", "elmo"}
    assert {j.fraction for j in jobs if j.fraction < 1} == set(FULL["fractions"])
    quality = [j for j in jobs if j.bilm == "tiny-60"]
    assert {(j.task, j.sample) for j in quality} == {("chunking", FULL["sample"]), ("ner", None)}
    assert len(FULL["seeds"]) >= 5
    assert [j.fraction < 1 for j in jobs] == sorted(j.fraction < 1 for j in jobs)  # longest first


def test_verdicts_come_from_paired_intervals_and_the_text_from_the_numbers():
    result = _fake_result()
    assert result.tasks["sst5"].differences.elmo_vs_baseline.low > 0
    text = to_markdown(result)
    for needle in ("## Table 1", "## Table 2", "## Table 3", "## Figure 1", "## Figure 2",
                   "## Learning curves", "54.70", "92.22", "SQUAD", "**0 ended at a cap**",
                   "bag-of-words logistic regression 38.0 %", "always the commonest class 28.6",
                   FIGURES["sample_efficiency"], FIGURES["weights"], FIGURES["curves"]):
        assert needle in text, needle
    assert "+ ELMo − baseline +5.0 [+5.0, +5.0]: **gain**" in text
    assert "+ ELMo − baseline -5.0" in text and "**loss**" in text
    assert "**What context adds**, + ELMo − (+ layer 0)" in text
    assert "relative error reduction" not in text  # the paper's bases are not ours
    assert "| output only | " in text and "-7.0 [-7.0, -7.0] | **loss** |" in text
    assert "still improving" not in text and "within the spread" not in text


def test_a_run_at_its_cap_is_counted_in_the_report():
    result = _fake_result()
    result = dataclasses.replace(result, convergence=dataclasses.replace(result.convergence,
                                                                         at_cap=2))
    assert "**2 ended at a cap**" in to_markdown(result)


def test_a_quick_report_says_what_its_numbers_cannot_say():
    data = _fake_result().to_dict()  # edited as its JSON, read back as a report
    data["quick"] = True
    for table in ("table2", "table3"):  # the quick setting samples nothing: its subset is all
        data[table]["sample"] = None
    for arm in data["tasks"]["ner"]["arms"].values():
        arm.update(mean=0.0, std=0.0)
    text = to_markdown(TaskReport.from_dict(data))
    assert "WNUT-17 NER: every run scored 0 (no entity found)" in text
    assert "SST-5 (sentiment, 5 classes): every run scored 0" not in text
    assert "its whole training set" not in text, "a quick run trains on a subset"
    assert "the quick run's 1,000 training sentences" in text
    data["quick"] = False
    assert "every run scored 0" not in to_markdown(TaskReport.from_dict(data))


def test_points_at_or_below_the_majority_class_are_flagged():
    """Figure 1's tasks are the taggers now; a report with an SST-5 curve (the shipped one
    before the phrases) still flags its points at the floor."""
    data = _fake_result().to_dict()
    assert "sst5" not in data["sample_efficiency"]
    data["sample_efficiency"]["sst5"] = copy.deepcopy(data["sample_efficiency"]["chunking"])
    data["sample_efficiency"]["sst5"][0]["baseline"]["mean"] = 20.0
    text = to_markdown(TaskReport.from_dict(data))
    assert "(at or below the majority class)" in text
    assert "The dashed line in the panel of SST-5 (sentiment, 5 classes) is the majority" in text


def test_table_1_without_its_layer_0_columns_keeps_every_other_cell():
    """Notebook 12 shows Table 1 without the layer-0 arm (13 asks for a prediction about it)."""
    from elmo_tutorial.tasks.report_markdown import table1_markdown

    result = _fake_result()
    full, short = table1_markdown(result), table1_markdown(result.to_dict(), layer0=False)
    assert "| + layer 0 |" in full and "layer 0 |" not in short.split("\n\n")[1]
    context = [line for line in full.splitlines() if line.startswith("**What context adds**")]
    assert len(context) == 1 and "What context adds" not in short  # a layer-0 difference
    wholes = full.replace(context[0] + "\n\n", "").splitlines()
    for whole, part in zip(wholes, short.splitlines(), strict=True):
        if whole.startswith("| "):
            cells = whole.split(" | ")
            assert part.split(" | ") == cells[:4] + cells[5:6] + cells[7:]
        elif whole.startswith("|"):  # the header's rule: two columns fewer
            assert part.count("|") == whole.count("|") - 2
        else:
            assert part == whole
    assert full in to_markdown(result)


def test_figure_1_of_the_taggers_alone_mentions_no_majority_class_line():
    text = to_markdown(_fake_result())
    assert "dashed line" not in text, "Figure 1 has no classification panel to draw it in"


def test_an_interrupted_report_resumes_where_it_stopped(tmp_path, monkeypatch):
    """Runs kept before a kill are read back; only the missing ones train, and a finished
    report is written again without embedding or training anything."""
    import torch

    from elmo_tutorial.tasks.training import TaskSplit

    def fake_split(task, embedder, index, max_sentences, sample, progress):
        one = TaskSplit([torch.tensor([1, 2])], [torch.zeros(2, 3, 4)], [torch.tensor([0, 0])],
                        ["O"])
        return {"train": one, "valid": one, "test": one}

    calls = []

    def fake_run_variant(splits, vectors, variant, seed, fraction, places, protocol):
        calls.append((variant, seed))
        if len(calls) == 7 and not os.environ.get("RESUMED"):
            raise KeyboardInterrupt  # the machine goes down after 6 runs
        return _fake_run(Job("chunking", variant, seed, fraction, tuple(places)))

    monkeypatch.setattr(task_report, "prepare_task", fake_split)
    monkeypatch.setattr(task_report, "run_variant", fake_run_variant)
    monkeypatch.setattr(task_report, "word_vectors", lambda corpus: (torch.zeros(3, 2), {}))
    monkeypatch.setattr(task_runs, "word_vectors_recipe", lambda corpus: {"sentences": "t"})
    monkeypatch.setattr(task_report, "Embedder", lambda model: None)
    monkeypatch.setattr(task_report, "read_task", lambda task: TOY_TASK)
    path = tmp_path / "runs.jsonl"
    kw = {"tasks": ("chunking", "ner"), "workers": 1, "progress": False}
    with pytest.raises(KeyboardInterrupt):
        task_report.task_report(None, store=RunStore(path, {"m": 1}), **kw)
    assert len(RunStore(path, {"m": 1})) == 6
    monkeypatch.setenv("RESUMED", "1")
    calls.clear()
    result = task_report.task_report(None, store=RunStore(path, {"m": 1}), **kw)
    total = result.convergence.runs
    assert len(calls) == total - 6 and total == len(RunStore(path, {"m": 1}))
    # written again from the runs file alone: nothing is embedded, read or trained
    monkeypatch.setattr(task_report, "prepare_task", lambda *a: pytest.fail("embedded again"))
    monkeypatch.setattr(task_report, "word_vectors", lambda corpus: pytest.fail("vectors read"))
    again = task_report.task_report(None, store=RunStore(path, {"m": 1}), **kw)
    assert again.to_dict()["tasks"] == result.to_dict()["tasks"]


def test_write_report_writes_json_markdown_and_the_figures_it_has_data_for(tmp_path):
    result = _fake_result()
    written = write_report(result, tmp_path / "t.json", tmp_path / "T.md")
    figures = {FIGURES[k] for k in ("sample_efficiency", "curves", "weights")}
    assert {p.name for p in written} == {"t.json", "T.md", *figures}  # no quality biLMs
    assert all(p.stat().st_size > 0 for p in written)
    data = json.loads((tmp_path / "t.json").read_text())
    assert data["tasks"]["sst5"]["arms"]["elmo"]["mean"] == pytest.approx(45.58)
    assert len(data["runs"]) == data["convergence"]["runs"]
    result = dataclasses.replace(result, quality=[
        QualityPoint(b, p, {"ner": PairedDifference(g, g - 1, g + 1, 1.0, 5, [g] * 5)})
        for b, p, g in (("tiny-60", 30.0, 1.0), ("tiny", 6.0, 3.0))])
    written = write_report(result, None, tmp_path / "T.md", force=True)
    assert FIGURES["quality"] in {p.name for p in written}
    assert "## What the biLM's quality buys" in (tmp_path / "T.md").read_text()


def test_tasks_command_reports_bad_input_in_one_line(tmp_path, capsys):
    assert cli.main(["tasks", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("elmo-tutorial tasks:") and err.count("\n") == 1, err
    with pytest.raises(SystemExit) as stop:  # argparse's own error names the corpora
        cli.main(["tasks", str(SHIPPED), "--corpus", "nonsense"])
    assert stop.value.code == 2 and "english_mix" in capsys.readouterr().err


def test_tasks_command_given_a_runs_file_it_cannot_resume_says_which_in_one_line(
        tmp_path, monkeypatch, capsys):
    """The issue's cases at the command: a header damaged, and a 0-byte file left by a full
    disk (then refused as "another setup (None)"; now started afresh)."""
    monkeypatch.setattr(task_runs, "read_task", lambda task: TOY_TASK)
    monkeypatch.setattr(task_report, "task_report", lambda model, **kw: _fake_result())
    runs = tmp_path / "runs.jsonl"
    runs.write_text('{"header": {"mod\n' + json.dumps({"job": {}, "result": {}}) + "\n")
    argv = ["tasks", str(SHIPPED), "--corpus", "embedded", "--tasks", "sst5", "--runs",
            str(runs)]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"elmo-tutorial tasks: {runs} is not a runs file of `elmo-tutorial "
                          "tasks`") and err.count("\n") == 1, err
    runs.write_bytes(b"")  # what a full disk left
    assert cli.main(argv) == 0
    assert runs.read_text().startswith('{"header": {"model": ')


@pytest.fixture(scope="module")
def quick_report(tmp_path_factory):
    """One real `tasks --quick` run of the tiny model, in a cache folder of its own: the
    command's tests below read what it wrote (one run serves them all)."""
    for name in ("ELMO_TUTORIAL_DATA", "NLTK_DATA"):
        if not os.environ.get(name):
            pytest.skip(f"{name} is not set: the offline datasets are unavailable")
    folder = tmp_path_factory.mktemp("quick_report")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as each run trains; on a busy machine many times faster than 2
    try:
        with pytest.MonkeyPatch.context() as env:
            env.setenv("ELMO_TUTORIAL_CACHE", str(folder / "cache"))
            # half the quick setting's sentences and updates a round: its 44 training runs
            # were nearly all the time
            quick = task_runs.QUICK
            smaller = {**quick, "max_sentences": 100,
                       "protocol": {**quick["protocol"], "round_updates": 25}}
            env.setattr(task_runs, "QUICK", smaller)
            env.setattr(task_report, "QUICK", smaller)
            assert cli.main(["tasks", str(SHIPPED.parent / "tiny"), "--quick", "--json",
                             str(folder / "tasks.json"), "--markdown",
                             str(folder / "TASKS.md")]) == 0
    finally:
        torch.set_num_threads(threads)
    return folder


@pytest.mark.slow
def test_tasks_command_end_to_end_on_the_tiny_model(quick_report):
    """Every experiment really runs (on subsets), the JSON has the shape other tools read,
    and the figures and the baseline's vectors (for notebook 12) lie beside the markdown."""
    runs = list((quick_report / "cache" / "task_runs").glob("*-quick.jsonl"))
    assert len(runs) == 1  # every run kept, so that the same command resumes
    data = json.loads((quick_report / "tasks.json").read_text())
    assert data["quick"] is True and data["corpus"] == "embedded"  # the run's own corpus
    for task in ("sst5", "chunking", "ner"):
        r = data["tasks"][task]
        assert set(r["sizes"]) == {"train", "valid", "test"}
        for arm in ("baseline", "layer0", "elmo"):
            assert len(r["arms"][arm]["runs"]) == 2 and 0.0 <= r["arms"][arm]["mean"] <= 100.0
        if task != "sst5":  # Figure 1 is the taggers'
            assert [p["fraction"] for p in data["sample_efficiency"][task]] == [0.1, 1.0]
        for w in data["weights"][task].values():
            assert len(w) == 3 and abs(sum(w) - 1.0) < 1e-4
        assert {"low", "high", "mean"} <= set(r["differences"]["elmo_vs_baseline"])
        # the interval covers the test sentences too
        assert r["differences"]["elmo_vs_baseline"]["test_std"] >= 0.0
    for task in ("chunking", "ner"):
        assert set(data["sample_efficiency"][task][0]) >= {"layer0", "context_difference"}
    phrases = data["tasks"]["sst5_phrases"]  # trained on phrases, scored on the sentences
    assert phrases["sizes"]["test"] == data["tasks"]["sst5"]["sizes"]["test"]
    assert "sst5_phrases" not in data["sample_efficiency"]
    assert set(data["table2"]["arms"]) == {"baseline", "elmo", "top", "lambda1", "layer0"}
    assert set(data["table3"]["arms"]) == {"input", "input_output", "output"}
    assert data["tasks"]["sst5"]["bag_of_words"]["test"] > 0
    assert all(r["result"]["last_epoch"] <= 3 for r in data["runs"])  # quick: a cap of 3
    # chunking gains from the biLM even with the tiny one and 100 sentences
    chunking = data["tasks"]["chunking"]["arms"]
    assert chunking["elmo"]["mean"] > chunking["baseline"]["mean"]
    assert (quick_report / "TASKS.md").read_text().startswith("# What ELMo adds to a task model")
    assert all((quick_report / FIGURES[k]).exists() for k in ("curves", "weights"))
    shipped, index = task_word_vectors(quick_report)
    computed, computed_index = word_vectors("embedded")
    assert all(torch.equal(shipped[row], computed[computed_index[w]])
               for w, row in index.items())


@pytest.mark.slow
def test_tasks_command_refuses_to_overwrite_its_files_unless_forced(quick_report, tmp_path,
                                                                   monkeypatch, capsys):
    for written in quick_report.iterdir():  # a copy: the other tests read the originals
        if written.is_file():
            shutil.copy(written, tmp_path)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    assert VECTORS_FILE in before and FIGURES["weights"] in before
    argv = ["tasks", str(SHIPPED.parent / "tiny"), "--quick", "--json",
            str(tmp_path / "tasks.json"), "--markdown", str(tmp_path / "TASKS.md")]
    assert cli.main(argv) == 2
    assert "--force" in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before
    monkeypatch.setattr(task_report, "task_report", lambda model, **kw: _fake_result())
    assert cli.main([*argv, "--force"]) == 0
    assert json.loads((tmp_path / "tasks.json").read_text())["model"] == "fake"
    assert (tmp_path / FIGURES["weights"]).read_bytes() != before[FIGURES["weights"]]


def test_tasks_command_refuses_files_another_run_wrote_while_it_worked(tmp_path, monkeypatch,
                                                                       capsys):
    figure = tmp_path / FIGURES["weights"]

    def other_run_finishes_first(model, **kw):
        figure.write_bytes(b"the other run's figure")
        return _fake_result()

    monkeypatch.setattr(task_runs, "read_task", lambda task: TOY_TASK)
    monkeypatch.setattr(task_report, "task_report", other_run_finishes_first)
    argv = ["tasks", str(SHIPPED), "--corpus", "embedded", "--tasks", "sst5", "--markdown",
            str(tmp_path / "T.md")]
    assert cli.main(argv) == 2
    assert "already exists" in capsys.readouterr().err
    assert figure.read_bytes() == b"the other run's figure"
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.slow  # a subprocess, several processes or a whole command
def test_runs_trained_side_by_side_equal_the_same_runs_one_after_the_other():
    import torch

    from elmo_tutorial.tasks.model import encode_chars
    from elmo_tutorial.tasks.training import TaskSplit

    g = torch.Generator().manual_seed(0)
    words = [["The", "cat", "sat"], ["A", "dog", "ran", "home"], ["It", "rained"]] * 4

    def split():
        return TaskSplit([torch.randint(1, 5, (len(w),), generator=g) for w in words],
                         [torch.randn(len(w), 3, 4, generator=g) for w in words],
                         [torch.randint(0, 2, (len(w),), generator=g) for w in words],
                         ["O", "B-NP"], encode_chars(words))

    splits = {"train": split(), "valid": split(), "test": split()}
    vectors = torch.randn(5, 6, generator=g)
    protocol = {"max_epochs": 3, "hard_cap": 3, "patience": 2}
    apart = task_report.train_arms(splits, vectors, ("baseline", "elmo"), (0, 1),
                                   protocol=protocol, workers=1)
    together = task_report.train_arms(splits, vectors, ("baseline", "elmo"), (0, 1),
                                      protocol=protocol, workers=2)
    for arm in ("baseline", "elmo"):
        for a, b in zip(apart[arm], together[arm], strict=True):
            assert {k: v for k, v in a.items() if k != "seconds"} == \
                   {k: v for k, v in b.items() if k != "seconds"}
    assert apart["elmo"][0]["places"] == ["input"] and apart["baseline"][0]["places"] == []


TOY_TASK = {"train": [(["A", "cat"], 3)], "valid": [(["Hi"], 1)], "test": [(["Yo"], 0)]}


def test_runs_on_static_vectors_of_other_text_are_kept_apart(monkeypatch):
    """english_mix read from other NLTK data gives other static vectors: other runs."""
    model = torch.nn.Linear(2, 2)
    paths = []
    for text in ("a" * 64, "b" * 64):
        monkeypatch.setattr(task_runs, "word_vectors_recipe",
                            lambda corpus, text=text: {"corpus": corpus, "sentences": text})
        monkeypatch.setattr(task_runs, "read_task", lambda task: TOY_TASK)
        paths.append(task_runs.open_run_store(model, "english_mix", quick=True).path)
    assert paths[0] != paths[1]
    assert paths[0].parent.name == "task_runs"  # in the cache folder (the test's own)


def test_the_runs_file_keeps_its_name_when_the_vectors_are_computed_again(monkeypatch, tmp_path):
    """Two computations of the static vectors of one text differ in float rounding (the SVD's
    sparse sums follow the threads): a runs file, e.g. the one kept in benchmarks/, must still
    be read back after the vectors are computed again (issue: refused, "its static_vectors
    differs", when its key was the sha256 of the vectors' bytes)."""
    from elmo_tutorial.analyses.static_vectors import StaticVectors
    from elmo_tutorial.tasks import vectors

    computed = vectors.sparse_static_vectors
    model = torch.nn.Linear(2, 2)
    monkeypatch.setattr(task_runs, "read_task", lambda task: TOY_TASK)
    names, tables = [], []
    for scale in (1.0, 1.0 + 1e-6):  # the second computation rounds differently
        def rounded_otherwise(*args, scale=scale, **kwargs):
            vectors = computed(*args, **kwargs)
            return StaticVectors(vectors.words, vectors.vectors * scale)

        monkeypatch.setattr(vectors, "sparse_static_vectors", rounded_otherwise)
        monkeypatch.setenv("ELMO_TUTORIAL_CACHE", str(tmp_path / str(scale)))
        tables.append(word_vectors("embedded")[0])  # computed afresh in an empty cache
        names.append(task_runs.run_store_key(model, "embedded", quick=True)[1])
    assert not torch.equal(tables[0], tables[1]) and torch.allclose(tables[0], tables[1])
    assert names[0] == names[1]


def _edited_label(task):
    return {**TOY_TASK, "train": [(["A", "cat"], 4)]}  # one label of the training data


def _edited_token(task):
    return {**TOY_TASK, "test": [(["Yo!"], 0)]} if task == "chunking" else TOY_TASK


@pytest.mark.parametrize("edit", [_edited_label, _edited_token])
def test_runs_of_edited_task_data_are_never_resumed_as_these(monkeypatch, tmp_path, edit):
    """Resumed runs of the old data would make the report of the new data (issue: chunking
    64.33 resumed where a fresh run gives 67.91): another file by default, and a --runs file
    of the old data is refused, saying that the task data differ."""
    model = torch.nn.Linear(2, 2)
    monkeypatch.setattr(task_runs, "word_vectors_recipe", lambda corpus: {"sentences": "t"})
    monkeypatch.setattr(task_runs, "read_task", lambda task: TOY_TASK)
    old = task_runs.open_run_store(model, "english_mix", quick=True)
    old.add(Job("chunking", "elmo", 0), {"score": 64.33})
    explicit = tmp_path / "runs.jsonl"
    task_runs.open_run_store(model, "english_mix", True, explicit).add(
        Job("chunking", "elmo", 0), {"score": 64.33})
    monkeypatch.setattr(task_runs, "read_task", edit)
    new = task_runs.open_run_store(model, "english_mix", quick=True)
    assert new.path != old.path and len(new) == 0
    with pytest.raises(StoreMismatch, match=r"runs\.jsonl holds runs of another setup \(its "
                                            r"task_data differs from this one's\)"):
        task_runs.open_run_store(model, "english_mix", True, explicit)
    assert len(RunStore(explicit, old.header)) == 1  # refused, and nothing lost


def test_runs_of_other_options_or_quality_biLMs_are_kept_apart(monkeypatch):
    """The biLM's key is its architecture and weights; the quality biLMs' weights count."""
    from dataclasses import replace

    from elmo_tutorial.model.config import MODEL_PRESETS
    from elmo_tutorial.model.elmo import ELMo

    monkeypatch.setattr(task_runs, "word_vectors_recipe", lambda corpus: {"sentences": "t"})
    monkeypatch.setattr(task_runs, "read_task", lambda task: TOY_TASK)
    torch.manual_seed(0)
    model = ELMo(MODEL_PRESETS["tiny"])
    clipped = ELMo(replace(MODEL_PRESETS["tiny"], cell_clip=1.0))  # another options.json
    clipped.load_state_dict(model.state_dict())
    names = {task_runs.run_store_key(m, "embedded", True)[1] for m in (model, clipped)}
    assert len(names) == 2
    twins = [ELMo(MODEL_PRESETS["tiny"]) for _ in range(2)]  # two trainings of one name
    ids = [task_runs.quality_id("tiny-60", elmo) for elmo in twins]
    assert ids[0] != ids[1] and all(i.startswith("tiny-60@") for i in ids)
    assert task_runs.quality_id("tiny-60", twins[0]) == ids[0]  # and the same one again


def test_the_runs_file_of_a_fixed_biLM_and_setting_keeps_its_name(monkeypatch):
    """The key of a runs file does not change with the code that computes it: a report
    interrupted before an upgrade resumes after it. (The values were computed when the
    protocol came to score dev at least every 2,500 updates, and the static vectors came to be
    named by their recipe, not their bytes: runs of the rule before are not resumed as runs of
    this one.)"""
    model = torch.nn.Linear(2, 2)
    with torch.no_grad():
        model.weight.copy_(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
        model.bias.copy_(torch.tensor([0.5, -0.5]))
    monkeypatch.setattr(task_runs, "word_vectors_recipe", lambda corpus: {
        "format": 2, "corpus": corpus, "dim": 100, "window": 4, "min_count": 5,
        "sentences": "c8f3" * 16})
    monkeypatch.setattr(task_runs, "read_task", lambda task: TOY_TASK)
    header, name = task_runs.run_store_key(model, "english_mix", quick=True)
    assert name == "0d280d1e70cc0707-b5fcf8d4b042-quick.jsonl"
    assert header["task_data"]["sst5"] == \
        "4e724cfb8d82c96ad6c12d6c4fc473b8a8c7d44b58457aad405501ce1936e28b"
    assert header["model"] == \
        "0d280d1e70cc0707865a93efe3c42b2236299acb00766b7f2dc9d036734ff18b"
    assert header["static_vectors"]["sentences"] == "c8f3" * 16
    assert header["protocol"]["max_epochs"] == 3 and header["sample"] is None
    _, full = task_runs.run_store_key(model, "english_mix", quick=False)
    assert full == "0d280d1e70cc0707-f53780791326-full.jsonl"


def test_the_shipped_reports_figures_are_drawn_readable_at_their_own_size():
    """Notebook 12 draws the committed report's figures from its json: none wider than 10
    inches, no text under 10 points, and the quality figure labels its ticks with the biLMs."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from elmo_tutorial.tasks.report_figures import draw

    result = json.loads((SHIPPED / "tasks.json").read_text(encoding="utf-8"))
    for key in FIGURES:
        fig = draw(result, key)
        try:
            assert fig.get_size_inches()[0] <= 10, key
            fig.canvas.draw()
            sizes = {t.get_fontsize() for t in fig.findobj(matplotlib.text.Text) if t.get_text()}
            assert min(sizes) >= 10, (key, sorted(sizes))
            if key == "quality":
                ticks = [t.get_text() for t in fig.axes[0].get_xticklabels()]
                names = sorted(t.split("\n")[0] for t in ticks)
                assert names == ["small", "small-135", "small-540"]
                for line in fig.axes[0].lines:  # each task's line joins neighbours on the axis
                    x = list(line.get_xdata())
                    assert x == sorted(x) or len(x) < 2
        finally:
            plt.close(fig)
    assert draw({**result, "quality": []}, "quality") is None
    with pytest.raises(ValueError, match="key must be one of"):
        draw(result, "nonsense")


def test_figure_1_draws_the_arms_it_is_asked_for_and_refuses_the_rest():
    """Notebook 12 shows Figure 1 without the layer-0 arm (notebook 13 asks for a prediction
    about it); an arm it does not know, or arms for another figure, is an error."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from elmo_tutorial.tasks.report_figures import draw

    result = json.loads((SHIPPED / "tasks.json").read_text(encoding="utf-8"))
    everything = draw(result, "sample_efficiency")
    two = draw(result, "sample_efficiency", arms=("baseline", "elmo"))
    try:
        labels = [[c.get_label() for c in ax.containers] for ax in two.axes]
        assert labels and all(row == ["baseline", "+ ELMo"] for row in labels)
        assert all(len(ax.containers) >= 2 for ax in everything.axes)
    finally:
        plt.close(everything)
        plt.close(two)
    with pytest.raises(ValueError, match=r"arms \['layer 0'\] are not lines of"):
        draw(result, "sample_efficiency", arms=("baseline", "layer 0"))
    with pytest.raises(ValueError, match="are not lines of 'weights'"):
        draw(result, "weights", arms=("baseline",))


def test_sst5_phrases_run_the_papers_two_arms_and_the_table_shows_no_layer0_there():
    tasks = ("sst5", "sst5_phrases", "chunking", "ner")
    places = {**PLACES, "sst5_phrases": ("input",)}
    jobs = plan(tasks, FULL, places)
    assert {j.variant for j in jobs if j.task == "sst5_phrases"} == {"baseline", "elmo"}
    assert not [j for j in jobs if j.fraction < 1 and j.task.startswith("sst5")]  # taggers only
    result = _fake_result(tasks=tasks, places=places)
    row = result.tasks["sst5_phrases"]
    assert set(row.arms) == {"baseline", "elmo"} and row.differences.elmo_vs_layer0 is None
    again = TaskReport.from_dict(json.loads(result.to_json()))  # its JSON reads back
    assert again.tasks["sst5_phrases"].differences.layer0_vs_baseline is None
    text = to_markdown(result)
    assert "| SST-5, trained on every labelled phrase | accuracy | 1,000 |" in text
    assert "second row trains as the paper's did, on every labelled phrase" in text


def test_the_protocol_says_how_a_pass_longer_than_a_round_is_scored():
    """SST-5's phrases are scored on dev every 2,500 updates; the protocol paragraph says so."""
    result = _fake_result()
    assert result.protocol.max_round_updates == 2500
    assert "A pass of more than 2,500 updates (SST-5's phrases) is scored on dev every 2,500" \
        in to_markdown(result)


def test_the_longest_run_counts_passes_begun_when_an_epoch_is_part_of_a_pass():
    """A phrase run's epoch is half a pass: 401 of them are 200.5 passes, written 201 (a whole
    number, as the report's json reads it back)."""
    def long_phrase_run(job, run):
        if job.task == "sst5" and job.variant == "elmo" and job.seed == 0:
            run.update(last_epoch=401, epochs_per_round=0.5)

    result = _fake_result(long_phrase_run)
    assert result.convergence.longest == 201
    again = TaskReport.from_dict(json.loads(json.dumps(result.to_dict())), "report")
    assert again.convergence.longest == 201
