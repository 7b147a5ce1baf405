"""A run folder is written only where nothing of the user's is lost: a run of this package is
replaced only with --force, a folder holding files under a run's names that no run of this
package wrote (another tool's model, the user's own config.json, vocab.txt, log.jsonl...) is
refused even with --force, and an output below a file is one line naming it."""

import shutil

import pytest
from _folder_helpers import one_line, snapshot
from _train_helpers import MICRO_CLI

from elmo_tutorial.commands.cli import main as cli
from elmo_tutorial.files.overwrite import check_fresh_run_dir

USERS_OWN = {  # files of a user's own that happen to have a run's names
    "config.json": {"config.json": '{"my": "settings"}\n'},
    "config.json with a run's tables": {  # the user's own, not written by a run
        "config.json": '{"model": {"lstm_dim": 64}, "train": {"lr": 0.01}}\n'},
    "no config.json": {"vocab.txt": "my\nwords\n", "log.jsonl": "my notes\n"},
}


@pytest.mark.parametrize("files", USERS_OWN.values(), ids=USERS_OWN.keys())
def test_train_refuses_the_users_own_files_under_a_runs_names_even_with_force(tmp_path, capsys,
                                                                              files):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    before = snapshot(tmp_path)
    for force in ([], ["--force"]):
        assert cli(["train", "--out", str(tmp_path), *MICRO_CLI, "--max_steps=2", *force]) == 2
        line = one_line(capsys.readouterr().err)
        assert all(name in line for name in files) and "would overwrite" in line, line
        assert "not a run's" in line and "--force replaces only a run of this package" in line
        assert snapshot(tmp_path) == before, "the user's files were changed"


def test_a_run_stopped_before_its_first_checkpoint_is_started_again_without_force(run_copy):
    shutil.rmtree(run_copy / "checkpoints")
    (run_copy / "model.safetensors").unlink()  # its config.json, vocab.txt, log.jsonl stay
    assert check_fresh_run_dir(run_copy, force=False) is None
    assert cli(["train", "--out", str(run_copy), *MICRO_CLI, "--max_steps=2"]) == 0
    assert (run_copy / "checkpoints" / "step_000002").is_dir()


def test_force_keeps_another_tools_model_in_the_folder(tmp_path, capsys):
    """A model saved by another library: its own weights, config and vocabulary."""
    (tmp_path / "model.safetensors").write_bytes(b"\x08\x00\x00\x00\x00\x00\x00\x00{}      ")
    (tmp_path / "config.json").write_text('{"architectures": ["BertModel"], '
                                          '"hidden_size": 768, "model_type": "bert"}\n')
    (tmp_path / "vocab.txt").write_text("[PAD]\n[UNK]\n[CLS]\n")
    before = snapshot(tmp_path)
    for force in ([], ["--force"]):
        assert cli(["train", "--out", str(tmp_path), *MICRO_CLI, "--max_steps=2", *force]) == 2
        line = one_line(capsys.readouterr().err)
        assert "model.safetensors" in line and "not a run's" in line, line
        assert snapshot(tmp_path) == before, "another tool's model was changed"


def test_empty_files_under_a_runs_names_hold_nothing_to_lose(tmp_path):
    (tmp_path / "log.jsonl").write_text("")
    (tmp_path / "config.json").write_text("")
    assert check_fresh_run_dir(tmp_path, force=False) is None


@pytest.mark.parametrize("command", [
    ["train", "--out", "{out}", *MICRO_CLI],
    ["export", "{run}", "--allennlp", "{out}"],
], ids=["train", "export"])
def test_an_out_below_a_file_is_one_line_naming_the_file(run_copy, tmp_path, capsys,
                                                         monkeypatch, command):
    (tmp_path / "notes.txt").write_text("mine")
    argv = [a.format(out=tmp_path / "notes.txt" / "run", run=run_copy) for a in command]
    assert cli(argv) == 2
    line = one_line(capsys.readouterr().err)
    assert f"{tmp_path / 'notes.txt'} is a file, not a folder" in line, line
    assert (tmp_path / "notes.txt").read_text() == "mine"
