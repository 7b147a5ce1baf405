"""Notebook 08's self-check accepts a right sense score and explains wrong ones."""

import numpy as np
import pytest

from elmo_tutorial import checks
from elmo_tutorial.analysis import nearest_centroid_accuracy


def written_out(vectors, labels):
    """The answer the notebook's solution block gives, loop by loop."""
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    senses, right = sorted(set(labels)), 0
    for i, label in enumerate(labels):
        best, best_sim = None, -np.inf
        for sense in senses:
            others = [unit[j] for j in range(len(labels)) if j != i and labels[j] == sense]
            centroid = np.mean(others, axis=0)
            sim = unit[i] @ centroid / np.linalg.norm(centroid)
            if sim > best_sim:
                best, best_sim = sense, sim
        right += best == label
    return right / len(labels)


def package(vectors, labels):
    return nearest_centroid_accuracy(vectors, labels, centre=False)


def keeps_itself(vectors, labels):
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    senses = sorted(set(labels))
    centroids = np.stack([unit[[lab == s for lab in labels]].mean(0) for s in senses])
    centroids /= np.linalg.norm(centroids, axis=1, keepdims=True)
    return np.mean([senses[int(np.argmax(centroids @ u))] == lab
                    for u, lab in zip(unit, labels, strict=True)])


def euclidean(vectors, labels):
    senses, right = sorted(set(labels)), 0
    for i, label in enumerate(labels):
        means = [vectors[[j for j in range(len(labels)) if j != i and labels[j] == s]].mean(0)
                 for s in senses]
        right += senses[int(np.argmin([np.linalg.norm(vectors[i] - m) for m in means]))] == label
    return right / len(labels)


def counts_instead_of_fraction(vectors, labels):
    return package(vectors, labels) * len(labels)


def without_unit_vectors(vectors, labels):
    senses, right = sorted(set(labels)), 0
    for i, label in enumerate(labels):
        means = [vectors[[j for j in range(len(labels)) if j != i and labels[j] == s]].mean(0)
                 for s in senses]
        sims = [vectors[i] @ m / np.linalg.norm(m) for m in means]
        right += senses[int(np.argmax(sims))] == label
    return right / len(labels)


@pytest.mark.parametrize("answer", [written_out, package])
def test_check_accepts_right_answers(answer, capsys):
    checks.check_nearest_centroid_accuracy(answer)
    assert "✓" in capsys.readouterr().out


@pytest.mark.parametrize(("answer", "hint"), [
    (keeps_itself, "still in its own sense's centroid"),
    (euclidean, "Euclidean"),
    (counts_instead_of_fraction, "not their number"),
    (without_unit_vectors, "expected"),
])
def test_check_rejects_wrong_answers_with_a_hint(answer, hint):
    with pytest.raises(checks.CheckFailed, match=hint):
        checks.check_nearest_centroid_accuracy(answer)
