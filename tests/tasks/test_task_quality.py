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


@pytest.mark.slow
def test_a_run_with_its_softmax_is_scored_now(monkeypatch):
    """The tiny model keeps its softmax: its perplexity is measured, on the test split."""
    from elmo_tutorial.training.evaluation import evaluate_run

    ppl = heldout_perplexity(shipped_model("tiny"))
    expected = evaluate_run(shipped_model("tiny"), "test", SENTENCES, ngram=False)
    assert ppl == expected["bilm"]["avg_ppl"] and 1.0 < ppl < 100.0
