"""A run folder is written by one process at a time and trusted only as far as it checks out:
weights that are weights, the vocabulary it was trained with, sane config values, files that
match SHA256SUMS; the shipped models are run folders too."""

import hashlib
import json
import os
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import filelock
import pytest
import torch
from _folder_helpers import one_line, snapshot
from _train_helpers import MICRO_CLI, micro_config
from safetensors.torch import load_file, save_file

from elmo_tutorial import batch_to_ids
from elmo_tutorial.commands.cli import main as cli
from elmo_tutorial.files.run_lock import LOCK_FILE
from elmo_tutorial.model.config import MODEL_PRESETS
from elmo_tutorial.model.lm import BidirectionalLM
from elmo_tutorial.training import checkpoints as ckpt
from elmo_tutorial.training import run_folder
from elmo_tutorial.training.run_folder import (
    load_elmo,
    load_run,
    read_run_config,
    shipped_model,
    write_run_config,
)
from elmo_tutorial.training.train import Trainer

REPOSITORY = Path(__file__).resolve().parents[2]
SMALL, TINY = REPOSITORY / "data" / "models" / "small", REPOSITORY / "data" / "models" / "tiny"


def _python(code_or_args, **kwargs) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(REPOSITORY), **kwargs.pop("env", {})}
    args = ["-c", code_or_args] if isinstance(code_or_args, str) else code_or_args
    return subprocess.Popen([sys.executable, *args], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kwargs)


def test_load_elmo_loads_the_trained_biLM_without_its_softmax(tmp_path):
    config = replace(MODEL_PRESETS["tiny"], vocab_size=50)
    torch.manual_seed(1)
    lm = BidirectionalLM(config)
    write_run_config(tmp_path, config, {})
    ckpt.save_weights(tmp_path / "model.safetensors", lm.state_dict())
    model = load_elmo(tmp_path)
    assert not model.training
    for name, value in model.bilm.state_dict().items():
        assert torch.equal(value, lm.state_dict()[name]), name


def test_load_run_gives_config_weights_vocabulary_and_training_settings(finished_run):
    config, state, vocab, train = load_run(finished_run)
    assert config.vocab_size == len(vocab) and config.lstm_dim == 16
    assert train["out_dir"] == str(finished_run)
    BidirectionalLM(config).load_state_dict(state)  # strict: every name and shape fits


# -- one writer per run folder -----------------------------------------------------------------

@pytest.fixture
def other_writer():
    """Another process that holds a folder's write lock until the test ends."""
    holders = []

    def hold(folder: Path) -> subprocess.Popen:
        process = _python(f"from elmo_tutorial.files.run_lock import lock_run_dir\n"
                          f"lock_run_dir({str(folder)!r}); print('locked', flush=True)\n"
                          "import time; time.sleep(120)")
        holders.append(process)
        assert process.stdout.readline().strip() == "locked", process.stderr.read()
        return process

    yield hold
    for process in holders:
        process.kill()
        process.wait()


@pytest.mark.parametrize("flags", [[], ["--force"], ["--resume", "--max_steps=6"]])
def test_a_second_writer_is_refused_in_one_line_and_changes_nothing(run_copy, capsys, flags):
    other = filelock.FileLock(run_copy / LOCK_FILE, timeout=0)  # another writer's open file
    other.acquire()
    before = snapshot(run_copy)
    assert cli(["train", "--out", str(run_copy), *MICRO_CLI, *flags]) == 2
    message = capsys.readouterr().err.strip().splitlines()[-1]  # after notices of a resume
    assert str(run_copy) in message and "another process" in message
    assert snapshot(run_copy) == before, "a refused train changed the run"
    other.release()


@pytest.mark.slow  # a subprocess, several processes or a whole command
def test_the_lock_dies_with_its_process(run_copy, other_writer):
    holder = other_writer(run_copy)
    holder.kill()  # kill -9: no chance to clean up
    holder.wait()
    assert cli(["train", "--out", str(run_copy), *MICRO_CLI, "--resume", "--max_steps=6"]) == 0
    assert ckpt.latest_checkpoint(run_copy).name == "step_000006"
    assert not (run_copy / ".lock").exists(), "a finished train leaves no lock file"


@pytest.mark.slow  # a subprocess, several processes or a whole command
def test_two_trains_into_one_folder_at_once_leave_one_run(tmp_path):
    """Two real processes start together; one trains, the other is refused."""
    out = tmp_path / "run"
    commands = [["-m", "elmo_tutorial", "train", "--out", str(out), *MICRO_CLI, *extra]
                for extra in ([], ["--model.lstm_dim=12"])]
    processes = [_python(c) for c in commands]
    results = [(p.wait(timeout=300), p.stderr.read()) for p in processes]
    assert sorted(code for code, _ in results) == [0, 2], results
    refused = next(err for code, err in results if code == 2)
    assert "another process" in refused and str(out) in refused
    winner = 16 if results[0][0] == 0 else 12
    assert json.loads((out / "config.json").read_text())["model"]["lstm_dim"] == winner
    state = ckpt.load_weights(out / "model.safetensors")
    assert all(ckpt.load_checkpoint(p)[0]["softmax.weight"].shape
               == state["softmax.weight"].shape for p in ckpt.checkpoints(out))


def test_a_refused_start_in_a_new_folder_leaves_no_folder(tmp_path):
    out = tmp_path / "new"
    assert cli(["train", "--out", str(out), *MICRO_CLI, "--corpus=wikitext103",
                "--model.lstm_dim=10000000"]) == 2
    assert not out.exists()
    with pytest.raises(FileNotFoundError):
        Trainer(micro_config(tmp_path / "other"), resume=True)  # nothing to resume
    assert not (tmp_path / "other").exists()


# -- what a run folder holds, checked ------------------------------------------------------------

DAMAGE = {
    "int32": (lambda t: t.to(torch.int32), "is int32, but weights are floating point"),
    "bool": (lambda t: t > 0, "is bool, but weights are floating point"),
    "nan": (lambda t: t.clone().index_fill_(0, torch.tensor([3]), float("nan")),
            "holds 64 NaN or infinite values"),
    "transposed": (lambda t: t.T.contiguous(), "(transposed?)"),
    "other shape": (lambda t: t[:-4].contiguous(), "(the weights of another model?)"),
}
TENSOR = "forward_lstm.layers.0.weight_ih_l0"


@pytest.mark.parametrize("damage", DAMAGE)
def test_weights_that_are_not_weights_are_one_line_errors_naming_file_and_tensor(
        tmp_path, capsys, damage):
    run = shutil.copytree(TINY, tmp_path / "run")
    (run / "SHA256SUMS").unlink()  # damaged consistently: only the checks here can tell
    state = load_file(run / "model.safetensors")
    state[TENSOR] = DAMAGE[damage][0](state[TENSOR])
    save_file(state, run / "model.safetensors")
    with pytest.raises(ValueError, match=TENSOR) as error:
        load_elmo(run)
    message = str(error.value)
    assert str(run) in message and DAMAGE[damage][1] in message and "\n" not in message
    if damage == "nan":  # and so is what every command says
        assert cli(["evaluate", str(run), "--max-sentences", "2", "--no-ngram"]) == 2
        assert TENSOR in one_line(capsys.readouterr().err)


def _swap_two_words(run: Path) -> None:
    words = (run / "vocab.txt").read_text(encoding="utf-8").splitlines()
    words[3], words[4] = words[4], words[3]
    (run / "vocab.txt").write_text("\n".join(words) + "\n", encoding="utf-8")


@pytest.mark.parametrize("command", [["evaluate", "{run}", "--no-ngram", "--max-sentences=5"],
                                     ["train", "--out", "{run}", *MICRO_CLI, "--resume"]])
def test_a_vocabulary_that_is_not_the_runs_is_named_in_one_line(run_copy, capsys, command):
    _swap_two_words(run_copy)
    assert cli([a.format(run=run_copy) for a in command]) == 2
    message = one_line(capsys.readouterr().err)
    assert str(run_copy / "vocab.txt") in message and "trained with" in message


CONFIG_EDITS = {
    "a float size": (("model", "lstm_dim"), 256.5, "lstm_dim"),
    "a string flag": (("model", "use_skip_connections"), "yes", "use_skip_connections"),
    "huge filters": (("model", "filters"), [[1, 60000], [2, 60000], [3, 60000]], "parameters"),
    "a list for the settings": (("train",), [1, 2], "train"),
    "a string setting": (("train", "batch_size"), "8", "batch_size"),
}


@pytest.mark.parametrize("edit", CONFIG_EDITS)
def test_a_config_json_value_of_the_wrong_type_or_size_is_named(run_copy, capsys, edit):
    keys, value, named = CONFIG_EDITS[edit]
    payload = json.loads((run_copy / "config.json").read_text())
    table = payload
    for key in keys[:-1]:
        table = table[key]
    table[keys[-1]] = value
    (run_copy / "config.json").write_text(json.dumps(payload))
    assert cli(["evaluate", str(run_copy), "--no-ngram"]) == 2
    message = one_line(capsys.readouterr().err)
    assert str(run_copy / "config.json") in message and named in message


# -- the shipped models ---------------------------------------------------------------------------

@pytest.mark.parametrize("folder", [SMALL, TINY], ids=["small", "tiny"])
def test_a_shipped_model_matches_its_checksums_and_stays_small(folder):
    for line in (folder / "SHA256SUMS").read_text().splitlines():
        digest, name = line.split()
        assert hashlib.sha256((folder / name).read_bytes()).hexdigest() == digest, name
    assert (folder / "model.safetensors").stat().st_size <= 10 * 2**20


def test_shipped_model_finds_both_models_and_rejects_unknown_names():
    assert shipped_model("tiny") == TINY and shipped_model("small") == SMALL
    with pytest.raises(ValueError, match="ships"):
        shipped_model("paper")


def test_the_shipped_small_model_is_an_encoder_that_elmo_loads():
    config, state, vocab, _ = load_run(SMALL)
    assert config.vocab_size == 0 and vocab is None
    assert not any(name.startswith("softmax.") for name in state)
    assert all(t.dtype == torch.float32 for t in state.values() if t.is_floating_point())
    with torch.no_grad():
        out = load_elmo(SMALL)(batch_to_ids([["She", "sat", "on", "the", "bank", "."]]))
    assert out["elmo"].shape == (1, 6, 2 * config.projection_dim)
    assert torch.isfinite(out["elmo"]).all()


def test_the_shipped_tiny_run_is_the_tiny_preset_and_reproduces_its_logged_perplexity(
        one_thread):
    from elmo_tutorial.data.sense_corpus import sense_corpus
    from elmo_tutorial.training.evaluation import evaluate_perplexity
    from elmo_tutorial.training.train_config import TrainConfig
    from elmo_tutorial.training.train_log import read_log

    assert TrainConfig.from_dict(read_run_config(TINY)[1]) == TrainConfig.preset("tiny"), (
        "data/models/tiny must be what `elmo-tutorial train --config tiny` trains")
    config, state, vocab, _ = load_run(TINY)
    model = BidirectionalLM(config)
    model.load_state_dict(state)
    logged = [e for e in read_log(TINY) if e["kind"] == "eval"][-1]
    assert logged["step"] == 600
    scored = evaluate_perplexity(model, sense_corpus("valid")[:500], vocab)
    # float16 storage moves the perplexity by far less than this
    assert abs(scored["avg_ppl"] - logged["avg_ppl"]) < 0.01 * logged["avg_ppl"]
    assert scored["n_tokens"] == logged["n_tokens"]


def test_a_shipped_model_with_flipped_bytes_is_refused_naming_the_file_and_the_fix(
        tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(run_folder, "REPOSITORY", tmp_path)  # a clone of the course in tmp_path
    copy = shutil.copytree(TINY, tmp_path / "data" / "models" / "tiny")
    weights = copy / "model.safetensors"
    data = bytearray(weights.read_bytes())
    middle = len(data) // 2
    data[middle : middle + 400] = bytes(b ^ 0xFF for b in data[middle : middle + 400])
    weights.write_bytes(bytes(data))  # still a valid safetensors file, with other numbers
    with pytest.raises(ValueError, match="model.safetensors.*SHA256SUMS"):
        load_run(copy)
    assert cli(["evaluate", str(copy), "--no-ngram", "--max-sentences", "5"]) == 2
    error = one_line(capsys.readouterr().err)
    assert str(weights) in error and "git checkout -- data/models/tiny" in error
