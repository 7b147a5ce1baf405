"""The shipped task report and the runs file it was written from (``benchmarks/``).

``elmo-tutorial tasks data/models/small --quality ... --runs benchmarks/task_report_runs.jsonl``
writes ``data/models/small/TASKS.md`` again in minutes, without training, on any machine with
the course's data: the report must be made of those runs, and the file's header must be the
setup this checkout computes for the shipped biLM (else the command refuses the file).
"""

import json
import os
from pathlib import Path

import pytest
import torch

from elmo_tutorial.tasks import runs as task_runs
from elmo_tutorial.tasks.vectors import task_word_vectors, task_words, word_vectors
from elmo_tutorial.training.run_folder import load_elmo, shipped_model

RUNS = Path(__file__).resolve().parents[2] / "benchmarks" / "task_report_runs.jsonl"


def _runs_file() -> tuple[dict, dict[str, dict]]:
    """The header, and ``{job as sorted JSON: result}`` of every kept run."""
    first, *lines = RUNS.read_text(encoding="utf-8").splitlines()
    runs = {}
    for line in lines:
        entry = json.loads(line)
        runs[json.dumps(entry["job"], sort_keys=True)] = entry["result"]
    return json.loads(first)["header"], runs


def test_the_shipped_report_is_made_of_the_kept_runs():
    """Every run of tasks.json is the kept run of its job: the same score, epochs and stop."""
    _, kept = _runs_file()
    report = json.loads((shipped_model("small") / "tasks.json").read_text(encoding="utf-8"))
    assert len(report["runs"]) == len(kept)
    for run in report["runs"]:
        stored = kept[json.dumps(run["job"], sort_keys=True)]
        for field in ("score", "valid", "best_epoch", "last_epoch", "stopped", "updates"):
            assert stored[field] == run["result"][field], (run["job"], field)


def test_the_shipped_markdown_is_the_markdown_of_the_shipped_json():
    """TASKS.md is written from tasks.json alone, which reads back as it was written."""
    from elmo_tutorial.tasks.report_markdown import to_markdown
    from elmo_tutorial.tasks.results import TaskReport

    json_text = (shipped_model("small") / "tasks.json").read_text(encoding="utf-8")
    report = TaskReport.read(shipped_model("small") / "tasks.json")
    assert report.to_json() == json_text
    assert to_markdown(report) == (shipped_model("small") / "TASKS.md").read_text(encoding="utf-8")


@pytest.mark.slow
def test_the_runs_files_header_and_the_shipped_vectors_are_what_this_checkout_computes():
    """The vectors notebook 12 reads hold, for every word of the three tasks, the row that
    `word_vectors("english_mix")` computes from the offline NLTK data; and the header this
    checkout computes for the shipped biLM (its weights, the recipe of those vectors, the
    protocol, each task's data) is the runs file's: a change to any of them would make
    `tasks --runs` refuse the file, and the report could not be written again without hours
    of training. english_mix is read once for both (about a minute)."""
    if not os.environ.get("NLTK_DATA") or not os.environ.get("ELMO_TUTORIAL_DATA"):
        pytest.skip("NLTK_DATA and ELMO_TUTORIAL_DATA are not set: no offline corpus or tasks")
    shipped, index = task_word_vectors(shipped_model("small"))
    full, full_index = word_vectors("english_mix")
    assert list(index) == sorted(task_words() & full_index.keys())
    rows = torch.stack([full[full_index[w]] for w in index])  # (V', 100)
    # to float rounding: the SVD's sparse sums follow the threads, on any machine
    torch.testing.assert_close(shipped[1:], rows, rtol=0, atol=1e-5)
    stored, _ = _runs_file()
    expected, _ = task_runs.run_store_key(load_elmo(shipped_model("small")),
                                            "english_mix", quick=False)
    assert stored == json.loads(json.dumps(expected))
