"""The folder of student copies or slides: a run cut short loses no work."""

import hashlib
import json

import pytest

from elmo_tutorial.course import generated
from elmo_tutorial.course.generated import MANIFEST, write_generated


def test_files_identical_to_fresh_copies_are_not_taken_for_somebodys_work(tmp_path):
    out = tmp_path / "slides"
    write_generated(out, {"a.html": b"old"}, "slides")
    (out / "a.html").write_bytes(b"new")  # a run that stopped before rewriting its manifest
    write_generated(out, {"a.html": b"new"}, "slides")
    assert not list(out.glob("backup-*"))


def test_a_run_cut_short_between_two_files_leaves_a_folder_the_next_run_accepts(
        tmp_path, monkeypatch):
    out = tmp_path / "student"
    write_generated(out, {"a.ipynb": b"a1", "b.ipynb": b"b1"}, "student")
    write_whole, written = generated._write_whole, []

    def stop_after_one_notebook(path, data):
        if path.name != MANIFEST:
            if written:
                raise KeyboardInterrupt
            written.append(path.name)
        write_whole(path, data)

    monkeypatch.setattr(generated, "_write_whole", stop_after_one_notebook)
    with pytest.raises(KeyboardInterrupt):
        write_generated(out, {"a.ipynb": b"a2", "b.ipynb": b"b2"}, "student")
    monkeypatch.undo()
    assert [(out / n).read_bytes() for n in ("a.ipynb", "b.ipynb")] == [b"a2", b"b1"]
    write_generated(out, {"a.ipynb": b"a3", "b.ipynb": b"b3"}, "student")
    assert [(out / n).read_bytes() for n in ("a.ipynb", "b.ipynb")] == [b"a3", b"b3"]
    assert not list(out.glob("backup-*")) and not list(out.glob(".*.tmp"))
    assert hashlib.sha256(b"a3").hexdigest() in json.loads(
        (out / MANIFEST).read_text())["files"]["a.ipynb"]
