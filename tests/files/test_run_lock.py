"""Whatever writes into a run folder first takes its lock (files.run_lock); a second writer, or
a folder this user may not write, is refused in one line. (A second writer in another process,
through the command line: tests/training/test_run_folder.py.)"""

import os

import filelock
import pytest
from _folder_helpers import one_line
from _train_helpers import MICRO_CLI

from elmo_tutorial.commands.cli import main as cli
from elmo_tutorial.files.run_lock import (
    LOCK_FILE,
    RunInUse,
    lock_run_dir,
)


def test_a_folder_locked_elsewhere_is_refused_and_free_again_once_released(tmp_path):
    other = filelock.FileLock(tmp_path / LOCK_FILE, timeout=0)  # another writer's open file
    other.acquire()
    with pytest.raises(RunInUse, match="one run folder takes one writer at a time"):
        lock_run_dir(tmp_path)
    other.release()
    lock_run_dir(tmp_path).release()


def test_the_lock_is_taken_once_per_process_and_folder(tmp_path):
    first = lock_run_dir(tmp_path / "run")
    assert lock_run_dir(tmp_path / "run") is first  # a second Trainer in the same script
    first.release()
    assert lock_run_dir(tmp_path / "run") is not first


def _permission_denied(lock, *args, **kwargs):
    raise PermissionError(13, "Permission denied", lock.lock_file)


def test_a_folder_it_may_not_write_is_one_line_from_train(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(filelock.FileLock, "acquire", _permission_denied)
    assert cli(["train", "--out", str(tmp_path / "run"), *MICRO_CLI]) == 2
    line = one_line(capsys.readouterr().err)
    assert str(tmp_path / "run") in line and "Permission denied" in line, line
    assert "[Errno" not in line, line


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0,
                    reason="a read-only folder needs POSIX permissions and a user other than root")
def test_a_really_read_only_folder_is_refused_by_train(tmp_path, capsys):
    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        assert cli(["train", "--out", str(folder / "run"), *MICRO_CLI]) == 2
        assert "Permission denied" in one_line(capsys.readouterr().err)
    finally:
        folder.chmod(0o755)
