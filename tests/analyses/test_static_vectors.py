"""Count-based static vectors (PPMI + SVD), analogies and the context-window average of
notebook 00."""

import math

import numpy as np
import pytest

from elmo_tutorial.analyses.static_vectors import (
    StaticVectors,
    context_vector,
    cooccurrence_counts,
    cosine_similarity,
    ppmi,
    svd_vectors,
)


def test_cooccurrence_counts_match_hand_counts_and_stay_inside_sentences():
    words, counts = cooccurrence_counts([["a", "b", "c"], ["C", "a"]], window=1)
    c = {(words[i], words[j]): counts[i, j] for i in range(len(words)) for j in range(len(words))}
    assert words == ["a", "c", "b"]  # by frequency, then alphabetical; lower-cased
    assert c["a", "b"] == c["b", "a"] == 1
    assert c["b", "c"] == 1 and c["a", "c"] == 1  # "c a" in sentence 2; not "c" ... "C" across
    assert c["a", "a"] == 0 and counts.sum() == 6


def test_cooccurrence_window_reaches_exactly_window_tokens():
    words, counts = cooccurrence_counts([["x", "y", "z", "w"]], window=2)
    i = {w: k for k, w in enumerate(words)}
    assert counts[i["x"], i["z"]] == 1 and counts[i["x"], i["w"]] == 0


def test_ppmi_equals_the_formula_and_is_non_negative():
    counts = np.array([[0.0, 4, 1], [4, 0, 2], [1, 2, 6]])
    alpha = 0.75
    context = counts.sum(0) ** alpha
    w, c = 0, 1
    expected = math.log(counts[w, c] * context.sum() / (counts[w].sum() * context[c]))
    result = ppmi(counts, alpha)
    assert result[w, c] == pytest.approx(max(0.0, expected))
    assert (result >= 0).all() and result[0, 0] == 0  # log 0 = -inf is clipped to 0


def test_svd_vectors_reconstruct_a_low_rank_matrix():
    rng = np.random.default_rng(0)
    a = rng.normal(size=(6, 2))
    matrix = a @ a.T  # symmetric PSD of rank 2: U Σ Uᵀ, so (U√Σ)(U√Σ)ᵀ recovers it
    vectors = svd_vectors(matrix, 2)
    assert vectors.shape == (6, 2)
    np.testing.assert_allclose(vectors @ vectors.T, matrix, atol=1e-9)


def test_cosine_similarity_matches_the_definition_and_broadcasts():
    a, b = np.array([1.0, 2.0, 2.0]), np.array([2.0, 0.0, 1.0])
    assert cosine_similarity(a, b) == pytest.approx(4 / (3 * math.sqrt(5)))
    assert cosine_similarity(np.stack([a, b]), a).shape == (2,)


def test_context_vector_sides_use_only_their_neighbours():
    vectors = np.eye(4)
    ids = [0, 1, 2, 3]
    np.testing.assert_allclose(context_vector(vectors, ids, 1, 1, "left"), [1, 1, 0, 0])
    np.testing.assert_allclose(context_vector(vectors, ids, 1, 1, "right"), [0, 1, 1, 0])
    np.testing.assert_allclose(context_vector(vectors, ids, 1, 5, "both"), [1 / 3, 1, 1 / 3, 1 / 3])
    np.testing.assert_allclose(context_vector(vectors, ids, 0, 2, "left"), [1, 0, 0, 0])


def test_static_vectors_give_topical_neighbours_on_a_toy_corpus():
    corpus = [["the", "river", "bank", "water"], ["the", "money", "bank", "cash"]] * 20 + [
        ["river", "water", "boat"], ["money", "cash", "loan"]] * 20
    sv = StaticVectors.from_sentences(corpus, dim=3, window=2)
    assert sv.nearest("river", 1)[0][0] in {"water", "boat"}
    assert "Bank" in sv and sv["Bank"].shape == (3,)
    with pytest.raises(KeyError, match="not in the vocabulary"):
        sv["canoe"]


def test_randomized_svd_vectors_agree_with_the_exact_ones_on_a_low_rank_matrix():
    rng = np.random.default_rng(1)
    a = rng.normal(size=(40, 3))
    matrix = a @ a.T + 1e-3 * np.eye(40)  # rank 3 plus a little noise
    exact, randomized = svd_vectors(matrix, 3), svd_vectors(matrix, 3, method="randomized")
    np.testing.assert_allclose(randomized, exact, atol=1e-6)  # signs fixed the same way
    np.testing.assert_array_equal(randomized, svd_vectors(matrix, 3, method="randomized"))
    with pytest.raises(ValueError, match="'full' or 'randomized'"):
        svd_vectors(matrix, 3, method="exact")


def _royal_vectors(king_length=1.0):
    """Axes: (royal, female, person). queen = king - man + woman exactly; crown is royal
    but no person, close to king's direction only."""
    table = {"man": [0, 0, 1], "woman": [0, 1, 1], "king": [1, 0, 1], "queen": [1, 1, 1],
             "crown": [1, 0, 0.8], "apple": [0.1, 0.1, 0]}
    vectors = np.array(list(table.values()), dtype=float)
    vectors[2] *= king_length
    return StaticVectors(list(table), vectors)


def test_analogy_finds_the_constructed_answer_and_ranks_every_other_word():
    sv = _royal_vectors()
    answers = sv.analogy("man", "king", "woman", k=10)
    assert answers[0][0] == "queen"
    assert sorted(w for w, _ in answers) == ["apple", "crown", "queen"], "no query word answers"
    for rank, (word, _) in enumerate(answers, start=1):
        assert sv.analogy_rank("man", "king", "woman", word) == rank


def test_analogy_scores_are_3cosadd():
    sv = _royal_vectors()
    scores = sv.analogy_scores("MAN", "king", "woman")  # case does not matter
    for word in ("queen", "crown", "apple"):
        x = sv[word]
        expected = (cosine_similarity(x, sv["king"]) - cosine_similarity(x, sv["man"])
                    + cosine_similarity(x, sv["woman"]))
        assert scores[sv.row(word)] == pytest.approx(expected)
    assert np.isneginf(scores[[sv.row(w) for w in ("man", "king", "woman")]]).all()


def test_analogy_reads_directions_not_lengths():
    # A long "king" would drag an unnormalised b - a + c towards itself (answer: crown).
    long_king = _royal_vectors(king_length=30.0)
    assert long_king.analogy("man", "king", "woman", k=1)[0][0] == "queen"


def test_analogy_never_answers_a_query_word_even_when_it_is_nearest():
    sv = StaticVectors(["a", "b", "c", "d"], np.array([[1, 0], [0, 1], [1, 0.01], [1, 1]]))
    assert sv.analogy("a", "b", "c", k=1)[0][0] == "d"  # b - a + c ≈ b, but b is excluded
    with pytest.raises(ValueError, match="one of the query words"):
        sv.analogy_rank("a", "b", "c", "b")
    with pytest.raises(KeyError, match="'zebra' is not in the vocabulary"):
        sv.analogy("a", "b", "zebra")
