"""Fine-tuning a trained biLM on domain text (``elmo_tutorial.finetune``), on the shipped tiny
model: a new run, the source untouched, perplexity down, the encoder frozen where it should be."""

import hashlib
import json
from dataclasses import replace

import pytest
import torch

from elmo_tutorial import ELMo
from elmo_tutorial.checkpoint import save_weights
from elmo_tutorial.finetune import FineTuner, finetune, finetune_config
from elmo_tutorial.run_dir import load_run, shipped_model, write_run_config
from elmo_tutorial.vocab import SPECIALS

# A "domain": sentences the tiny model never read, in words it mostly knows.
DOMAIN = [["the", "man", "sat", "on", "the", "bank", "."],
          ["she", "saw", "the", "river", "and", "the", "bank", "."],
          ["the", "bank", "raised", "its", "rates", "."],
          ["he", "walked", "to", "the", "river", "."]] * 4
FAST = {"threads": 1, "progress": False, "batch_size": 8}


def _digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _encoder(run):
    return {k: v for k, v in run.state.items() if not k.startswith("softmax.")}


@pytest.fixture
def encoder_only(tmp_path):
    """The tiny model without its softmax and vocabulary, like the shipped ``small``."""
    run = load_run(shipped_model("tiny"))
    folder = tmp_path / "encoder"
    folder.mkdir()
    write_run_config(folder, replace(run.config, vocab_size=0), {})
    save_weights(folder / "model.safetensors", _encoder(run))
    return folder


def test_finetuning_writes_a_new_run_leaves_the_source_and_lowers_perplexity(tmp_path,
                                                                             one_thread):
    source = shipped_model("tiny")
    before_files = {p.name: _digest(p) for p in source.iterdir() if p.is_file()}
    result = finetune(source, DOMAIN, DOMAIN[:4], tmp_path / "tuned", steps=20, lr=1e-2, **FAST)
    assert {p.name: _digest(p) for p in source.iterdir() if p.is_file()} == before_files
    assert result["after"]["avg_ppl"] < 0.5 * result["before"]["avg_ppl"]
    saved = json.loads((tmp_path / "tuned" / "finetune.json").read_text())
    assert saved["after"]["avg_ppl"] == pytest.approx(result["after"]["avg_ppl"])
    assert load_run(tmp_path / "tuned").config == load_run(source).config
    ELMo.from_run(tmp_path / "tuned")  # a run like any other


def test_the_encoder_changes_unless_frozen(tmp_path, one_thread):
    source = shipped_model("tiny")
    original = _encoder(load_run(source))
    for frozen in (False, True):
        out = tmp_path / f"frozen-{frozen}"
        finetune(source, DOMAIN, DOMAIN[:4], out, steps=5, freeze_encoder=frozen, lr=1e-2,
                 **FAST)
        tuned = load_run(out)
        same = all(torch.equal(original[k], tuned.state[k]) for k in original)
        assert same == frozen, f"freeze_encoder={frozen}"
        softmax_changed = not torch.equal(tuned.state["softmax.weight"],
                                          load_run(source).state["softmax.weight"])
        assert softmax_changed


def test_an_encoder_only_run_gets_a_softmax_trained_on_its_frozen_encoder(encoder_only,
                                                                         tmp_path, one_thread):
    with pytest.raises(ValueError, match="head_steps"):
        finetune(encoder_only, DOMAIN, DOMAIN[:4], tmp_path / "no-head", steps=2, **FAST)
    config = finetune_config(encoder_only, tmp_path / "head", steps=2, **FAST)
    tuner = FineTuner(encoder_only, DOMAIN, DOMAIN[:4], config)
    untrained = tuner.evaluate()["avg_ppl"]
    tuner.fit_softmax(100)
    trained = tuner.evaluate()["avg_ppl"]
    assert trained < 0.5 * untrained
    original = load_run(encoder_only).state
    assert all(torch.equal(original[k], v.cpu()) for k, v in tuner.model.state_dict().items()
               if not k.startswith("softmax."))  # the head's steps leave the encoder alone
    assert set(tuner.vocab) - set(SPECIALS) == {w for s in DOMAIN for w in s}  # the domain's


def test_fine_tuning_never_writes_over_its_source(encoder_only):
    config = finetune_config(encoder_only, encoder_only, steps=2, **FAST)
    with pytest.raises(ValueError, match="over its source run"):
        FineTuner(encoder_only, DOMAIN, DOMAIN, config)
    with pytest.raises(ValueError, match="steps ≥ 1"):
        finetune_config(encoder_only, encoder_only / "x", steps=0)


def test_the_finetune_report_compares_the_two_biLMs_seed_by_seed():
    from elmo_tutorial.finetune_report import to_markdown

    ppl = {"avg_ppl": 40.0, "fwd_ppl": 41.0, "bwd_ppl": 39.0, "n_tokens": 1000}
    tuned = {"head_steps": 300, "vocab_size": 1700, "vocab_min_count": 3, "steps": 40,
             "train_sentences": 2000, "batch_size": 16, "lr": 1e-3, "valid_sentences": 300,
             "before": {**ppl, "avg_ppl": 45.0}, "after": ppl}

    def arm(runs):
        return {"mean": sum(runs) / len(runs), "std": 1.0, "runs": runs}

    result = {"source": "data/models/small", "finetune": tuned, "seeds": [0, 1, 2],
              "sizes": {"train": 600, "valid": 200, "test": 500},
              "seconds": {"finetune": 60.0, "tasks": 120.0},
              "accuracy": {"baseline": arm([60.0, 61.0, 62.0]),
                           "original": arm([63.0, 64.0, 65.0]),
                           "finetuned": arm([64.0, 65.5, 66.0])}}
    text = to_markdown(result)
    assert "Fine-tuned − original biLM, paired by seed: +1.2 points" in text
    assert "higher: the interval excludes 0" in text
    result["accuracy"]["finetuned"] = arm([62.0, 66.0, 65.0])
    assert "no difference shown: the interval includes 0" in to_markdown(result)
    assert "+ ELMo at the BiLSTM's input" in text
