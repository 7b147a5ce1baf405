"""Self-checks for notebook 08 (contextual embeddings): the leave-one-out sense score, and the
experiment that leaves layer 0 out of the mix."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from elmo_tutorial.analyses.sense_separation import nearest_centroid_accuracy, sense_separation
from elmo_tutorial.checks._core import CheckFailed, check, forbidding, one_number

__all__ = ["check_mix_without_layer0", "check_nearest_centroid_accuracy"]


def _cases(rng: np.random.Generator):
    """(vectors, labels): few occurrences per sense, rows of very different lengths."""
    for n_senses, per_sense, dim, spread in [(2, 3, 16, 1.0), (3, 4, 8, 0.5), (2, 6, 32, 2.0),
                                             (4, 3, 12, 1.0), (2, 10, 6, 0.3)]:
        means = rng.normal(size=(n_senses, dim)) * spread
        labels = [f"sense{k}" for k in range(n_senses) for _ in range(per_sense)]
        x = np.stack([means[int(label[5:])] + rng.normal(size=dim) for label in labels])
        x *= rng.uniform(0.1, 10.0, size=(len(x), 1))  # lengths must not matter
        order = rng.permutation(len(x))
        yield x[order], [labels[i] for i in order]


def _with_itself(x: np.ndarray, labels: Sequence[str]) -> float:
    """The common mistake: each vector stays in its own sense's centroid."""
    u = x / np.linalg.norm(x, axis=1, keepdims=True)
    names = sorted(set(labels))
    centroids = np.stack([u[[lab == n for lab in labels]].mean(0) for n in names])
    centroids /= np.linalg.norm(centroids, axis=1, keepdims=True)
    return float(np.mean([names[int(np.argmax(centroids @ v))] == lab
                          for v, lab in zip(u, labels, strict=True)]))


def _euclidean(x: np.ndarray, labels: Sequence[str]) -> float:
    """Leave-one-out, but the nearest centroid by Euclidean distance of the raw vectors."""
    names, right = sorted(set(labels)), 0
    for i, (v, lab) in enumerate(zip(x, labels, strict=True)):
        rest = [j for j in range(len(x)) if j != i]
        centroids = [x[[j for j in rest if labels[j] == n]].mean(0) for n in names]
        right += names[int(np.argmin([np.linalg.norm(v - c) for c in centroids]))] == lab
    return right / len(x)


@check
def check_nearest_centroid_accuracy(fn: Callable[[np.ndarray, list], float]) -> str:
    """``fn(vectors, labels)`` must return the leave-one-out nearest-centroid accuracy by
    cosine similarity, as :func:`elmo_tutorial.analyses.sense_separation.nearest_centroid_accuracy`
    (``centre=False``), on data where keeping a vector in its own centroid, or measuring
    Euclidean distance, gives another answer."""
    rng = np.random.default_rng(0)
    for x, labels in _cases(rng):
        expected = nearest_centroid_accuracy(x, labels, centre=False)
        with forbidding(fn, nearest_centroid_accuracy, instead=(
                "hold out each vector and build the centroids of the others yourself")):
            got = fn(x.copy(), list(labels))
        got = one_number(got, "the fraction of occurrences predicted right")
        if np.isclose(got, expected, atol=1e-9):
            continue
        if got > 1:
            raise CheckFailed(f"got {got}, more than 1: return the fraction of occurrences "
                              "predicted right, not their number.")
        if np.isclose(got, _with_itself(x, labels)):
            raise CheckFailed(f"got {got:.4f}, expected {expected:.4f}: the held-out vector is "
                              "still in its own sense's centroid, which makes every sense look "
                              "separable. Average only the *other* occurrences of its sense.")
        if np.isclose(got, _euclidean(x, labels)):
            raise CheckFailed(f"got {got:.4f}, expected {expected:.4f}: that is the Euclidean "
                              "distance to averages of raw vectors. Scale every vector to "
                              "length 1, average, and compare by cosine similarity.")
        raise CheckFailed(f"got {got:.4f}, expected {expected:.4f} on {x.shape[0]} vectors of "
                          f"{len(set(labels))} senses. Hold out each vector, average the unit "
                          "vectors of each sense's other occurrences, pick the highest cosine.")
    return ("nearest_centroid_accuracy agrees with elmo_tutorial.analyses.sense_separation "
            "(leave-one-out, cosine, vectors of any length)")


def _mean_score(vectors: np.ndarray, words: Sequence, senses: Sequence) -> float:
    return float(np.mean(list(sense_separation(vectors, words, senses).values())))


@check
def check_mix_without_layer0(scores, layers: np.ndarray, words: Sequence,
                             senses: Sequence) -> str:
    """``scores`` (a sequence or ``{word: score}``) must be what
    :func:`elmo_tutorial.analyses.sense_separation.sense_separation` gives for the mix
    ``0 · h_0 + 1/2 · h_1 + 1/2 · h_2`` of ``layers`` (3, N, D), the N occurrences of ``words``
    and ``senses``."""
    if scores is None:
        raise CheckFailed("the scores are None: score the mix with sense_separation(mix, "
                          "words, senses) and pass its values, one per word.")
    got = list(scores.values()) if isinstance(scores, dict) else list(np.ravel(scores))
    n_words = len(set(words))
    if len(got) != n_words:
        raise CheckFailed(f"got {len(got)} scores, expected one per word ({n_words}): pass "
                          "sense_separation's values, one accuracy per word.")
    mean = float(np.mean(got))
    expected = _mean_score(0.5 * layers[1] + 0.5 * layers[2], words, senses)
    if np.isclose(mean, expected, atol=1e-9):
        return (f"the mix of layers 1 and 2 scores {expected:.4f} on average over {n_words} "
                "words, as sense_separation computes it")
    wrong = {
        "the mix with layer 0 still in it (equal weights on all three layers): give layer 0 "
        "weight 0": layers.mean(axis=0),
        "layer 2 alone: keep layer 1 in the mix, with weight 1/2": layers[2],
        "layer 1 alone: keep layer 2 in the mix, with weight 1/2": layers[1],
    }
    for mistake, vectors in wrong.items():
        if np.isclose(mean, _mean_score(vectors, words, senses), atol=1e-9):
            raise CheckFailed(f"mean score {mean:.4f}, expected {expected:.4f}: that is {mistake}.")
    raise CheckFailed(f"mean score {mean:.4f}, expected {expected:.4f}. Mix the vectors as "
                      "0.5 * layers[1] + 0.5 * layers[2] (one vector per occurrence, same width), "
                      "then score the mix with sense_separation(mix, words, senses).")
