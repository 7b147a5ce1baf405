"""NeighbourIndex: cosine search over a corpus's contextual vectors, and its widget."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from elmo_tutorial.analyses.embedder import Embedder
from elmo_tutorial.analyses.neighbours import Neighbour, NeighbourIndex, neighbour_explorer
from elmo_tutorial.model.config import ModelConfig
from elmo_tutorial.model.elmo import ELMo

CONFIG = ModelConfig(
    char_embed_dim=4, filters=((1, 4), (2, 8)), n_highway=1, lstm_dim=16, projection_dim=6,
    n_layers=2, cell_clip=3.0, proj_clip=3.0,
)
CORPUS = [
    ["They", "sat", "on", "the", "bank", "of", "the", "river", "."],
    ["The", "bank", "raised", "its", "rates", "."],
    ["He", "went", "to", "the", "bank", "."],
    ["The", "river", "was", "wide", "."],
]


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    torch.manual_seed(0)
    return Embedder(ELMo(CONFIG, scalar_mix_parameters=[1.0, 0.0, -1.0]))


@pytest.fixture(scope="module")
def index(embedder) -> NeighbourIndex:
    return NeighbourIndex(CORPUS, embedder.embed_sentences(CORPUS), embedder.model.scalar_mix)


def brute_force(embeddings, vector, layer):
    """Every token's cosine with `vector`, computed one by one, best first."""
    return sorted(((float(v @ vector / np.linalg.norm(v) / np.linalg.norm(vector)), s, t)
                   for s, layers in enumerate(embeddings)
                   for t, v in enumerate(layers[layer])), reverse=True)


def test_search_ranks_every_token_by_cosine(embedder, index):
    embeddings = embedder.embed_sentences(CORPUS)
    query = embeddings[0][2, 4] + 0.1  # near "bank" in sentence 0, layer 2
    hits = index.search(query, 2, k=5)
    expected = brute_force(embeddings, query, 2)[:5]
    assert [(h.sentence, h.position) for h in hits] == [(s, t) for _, s, t in expected]
    np.testing.assert_allclose([h.similarity for h in hits], [c for c, _, _ in expected],
                               atol=1e-5)


def test_the_elmo_layer_uses_the_models_scalar_mix(embedder, index):
    layers = embedder.embed_sentence(CORPUS[1])
    s = torch.softmax(torch.tensor([1.0, 0.0, -1.0]), 0).numpy()
    mixed = (s[:, None, None] * layers).sum(0)  # (T, D), γ = 1
    hit = index.search(mixed[1], "elmo", k=1)[0]
    assert (hit.sentence, hit.position) == (1, 1) and hit.similarity == pytest.approx(1, abs=1e-5)


def test_query_leaves_out_its_own_sentence_and_can_keep_only_the_same_word(embedder, index):
    hits = index.query(embedder, CORPUS[0], 4, layer="1", k=20)
    assert 0 not in {h.sentence for h in hits} and len(hits) == len(index) - len(CORPUS[0])
    same = index.query(embedder, CORPUS[0], 4, layer=1, k=20, same_word=True)
    assert [(h.sentence, h.word) for h in same] in ([(1, "bank"), (2, "bank")],
                                                   [(2, "bank"), (1, "bank")])
    with pytest.raises(KeyError, match="choose one of 0, 1, 2, elmo"):
        index.query(embedder, CORPUS[0], 4, layer=3)
    with pytest.raises(IndexError, match="outside the sentence"):
        index.query(embedder, CORPUS[0], 9, layer=1)


def test_layer_zero_ignores_the_context(index):
    same, different = index.same_word_similarity(0, min_count=2)
    assert same == pytest.approx(1.0, abs=1e-6) and different < 1.0
    assert index.same_word_neighbour_rate(0) == 1.0
    same2, _ = index.same_word_similarity(2, min_count=2)
    assert same2 < 1.0
    centred_same, centred_different = index.same_word_similarity(0, min_count=2, centre=True)
    assert centred_same == pytest.approx(1.0, abs=1e-6) and centred_different < different
    with pytest.raises(ValueError, match="no word occurs 9 times"):
        index.same_word_similarity(0, min_count=9)


def test_neighbour_context_and_table():
    hit = Neighbour(0.91234, 0, 4, CORPUS[0])
    assert hit.word == "bank"
    assert hit.context(2) == "… on the [bank] of the …"
    assert NeighbourIndex.table([hit], width=1) == " 1   0.912  … the [bank] of …"
    assert "no hit" in NeighbourIndex.table([])


def test_index_rejects_embeddings_of_other_sentences(embedder):
    with pytest.raises(ValueError, match="embed exactly these sentences"):
        NeighbourIndex(CORPUS[:2], embedder.embed_sentences(CORPUS[1:3]))


def test_explorer_prints_the_default_query_and_updates_on_change(embedder, index, capsys):
    box = neighbour_explorer(index, embedder, "He went to the bank .", "bank", layer=2, k=3,
                             static=[{}, {"neighbours": "same word only"}])
    assert box is None  # no Jupyter kernel here: the printed tables are all there is
    printed = capsys.readouterr().out
    assert printed.count("nearest to [bank]") == 2 and "same word only:" in printed
    assert printed.splitlines()[1].startswith(" 1  ")
    box = neighbour_explorer(index, embedder, "He went to the bank .", "bank", static=[],
                             live=True)
    sentence, word, layer, neighbours, output = box.children
    assert layer.value == "2" and neighbours.value == "any word"
    sentence.value = "The river bank ."
    assert "in “The river bank .”" in output.outputs[0]["text"]
    word.value = "boat"
    assert "not a token" in output.outputs[0]["text"]
    with pytest.raises(ValueError, match="not a token"):
        neighbour_explorer(index, embedder, "He went home .", "bank")
