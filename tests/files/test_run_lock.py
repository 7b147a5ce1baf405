"""Whatever writes into a run folder first takes its lock (files.run_lock), which also clears
what writers killed mid-write left there, refuses entries a run could not write through
(``checkpoints/latest`` that is a folder, a ``step_NNNNNN`` that is a FIFO), and says in one
line why it cannot be taken: a full disk, a read-only folder."""

import errno
import os
from pathlib import Path

import pytest
from _folder_helpers import one_line, snapshot
from _train_helpers import MICRO_CLI

from elmo_tutorial.commands.cli import main as cli
from elmo_tutorial.files.run_lock import NotWritable, lock_run_dir, remove_leftovers
from elmo_tutorial.files.safe_files import DiskFull, NotARegularFile
from elmo_tutorial.model.run_dir import shipped_model

# What `kill -9` during each writer of a run leaves (atomic_write's temporary names).
KILLED_WRITERS = [".vocab.txt.k2j4.tmp", ".config.json.a81b.tmp", ".log.jsonl.x0x0.tmp",
                  "checkpoints/.latest.q1w2.tmp", ".model.safetensors.m3n4.tmp",
                  ".loss.png.p9o8.tmp", ".finetune.json.f1f2.tmp"]


def _plant_leftovers(run: Path) -> None:
    for name in KILLED_WRITERS:
        (run / name).write_bytes(b"half a file")
    (run / ".my-notes.tmp").write_text("mine")  # not a writer's: stays


def test_the_lock_clears_what_killed_writers_left_and_nothing_else(run_copy):
    _plant_leftovers(run_copy)
    lock = lock_run_dir(run_copy)
    lock.release()
    left = [name for name in KILLED_WRITERS if (run_copy / name).exists()]
    assert left == [], f"leftovers of killed writers stay: {left}"
    assert (run_copy / ".my-notes.tmp").read_text() == "mine"
    assert remove_leftovers(run_copy) == []


@pytest.mark.parametrize("flags", [["--resume", "--max_steps=6"], ["--force"]])
def test_train_clears_them_when_it_goes_on_in_the_folder(run_copy, flags):
    _plant_leftovers(run_copy)
    assert cli(["train", "--out", str(run_copy), *MICRO_CLI, *flags]) == 0
    assert not [p for p in run_copy.rglob(".*.tmp") if p.name != ".my-notes.tmp"]


# -- entries a run cannot write through --------------------------------------------------------

def _latest_a_folder(run):
    (run / "checkpoints" / "latest").unlink()
    (run / "checkpoints" / "latest").mkdir()


def _latest_a_fifo(run):
    (run / "checkpoints" / "latest").unlink()
    os.mkfifo(run / "checkpoints" / "latest")


def _step_a_fifo(run):
    os.mkfifo(run / "checkpoints" / "step_000006")


def _step_a_file(run):
    (run / "checkpoints" / "step_000006").write_text("not a checkpoint")


PLANTED = {"latest a folder": (_latest_a_folder, "latest is not a regular file"),
           "latest a FIFO": (_latest_a_fifo, "latest is not a regular file"),
           "step_000006 a FIFO": (_step_a_fifo, "step_000006 is not a regular folder"),
           "step_000006 a file": (_step_a_file, "step_000006 is not a regular folder")}


@pytest.mark.parametrize("flags", [["--resume", "--max_steps=8"], []])
@pytest.mark.parametrize(("plant", "says"), PLANTED.values(), ids=PLANTED.keys())
def test_train_refuses_a_checkpoint_entry_it_cannot_write_inone_line(run_copy, capsys, plant,
                                                                      says, flags, alarm):
    (run_copy / "model.safetensors").unlink()  # a run that is still training
    plant(run_copy)
    before = snapshot(run_copy)
    assert cli(["train", "--out", str(run_copy), *MICRO_CLI, *flags]) == 2
    line = one_line(capsys.readouterr().err)
    assert says in line and "move it away" in line, line
    assert snapshot(run_copy) == before


# -- why the lock cannot be taken ----------------------------------------------------------------

def _full_disk(*args):
    raise OSError(errno.ENOSPC, "No space left on device")


def _read_only_lock(real_open):
    def refuse(path, flags, *args, **kwargs):
        if str(path).endswith(".lock") and flags & os.O_CREAT:
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_open(path, flags, *args, **kwargs)
    return refuse


def test_a_full_disk_while_taking_the_lock_is_disk_full_and_leaves_no_folder(tmp_path,
                                                                            monkeypatch):
    monkeypatch.setattr(os, "ftruncate", _full_disk)
    with pytest.raises(DiskFull, match="nothing in the run folder was changed"):
        lock_run_dir(tmp_path / "new" / "run")
    assert not (tmp_path / "new").exists()


def test_finetune_on_a_full_disk_while_taking_its_lock_says_so_inone_line(tmp_path, capsys,
                                                                           monkeypatch):
    monkeypatch.setattr(os, "ftruncate", _full_disk)
    out = tmp_path / "tuned"
    assert cli(["finetune", str(shipped_model("tiny")), "--out", str(out),
                "--sentences", "10"]) == 1
    line = one_line(capsys.readouterr().err)
    assert line.startswith("elmo-tutorial finetune: no space left") and ".lock" in line
    assert not out.exists()


def test_a_read_only_folder_refuses_the_lock_in_words(tmp_path, monkeypatch):
    monkeypatch.setattr(os, "open", _read_only_lock(os.open))
    with pytest.raises(NotWritable) as refused:
        lock_run_dir(tmp_path)
    assert str(refused.value).startswith(f"cannot write into {tmp_path / '.lock'}: permission")
    assert "[Errno" not in str(refused.value)


@pytest.mark.parametrize("command", [
    ["train", "--out", "{out}", *MICRO_CLI],
    ["train", "--out", "{run}", *MICRO_CLI, "--resume", "--max_steps=6"],
    ["finetune", "{tiny}", "--out", "{out}", "--sentences", "10"],
], ids=["train", "train --resume", "finetune"])
def test_a_read_only_folder_is_one_line_from_each_command(run_copy, tmp_path, capsys,
                                                          monkeypatch, command):
    monkeypatch.setattr(os, "open", _read_only_lock(os.open))
    before = snapshot(run_copy)
    argv = [a.format(out=tmp_path / "new", run=run_copy, tiny=shipped_model("tiny"))
            for a in command]
    assert cli(argv) == 2
    line = one_line(capsys.readouterr().err)
    assert "cannot write into" in line and "permission denied" in line, line
    assert snapshot(run_copy) == before and not (tmp_path / "new").exists()


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0,
                    reason="a read-only folder needs POSIX permissions and a user other than root")
def test_a_really_read_only_folder_is_refused_by_train(tmp_path, capsys):
    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        assert cli(["train", "--out", str(folder / "run"), *MICRO_CLI]) == 2
        assert "permission denied" in one_line(capsys.readouterr().err)
    finally:
        folder.chmod(0o755)


def test_a_checkpoint_entry_refused_names_it_from_python_too(run_copy):
    _step_a_file(run_copy)
    with pytest.raises(NotARegularFile, match="step_000006"):
        lock_run_dir(run_copy)
