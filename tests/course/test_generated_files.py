"""The folder of student copies or slides: crashes, damaged manifests, saves during a run."""

import hashlib
import json
import os

import pytest

from elmo_tutorial.course import generated as generated
from elmo_tutorial.course.material import MANIFEST, CourseError, main, write_generated
from elmo_tutorial.files.run_lock import folder_lock


def test_a_damaged_manifest_is_a_one_line_error_and_force_still_works(tmp_path):
    out = tmp_path / "student"
    write_generated(out, {"a.ipynb": b"one"}, "student")
    text = (out / MANIFEST).read_text()
    for damaged in (text[:len(text) // 2], "", "[]", '{"kind": "student", "files": [1]}'):
        (out / MANIFEST).write_text(damaged)
        with pytest.raises(CourseError, match=r"is damaged .* run `make student FORCE=1`"):
            write_generated(out, {"a.ipynb": b"two"}, "student")
    assert (out / "a.ipynb").read_bytes() == b"one"
    write_generated(out, {"a.ipynb": b"two"}, "student", force=True)
    assert (out / "a.ipynb").read_bytes() == b"two"
    assert [p.read_bytes() for p in out.glob("backup-*/a.ipynb")] == [b"one"], (
        "with no manifest to tell, what was there is kept")
    assert json.loads((out / MANIFEST).read_text())["kind"] == "student"


def test_the_command_reports_a_damaged_manifest_on_one_line(tmp_path, capsys):
    out = tmp_path / "student"
    out.mkdir()
    (out / MANIFEST).write_text('{"kind": "stu')
    assert main(["student", str(out)]) == 1
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "Traceback" not in error and "FORCE=1" in error


def test_files_identical_to_fresh_copies_are_not_taken_for_somebodys_work(tmp_path):
    out = tmp_path / "slides"
    write_generated(out, {"a.html": b"old"}, "slides")
    (out / "a.html").write_bytes(b"new")  # a run that crashed before rewriting its manifest
    write_generated(out, {"a.html": b"new"}, "slides")
    assert not list(out.glob("backup-*"))


def test_a_run_cut_short_between_two_files_leaves_a_folder_the_next_run_accepts(
        tmp_path, monkeypatch):
    out = tmp_path / "student"
    write_generated(out, {"a.ipynb": b"a1", "b.ipynb": b"b1"}, "student")
    replace, calls = generated._replace, []

    def crash_after_one(*args):
        if calls:
            raise KeyboardInterrupt
        calls.append(args[1])
        return replace(*args)

    monkeypatch.setattr(generated, "_replace", crash_after_one)
    for folder in (out, tmp_path / "new"):
        calls.clear()
        with pytest.raises(KeyboardInterrupt):
            write_generated(folder, {"a.ipynb": b"a2", "b.ipynb": b"b2"}, "student")
    monkeypatch.setattr(generated, "_replace", replace)
    for folder in (out, tmp_path / "new"):
        write_generated(folder, {"a.ipynb": b"a3", "b.ipynb": b"b3"}, "student")
        assert [(folder / n).read_bytes() for n in ("a.ipynb", "b.ipynb")] == [b"a3", b"b3"]
        assert not list(folder.glob("backup-*")) and not list(folder.glob(".*.tmp"))
        assert json.loads((folder / MANIFEST).read_text())["files"]["a.ipynb"] == [
            hashlib.sha256(b"a3").hexdigest()]


def test_a_notebook_saved_during_the_run_goes_to_a_backup(tmp_path, monkeypatch, capsys):
    out = tmp_path / "student"
    write_generated(out, {"a.ipynb": b"a1", "b.ipynb": b"b1"}, "student")
    mkstemp, saved = generated.tempfile.mkstemp, []

    def save_b_first(*args, **kwargs):  # the student saves b.ipynb after the checks passed
        if kwargs.get("prefix") == ".b.ipynb." and not saved:  # once, while staging
            (out / "b.ipynb").write_bytes(b"the student's answers")
            saved.append(True)
        return mkstemp(*args, **kwargs)

    monkeypatch.setattr(generated.tempfile, "mkstemp", save_b_first)
    write_generated(out, {"a.ipynb": b"a2", "b.ipynb": b"b2"}, "student")
    assert (out / "b.ipynb").read_bytes() == b"b2"
    assert [p.read_bytes() for p in out.glob("backup-*/b.ipynb")] == [b"the student's answers"]
    assert "moved 1 changed file(s)" in capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir() if p.name.startswith(".")) == [MANIFEST]


def test_a_notebook_saved_at_the_last_instant_is_left_as_saved(tmp_path, monkeypatch):
    out = tmp_path / "student"
    write_generated(out, {"a.ipynb": b"a1"}, "student")
    link = os.link

    def save_then_link(source, target):
        open(target, "wb").write(b"saved between the move and the link")
        return link(source, target)

    monkeypatch.setattr(generated.os, "link", save_then_link)
    with pytest.raises(CourseError, match="saved while `make student` ran, so left as they are"):
        write_generated(out, {"a.ipynb": b"a2"}, "student")
    monkeypatch.undo()
    assert (out / "a.ipynb").read_bytes() == b"saved between the move and the link"
    with pytest.raises(CourseError, match="changed since `make student`"):
        write_generated(out, {"a.ipynb": b"a2"}, "student")


def test_a_second_run_into_the_same_folder_is_refused_while_the_first_writes(tmp_path):
    out = tmp_path / "slides"
    write_generated(out, {"a.html": b"x"}, "slides")
    with folder_lock(out):  # the lock another `make slides` would hold
        with pytest.raises(CourseError, match="another `make slides` is writing into"):
            write_generated(out, {"a.html": b"y"}, "slides")
    write_generated(out, {"a.html": b"y"}, "slides")


def test_a_manifest_written_by_an_earlier_version_is_still_read(tmp_path):
    out = tmp_path / "student"
    out.mkdir()
    (out / "a.ipynb").write_bytes(b"one")
    (out / MANIFEST).write_text(json.dumps(
        {"kind": "student", "files": {"a.ipynb": hashlib.sha256(b"one").hexdigest()}}))
    write_generated(out, {"a.ipynb": b"two"}, "student")
    assert (out / "a.ipynb").read_bytes() == b"two" and not list(out.glob("backup-*"))


def test_without_hard_links_a_save_after_the_last_look_is_not_overwritten(tmp_path, monkeypatch):
    out = tmp_path / "student"
    write_generated(out, {"a.ipynb": b"a1"}, "student")
    target, exists, saved = out / "a.ipynb", generated.Path.exists, []

    def no_hard_links(source, destination):  # FAT, some network shares
        raise PermissionError(1, "Operation not permitted")

    def save_right_after_a_look(path, *args, **kwargs):
        found = exists(path, *args, **kwargs)
        if path == target and not found and not saved:  # the name looks free: a save lands
            target.write_bytes(b"saved just after the look")
            saved.append(True)
        return found

    monkeypatch.setattr(generated.os, "link", no_hard_links)
    monkeypatch.setattr(generated.Path, "exists", save_right_after_a_look)
    try:
        write_generated(out, {"a.ipynb": b"a2"}, "student")
    except CourseError as error:
        assert "saved while `make student` ran" in str(error)
    monkeypatch.undo()
    assert target.read_bytes() == (b"saved just after the look" if saved else b"a2")
