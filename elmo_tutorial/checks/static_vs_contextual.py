"""Self-checks for notebook 00 (static vs contextual vectors): analogies and the window average."""

from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np

from elmo_tutorial.analyses.static_vectors import StaticVectors, context_vector
from elmo_tutorial.checks._core import CheckFailed, assert_close, check, forbidding, not_none

__all__ = ["check_analogy", "check_context_vector"]


def _cases(rng: np.random.Generator):
    """(ids, index, window) triples: sentence edges, random sentences, then one word alone."""
    yield [1, 2, 3, 4, 5], 0, 2  # the first word: right neighbours only
    yield [1, 2, 3, 4, 5], 4, 2  # the last word: left neighbours only
    yield [5, 5, 2, 7], 1, 10  # a window wider than the sentence; a repeated word
    for _ in range(6):
        n = int(rng.integers(2, 15))
        yield rng.integers(0, 12, size=n).tolist(), int(rng.integers(0, n)), int(rng.integers(1, 6))
    yield [3], 0, 2  # a one-word sentence: no neighbours at all


@check
def check_context_vector(fn: Callable[[np.ndarray, list[int], int, int], np.ndarray]) -> str:
    """``fn(vectors, ids, index, window)`` must return ``e[ids[index]]`` plus the mean of
    ``e[ids[j]]`` over the positions ``j ≠ index`` with ``|j - index| ≤ window``, as
    :func:`elmo_tutorial.analyses.static_vectors.context_vector` (``side="both"``)."""
    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(12, 5))
    for ids, index, window in _cases(rng):
        expected = context_vector(vectors, ids, index, window)
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore", RuntimeWarning)  # NaN is diagnosed below
                with forbidding(fn, context_vector, instead=(
                        "add the word's own row of the table to the mean of its neighbours' "
                        "rows yourself")):
                    got = fn(vectors.copy(), list(ids), index, window)
        except (IndexError, ZeroDivisionError, ValueError) as error:
            raise CheckFailed(
                f"context_vector raised {type(error).__name__}: {error} for ids={ids}, "
                f"index={index}, window={window}. Clip the window to the sentence "
                "(positions 0 .. len(ids) - 1) and return the word's own vector when it "
                "has no neighbours.") from None
        not_none(got, "context_vector", "the vector x_t, an array of shape (D,)")
        try:
            got = np.asarray(got, dtype=np.float64)
        except (TypeError, ValueError):
            raise CheckFailed(f"context_vector returned {type(got).__name__}: return the "
                              "vector x_t, an array of shape (D,).") from None
        if got.shape != expected.shape:
            raise CheckFailed(
                f"context_vector(vectors, {ids}, index={index}, window={window}) returned "
                f"shape {got.shape}, expected {expected.shape}: one vector as wide as a row of "
                "the table.")
        if not np.isfinite(got).all():
            raise CheckFailed(
                f"context_vector returned NaN or inf for ids={ids}, index={index}, "
                f"window={window}: the mean of an empty list. With no neighbours, return the "
                "word's own vector.")
        context = [j for j in range(len(ids)) if j != index and abs(j - index) <= window]
        if context and np.allclose(got, vectors[[ids[j] for j in context]].mean(0)):
            raise CheckFailed("You returned only the mean of the neighbours: add the word's "
                              "own static vector e[ids[index]].")
        with_self = vectors[[ids[j] for j in range(len(ids)) if abs(j - index) <= window]]
        if context and np.allclose(got, vectors[ids[index]] + with_self.mean(0)):
            raise CheckFailed("The mean includes the word itself: average over the neighbours "
                              "only (j ≠ index).")
        assert_close(got, expected, f"context_vector(vectors, {ids}, index={index}, "
                     f"window={window})", atol=1e-6, hint=(
                         "x = e[ids[index]] + mean of e[ids[j]] for j in "
                         "[index - window, index + window] ∩ [0, len(ids)), j ≠ index."))
    return ("context_vector agrees with elmo_tutorial.analyses.static_vectors.context_vector "
            "(edges, wide windows, one-word sentences)")


def _analogy_tables():
    """(name, words, vectors, query, answer) cases whose right answer is known by construction.

    Axes (royal, female, person): queen = king - man + woman. *crown*, near king's direction,
    wins when lengths are not removed; *king* or *woman* when the query words are not excluded.
    """
    words = ["man", "woman", "king", "queen", "crown", "apple"]
    base = np.array([[0, 0, 1], [0, 1, 1], [1, 0, 1], [1, 1, 1], [1, 0, 0.8], [0.1, 0.1, 0]],
                    dtype=np.float64)
    query = ("man", "king", "woman")
    yield "unit-length-free table", words, base, query, "queen"
    long_king = base.copy()
    long_king[2] *= 30.0  # a frequent word often has a long vector
    yield "a table where king is 30 times longer", words, long_king, query, "queen"
    long_crown = base.copy()
    long_crown[4] *= 30.0  # a long *candidate*: plain dot products pick it, cosines do not
    yield "a table where crown is 30 times longer", words, long_crown, query, "queen"
    near = np.array([[1, 0], [0, 1], [1, 0.01], [1, 1]], dtype=np.float64)
    yield "a table where b - a + c is almost b", ["a", "b", "c", "d"], near, ("a", "b", "c"), "d"


@check
def check_analogy(fn: Callable[[np.ndarray, list[str], str, str, str], str]) -> str:
    """``fn(vectors, words, a, b, c)`` must return the 3CosAdd answer to "a is to b as c is to
    ?", as :meth:`elmo_tutorial.analyses.static_vectors.StaticVectors.analogy`: the word ``x``
    not in ``{a, b, c}`` with the largest ``cos(x, b) - cos(x, a) + cos(x, c)``."""
    for name, words, vectors, (a, b, c), answer in _analogy_tables():
        expected = StaticVectors(words, vectors).analogy(a, b, c, k=1)[0][0]
        assert expected == answer, "the constructed example must have its constructed answer"
        with forbidding(fn, (StaticVectors, "analogy"), (StaticVectors, "analogy_scores"),
                        (StaticVectors, "analogy_rank"), instead=(
                            "score every candidate word yourself and return the best one")):
            got = fn(vectors.copy(), list(words), a, b, c)
        not_none(got, "analogy", "the answer, one word (a string)")
        if got in (a, b, c):
            raise CheckFailed(
                f"On {name}, your answer to {a} : {b} :: {c} : ? is {got!r}, one of the query "
                "words. b - a + c is usually nearest to b or c themselves; leave a, b and c "
                "out of the candidates.")
        if got != expected:
            hint = ("divide every vector by its length first (cosines, not dot products): "
                    "a long vector would otherwise pull b - a + c towards itself."
                    if "longer" in name else
                    "score every word x by cos(x, b) - cos(x, a) + cos(x, c) (or the cosine "
                    "of x with b̂ - â + ĉ, unit vectors) and return the best one.")
            raise CheckFailed(f"On {name}, your answer to {a} : {b} :: {c} : ? is {got!r}; "
                              f"expected {expected!r}. Hint: {hint}")
    return "analogy agrees with StaticVectors.analogy (query words excluded, lengths removed)"
