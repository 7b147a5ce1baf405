"""Notebook 09's self-checks accept a correct scorer and a right lexical-sample experiment, and
explain the usual mistakes."""

import pytest

from elmo_tutorial import checks
from elmo_tutorial.checks import CheckFailed
from elmo_tutorial.registry import is_available


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


def _tiny_embedder():
    import torch

    from elmo_tutorial.config import ModelConfig
    from elmo_tutorial.elmo import ELMo
    from elmo_tutorial.embedder import Embedder

    torch.manual_seed(0)
    config = ModelConfig(char_embed_dim=4, filters=((1, 4), (2, 8)), n_highway=1, lstm_dim=16,
                         projection_dim=6, n_layers=2)
    return Embedder(ELMo(config))


needs_senseval = pytest.mark.skipif(not is_available("senseval"), reason="needs nltk's senseval")


@needs_senseval
def test_fewer_training_uses_passes_the_right_table_and_names_the_mistakes(tmp_path,
                                                                           monkeypatch, capsys):
    from elmo_tutorial import lexical_sample

    monkeypatch.setenv("ELMO_TUTORIAL_CACHE", str(tmp_path))
    embedder = _tiny_embedder()

    def table(**kwargs):
        return lexical_sample.evaluate(embedder, words=("interest",), **kwargs)

    checks.check_fewer_training_uses(table(per_word=40, max_train=5), embedder, per_word=40,
                                     max_train=5)
    assert "✓" in capsys.readouterr().out
    with pytest.raises(CheckFailed, match="keep per_word=40"):
        checks.check_fewer_training_uses(table(per_word=10), embedder, per_word=40, max_train=5)
    with pytest.raises(CheckFailed, match="pass max_train=5"):
        checks.check_fewer_training_uses(table(per_word=40), embedder, per_word=40, max_train=5)
    doctored = table(per_word=40, max_train=5)
    doctored["interest"]["layer2"] += 5
    with pytest.raises(CheckFailed, match="interest, layer2"):
        checks.check_fewer_training_uses(doctored, embedder, per_word=40, max_train=5)
