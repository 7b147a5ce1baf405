"""The disk cache of embedded corpora: keys, hits, damaged entries."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from elmo_tutorial.config import ModelConfig
from elmo_tutorial.elmo import ELMo
from elmo_tutorial.embedder import Embedder
from elmo_tutorial.embedding_cache import embed_corpus, model_checksum, sentences_checksum

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
