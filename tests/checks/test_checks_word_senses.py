"""Notebook 09's self-checks accept a correct scorer and a right lexical-sample experiment, and
explain the usual mistakes."""

import pytest

from elmo_tutorial import checks
from elmo_tutorial.checks import CheckFailed
from elmo_tutorial.course.exercises import STUB_ADVICE
from elmo_tutorial.data.registry import is_available


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


def test_check_refuses_a_call_of_the_framework_scorer_a_stub_and_nothing():
    from elmo_tutorial.analyses import wsd

    with pytest.raises(checks.Delegated, match="wsd.score"):
        checks.check_wsd_scorer(lambda p, g: tuple(wsd.score(p, g)))
    with pytest.raises(checks.NotWrittenYet, match="Exercise 4"):
        checks.check_wsd_scorer(_stub)
    for nothing in (None, (), [0, 0, 0.0j]):
        with pytest.raises(CheckFailed, match="three numbers"):
            checks.check_wsd_scorer(lambda p, g, v=nothing: v)


def _stub(predictions, gold):
    raise NotImplementedError("Exercise 4: the framework's scorer. " + STUB_ADVICE)


@pytest.mark.parametrize("curve, message", [
    ({}, "curve is empty"),
    (None, "curve is NoneType, not a dict"),
    ({30: {}}, r"curve\[30\] is empty"),
    ({30: None}, r"curve\[30\] is NoneType, not a dict"),
    ({30: {"interest": {}}},
     r"curve\[30\] holds the words \['interest'\], expected \['hard', 'interest', "),
])
def test_fewer_training_uses_fails_on_an_empty_or_partial_table(curve, message):
    # what `curve = {}` before a loop that never runs leaves behind, and its cousins; the check
    # reads no data for them
    with pytest.raises(CheckFailed, match=message):
        checks.check_fewer_training_uses(curve, embedder=None, per_word=300)


def _tiny_embedder():
    import torch

    from elmo_tutorial.analyses.embedder import Embedder
    from elmo_tutorial.model.config import ModelConfig
    from elmo_tutorial.model.elmo import ELMo

    torch.manual_seed(0)
    config = ModelConfig(char_embed_dim=4, filters=((1, 4), (2, 8)), n_highway=1, lstm_dim=16,
                         projection_dim=6, n_layers=2)
    return Embedder(ELMo(config))


needs_senseval = pytest.mark.skipif(not is_available("senseval"), reason="needs nltk's senseval")


@needs_senseval
def test_fewer_training_uses_passes_the_right_table_and_names_the_mistakes(tmp_path,
                                                                           monkeypatch, capsys):
    from elmo_tutorial.analyses import lexical_sample

    monkeypatch.setenv("ELMO_TUTORIAL_CACHE", str(tmp_path))
    embedder = _tiny_embedder()

    def table(**kwargs):
        return lexical_sample.evaluate(embedder, words=("interest",), **kwargs)

    def check(few, more=None):  # `few` for 5 uses, and more points of the sweep
        checks.check_fewer_training_uses({5: few, **(more or {})}, embedder, per_word=40,
                                         words=("interest",))

    check(table(per_word=40, max_train=5))
    assert "✓" in capsys.readouterr().out
    with pytest.raises(CheckFailed, match="keep per_word=40"):
        check(table(per_word=10))
    with pytest.raises(CheckFailed, match="pass max_train=5"):
        check(table(per_word=40))
    doctored = table(per_word=40, max_train=5)
    doctored["interest"]["layer2"] += 5
    with pytest.raises(CheckFailed, match="interest, layer2"):
        check(doctored)
    del doctored["interest"]["layer2"]
    with pytest.raises(CheckFailed, match="interest, layer2: None"):
        check(doctored)
    with pytest.raises(CheckFailed, match="expected \\['interest'\\]"):
        check({**table(per_word=40, max_train=5), "hard": {}})
    right = table(per_word=40, max_train=5)
    check(right, {20: table(per_word=40, max_train=20)})  # every point is read, not only one
    with pytest.raises(CheckFailed, match="curve\\[20\\], interest: 5 training uses, "
                                          "expected 20: pass max_train=20"):
        check(right, {20: table(per_word=40, max_train=5)})
    later = table(per_word=40, max_train=20)
    later["interest"]["most_frequent_sense"] += 1
    with pytest.raises(CheckFailed, match="curve\\[20\\], interest, most_frequent_sense"):
        check(right, {20: later})
