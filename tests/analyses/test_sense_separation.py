"""Notebook 08's sense-separation tools against hand-computed cases and the model's own mix."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from elmo_tutorial import batch_to_ids
from elmo_tutorial.analyses.embedder import Embedder
from elmo_tutorial.analyses.sense_separation import (
    balanced_sample,
    cosine_matrix,
    example_vectors,
    mix_layers,
    nearest_centroid_accuracy,
    nearest_neighbour_agreement,
    pca,
    sense_separation,
    static_example_vectors,
    wsd_examples,
)
from elmo_tutorial.analyses.static_vectors import StaticVectors, cosine_similarity
from elmo_tutorial.data.sense_corpus import SenseExample
from elmo_tutorial.model.config import ModelConfig
from elmo_tutorial.model.elmo import ELMo
from elmo_tutorial.model.scalar_mix import ScalarMix

CONFIG = ModelConfig(
    char_embed_dim=4, filters=((1, 4), (2, 8)), n_highway=1, lstm_dim=16, projection_dim=6,
    n_layers=2, cell_clip=3.0, proj_clip=3.0,
)


def test_mix_layers_equals_the_elmo_output_of_the_model():
    torch.manual_seed(0)
    model = ELMo(CONFIG, scalar_mix_parameters=[0.3, -1.0, 2.0]).eval()
    with torch.no_grad():
        model.scalar_mix.gamma.fill_(1.7)
    tokens = ["The", "bank", "of", "the", "river", "."]
    layers = Embedder(model).embed_sentence(tokens)  # (3, T, 12)
    with torch.inference_mode():
        expected = model(batch_to_ids([tokens]))["elmo"][0].numpy()
    np.testing.assert_allclose(mix_layers(layers, model.scalar_mix), expected, atol=1e-5)


def test_mix_layers_without_a_mix_is_the_plain_average():
    layers = np.random.default_rng(0).normal(size=(3, 4, 5))
    np.testing.assert_allclose(mix_layers(layers), layers.mean(0))
    np.testing.assert_allclose(mix_layers(layers, ScalarMix(3)), layers.mean(0), atol=1e-6)


def test_pca_matches_the_eigenvectors_of_the_covariance():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(50, 4)) * np.array([5.0, 2.0, 1.0, 0.5]) + 3.0
    result = pca(x, k=2)
    values, vectors = np.linalg.eigh(np.cov(x.T, bias=True))  # ascending
    for j in range(2):
        assert abs(result.components[j] @ vectors[:, -1 - j]) == pytest.approx(1.0, abs=1e-8)
    np.testing.assert_allclose(result.explained, values[::-1][:2] / values.sum(), rtol=1e-8)
    np.testing.assert_allclose(result.coords, (x - x.mean(0)) @ result.components.T)
    assert (result.components[np.arange(2), np.abs(result.components).argmax(1)] > 0).all()
    with pytest.raises(ValueError, match="k ≤ min"):
        pca(x, k=5)


def test_cosine_matrix_matches_the_pairwise_definition():
    rng = np.random.default_rng(1)
    a, b = rng.normal(size=(3, 4)), rng.normal(size=(2, 4))
    expected = np.array([[cosine_similarity(u, v) for v in b] for u in a])
    np.testing.assert_allclose(cosine_matrix(a, b), expected)
    np.testing.assert_allclose(np.diag(cosine_matrix(a)), 1.0)


def test_nearest_centroid_accuracy_holds_each_occurrence_out():
    # By hand (no centring): a = (1, 0), (.2, 1); b = (.8, .6), (.6, .8). Held out, each vector
    # is left with its one partner as its own centroid, and the other label's centroid is
    # nearer: cos((1, 0), (.2, 1)) = .196 < cos((1, 0), b's mean) = .707, and so on: 0 of 4.
    # Left in its own centroid, (1, 0) and (.6, .8) would be right: 0.5.
    x = np.array([[1.0, 0.0], [0.2, 1.0], [0.8, 0.6], [0.6, 0.8]])
    assert nearest_centroid_accuracy(x, ["a", "a", "b", "b"], centre=False) == 0.0
    x = np.array([[1.0, 0.0], [0.6, 0.8], [0.0, 1.0], [0.8, 0.6]])  # (.6, .8), (.8, .6) wrong
    assert nearest_centroid_accuracy(x, ["a", "a", "b", "b"], centre=False) == 0.5


def test_nearest_centroid_accuracy_scores_identical_vectors_at_chance():
    x = np.ones((6, 3))  # a static vector: every occurrence the same
    assert nearest_centroid_accuracy(x, list("aabbcc"), centre=False) == pytest.approx(1 / 3)
    assert nearest_centroid_accuracy(x, list("aabbcc"), centre=True) == pytest.approx(1 / 3)


def test_nearest_centroid_accuracy_separates_clean_clusters_and_rejects_bad_input():
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.normal(size=(10, 8)) + 5 * np.eye(8)[0],
                        rng.normal(size=(10, 8)) + 5 * np.eye(8)[1]])
    assert nearest_centroid_accuracy(x, [0] * 10 + [1] * 10) == 1.0
    with pytest.raises(ValueError, match="≥ 2 labels"):
        nearest_centroid_accuracy(x[:3], ["a", "a", "b"])
    with pytest.raises(ValueError, match="one label per row"):
        nearest_centroid_accuracy(x, ["a", "b"])


def test_nearest_neighbour_agreement_by_hand_and_with_ties():
    x = np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.5, 0.5]])
    # nearest: 0 → 1, 1 → 0, 2 → 3, 3 → 1 (cos .74 vs .71 for 0 and for 2)
    assert nearest_neighbour_agreement(x, ["a", "a", "b", "b"]) == 0.75
    same_vector = np.ones((4, 2))  # every pair tied: each vector's share of same-label others
    assert nearest_neighbour_agreement(same_vector, ["a", "a", "a", "b"]) == pytest.approx(
        (3 * 2 / 3 + 0) / 4)


def test_sense_separation_scores_each_word_on_its_own_occurrences():
    x = np.array([[1.0, 0.0], [0.6, 0.8], [0.0, 1.0], [0.8, 0.6], [1, 0], [1, 0.1], [0, 1],
                  [0.1, 1]])
    words = ["w"] * 4 + ["v"] * 4
    senses = ["a", "a", "b", "b", "c", "c", "d", "d"]
    assert sense_separation(x, words, senses, centre=False) == {"w": 0.5, "v": 1.0}


def example(word, sense, n):
    return SenseExample([word, str(n)], 0, word, sense, "NOUN")


def test_balanced_sample_follows_its_rule():
    examples = ([example("bank", "RIVER", i) for i in range(5)]
                + [example("bank", "MONEY", i) for i in range(3)]
                + [example("bank", "TURN", i) for i in range(1)]  # too rare: left out
                + [example("bat", "ANIMAL", i) for i in range(9)]  # one sense only: left out
                + [example("bat", "SPORT", i) for i in range(2)])
    sample = balanced_sample(examples, per_sense=3)
    assert [(e.word, e.sense) for e in sample] == [("bank", "MONEY")] * 3 + [("bank", "RIVER")] * 3
    assert len({e.tokens[1] for e in sample if e.sense == "RIVER"}) == 3  # distinct occurrences
    assert sample == balanced_sample(examples, per_sense=3)  # same seed, same sample
    assert {e.word for e in balanced_sample(examples, per_sense=2)} == {"bank", "bat"}
    one_word = balanced_sample(examples, per_sense=2, max_words=1)
    assert len(one_word) == 4 and len({e.word for e in one_word}) == 1
    with pytest.raises(ValueError, match="per_sense must be ≥ 2"):
        balanced_sample(examples, per_sense=1)


def test_wsd_examples_split_multiword_tokens_and_skip_unclear_labels():
    sentence = {
        "tokens": ["The", "jury", "took place", "in", "Fulton County", "bank", "."],
        "instances": [
            {"index": 1, "id": "s.t0", "lemma": "jury", "pos": "NOUN", "keys": ["jury%1:14:00::"]},
            {"index": 2, "id": "s.t1", "lemma": "take_place", "pos": "VERB",
             "keys": ["take_place%2:30:00::"]},
            {"index": 5, "id": "s.t2", "lemma": "bank", "pos": "NOUN",
             "keys": ["bank%1:14:00::", "x"]},
            {"index": 5, "id": "s.t3", "lemma": "bank", "pos": "NOUN",
             "keys": ["bank%1:17:01::"]},
        ],
    }
    examples = wsd_examples([sentence])
    words = ["The", "jury", "took", "place", "in", "Fulton", "County", "bank", "."]
    assert examples == [SenseExample(words, 1, "jury", "jury%1:14:00::", "NOUN"),
                        SenseExample(words, 7, "bank", "bank%1:17:01::", "NOUN")]


def test_example_vectors_pick_each_examples_word_in_every_layer():
    examples = [SenseExample(["a", "b", "c"], 1, "b", "x", "NOUN"),
                SenseExample(["d", "e"], 0, "d", "x", "NOUN")]
    embeddings = [np.arange(18.0).reshape(3, 3, 2), np.arange(12.0).reshape(3, 2, 2)]
    vectors = example_vectors(embeddings, examples)  # (3, 2, 2): layer, example, feature
    np.testing.assert_array_equal(vectors[:, 0], embeddings[0][:, 1])
    np.testing.assert_array_equal(vectors[:, 1], embeddings[1][:, 0])


def test_static_example_vectors_treat_unknown_words_as_zero():
    static = StaticVectors(["a", "b"], np.array([[1.0, 0.0], [0.0, 2.0]]))
    examples = [SenseExample(["a", "zzz", "b"], 0, "a", "s", "NOUN"),
                SenseExample(["zzz", "a", "b"], 0, "zzz", "s", "NOUN")]
    np.testing.assert_array_equal(static_example_vectors(static, examples),
                                  [[1.0, 0.0], [0.0, 0.0]])
    np.testing.assert_array_equal(static_example_vectors(static, examples, window=2),
                                  [[1.0, 2.0], [0.5, 1.0]])  # a + mean(b); 0 + mean(a, b)
