"""The Kneser-Ney baseline: nltk's numbers, a proper distribution, our <UNK> mapping."""

import math

import pytest

from elmo_tutorial.model.vocab import Vocabulary
from elmo_tutorial.training.ngram import KneserNeyBaseline

TRAIN = [["the", "cat", "sat", "on", "the", "mat"], ["the", "dog", "sat", "on", "a", "log"],
         ["a", "cat", "saw", "the", "dog"], ["the", "dog", "saw", "a", "cat"]]


@pytest.fixture(scope="module")
def kn():
    return KneserNeyBaseline(order=3).fit(TRAIN, Vocabulary.from_sentences(TRAIN))


def test_indexed_continuation_counts_equal_nltks(kn):
    plain = KneserNeyBaseline(order=3, indexed=False).fit(TRAIN, Vocabulary.from_sentences(TRAIN))
    ours, theirs = kn.models["forward"].estimator, plain.models["forward"].estimator
    for context in [(), ("the",), ("sat",), ("<S>",), ("zebra",)]:
        for word in ["cat", "dog", "the", "</S>", "<UNK>"]:
            assert ours._continuation_counts(word, context) == \
                theirs._continuation_counts(word, context), (word, context)


@pytest.mark.parametrize("context", [[], ["the"], ["on", "the"], ["<S>", "<S>"], ["x", "y"]])
def test_probabilities_sum_to_one_over_the_vocabulary(kn, context):
    lm = kn.models["forward"]
    total = sum(lm.score(w, context) for w in lm.vocab)
    # nltk's γ counts word types of the raw counts but divides by continuation totals at the
    # middle order, so its KN sums to 1 only approximately (0.25% here at worst).
    assert total == pytest.approx(1.0, abs=5e-3)


def test_unknown_words_become_unk_with_a_finite_perplexity(kn):
    result = kn.perplexity([["the", "zebra", "sat"]])
    assert math.isfinite(result["avg_ppl"]) and result["n_tokens"] == 4  # 3 words + </S>
    same = kn.perplexity([["the", "<UNK>", "sat"]])
    assert result == same


def test_backward_model_scores_reversed_sentences(kn):
    s = ["the", "cat", "sat"]
    lm, padded = kn.models["backward"], ["</S>", "</S>", "sat", "cat", "the", "<S>"]
    by_hand = -sum(math.log(lm.score(padded[i], padded[i - 2:i])) for i in range(2, 6))
    assert kn.nll([s], "backward") == (pytest.approx(by_hand), 4)


def test_no_held_out_sentence_is_refused_not_a_perplexity_of_one(kn):
    """exp(0 / max(0, 1)) read 1.00: a perfect score for scoring nothing."""
    with pytest.raises(ValueError, match="no sentence to score"):
        kn.perplexity([])
