"""Notebook 00's checks: the context-window average, and 3CosAdd with lengths removed and the
query words left out."""

import numpy as np
import pytest
from _check_helpers import own_copy

from elmo_tutorial import checks
from elmo_tutorial.analyses.static_vectors import StaticVectors, context_vector, cosine_similarity
from elmo_tutorial.checks import CheckFailed, Delegated, check_analogy, check_context_vector


def _analogy(unit: bool):
    def answer(vectors, words, a, b, c):
        table = vectors / np.linalg.norm(vectors, axis=1, keepdims=True) if unit else vectors
        rows = [words.index(w) for w in (a, b, c)]
        scores = table @ (table[rows[1]] - table[rows[0]] + table[rows[2]])
        scores[rows] = -np.inf
        return words[int(np.argmax(scores))]
    return answer


def test_cosines_pass():
    checks.check_analogy(_analogy(unit=True))


def test_plain_dot_products_are_refused_with_the_lengths_hint():
    """The exercise says lengths decide it: a long candidate wins every dot product."""
    with pytest.raises(checks.CheckFailed, match="divide every vector by its length"):
        checks.check_analogy(_analogy(unit=False))


def test_check_context_vector_accepts_the_packages_formula_and_refuses_its_function(capsys):
    written_out = own_copy(context_vector)  # the same code in a student's cell
    check_context_vector(lambda v, ids, i, w: written_out(v, ids, i, w))
    assert "✓" in capsys.readouterr().out
    for delegating in (context_vector, lambda v, ids, i, w: context_vector(v, ids, i, w)):
        with pytest.raises(Delegated, match="static_vectors.context_vector"):
            check_context_vector(delegating)


@pytest.mark.parametrize("wrong, message", [
    (lambda v, ids, i, w: v[[ids[j] for j in range(len(ids)) if j != i and abs(j - i) <= w]]
     .mean(0), "own static vector"),
    (lambda v, ids, i, w: v[ids[i]] + v[[ids[j] for j in range(max(0, i - w), i + w + 1)
                                        if j < len(ids)]].mean(0), "includes the word itself"),
    (lambda v, ids, i, w: v[ids[i]] + v[ids[max(0, i - w): i]].mean(0), "NaN"),  # left only
])
def test_check_context_vector_rejects_wrong_functions(wrong, message):
    with pytest.raises(CheckFailed, match=message):
        check_context_vector(wrong)


def _analogy_by(vectors, words, a, b, c, exclude=True):
    """3CosAdd, the query words left out unless ``exclude`` is False."""
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    rows = [words.index(w) for w in (a, b, c)]
    query = np.array([-1.0, 1.0, 1.0]) @ unit[rows]  # b - a + c
    scores = cosine_similarity(vectors, query[None, :])
    if exclude:
        scores[rows] = -np.inf
    return words[int(np.argmax(scores))]


def test_check_analogy_refuses_the_package_method():
    with pytest.raises(Delegated, match="StaticVectors.analogy"):
        check_analogy(lambda v, words, a, b, c:
                      StaticVectors(words, v).analogy(a, b, c, k=1)[0][0])
    with pytest.raises(Delegated, match="StaticVectors.analogy_scores"):
        check_analogy(lambda v, words, a, b, c:
                      words[int(np.argmax(StaticVectors(words, v).analogy_scores(a, b, c)))])


@pytest.mark.parametrize("wrong, message", [
    (lambda *args: _analogy_by(*args, exclude=False), "one of the query words"),
    (lambda v, words, a, b, c: "apple" if "apple" in words else "a", "expected 'queen'"),
])
def test_check_analogy_rejects_wrong_functions(wrong, message):
    with pytest.raises(CheckFailed, match=message):
        check_analogy(wrong)
