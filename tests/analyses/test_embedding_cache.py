"""The disk cache of embedded corpora: keys, hits, a folder it cannot write."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import torch

from elmo_tutorial.analyses.embedder import Embedder
from elmo_tutorial.analyses.embedding_cache import embed_corpus, model_checksum, sentences_checksum
from elmo_tutorial.data.downloads import CacheNotWritable
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
    assert len(names) == 1 and names[0].startswith("toy-") and names[0].endswith(".npy")
    direct = embedder.embed_sentences(SENTENCES)
    assert len(first) == len(SENTENCES)
    for stored, computed in zip(first, direct, strict=True):
        assert stored.dtype == np.float32 and stored.shape == computed.shape
        np.testing.assert_array_equal(stored, computed.astype(np.float16))  # float16 storage

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
    assert model_checksum(embedder.model.bilm) != base_model
    changed = embed_corpus(embedder, SENTENCES, name="toy", progress=False, directory=tmp_path)
    embed_corpus(embedder, SENTENCES[:2], name="toy", progress=False, directory=tmp_path)
    assert len(entries(tmp_path)) == 3  # three keys
    np.testing.assert_allclose(changed[0], embedder.embed_sentence(SENTENCES[0]), atol=2e-3)


@pytest.mark.parametrize("option", [{"activation": "tanh"}, {"cell_clip": 1e-3}])
def test_the_same_weights_with_other_options_get_their_own_layers(embedder, tmp_path, option):
    first = embed_corpus(embedder, SENTENCES, name="toy", progress=False, directory=tmp_path)
    other = ELMo(replace(CONFIG, **option))  # another options.json beside the same weights
    other.bilm.load_state_dict(embedder.model.bilm.state_dict())
    other_embedder = Embedder(other)
    layers = embed_corpus(other_embedder, SENTENCES, name="toy", progress=False,
                          directory=tmp_path)
    direct = other_embedder.embed_sentence(SENTENCES[0])
    assert np.abs(first[0] - direct).max() > 1e-3  # the options change the layers
    assert np.abs(layers[0] - direct).max() < 2e-4  # these options' layers, in float16
    assert len(entries(tmp_path)) == 2  # an entry of its own beside the first


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


def test_a_cache_folder_under_a_file_is_a_one_line_error_that_doctor_reports(
        embedder, tmp_path, monkeypatch):
    from elmo_tutorial.commands.doctor import report

    (tmp_path / "f").write_text("not a folder")
    monkeypatch.setenv("ELMO_TUTORIAL_CACHE", str(tmp_path / "f" / "sub"))
    with pytest.raises(CacheNotWritable, match="cannot be written in .*; set "
                       "ELMO_TUTORIAL_CACHE to a writable folder") as error:
        embed_corpus(embedder, SENTENCES, name="toy", progress=False)
    assert "\n" not in str(error.value) and "is a file, not a folder" in report()


def test_a_disk_that_fills_while_writing_leaves_no_entry(embedder, tmp_path, monkeypatch):
    from elmo_tutorial.analyses import embedding_cache

    def full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(embedding_cache, "_write_layers", full)
    with pytest.raises(CacheNotWritable, match="No space left on device"):
        embed_corpus(embedder, SENTENCES, name="toy", progress=False, directory=tmp_path)
    assert entries(tmp_path) == []
