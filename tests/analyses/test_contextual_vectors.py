"""Contextual vectors of raw text, from Python (what ``elmo-tutorial embed`` prints)."""

from pathlib import Path

import pytest

from elmo_tutorial.analyses.contextual_vectors import embed_text, shared_word_similarities

SHIPPED = Path(__file__).resolve().parents[2] / "data" / "models" / "small"
TEXT = ["She sat on the bank of the river .", "He paid the money into the bank ."]


def test_layer_zero_is_context_free_and_the_lstm_layers_are_not():
    tokens, static = embed_text(SHIPPED, TEXT, layer="0")
    assert tokens[0][:4] == ["She", "sat", "on", "the"]
    assert [v.shape[0] for v in static] == [len(t) for t in tokens]
    shared = shared_word_similarities(tokens, static)
    assert all(word.cosine == pytest.approx(1.0, abs=1e-5) for word in shared)
    # 'the' is word 4 and 7 of sentence 1, word 3 and 6 of sentence 2: four pairs, each named
    assert [(w.token, w.in_first, w.in_second) for w in shared] == [
        ("the", 4, 3), ("the", 7, 3), ("the", 4, 6), ("the", 7, 6), ("bank", 5, 7), (".", 9, 8)]
    _, contextual = embed_text(SHIPPED, TEXT, layer="2")
    bank = next(w.cosine for w in shared_word_similarities(tokens, contextual)
                if w.token == "bank")
    assert bank < 0.99, "the top LSTM layer should move 'bank' with its context"


def test_unknown_layer_is_a_clear_error():
    with pytest.raises(ValueError, match="layer must be one of 0, 1, 2, elmo"):
        embed_text(SHIPPED, TEXT, layer="3")
