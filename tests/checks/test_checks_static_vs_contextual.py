"""Notebook 00's analogy check: 3CosAdd with lengths removed and the query words left out."""

import numpy as np
import pytest

from elmo_tutorial import checks


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
