"""Embedder: per-sentence layer arrays, order kept across length-sorted batches."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from elmo_tutorial import batch_to_ids
from elmo_tutorial.analyses.embedder import Embedder
from elmo_tutorial.model.chars import ids_to_mask
from elmo_tutorial.model.config import ModelConfig
from elmo_tutorial.model.elmo import ELMo, add_sentence_boundaries

CONFIG = ModelConfig(
    char_embed_dim=4, filters=((1, 4), (2, 8)), n_highway=1, lstm_dim=16, projection_dim=6,
    n_layers=2, cell_clip=3.0, proj_clip=3.0,
)
SENTENCES = [
    ["The", "bank", "of", "the", "river", "."],
    ["Hi"],
    [],
    ["He", "paid", "the", "money", "into", "the", "bank", "yesterday", "."],
    ["Play", "it", "again"],
]


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    torch.manual_seed(0)
    return Embedder(ELMo(CONFIG))


def test_embed_sentence_gives_every_layer_of_the_model(embedder):
    tokens = SENTENCES[0]
    vectors = embedder.embed_sentence(tokens)
    assert vectors.shape == (3, len(tokens), 2 * CONFIG.projection_dim)
    assert vectors.dtype == np.float32
    with torch.inference_mode():
        out = embedder.model(batch_to_ids([tokens]))
    np.testing.assert_allclose(vectors[0], np.concatenate([out["word_emb"][0]] * 2, -1))
    np.testing.assert_allclose(vectors[1], out["lstm_outputs1"][0].numpy())
    np.testing.assert_allclose(vectors[2], out["lstm_outputs2"][0].numpy())


def test_embed_sentences_keeps_the_callers_order_and_matches_one_at_a_time(embedder):
    batched = embedder.embed_sentences(SENTENCES, batch_size=2)  # sorting reorders them
    assert [v.shape[1] for v in batched] == [len(s) for s in SENTENCES]
    for sentence, vectors in zip(SENTENCES, batched, strict=True):
        np.testing.assert_allclose(vectors, embedder.embed_sentence(sentence), atol=1e-5, rtol=0)


def test_empty_inputs(embedder):
    assert embedder.embed_sentences([]) == []
    assert embedder.embed_sentence([]).shape == (3, 0, 2 * CONFIG.projection_dim)


def test_a_string_instead_of_tokens_gets_a_clear_error(embedder):
    with pytest.raises(TypeError, match="list of tokens"):
        embedder.embed_sentence("The bank of the river .")
    with pytest.raises(TypeError, match="token lists"):
        embedder.embed_sentences("The bank of the river .")
    with pytest.raises(TypeError, match="batch_size must be an int ≥ 1"):
        embedder.embed_sentences(SENTENCES, batch_size=0)


def test_the_model_is_left_in_eval_mode_and_no_gradients_are_kept(embedder):
    embedder.model.train()
    Embedder(embedder.model)  # a new Embedder puts the model back in eval mode
    assert not embedder.model.training
    vectors = embedder.embed_sentence(["Hi"])
    assert isinstance(vectors, np.ndarray)


def test_embed_sentences_puts_all_distinct_tokens_through_the_cnn_in_one_call(monkeypatch):
    torch.manual_seed(0)
    embedder = Embedder(ELMo(CONFIG))
    calls = []
    cnn = embedder.model.bilm.char_cnn
    original = cnn.embed_tokens
    monkeypatch.setattr(cnn, "embed_tokens", lambda ids: calls.append(len(ids)) or original(ids))
    embedder.embed_sentences(SENTENCES, batch_size=2)
    distinct = {t for s in SENTENCES for t in s}
    assert calls == [len(distinct) + 2]  # every word and <S>, </S>, at once


def test_bad_tokens_and_arguments_are_reported_with_their_position():
    embedder = Embedder(ELMo(CONFIG))
    with pytest.raises(ValueError, match="sentence 1, token 1 is invalid: a token must not be"):
        embedder.embed_sentences([["fine"], ["a", "", "b"]])
    with pytest.raises(TypeError, match="sentence 1, token 1 is invalid: a token must be a str"):
        embedder.embed_sentences([["fine"], ["a", 3]])
    with pytest.raises(TypeError, match="sentence 0, token 0 is invalid: a token must be a str"):
        embedder.embed_sentences([[["a", "b"]]])  # one nesting level too many


def test_the_seam_token_embeddings_in_gives_what_character_ids_give():
    """``layers_from_embeddings`` on the CNN's own output equals ``layers`` on the ids."""
    torch.manual_seed(0)
    model = ELMo(CONFIG).eval()
    ids = batch_to_ids(SENTENCES)
    with torch.inference_mode():
        layers, word_emb, mask = model.layers(ids)
        boundaries, mask_b = add_sentence_boundaries(ids, ids_to_mask(ids))
        again, _, _ = model.layers_from_embeddings(model.bilm.char_cnn(boundaries), mask_b)
    assert torch.equal(mask, mask_b)
    for a, b in zip(layers, again, strict=True):
        torch.testing.assert_close(a, b, rtol=0, atol=0)


def test_the_embedder_speeds_its_model_up_in_place_unless_told_not_to():
    from elmo_tutorial.fast import is_fast

    torch.manual_seed(0)
    model = ELMo(CONFIG)
    plain = Embedder(model, fast=False)
    plain_vectors = plain.embed_sentences(SENTENCES)
    assert not is_fast(model)
    fast_vectors = Embedder(model).embed_sentences(SENTENCES)
    assert is_fast(model), "the model passed in is sped up in place"
    for a, b in zip(plain_vectors, fast_vectors, strict=True):
        np.testing.assert_allclose(a, b, atol=1e-6, rtol=0)


def test_a_sentence_longer_than_the_maximum_is_refused_before_any_work(embedder, monkeypatch):
    from elmo_tutorial.analyses import embedder as embedder_module

    monkeypatch.setattr(embedder, "_table", lambda *a: pytest.fail("ran"))
    too_long = ["word"] * (embedder_module.MAX_SENTENCE_TOKENS + 1)
    for call in (embedder.embed_sentence, lambda s: embedder.embed_sentences([["ok"], s])):
        with pytest.raises(ValueError, match=r"^sentence \d has 10,001 tokens, more than the "
                           r"10,000 an Embedder takes .*; split the text into sentences"):
            call(too_long)
