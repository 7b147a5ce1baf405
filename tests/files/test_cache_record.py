"""What a process remembers of a file's sha256 is forgotten when the file changes, even when
an edit keeps its size and gets its modification time back (``cp -p``, ``rsync -a``,
``tar x``): the memo of a verified download and of a corpus's sources is keyed by the
status-change time, which no tool sets back."""

from __future__ import annotations

import hashlib
import os
import time

import pytest

from elmo_tutorial.data import verified
from elmo_tutorial.files import cache_record
from elmo_tutorial.files.cache_record import content_digest


def _settled(monkeypatch):
    """Treat every file as changed long ago, so that its digest is remembered at once."""
    monkeypatch.setattr(cache_record, "SETTLED_NS", -10**18)


def _edit_keeping_size_and_time(path, old: bytes, new: bytes) -> None:
    before = path.stat()
    time.sleep(0.05)  # past the file system clock's tick (a few ms): a new ctime
    path.write_bytes(path.read_bytes().replace(old, new))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # as cp -p leaves it
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)


def test_a_remembered_digest_is_dropped_when_the_file_changes_behind_size_and_time(
        tmp_path, monkeypatch):
    _settled(monkeypatch)
    path = tmp_path / "train.txt"
    path.write_bytes(b"the cat sat\n")
    assert content_digest(path) == hashlib.sha256(b"the cat sat\n").hexdigest()
    _edit_keeping_size_and_time(path, b"cat", b"owl")
    assert content_digest(path) == hashlib.sha256(b"the owl sat\n").hexdigest()


def test_an_unchanged_settled_file_is_hashed_once(tmp_path, monkeypatch):
    _settled(monkeypatch)
    path = tmp_path / "big.txt"
    path.write_bytes(b"x" * 1000)
    first = content_digest(path)
    monkeypatch.setattr(cache_record, "file_digest", lambda p: pytest.fail("hashed again"))
    assert content_digest(path) == first


def test_a_file_changed_just_before_it_was_hashed_is_not_remembered(tmp_path, monkeypatch):
    """Its ctime could still repeat within the clock's tick: hashed again each time."""
    path = tmp_path / "fresh.txt"
    path.write_bytes(b"new")
    content_digest(path)
    calls = []
    real = cache_record.file_digest
    monkeypatch.setattr(cache_record, "file_digest", lambda p: calls.append(p) or real(p))
    content_digest(path)
    assert calls == [path]


def test_a_verified_download_edited_behind_size_and_time_is_damaged(tmp_path, monkeypatch):
    _settled(monkeypatch)
    (tmp_path / "wiki.train.tokens").write_bytes(b"a b c\n")
    verified.write_record(tmp_path, "toy")
    verified.check_record(tmp_path, "toy")  # remembered now
    _edit_keeping_size_and_time(tmp_path / "wiki.train.tokens", b"b", b"X")
    with pytest.raises(verified.DatasetDamaged, match=r"train\.tokens changed since it was "
                                                      r"verified"):
        verified.check_record(tmp_path, "toy")
