"""Scoring a biLM (``elmo_tutorial.training.evaluation``): no held-out text is an error that
says so, never a perplexity of 1.00; a run's scores say which weights they are of."""

import json
import shutil

import pytest
import torch

from elmo_tutorial.commands.cli import main as cli
from elmo_tutorial.model.config import MODEL_PRESETS
from elmo_tutorial.model.lm import BidirectionalLM
from elmo_tutorial.model.vocab import Vocabulary
from elmo_tutorial.training import evaluation
from elmo_tutorial.training.evaluation import evaluate_perplexity

TEXT = [["the", "cat", "sat"], ["the", "dog", "sat"]]


def test_no_held_out_sentence_is_refused_not_a_perplexity_of_one():
    from dataclasses import replace

    vocab = Vocabulary.from_sentences(TEXT)
    torch.manual_seed(0)
    model = BidirectionalLM(replace(MODEL_PRESETS["tiny"], vocab_size=len(vocab)))
    assert evaluate_perplexity(model, TEXT, vocab)["avg_ppl"] > 1.5  # what a real score is
    with pytest.raises(ValueError, match="no held-out sentence to score"):
        evaluate_perplexity(model, [], vocab)


def test_evaluate_on_a_blank_split_names_the_split_and_the_corpus(finished_run, monkeypatch,
                                                                   capsys):
    monkeypatch.setattr(evaluation, "load_sentences", lambda corpus, split, n=None: [])
    assert cli(["evaluate", str(finished_run), "--split", "test", "--no-ngram"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("elmo-tutorial evaluate: the test split of the corpus 'embedded' has "
                          "no sentence") and err.count("\n") == 1, err


def _scored(run, capsys, *flags):
    code = cli(["evaluate", str(run), "--no-ngram", "--max-sentences", "5", "--json", *flags])
    out, err = capsys.readouterr()
    return (json.loads(out)["weights"] if code == 0 else None), err


def test_evaluate_scores_the_final_weights_or_the_newest_complete_checkpoint(run_copy, capsys):
    assert _scored(run_copy, capsys)[0] == "model.safetensors"
    assert _scored(run_copy, capsys, "--checkpoint")[0] == "checkpoints/step_000004"
    (run_copy / "checkpoints" / "step_000004" / "state.pt").unlink()  # a copy cut short
    assert _scored(run_copy, capsys, "--checkpoint")[0] == "checkpoints/step_000002"
    (run_copy / "model.safetensors").unlink()  # a run still training
    assert _scored(run_copy, capsys)[0] == "checkpoints/step_000002"
    shutil.rmtree(run_copy / "checkpoints" / "step_000002")
    weights, err = _scored(run_copy, capsys, "--checkpoint")
    assert weights is None and "has no complete checkpoint" in err
    assert len(err.strip().splitlines()) == 1
