"""Every subset of the report's tasks runs: `tasks --tasks sst5`, `--tasks ner`, any pair."""

import itertools

import pytest
import torch
from test_task_report import _fake_run

from elmo_tutorial.tasks import report as task_report
from elmo_tutorial.tasks.report_markdown import to_markdown
from elmo_tutorial.tasks.runs import Job
from elmo_tutorial.tasks.training import TaskSplit

SUBSETS = [s for n in (1, 2, 3) for s in itertools.combinations(("sst5", "chunking", "ner"), n)]


@pytest.fixture
def fake_training(monkeypatch, tmp_path):
    """The report's planning and summary for real; its data and training runs faked."""
    monkeypatch.setenv("ELMO_TUTORIAL_CACHE", str(tmp_path / "cache"))
    trained = []

    def fake_split(task, embedder, index, max_sentences, sample, progress):
        one = TaskSplit([torch.tensor([1, 2])], [torch.zeros(2, 3, 4)], [torch.tensor([0, 0])],
                        ["O"])
        return {"train": one, "valid": one, "test": one}

    def fake_run_variant(splits, vectors, variant, seed, fraction, places, protocol):
        trained.append(variant)
        return _fake_run(Job("chunking", variant, seed, fraction, tuple(places)))

    monkeypatch.setattr(task_report, "prepare_task", fake_split)
    monkeypatch.setattr(task_report, "run_variant", fake_run_variant)
    monkeypatch.setattr(task_report, "word_vectors", lambda corpus: (torch.zeros(3, 2), {}))
    monkeypatch.setattr(task_report, "Embedder", lambda model: None)
    monkeypatch.setattr(task_report, "read_task", lambda task: {"train": [], "valid": [],
                                                                "test": []})
    monkeypatch.setattr(task_report, "bag_of_words_baseline", lambda *a: {
        "test": 38.0, "valid": 37.0, "alpha": 1e-3, "features": 500, "dev_by_alpha": {}})
    monkeypatch.setattr(task_report, "majority_rate", lambda split: 28.6)
    return trained


@pytest.mark.parametrize("tasks", SUBSETS, ids="+".join)
def test_every_subset_of_tasks_makes_a_report(fake_training, tasks):
    result = task_report.task_report(None, tasks=tasks, quick=True, workers=1, progress=False)
    assert list(result.tasks) == list(tasks)
    has_chunking = "chunking" in tasks
    assert (result.table2 is not None) == has_chunking == (result.table3 is not None)
    assert ("input_output" in fake_training) == has_chunking  # Table 3 needs chunking
    text = to_markdown(result)
    assert ("## Table 3" in text) == has_chunking
