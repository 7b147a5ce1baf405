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
    assert total == pytest.approx(1.0, abs=1e-9)  # nltk's own: up to 1 + d/2 after <S>


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


def test_the_discount_is_neys_estimate_from_each_directions_trigram_counts():
    """d = n1 / (n1 + 2 n2) over the padded trigrams (Chen & Goodman 1998, eq. 26)."""
    from collections import Counter

    from elmo_tutorial.training.ngram import estimated_discount

    kn = KneserNeyBaseline(order=3).fit(TRAIN, Vocabulary.from_sentences(TRAIN))
    for direction in ("forward", "backward"):
        padded = [kn._padded(s, direction) for s in TRAIN]
        trigrams = Counter(tuple(p[i:i + 3]) for p in padded for i in range(len(p) - 2))
        n1 = sum(1 for c in trigrams.values() if c == 1)
        n2 = sum(1 for c in trigrams.values() if c == 2)
        assert kn.discounts[direction] == pytest.approx(n1 / (n1 + 2 * n2))
        assert kn.models[direction].estimator.discount == kn.discounts[direction]
    assert estimated_discount([["a", "b", "c"]] * 3) == 0.75  # nothing seen once: no estimate


def test_a_fixed_discount_is_used_as_given_and_one_outside_0_1_is_refused():
    kn = KneserNeyBaseline(order=3, discount=0.1).fit(TRAIN, Vocabulary.from_sentences(TRAIN))
    assert kn.discounts == {"forward": 0.1, "backward": 0.1}
    for bad in (0.0, 1.0, -0.5):
        with pytest.raises(ValueError, match="between 0 and 1"):
            KneserNeyBaseline(discount=bad)


def test_the_estimated_discount_beats_nltks_default_on_held_out_text():
    """A serious baseline: on the embedded corpus the estimate scores below d = 0.1."""
    from elmo_tutorial.data.corpora import load_sentences

    train = load_sentences("embedded", "train", 3000)
    valid = load_sentences("embedded", "valid", 200)
    vocab = Vocabulary.from_sentences(train)
    estimated = KneserNeyBaseline().fit(train, vocab).perplexity(valid)["avg_ppl"]
    default = KneserNeyBaseline(discount=0.1).fit(train, vocab).perplexity(valid)["avg_ppl"]
    assert estimated < default
