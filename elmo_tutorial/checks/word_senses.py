"""Self-checks for notebook 09: the lexical sample with fewer training uses, and the WSD
Evaluation Framework's scorer (paper Table 5)."""

from __future__ import annotations

import numbers
from collections.abc import Callable

from elmo_tutorial.analyses import lexical_sample
from elmo_tutorial.analyses.wsd import score
from elmo_tutorial.checks._core import CheckFailed, check, filled_dict, forbidding, not_none

__all__ = ["check_fewer_training_uses", "check_wsd_scorer"]

# (what the case tests, predictions, gold): id → predicted key or None; id → gold keys
_CASES = [
    ("every instance answered, one gold key each",
     {"a": "k1", "b": "k2", "c": "k9", "d": "k4"},
     {"a": ["k1"], "b": ["k2"], "c": ["k3"], "d": ["k4"]}),
    ("an instance with two gold keys (either one is right)",
     {"a": "k2", "b": "k1", "c": "k5"},
     {"a": ["k1", "k2"], "b": ["k1", "k7"], "c": ["k6", "k8"]}),
    ("unanswered instances (None, or left out of the predictions)",
     {"a": "k1", "b": "k2", "c": None, "d": "k0"},
     {"a": ["k1"], "b": ["k2"], "c": ["k3"], "d": ["k4"], "e": ["k5"], "f": ["k6"]}),
    ("no answer right", {"a": "x", "b": "y"}, {"a": ["k1"], "b": ["k2"], "c": ["k3"]}),
    ("no instance answered", {"a": None}, {"a": ["k1"], "b": ["k2"]}),
]


@check
def check_wsd_scorer(fn: Callable[[dict, dict], tuple[float, float, float]]) -> str:
    """``fn(predictions, gold)`` must return ``(precision, recall, f1)`` in percent, as
    :func:`elmo_tutorial.analyses.wsd.score`: ``predictions`` maps an instance id to a sense key
    or ``None`` (no answer; an id may also be missing), ``gold`` every id to its gold keys."""
    for what, predictions, gold in _CASES:
        expected = score(predictions, gold)
        try:
            with forbidding(fn, score, instead=(
                    "count the instances answered and those answered right yourself")):
                got = fn(dict(predictions), {k: list(v) for k, v in gold.items()})
        except ZeroDivisionError:
            raise CheckFailed(f"{what}: division by zero. With nothing answered precision is "
                              "0, and with nothing right F1 is 0.") from None
        not_none(got, "your scorer", "the three numbers (precision, recall, f1)")
        if (not isinstance(got, tuple | list) or len(got) != 3
                or not all(isinstance(g, numbers.Real) for g in got)):
            raise CheckFailed(f"{what}: got {got!r}; return the three numbers (precision, recall, "
                              "f1), in percent.")
        want = (expected.precision, expected.recall, expected.f1)
        if all(abs(g - w) < 1e-6 for g, w in zip(got, want, strict=True)):
            continue
        if all(abs(g * 100 - w) < 1e-6 for g, w in zip(got, want, strict=True)):
            raise CheckFailed("Right proportions, but the framework reports percentages: "
                              "multiply by 100.")
        if what.startswith("an instance with two") and abs(got[0] - want[0]) > 1e-6:
            raise CheckFailed(f"{what}: precision {got[0]:.2f}, expected {want[0]:.2f}. An "
                              "answer is right when it is *among* the instance's gold keys.")
        if what.startswith("unanswered") and abs(got[0] - got[1]) < 1e-6:
            raise CheckFailed(f"{what}: precision and recall are both {got[0]:.2f}, expected "
                              f"{want[0]:.2f} and {want[1]:.2f}. Precision divides by the "
                              "instances answered, recall by all gold instances.")
        raise CheckFailed(f"{what}: got (P, R, F1) = ({got[0]:.2f}, {got[1]:.2f}, "
                          f"{got[2]:.2f}), expected ({want[0]:.2f}, {want[1]:.2f}, "
                          f"{want[2]:.2f}). F1 = 2PR / (P + R).")
    return ("WSD scorer: precision over answered instances, recall over all, F1, agree with "
            "wsd.score (multiple gold keys, unanswered instances)")


@check
def check_fewer_training_uses(curve: dict, embedder, per_word: int = 300,
                              words: tuple[str, ...] = lexical_sample.WORDS) -> str:
    """``curve[n]``, for every ``n`` it holds, must be
    :func:`elmo_tutorial.analyses.lexical_sample.evaluate`'s table of ``words`` with ``per_word``
    and ``max_train=n``; every table is recomputed (from cached embeddings)."""
    filled_dict(curve, "curve", "it must map each number of training uses n to the table "
                f"lexical_sample.evaluate(embedder, per_word={per_word}, max_train=n) returns.")
    for n, few in curve.items():
        _check_table(f"curve[{n!r}]", few, embedder, per_word, n, words)
    return (f"the lexical sample with {', '.join(map(str, curve))} training uses per word, "
            "every table recomputed, the same test uses")


def _check_table(where: str, few, embedder, per_word: int, max_train, words) -> None:
    """Raise ``CheckFailed`` unless ``few`` is evaluate's table for ``max_train`` uses."""
    if not isinstance(max_train, int) or max_train < 1:
        raise CheckFailed(f"{where}: the keys of curve are the numbers of training uses, "
                          "whole numbers of at least 1.")
    filled_dict(few, where, f"it must hold the scores of {', '.join(words)}, as "
                f"lexical_sample.evaluate(embedder, per_word={per_word}, "
                f"max_train={max_train}) returns them.")
    if set(few) != set(words):
        raise CheckFailed(f"{where} holds the words {sorted(few)}, expected {sorted(words)}: "
                          "score the same words as the table above, each with fewer training "
                          "uses.")
    expected = lexical_sample.evaluate(embedder, words=tuple(words), per_word=per_word,
                                       max_train=max_train)
    for word, scores in few.items():
        want = expected[word]
        if not isinstance(scores, dict):
            raise CheckFailed(f"{where}[{word!r}] is {type(scores).__name__}: each word's entry "
                              "is the dict of scores lexical_sample.evaluate returns.")
        if scores.get("n_test") != want["n_test"]:
            raise CheckFailed(f"{where}, {word}: {scores.get('n_test')} test uses, expected "
                              f"{want['n_test']}: keep per_word={per_word}, so that the test "
                              "uses stay the same, and cut only the training uses.")
        if scores.get("n_train") != want["n_train"]:
            raise CheckFailed(f"{where}, {word}: {scores.get('n_train')} training uses, "
                              f"expected {want['n_train']}: pass max_train={max_train}.")
        for name in (*lexical_sample.REPRESENTATIONS, "most_frequent_sense"):
            value = scores.get(name)
            if not isinstance(value, numbers.Real) or not abs(value - want[name]) <= 1e-9:
                raise CheckFailed(f"{where}, {word}, {name}: {scores.get(name)}, expected "
                                  f"{want[name]}: score the same words with "
                                  "lexical_sample.evaluate and change nothing but the number "
                                  "of training uses.")
