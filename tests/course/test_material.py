"""``python -m elmo_tutorial.course student DIR`` into a folder it may not write: one line,
and the folder as it was."""

import errno
from pathlib import Path

from elmo_tutorial.course.material import main


def test_a_read_only_folder_is_one_line_and_changes_nothing(tmp_path, capsys, monkeypatch):
    out = tmp_path / "student"
    out.mkdir()
    (out / "mine.txt").write_text("kept")

    def read_only(path, data):
        raise PermissionError(errno.EACCES, "Permission denied", str(path))

    monkeypatch.setattr(Path, "write_bytes", read_only)
    assert main(["student", str(out), "--force"]) == 1
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("error: Permission denied on ") and "may write to" in lines[0]
    assert sorted(p.name for p in out.iterdir() if not p.name.startswith(".")) == ["mine.txt"]
