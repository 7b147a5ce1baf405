"""A file this user may not read, or a folder it may not write, is one line from every command
that reads or writes a run folder (the command line's one error path), never a traceback.
The operating system refuses nothing to root, so these run as another user only (as root:
``unshare -U python -m pytest tests/commands/test_permission_denied.py``, a user namespace in
which root's files are another user's)."""

import os
import stat

import pytest
from _folder_helpers import one_line
from _train_helpers import MICRO_CLI

from elmo_tutorial.commands.cli import main as cli

pytestmark = pytest.mark.skipif(os.geteuid() == 0, reason="root may read and write anything")


@pytest.mark.parametrize(("command", "name"), [
    (["evaluate", "{run}", "--no-ngram"], "vocab.txt"),
    (["embed", "{run}", "He sat on the bank ."], "config.json"),
    (["export", "{run}", "--allennlp", "{out}"], "config.json"),
], ids=["evaluate", "embed", "export"])
def test_an_unreadable_run_file_is_one_line_naming_it(run_copy, tmp_path, capsys, command,
                                                      name):
    (run_copy / name).chmod(0)
    argv = [a.format(run=run_copy, out=tmp_path / "exported") for a in command]
    assert cli(argv) == 2
    line = one_line(capsys.readouterr().err)
    assert line.startswith(f"elmo-tutorial {command[0]}: ") and name in line, line
    assert "Permission denied" in line and "[Errno" not in line
    assert not (tmp_path / "exported").exists()


@pytest.mark.parametrize("command", [
    ["train", "--out", "{folder}/run", *MICRO_CLI],
    ["export", "{run}", "--copy", "{folder}/copy"],
], ids=["train", "export"])
def test_an_out_folder_it_may_not_write_is_one_line_naming_it(run_copy, tmp_path, capsys,
                                                              command):
    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        assert cli([a.format(folder=folder, run=run_copy) for a in command]) == 2
    finally:
        folder.chmod(stat.S_IRWXU)
    line = one_line(capsys.readouterr().err)
    assert line.startswith(f"elmo-tutorial {command[0]}: ") and str(folder) in line, line
    assert list(folder.iterdir()) == []
