"""Caches the package derives from other files prove themselves before they are read: the
baseline's static vectors. A damaged entry is computed again with a
warning, not an exception; an entry of other input is never returned."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from elmo_tutorial.data import sense_corpus as corpus
from elmo_tutorial.tasks import corpus_vectors as cv

TEXT = [["the", "cat", "sat"], ["the", "dog", "sat"], ["a", "cat", "ran"]] * 3
COMMITTED = Path(__file__).resolve().parents[2] / "data" / "embedded"
OTHER = [["a", "bird", "flew"], ["the", "bird", "sang"], ["a", "dog", "ran"]] * 3


def _serve(monkeypatch, sentences):
    """``load_sentences`` gives ``sentences`` for any corpus (no fingerprint for "toy")."""
    monkeypatch.setattr("elmo_tutorial.tasks.corpus_vectors.load_sentences",
                        lambda name, split: sentences)


def _vectors(folder, name="toy"):
    return cv.corpus_vectors(name, dim=2, min_count=1, directory=folder)


def _entry(folder):
    (path,) = folder.glob("*.npz")
    return path


@pytest.mark.parametrize("damage", ["truncate", "flip", "empty"])
def test_damaged_static_vectors_are_computed_again_with_a_warning(tmp_path, monkeypatch,
                                                                  damage):
    _serve(monkeypatch, TEXT)
    first = _vectors(tmp_path)
    path = _entry(tmp_path)
    raw = bytearray(path.read_bytes())
    if damage == "truncate":
        raw = raw[: len(raw) // 2]
    elif damage == "flip":
        raw[len(raw) // 2] ^= 0x01  # inside the vectors: the zip itself may still open
    else:
        raw = bytearray()
    path.write_bytes(bytes(raw))
    with pytest.warns(UserWarning, match=r"static vectors toy-\w+\.npz are damaged"):
        again = _vectors(tmp_path)
    assert again.words == first.words
    np.testing.assert_array_equal(again.vectors, first.vectors)
    monkeypatch.setattr(cv, "sparse_static_vectors", lambda *a, **k: pytest.fail("recomputed"))
    np.testing.assert_array_equal(_vectors(tmp_path).vectors, first.vectors)  # whole again


def test_changed_corpus_text_gives_its_own_vectors_not_the_cached_ones(tmp_path, monkeypatch):
    _serve(monkeypatch, TEXT)
    _vectors(tmp_path)
    _serve(monkeypatch, OTHER)  # e.g. english_mix read from other NLTK data
    with pytest.warns(UserWarning, match="text of corpus 'toy' is not the one"):
        changed = _vectors(tmp_path)
    assert "bird" in changed.words and "cat" not in changed.words
    fresh = cv.sparse_static_vectors(OTHER, dim=2, min_count=1)
    np.testing.assert_array_equal(changed.vectors, fresh.vectors)


@pytest.fixture
def own_embedded_corpus(tmp_path, monkeypatch):
    """The "embedded" corpus read from a folder of the test's own (its train.txt is editable)."""
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "train.txt").write_text("the cat sat\nthe dog sat\na cat ran\n" * 3)
    monkeypatch.setattr(corpus, "sense_corpus_dir", lambda: folder)
    return folder / "train.txt"


def test_a_cache_hit_reads_no_text_until_the_corpus_files_change(tmp_path, monkeypatch,
                                                                 own_embedded_corpus):
    import os

    cache = tmp_path / "cache"
    first = _vectors(cache, "embedded")
    monkeypatch.setattr(corpus, "sense_corpus", lambda split: pytest.fail("text read again"))
    assert _vectors(cache, "embedded").words == first.words  # the fingerprint held
    monkeypatch.undo()
    for module in (corpus, cv):  # where the text is read, and where its files are found
        monkeypatch.setattr(module, "sense_corpus_dir", lambda: own_embedded_corpus.parent)
    own_embedded_corpus.write_text("a bird flew\nthe bird sang\na dog ran\n" * 3)
    stamp = own_embedded_corpus.stat().st_mtime_ns + 10**9
    os.utime(own_embedded_corpus, ns=(stamp, stamp))  # the edit, on any file system's clock
    with pytest.warns(UserWarning, match="text of corpus 'embedded' is not the one"):
        changed = _vectors(cache, "embedded")
    assert "bird" in changed.words and "cat" not in changed.words


def test_an_edit_of_the_same_length_with_its_time_restored_gives_new_vectors(
        tmp_path, monkeypatch, own_embedded_corpus):
    """The issue's case: size and modification time are all a copy keeps of a file's history
    (``cp -p``, ``rsync -a``, ``tar x`` restore the time), so they cannot prove the text."""
    import os
    import shutil

    for module in (corpus, cv):  # where the text is read, and where its files are found
        monkeypatch.setattr(module, "sense_corpus_dir", lambda: own_embedded_corpus.parent)
    cache = tmp_path / "cache"
    first = _vectors(cache, "embedded")
    assert "cat" in first.words
    before = own_embedded_corpus.stat()
    edited = tmp_path / "edited.txt"
    edited.write_text(own_embedded_corpus.read_text().replace("cat", "owl"))  # same length
    os.utime(edited, ns=(before.st_atime_ns, before.st_mtime_ns))  # the time it came with
    shutil.copy2(edited, own_embedded_corpus)  # as `cp -p` (rsync and tar set it the same way)
    after = own_embedded_corpus.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    with pytest.warns(UserWarning, match="text of corpus 'embedded' is not the one"):
        changed = _vectors(cache, "embedded")
    assert "owl" in changed.words and "cat" not in changed.words


def test_another_nltk_reads_the_text_again_instead_of_trusting_the_memo(
        tmp_path, monkeypatch, own_embedded_corpus):
    """NLTK's readers turn the files into sentences too: a new version may read them
    otherwise, so the memo of the text's sha256 holds for the version that read it."""
    import importlib.metadata

    cache = tmp_path / "cache"
    _vectors(cache, "embedded")
    reads = []
    real_read = corpus.sense_corpus
    monkeypatch.setattr(corpus, "sense_corpus", lambda split: reads.append(split) or
                        real_read(split))
    _vectors(cache, "embedded")
    assert reads == []  # the memo held
    real_version = importlib.metadata.version
    monkeypatch.setattr(importlib.metadata, "version", lambda name: "99.0" if name == "nltk"
                        else real_version(name))
    _vectors(cache, "embedded")
    assert reads == ["train"]
