"""The quality figure's perplexities: measured the same way for every biLM, or read from the
heldout.json kept beside an encoder that can no longer score words."""

import json
import shutil

import pytest

from elmo_tutorial.tasks.quality import HELDOUT_FILE, SENTENCES, heldout_perplexity
from elmo_tutorial.training.run_folder import shipped_model


def test_the_shipped_encoder_reads_its_measured_perplexity():
    assert heldout_perplexity(shipped_model("small")) == 107.5


def test_a_heldout_file_of_another_measurement_is_refused(tmp_path):
    folder = tmp_path / "small"
    shutil.copytree(shipped_model("small"), folder)
    good = json.loads((folder / HELDOUT_FILE).read_text())
    for bad in ({**good, "split": "valid"}, {**good, "n_sentences": 500}):
        (folder / HELDOUT_FILE).write_text(json.dumps(bad))
        with pytest.raises(ValueError, match=f"first {SENTENCES} sentences of the 'test'"):
            heldout_perplexity(folder)
    (folder / HELDOUT_FILE).unlink()
    assert heldout_perplexity(folder) is None  # an encoder with nothing to say


def test_a_run_with_its_softmax_is_scored_now_as_the_figure_measures(monkeypatch):
    """The tiny model keeps its softmax: it is scored now, on the first 2000 sentences of its
    corpus's test split, without the n-gram baseline (evaluate_run's own tests check what
    that measures)."""
    asked = []

    def evaluate_run(run_dir, split, n_sentences, ngram):
        asked.append((run_dir, split, n_sentences, ngram))
        return {"bilm": {"avg_ppl": 42.0}}

    monkeypatch.setattr("elmo_tutorial.training.evaluation.evaluate_run", evaluate_run)
    assert heldout_perplexity(shipped_model("tiny")) == 42.0
    assert asked == [(shipped_model("tiny"), "test", SENTENCES, False)]
