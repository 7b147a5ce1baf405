"""A file or folder this user may not read or write is one line from every command that
reads or writes a run folder (the command line's one error path), never a traceback; the
writers' own cases (the run lock of train and finetune) are in tests/files/test_run_lock.py."""

import errno
import os

import pytest

from elmo_tutorial.commands.cli import main as cli


def _unreadable(name: str):
    """``os.open`` as for a user who may not read the files called ``name``."""
    real_open = os.open

    def refuse(path, flags, *args, **kwargs):
        if os.path.basename(str(path)) == name:
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_open(path, flags, *args, **kwargs)
    return refuse


@pytest.mark.parametrize(("command", "name"), [
    (["evaluate", "{run}", "--no-ngram"], "model.safetensors"),
    (["evaluate", "{run}", "--no-ngram", "--checkpoint"], "latest"),
    (["embed", "{run}", "He sat on the bank ."], "config.json"),
    (["export", "{run}", "--allennlp", "{out}"], "config.json"),
], ids=["evaluate", "evaluate --checkpoint", "embed", "export"])
def test_an_unreadable_run_file_is_one_line_naming_it(run_copy, tmp_path, capsys, monkeypatch,
                                                      command, name):
    monkeypatch.setattr(os, "open", _unreadable(name))
    argv = [a.format(run=run_copy, out=tmp_path / "exported") for a in command]
    assert cli(argv) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"elmo-tutorial {command[0]}: ")
    assert lines[0].endswith(": Permission denied") and name in lines[0], lines[0]
    assert "[Errno" not in lines[0]
    assert not (tmp_path / "exported").exists()
