"""The disk cache of embedded corpora: keys, hits, damaged entries."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
import torch

from elmo_tutorial.analyses.embedder import Embedder
from elmo_tutorial.analyses.embedding_cache import (
    CacheNotWritable,
    embed_corpus,
    model_checksum,
    sentences_checksum,
)
from elmo_tutorial.model.config import ModelConfig
from elmo_tutorial.model.elmo import ELMo

CONFIG = ModelConfig(
    char_embed_dim=4, filters=((1, 4), (2, 8)), n_highway=1, lstm_dim=16, projection_dim=6,
    n_layers=2,
)
SENTENCES = [["The", "bank", "of", "the", "river", "."], [], ["Hi"], ["Play", "it", "again"]]


@pytest.fixture
def embedder() -> Embedder:
    torch.manual_seed(0)
    return Embedder(ELMo(CONFIG))


def entries(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_a_miss_embeds_and_stores_and_a_hit_returns_identical_arrays(embedder, tmp_path):
    first = embed_corpus(embedder, SENTENCES, name="toy", progress=False, directory=tmp_path)
    names = entries(tmp_path)
    assert len(names) == 2 and names[0].startswith("toy-") and names[1].endswith(".npy")
    direct = embedder.embed_sentences(SENTENCES)
    assert len(first) == len(SENTENCES)
    for stored, computed in zip(first, direct, strict=True):
        assert stored.dtype == np.float32 and stored.shape == computed.shape
        np.testing.assert_allclose(stored, computed, rtol=2e-3, atol=2e-3)  # float16 storage

    def no_embedding(*args, **kwargs):
        raise AssertionError("a cache hit must not run the model")

    embedder.iter_batches = no_embedding
    again = embed_corpus(embedder, SENTENCES, name="toy", progress=False, directory=tmp_path)
    for a, b in zip(first, again, strict=True):
        assert np.array_equal(a, b)
    assert entries(tmp_path) == names


def test_the_key_changes_with_the_weights_and_with_the_sentences(embedder, tmp_path):
    base_model, base_text = model_checksum(embedder.model.bilm), sentences_checksum(SENTENCES)
    assert sentences_checksum([["a b"]]) != sentences_checksum([["a", "b"]])
    assert sentences_checksum([["a"], ["b"]]) != sentences_checksum([["a", "b"]])
    assert sentences_checksum(SENTENCES[:-1] + [["Play", "it", "again!"]]) != base_text
    embed_corpus(embedder, SENTENCES, name="toy", progress=False, directory=tmp_path)
    with torch.no_grad():
        embedder.model.bilm.forward_lstm.layers[1].bias_hh_l0[3] += 1e-3  # one number
    embedder.clear_cache()
    assert model_checksum(embedder.model.bilm) != base_model
    changed = embed_corpus(embedder, SENTENCES, name="toy", progress=False, directory=tmp_path)
    embed_corpus(embedder, SENTENCES[:2], name="toy", progress=False, directory=tmp_path)
    assert len(entries(tmp_path)) == 6  # three keys, two files each
    np.testing.assert_allclose(changed[0], embedder.embed_sentence(SENTENCES[0]), atol=2e-3)


@pytest.mark.parametrize("damage", ["truncate", "flip", "garbage_meta", "no_meta"])
def test_a_damaged_entry_is_recomputed_with_a_warning(embedder, tmp_path, damage):
    first = embed_corpus(embedder, SENTENCES, name="toy", progress=False, directory=tmp_path)
    data = first.path
    meta = data.with_suffix(".json")
    del first
    if damage == "truncate":
        data.write_bytes(data.read_bytes()[:100])
    elif damage == "flip":
        raw = bytearray(data.read_bytes())
        raw[-7] ^= 0xFF
        data.write_bytes(bytes(raw))
    elif damage == "garbage_meta":
        meta.write_text("{not json")
    else:
        meta.unlink()
    with pytest.warns(UserWarning, match="embedding cache toy-.* is damaged"):
        again = embed_corpus(embedder, SENTENCES, name="toy", progress=False, directory=tmp_path)
    np.testing.assert_allclose(again[3], embedder.embed_sentence(SENTENCES[3]), atol=2e-3)
    embed_corpus(embedder, SENTENCES, name="toy", progress=False, directory=tmp_path)  # intact


def test_the_default_place_is_the_package_cache_and_bad_input_is_refused(
    embedder, tmp_path, monkeypatch
):
    monkeypatch.setenv("ELMO_TUTORIAL_CACHE", str(tmp_path))
    layers = embed_corpus(embedder, SENTENCES, name="toy", progress=False)
    assert layers.path.parent == tmp_path / "embeddings"
    positions = layers.offsets[[0, 3]] + np.array([1, 2])  # "bank"; "again"
    np.testing.assert_array_equal(layers.tokens(positions)[:, 0], layers[0][:, 1])
    np.testing.assert_array_equal(layers.tokens(positions)[:, 1], layers[3][:, 2])
    with pytest.raises(ValueError, match="name must be"):
        embed_corpus(embedder, SENTENCES, name="../up", progress=False)
    with pytest.raises(TypeError, match="sentence 1, token 0 is invalid: a token must be a str"):
        embed_corpus(embedder, [["a"], [1]], progress=False)


def test_a_full_disk_is_a_one_line_error_and_leaves_no_temporary_file(embedder, tmp_path,
                                                                       monkeypatch):
    import shutil
    from collections import namedtuple

    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(shutil, "disk_usage", lambda path: usage(10**9, 10**9, 1000))
    with pytest.raises(CacheNotWritable, match=r"^no space left on .* for the embedding cache "
                       r"\(needs \d+ MB, 0 MB free\); free space or set ELMO_TUTORIAL_CACHE"):
        embed_corpus(embedder, SENTENCES, name="toy", progress=False, directory=tmp_path)
    assert entries(tmp_path) == []


def test_a_disk_that_fills_while_writing_is_an_error_not_a_crash(embedder, tmp_path,
                                                                  monkeypatch):
    import builtins
    import errno

    real_open = builtins.open

    class FullDisk:  # a file whose writes fail as on a full disk
        def __init__(self, f):
            self.f = f

        def __getattr__(self, name):
            return getattr(self.f, name)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.f.close()

        def write(self, data):
            if self.f.tell() > 200:
                raise OSError(errno.ENOSPC, "No space left on device")
            return self.f.write(data)

    def fake_open(file, mode="r", *args, **kwargs):
        f = real_open(file, mode, *args, **kwargs)
        return FullDisk(f) if str(file).endswith(".tmp") and "w" in mode else f

    monkeypatch.setattr(builtins, "open", fake_open)
    with pytest.raises(CacheNotWritable, match="no space left on .*No space left on device"):
        embed_corpus(embedder, SENTENCES * 20, name="toy", progress=False, directory=tmp_path)
    assert entries(tmp_path) == []


@pytest.mark.parametrize("where", ["a file", "under a file", "read-only"])
def test_an_unwritable_cache_folder_is_a_one_line_error_that_doctor_reports(
        embedder, tmp_path, monkeypatch, where):
    import os

    from elmo_tutorial.course.doctor import report

    if where == "read-only":  # as a read-only mount answers (root writes past chmod 555)
        cache = tmp_path / "ro"
        cache.mkdir()
        real_access = os.access
        monkeypatch.setattr(os, "access", lambda path, mode: False if Path(path) == cache
                            else real_access(path, mode))
        expected = "is not writable (a read-only mount?)"
    else:
        (tmp_path / "f").write_text("not a folder")
        cache = tmp_path / "f" if where == "a file" else tmp_path / "f" / "sub"
        expected = "is a file, not a folder"
    monkeypatch.setenv("ELMO_TUTORIAL_CACHE", str(cache))
    pattern = f"cannot be written in .*: .*{re.escape(expected)}; set ELMO_TUTORIAL_CACHE to a"
    with pytest.raises(CacheNotWritable, match=pattern) as error:
        embed_corpus(embedder, SENTENCES, name="toy", progress=False)
    assert "\n" not in str(error.value) and expected in report()


@pytest.mark.parametrize("other", ["width", "layers", "dtype"])
def test_an_entry_of_another_model_shape_or_dtype_is_recomputed(embedder, tmp_path, other):
    import hashlib
    import json

    first = embed_corpus(embedder, SENTENCES, name="toy", progress=False, directory=tmp_path)
    data, meta_path = first.path, first.path.with_suffix(".json")
    stored = np.load(data)
    del first
    planted = {"width": np.concatenate([stored, stored], axis=2),
               "layers": stored[:2],
               "dtype": stored.astype(np.float32)}[other]
    np.save(data, planted)
    meta = json.loads(meta_path.read_text())  # a consistent entry: the digest matches
    meta["sha256"] = hashlib.sha256(data.read_bytes()).hexdigest()
    meta_path.write_text(json.dumps(meta))
    with pytest.warns(UserWarning, match="where this model gives float16 of shape"):
        again = embed_corpus(embedder, SENTENCES, name="toy", progress=False, directory=tmp_path)
    assert again[0].shape == embedder.embed_sentence(SENTENCES[0]).shape


def test_temporary_files_of_killed_writers_are_removed_once_stale(embedder, tmp_path):
    import os
    import time

    stale, fresh = tmp_path / ".toy-abc.npy.x1.tmp", tmp_path / ".toy-abc.npy.x2.tmp"
    stale.write_bytes(b"x" * 100)
    fresh.write_bytes(b"x" * 100)  # perhaps another process writing right now
    old = time.time() - 2 * 24 * 3600
    os.utime(stale, (old, old))
    embed_corpus(embedder, SENTENCES, name="toy", progress=False, directory=tmp_path)
    assert not stale.exists() and fresh.exists()


@pytest.mark.parametrize("option", [{"activation": "tanh"}, {"cell_clip": 1e-3},
                                    {"proj_clip": 1e-3}, {"use_skip_connections": False}])
def test_the_same_weights_with_other_options_get_their_own_layers(embedder, tmp_path, option):
    from dataclasses import replace

    first = embed_corpus(embedder, SENTENCES, name="toy", progress=False, directory=tmp_path)
    other = ELMo(replace(CONFIG, **option))  # another options.json beside the same weights
    other.bilm.load_state_dict(embedder.model.bilm.state_dict())
    other_embedder = Embedder(other)
    assert model_checksum(other.bilm) != model_checksum(embedder.model.bilm)
    layers = embed_corpus(other_embedder, SENTENCES, name="toy", progress=False,
                          directory=tmp_path)
    direct = other_embedder.embed_sentence(SENTENCES[0])
    assert np.abs(first[0] - direct).max() > 1e-3  # the options change the layers (by 5e-3)
    assert np.abs(layers[0] - direct).max() < 2e-4  # these options' layers, in float16
    assert len(entries(tmp_path)) == 4  # an entry of its own beside the first


def test_swapped_entries_are_not_served_as_each_others(embedder, tmp_path):
    other_text = [["A", "shore", "by", "a", "lake", "!"], [], ["Yo"], ["Sing", "it", "twice"]]
    assert [len(s) for s in other_text] == [len(s) for s in SENTENCES]  # same lengths
    first = embed_corpus(embedder, SENTENCES, name="toy", progress=False, directory=tmp_path)
    second = embed_corpus(embedder, other_text, name="toy", progress=False, directory=tmp_path)
    a, b = first.path, second.path
    del first, second
    for suffix in (".npy", ".json"):  # the data with its record, both ways
        a.with_suffix(suffix).rename(tmp_path / "swap")
        b.with_suffix(suffix).rename(a.with_suffix(suffix))
        (tmp_path / "swap").rename(b.with_suffix(suffix))
    with pytest.warns(UserWarning, match=r"toy-\w+\.npy is damaged or not of this model and "
                                         r"these sentences \(it was computed from other input"):
        again = embed_corpus(embedder, SENTENCES, name="toy", progress=False, directory=tmp_path)
    np.testing.assert_allclose(again[0], embedder.embed_sentence(SENTENCES[0]), atol=2e-3)
    record = json.loads(again.path.with_suffix(".json").read_text())
    assert record["model"] == model_checksum(embedder.model.bilm)
    assert record["sentences"] == sentences_checksum(SENTENCES)
