"""The SST floor: bag-of-words logistic regression, its strength chosen on dev."""

import pytest

from elmo_tutorial.tasks.bag_of_words import bag_of_words_baseline


def _sentences(n, offset=0):
    words = ["good", "bad", "fine", "awful"]
    return [([words[(i + offset) % 4], "film", f"w{i % 7}"], int((i + offset) % 4 in (0, 2)))
            for i in range(n)]


def test_a_word_that_decides_the_label_is_learned():
    train, valid, test = _sentences(40), _sentences(12, 1), _sentences(12, 2)
    result = bag_of_words_baseline(train, valid, test)
    assert result["test"] == 100.0 and result["valid"] == 100.0
    assert result["features"] == 4 + 1 + 7


def test_the_strength_is_the_best_on_dev_and_words_unseen_in_training_count_for_nothing():
    # three words of four are positive: a model flattened by a huge penalty answers the
    # commoner label (its bias is not penalised) and gets 75 % on dev
    train = [([w, "film"], int(w != "awful")) for w in ["good", "bad", "fine", "awful"] * 10
             if w != "bad"] + [(["nice"], 1)] * 10
    result = bag_of_words_baseline(train, train, [(["never", "seen"], 1), (["good"], 1)],
                                   alphas=(1e-4, 1e3))
    assert result["alpha"] == 1e-4  # a huge penalty flattens the model: worse on dev
    assert result["dev_by_alpha"]["1000.0"] < result["dev_by_alpha"]["0.0001"]
    assert set(result["dev_by_alpha"]) == {"0.0001", "1000.0"}
    assert result["test"] == 100.0  # "never seen" has no feature: the bias says positive


def test_sentences_without_words_are_refused():
    with pytest.raises(ValueError, match="no words"):
        bag_of_words_baseline([([], 0)], [([], 0)], [([], 0)])
