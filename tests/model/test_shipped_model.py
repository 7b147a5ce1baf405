"""The shipped small model: intact files, encoder only, loads with ELMo.from_run."""

import hashlib
from pathlib import Path

import pytest
import torch

from elmo_tutorial import batch_to_ids
from elmo_tutorial.model.elmo import ELMo
from elmo_tutorial.model.run_dir import load_run

SHIPPED = Path(__file__).resolve().parents[2] / "data" / "models" / "small"


def test_shipped_files_match_their_checksums_and_stay_small():
    for line in (SHIPPED / "SHA256SUMS").read_text().splitlines():
        digest, name = line.split()
        assert hashlib.sha256((SHIPPED / name).read_bytes()).hexdigest() == digest, name
    assert (SHIPPED / "model.safetensors").stat().st_size <= 10 * 2**20


def test_shipped_model_is_an_encoder_that_elmo_loads():
    config, state, vocab, _ = load_run(SHIPPED)
    assert config.vocab_size == 0 and vocab is None
    assert not any(name.startswith("softmax.") for name in state)
    assert all(t.dtype == torch.float32 for t in state.values() if t.is_floating_point())
    elmo = ELMo.from_run(SHIPPED)
    with torch.no_grad():
        out = elmo(batch_to_ids([["She", "sat", "on", "the", "bank", "."]]))
    assert out["elmo"].shape == (1, 6, 2 * config.projection_dim)
    assert torch.isfinite(out["elmo"]).all()


TINY = SHIPPED.parent / "tiny"


def test_shipped_tiny_run_is_intact_small_and_the_tiny_preset_unchanged():
    from elmo_tutorial.model.run_dir import read_run_config
    from elmo_tutorial.training.train_config import TrainConfig

    for line in (TINY / "SHA256SUMS").read_text().splitlines():
        digest, name = line.split()
        assert hashlib.sha256((TINY / name).read_bytes()).hexdigest() == digest, name
    assert sum(p.stat().st_size for p in TINY.iterdir()) <= 2 * 2**20
    _, train = read_run_config(TINY)
    assert TrainConfig.from_dict(train) == TrainConfig.preset("tiny"), (
        "data/models/tiny must be what `elmo-tutorial train --config tiny` trains")


def test_shipped_tiny_weights_reproduce_the_perplexity_in_their_log(one_thread):
    from elmo_tutorial.data.sense_corpus import sense_corpus
    from elmo_tutorial.model.lm import BidirectionalLM
    from elmo_tutorial.training.evaluation import evaluate_perplexity
    from elmo_tutorial.training.train_log import read_log

    config, state, vocab, _ = load_run(TINY)
    model = BidirectionalLM(config)
    model.load_state_dict(state)
    logged = [e for e in read_log(TINY) if e["kind"] == "eval"][-1]
    assert logged["step"] == 600
    scored = evaluate_perplexity(model, sense_corpus("valid")[:500], vocab)
    # float16 storage moves the perplexity by far less than this
    assert abs(scored["avg_ppl"] - logged["avg_ppl"]) < 0.01 * logged["avg_ppl"]
    assert scored["n_tokens"] == logged["n_tokens"]


def test_shipped_model_finds_both_models_and_rejects_unknown_names():
    from elmo_tutorial.model.run_dir import shipped_model

    assert shipped_model("tiny") == TINY and shipped_model("small") == SHIPPED
    with pytest.raises(ValueError, match="ships"):
        shipped_model("paper")


def test_a_shipped_model_with_flipped_bytes_is_refused_naming_the_file_and_the_fix(
        tmp_path, monkeypatch, capsys):
    import shutil

    from elmo_tutorial.commands.cli import main as cli
    from elmo_tutorial.model import run_dir

    monkeypatch.setattr(run_dir, "REPOSITORY", tmp_path)  # a clone of the course in tmp_path
    copy = tmp_path / "data" / "models" / "tiny"
    shutil.copytree(TINY, copy)
    weights = copy / "model.safetensors"
    data = bytearray(weights.read_bytes())
    middle = len(data) // 2
    data[middle : middle + 400] = bytes(b ^ 0xFF for b in data[middle : middle + 400])
    weights.write_bytes(bytes(data))  # still a valid safetensors file, with other numbers

    with pytest.raises(ValueError, match="model.safetensors.*SHA256SUMS"):
        load_run(copy)
    assert cli(["evaluate", str(copy), "--no-ngram", "--max-sentences", "5"]) == 2
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and str(weights) in error
    assert "git checkout -- data/models/tiny" in error
