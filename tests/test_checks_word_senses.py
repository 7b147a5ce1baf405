"""Notebook 09's self-check accepts a correct scorer and explains the usual mistakes."""

import pytest

from elmo_tutorial import checks
from elmo_tutorial.checks import CheckFailed


def correct(predictions, gold):
    answered = [i for i, key in predictions.items() if key is not None]
    right = sum(predictions[i] in gold[i] for i in answered)
    p = 100 * right / len(answered) if answered else 0.0
    r = 100 * right / len(gold)
    return p, r, (2 * p * r / (p + r) if right else 0.0)


def first_gold_key_only(predictions, gold):
    return correct(predictions, {i: keys[:1] for i, keys in gold.items()})


def precision_over_all(predictions, gold):
    p, r, f = correct(predictions, gold)
    return r, r, r


def fractions(predictions, gold):
    return tuple(v / 100 for v in correct(predictions, gold))


def no_guard(predictions, gold):
    answered = [i for i, key in predictions.items() if key is not None]
    right = sum(predictions[i] in gold[i] for i in answered)
    p, r = 100 * right / len(answered), 100 * right / len(gold)
    return p, r, 2 * p * r / (p + r)


def test_check_accepts_a_correct_scorer(capsys):
    checks.check_wsd_scorer(correct)
    assert "✓" in capsys.readouterr().out


@pytest.mark.parametrize("answer, hint", [
    (first_gold_key_only, "among"),
    (precision_over_all, "Precision divides by the instances answered"),
    (fractions, "multiply by 100"),
    (no_guard, "division by zero"),
    (lambda p, g: 0.5, "return the three numbers"),
])
def test_check_explains_wrong_scorers(answer, hint):
    with pytest.raises(CheckFailed, match=hint):
        checks.check_wsd_scorer(answer)
