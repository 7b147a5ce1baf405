"""A run folder is written by one process at a time, and trusted only as far as it checks out:
checkpoints that fit the model, the vocabulary it was trained with, sane config values,
regular files inside the folder, a full disk named, any folder name, any terminal."""

import errno
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from _train_helpers import MICRO_CLI, micro_config
from safetensors.torch import save_file

from elmo_tutorial.commands.cli import main as cli
from elmo_tutorial.model import checkpoint as ckpt
from elmo_tutorial.model.run_dir import load_run
from elmo_tutorial.runtime import available_cores
from elmo_tutorial.training.train import Trainer

REPOSITORY = Path(__file__).resolve().parents[2]


def _snapshot(folder: Path) -> dict:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and not p.is_symlink()}


def _one_line(text: str) -> str:
    lines = text.strip().splitlines()
    assert len(lines) == 1, f"expected one line, got:\n{text}"
    return lines[0]


def _error_line(text: str) -> str:
    """The error of a resumed train: its one line after the notices of changed settings."""
    lines = text.strip().splitlines()
    assert all(line.startswith("resuming with a changed setting") for line in lines[:-1]), text
    return lines[-1]


def _python(code_or_args, **kwargs) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(REPOSITORY), **kwargs.pop("env", {})}
    args = ["-c", code_or_args] if isinstance(code_or_args, str) else code_or_args
    return subprocess.Popen([sys.executable, *args], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kwargs)


# -- one writer per run folder -------------------------------------------------------------------

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
def test_a_second_writer_is_refused_in_one_line_and_changes_nothing(run_copy, other_writer,
                                                                    capsys, flags):
    other_writer(run_copy)
    before = _snapshot(run_copy)
    assert cli(["train", "--out", str(run_copy), *MICRO_CLI, *flags]) == 2
    message = _error_line(capsys.readouterr().err)
    assert str(run_copy) in message and "another process" in message
    assert _snapshot(run_copy) == before, "a refused train changed the run"


@pytest.mark.slow  # a subprocess, several processes or a whole command
def test_the_lock_dies_with_its_process(run_copy, other_writer, capsys):
    holder = other_writer(run_copy)
    holder.kill()  # kill -9: no chance to clean up
    holder.wait()
    assert cli(["train", "--out", str(run_copy), *MICRO_CLI, "--resume", "--max_steps=6"]) == 0
    assert ckpt.latest_checkpoint(run_copy).name == "step_000006"
    assert not (run_copy / ".lock").exists(), "a finished train leaves no lock file"


def test_a_refused_start_in_a_new_folder_leaves_no_folder(tmp_path, capsys):
    out = tmp_path / "new"
    assert cli(["train", "--out", str(out), *MICRO_CLI, "--corpus=wikitext103",
                "--model.lstm_dim=10000000"]) == 2
    assert not out.exists()
    trainer_out = tmp_path / "other"
    with pytest.raises(FileNotFoundError):
        Trainer(micro_config(trainer_out), resume=True)  # nothing to resume
    assert not trainer_out.exists()


@pytest.mark.slow  # a subprocess, several processes or a whole command
def test_two_trains_into_one_folder_at_once_leave_one_run(tmp_path):
    """Two real processes start together; one trains, the other is refused."""
    out = tmp_path / "run"
    commands = [["-m", "elmo_tutorial", "train", "--out", str(out), *MICRO_CLI, *extra]
                for extra in ([], ["--model.lstm_dim=12"])]
    processes = [_python(c) for c in commands]
    results = [(p.wait(timeout=300), p.stderr.read()) for p in processes]
    codes = sorted(code for code, _ in results)
    assert codes == [0, 2], results
    refused = next(err for code, err in results if code == 2)
    assert "another process" in refused and str(out) in refused
    lstm_dim = json.loads((out / "config.json").read_text())["model"]["lstm_dim"]
    winner = 16 if results[0][0] == 0 else 12
    assert lstm_dim == winner
    state = ckpt.load_weights(out / "model.safetensors")
    assert all(ckpt.load_checkpoint(p)[0]["softmax.weight"].shape
               == state["softmax.weight"].shape for p in ckpt.checkpoints(out))


# -- --resume checks that a checkpoint fits the model --------------------------------------------

def _rewrite_weights(path: Path, change) -> None:
    weights = ckpt.load_weights(path, dtype=None)
    save_file({k: change(k, v).contiguous() for k, v in weights.items()}, str(path))


WRONG = {
    "int32 weights": lambda k, v: v.to(torch.int32) if v.is_floating_point() else v,
    "transposed": lambda k, v: v.t() if v.dim() == 2 and v.shape[0] != v.shape[1] else v,
    "NaN": lambda k, v: torch.full_like(v, float("nan")) if k == "softmax.weight" else v,
}


@pytest.mark.parametrize("wrong", WRONG)
def test_resume_passes_over_a_newest_checkpoint_that_loads_but_does_not_fit(run_copy, capsys,
                                                                           wrong):
    broken = run_copy / "checkpoints" / "step_000004" / "model.safetensors"
    _rewrite_weights(broken, WRONG[wrong])
    assert cli(["train", "--out", str(run_copy), *MICRO_CLI, "--resume", "--max_steps=6"]) == 0
    err = capsys.readouterr().err
    assert f"warning: {broken}" in err and "resuming from" in err and "step_000002" in err
    assert "--force" not in err, "never advise deleting a run with an intact checkpoint"
    final = ckpt.load_weights(run_copy / "model.safetensors", dtype=None)
    assert all(v.dtype == torch.float32 and torch.isfinite(v).all() for v in final.values())


def test_when_no_checkpoint_fits_the_message_points_at_config_json(run_copy, capsys):
    for weights in (run_copy / "checkpoints").glob("step_*/model.safetensors"):
        _rewrite_weights(weights, WRONG["int32 weights"])
    assert cli(["train", "--out", str(run_copy), *MICRO_CLI, "--resume"]) == 2
    message = _one_line(capsys.readouterr().err)
    assert "no intact checkpoint" in message and "config.json" in message
    assert "step_000002" in message and "step_000004" in message


# -- the vocabulary the run was trained with ------------------------------------------------------

def _swap_two_words(run: Path) -> None:
    words = (run / "vocab.txt").read_text(encoding="utf-8").splitlines()
    words[3], words[4] = words[4], words[3]
    (run / "vocab.txt").write_text("\n".join(words) + "\n", encoding="utf-8")


@pytest.mark.parametrize("command", [
    ["evaluate", "{run}", "--no-ngram", "--max-sentences=5"],
    ["embed", "{run}", "the bank"],
    ["export", "{run}", "--encoder", "{out}"],
    ["train", "--out", "{run}", *MICRO_CLI, "--resume"],
])
def test_a_vocabulary_that_is_not_the_runs_is_named_in_one_line(run_copy, tmp_path, capsys,
                                                                command):
    assert "vocab_sha256" in json.loads((run_copy / "config.json").read_text())
    _swap_two_words(run_copy)
    args = [a.format(run=run_copy, out=tmp_path / "out") for a in command]
    assert cli(args) == 2
    message = _one_line(capsys.readouterr().err)
    assert str(run_copy / "vocab.txt") in message and "trained with" in message


def test_the_shipped_tiny_run_loads_with_its_vocabulary():
    run = load_run(REPOSITORY / "data" / "models" / "tiny")
    assert run.vocab is not None and len(run.vocab) == run.config.vocab_size


# -- config.json values: types and sizes ----------------------------------------------------------

CONFIG_EDITS = {
    "a float size": (("model", "lstm_dim"), 256.5, "lstm_dim"),
    "a string size": (("model", "lstm_dim"), "256", "lstm_dim"),
    "a boolean size": (("model", "projection_dim"), True, "projection_dim"),
    "a string flag": (("model", "use_skip_connections"), "yes", "use_skip_connections"),
    "a float filter": (("model", "filters"), [[1, 8.5]], "filters"),
    "a list for the settings": (("train",), [1, 2], "train"),
    "a list for model_overrides": (("train", "model_overrides"), [1], "model"),
    "a string setting": (("train", "batch_size"), "8", "batch_size"),
    "a huge vocabulary": (("model", "vocab_size"), 10**12, "vocab_size"),
    "huge LSTMs": (("model", "lstm_dim"), 10**7, "lstm_dim"),
    "a million highway layers": (("model", "n_highway"), 10**6, "n_highway"),
    "huge filters": (("model", "filters"), [[1, 60000], [2, 60000], [3, 60000]], "parameters"),
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
    if keys[0] == "model":  # the architecture is checked by every load
        with pytest.raises(ValueError) as error:
            load_run(run_copy)
        message = _one_line(str(error.value))
        assert str(run_copy / "config.json") in message and named in message
    for command in (["evaluate", str(run_copy), "--no-ngram"],
                    ["train", "--out", str(run_copy), *MICRO_CLI, "--resume"]):
        assert cli(command) == 2
        message = _one_line(capsys.readouterr().err)
        assert str(run_copy / "config.json") in message and named in message


def test_absurd_sizes_on_the_command_line_are_refused_before_training(tmp_path, capsys):
    assert cli(["train", "--out", str(tmp_path / "r"), *MICRO_CLI,
                "--model.n_highway=1000000"]) == 2
    assert "n_highway" in _one_line(capsys.readouterr().err)


# -- symbolic links and special files --------------------------------------------------------------

def test_a_symlinked_vocabulary_in_a_new_run_is_refused_and_left_alone(tmp_path, capsys):
    outside = tmp_path / "precious.txt"
    outside.write_text("mine\n")
    run = tmp_path / "run"
    run.mkdir()
    (run / "vocab.txt").symlink_to(outside)
    assert cli(["train", "--out", str(run), *MICRO_CLI]) == 2
    message = _one_line(capsys.readouterr().err)
    assert "vocab.txt" in message and "not a run's" in message
    assert (run / "vocab.txt").is_symlink() and outside.read_text() == "mine\n"
    assert sorted(p.name for p in run.iterdir()) == ["vocab.txt"]


# -- a full disk -----------------------------------------------------------------------------------

def test_a_full_disk_while_checkpointing_keeps_the_previous_checkpoint(run_copy, capsys,
                                                                      monkeypatch):
    def full(path, state):
        with open(path, "wb") as f:
            f.write(b"half a checkpoint")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(ckpt, "_write_state", full)
    assert cli(["train", "--out", str(run_copy), *MICRO_CLI, "--resume", "--max_steps=6"]) == 1
    assert "No space left" in _error_line(capsys.readouterr().err)
    assert ckpt.latest_checkpoint(run_copy).name == "step_000004"
    leftovers = [p for p in run_copy.rglob("*") if ".tmp" in p.name]
    assert not leftovers, leftovers
    monkeypatch.undo()
    assert cli(["train", "--out", str(run_copy), *MICRO_CLI, "--resume", "--max_steps=6"]) == 0


# -- folder names in another encoding, terminals that show only ASCII ------------------------------

def test_a_run_folder_named_in_latin_1_is_not_called_damaged(finished_run, tmp_path, capsys):
    """``café`` made under a Latin-1 locale: its name is not UTF-8 (Python keeps the byte)."""
    run = shutil.copytree(finished_run, tmp_path / os.fsdecode(b"caf\xe9"))
    assert cli(["embed", str(run), "the bank"]) == 0
    assert cli(["train", "--out", str(run), *MICRO_CLI, "--resume", "--max_steps=6"]) == 0
    assert cli(["export", str(run), "--copy", str(tmp_path / os.fsdecode(b"copie-\xe9"))]) == 0
    assert "damaged" not in capsys.readouterr().err


@pytest.mark.slow  # a subprocess, several processes or a whole command
def test_embed_on_an_ascii_terminal_escapes_what_it_cannot_show(finished_run):
    process = _python(["-m", "elmo_tutorial", "embed", str(finished_run), "the bank"],
                      env={"PYTHONIOENCODING": "ascii"})
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    assert "tokens \\xd7 " in out


# -- threads ---------------------------------------------------------------------------------------

def test_more_threads_than_cores_are_cut_to_the_cores_with_a_warning(tmp_path, capsys):
    threads = torch.get_num_threads()
    try:
        trainer = Trainer(micro_config(tmp_path / "run", threads=999))
        assert torch.get_num_threads() == available_cores()
        trainer.release()
    finally:
        torch.set_num_threads(threads)
    err = capsys.readouterr().err
    assert "threads=999" in err and f"{available_cores()} CPU cores" in err


@pytest.fixture
def threads_kept():
    """Training sets the process's thread count; put it back for the tests that follow."""
    threads = torch.get_num_threads()
    yield
    torch.set_num_threads(threads)


def _resume(run, *flags) -> int:
    """``train --resume`` on ``run`` (made with MICRO_CLI) for 2 more steps, without --threads
    unless ``flags`` gives it: the preset's count, 2, is not a request."""
    given = [f for f in MICRO_CLI if not f.startswith(("--threads", "--max_steps"))]
    return cli(["train", "--out", str(run), *given, "--max_steps=6", *flags, "--resume"])


def _recorded_threads(run) -> int:
    return json.loads((run / "config.json").read_text())["train"]["threads"]


def test_resume_keeps_the_runs_thread_count_not_the_presets(run_copy, capsys, threads_kept):
    assert _recorded_threads(run_copy) == 1
    assert _resume(run_copy) == 0
    err = capsys.readouterr().err
    assert "threads" not in err, err
    assert _recorded_threads(run_copy) == 1


def test_another_thread_count_asked_for_on_resume_is_taken_with_a_warning(
        run_copy, capsys, monkeypatch, threads_kept):
    import elmo_tutorial.training.train

    # any machine
    monkeypatch.setattr(elmo_tutorial.training.train, "available_cores", lambda: 4)
    assert _resume(run_copy, "--threads=2") == 0
    err = capsys.readouterr().err
    assert "warning: training on 2 CPU threads instead of the 1 this run " \
           "was started with" in " ".join(err.split()), err
    assert "differ from those of the run left alone" in err
    assert _recorded_threads(run_copy) == 2
