"""What a biLM's layers know about a word in context: projections, similarities, sense scores.

Taught in notebook 08 (``08_contextual_embeddings``).

Which layer tells the senses of a word apart (Peters et al. 2018, Sec. 5.3)? Tools on the
``Embedder``'s ``(L + 1, T, 2P)`` arrays: the ELMo mix, 2-D pictures, how well senses separate,
the occurrences to score (chosen by a rule, not by hand) and notebook 00's static baselines.

Example:
    >>> x = np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.1, 0.9]])
    >>> float(nearest_centroid_accuracy(x, ["a", "a", "b", "b"], centre=False))
    1.0
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable, Hashable, Sequence
from typing import NamedTuple

import numpy as np
import torch

from elmo_tutorial.analyses.static_vectors import StaticVectors
from elmo_tutorial.analyses.wsd import split_words
from elmo_tutorial.data.sense_corpus import SenseExample

__all__ = ["PCA", "balanced_sample", "cosine_matrix", "example_vectors", "mix_layers",
           "nearest_centroid_accuracy", "nearest_neighbour_agreement", "pca", "sense_separation",
           "static_example_vectors", "wsd_examples"]

TIE_TOLERANCE = 1e-9  # cosines closer than this to the best one count as a tie


def mix_layers(layers: np.ndarray, scalar_mix: torch.nn.Module | None = None) -> np.ndarray:
    """The ELMo vector of stacked layers ``(L + 1, ..., D)`` → ``(..., D)``: ``γ Σ_j s_j h_j``
    (Eq. 1) with a ``ScalarMix`` (with layer norm: over all the given positions), or equal
    weights and ``γ = 1`` for ``None`` (what a freshly loaded ``ELMo`` holds)."""
    layers = np.asarray(layers)
    if scalar_mix is None:
        return layers.mean(axis=0)
    with torch.no_grad():
        tensors = [torch.from_numpy(np.ascontiguousarray(h)).float() for h in layers]
        mask = torch.ones(tensors[0].shape[:-1], dtype=torch.bool)
        return scalar_mix(tensors, mask).numpy()  # (..., D)


class PCA(NamedTuple):
    """``coords (N, k)`` = centred vectors @ ``components.T``; ``explained (k,)``: the share
    of the total variance along each component."""

    coords: np.ndarray
    components: np.ndarray
    explained: np.ndarray


def pca(vectors: np.ndarray, k: int = 2) -> PCA:
    """Principal components of ``(N, D)`` vectors: the first ``k`` rows of ``Vᵀ`` in
    ``X - x̄ = U Σ Vᵀ``, signs fixed (largest entry positive) so pictures do not flip."""
    x = np.asarray(vectors, dtype=np.float64)
    if x.ndim != 2 or not 1 <= k <= min(x.shape):
        raise ValueError(f"pca needs (N, D) vectors and 1 ≤ k ≤ min(N, D), got {x.shape}, k={k}")
    centred = x - x.mean(0)
    _, s, vt = np.linalg.svd(centred, full_matrices=False)
    components = vt[:k] * np.sign(vt[:k][np.arange(k), np.abs(vt[:k]).argmax(1)])[:, None]
    variance = s**2
    return PCA(centred @ components.T, components, variance[:k] / max(variance.sum(), 1e-300))


def _unit(x: np.ndarray) -> np.ndarray:
    """Rows scaled to length 1; zero rows stay zero (their cosine with anything is 0)."""
    norms = np.linalg.norm(x, axis=-1, keepdims=True)
    return x / np.where(norms > 0, norms, 1.0)


def cosine_matrix(a: np.ndarray, b: np.ndarray | None = None) -> np.ndarray:
    """All cosine similarities between the rows of ``a (N, D)`` and ``b (M, D)`` → ``(N, M)``."""
    a = _unit(np.asarray(a, dtype=np.float64))
    return a @ (a if b is None else _unit(np.asarray(b, dtype=np.float64))).T


def nearest_centroid_accuracy(vectors: np.ndarray, labels: Sequence[Hashable],
                              centre: bool = True) -> float:
    """Leave-one-out nearest-centroid accuracy of ``labels`` by cosine similarity.

    Each of the ``(N, D)`` vectors is held out in turn and classified to the nearest centroid
    of the others' unit vectors. A tie between ``m`` centroids (within 1e-9) counts ``1/m`` if
    the right one is among them: identical vectors score chance, not 100%. ``labels``: ≥ 2,
    each with ≥ 2 occurrences. ``centre``: subtract the mean vector first; the occurrences of a
    word share a large common part, and what is left varies with the context, as senses do.
    """
    x = np.asarray(vectors, dtype=np.float64)
    names, y = np.unique(np.asarray(labels, dtype=object).astype(str), return_inverse=True)
    counts = np.bincount(y, minlength=len(names))  # (K,)
    if x.ndim != 2 or len(x) != len(y):
        raise ValueError(f"need one label per row of (N, D) vectors, got {x.shape}, {len(y)}")
    if len(names) < 2 or counts.min() < 2:
        found = dict(zip(names.tolist(), counts.tolist(), strict=True))
        raise ValueError(f"need ≥ 2 labels with ≥ 2 occurrences each, got {found}")
    if centre:
        x = x - x.mean(0)
    x = _unit(x)  # (N, D)
    onehot = np.eye(len(names))[y]  # (N, K)
    sums = onehot.T @ x  # (K, D): sum of each label's unit vectors
    # Centroids without the held-out vector: (N, K, D), its own label's sum minus itself.
    centroids = (sums[None] - onehot[:, :, None] * x[:, None, :]) / (counts - onehot)[:, :, None]
    sims = np.einsum("nkd,nd->nk", _unit(centroids), x)  # (N, K) cosines
    tied = sims >= sims.max(1, keepdims=True) - TIE_TOLERANCE  # (N, K)
    return float((tied[np.arange(len(y)), y] / tied.sum(1)).mean())


def nearest_neighbour_agreement(vectors: np.ndarray, labels: Sequence[Hashable]) -> float:
    """How often the nearest other vector (cosine) has the same label, ``(N, D)`` → ``[0, 1]``;
    ``m`` equally near vectors count ``1/m`` each (identical vectors: no artefact of order)."""
    labels = np.asarray(labels, dtype=object)
    if len(labels) < 2 or len(labels) != len(vectors):
        raise ValueError(f"need ≥ 2 vectors with one label each, got {np.shape(vectors)}, "
                         f"{len(labels)} labels")
    sims = cosine_matrix(vectors)  # (N, N)
    np.fill_diagonal(sims, -np.inf)
    tied = sims >= sims.max(1, keepdims=True) - TIE_TOLERANCE  # (N, N)
    same = labels[:, None] == labels[None, :]
    return float(((tied & same).sum(1) / tied.sum(1)).mean())


def sense_separation(vectors: np.ndarray, words: Sequence[Hashable], senses: Sequence[Hashable],
                     centre: bool = True) -> dict[Hashable, float]:
    """:func:`nearest_centroid_accuracy` word by word: ``{word: accuracy}``."""
    rows = defaultdict(list)
    for i, word in enumerate(words):
        rows[word].append(i)
    return {word: nearest_centroid_accuracy(vectors[r], [senses[i] for i in r], centre)
            for word, r in rows.items()}


def balanced_sample(examples: Sequence, per_sense: int, max_words: int | None = None,
                    min_senses: int = 2, seed: int = 0,
                    key: Callable = lambda e: e.word) -> list:
    """The occurrences to score, chosen by a rule: no hand-picked words.

    Every word (``key(example)``) with ≥ ``min_senses`` senses of ≥ ``per_sense`` occurrences:
    ``per_sense`` random occurrences of each (of ``max_words`` random such words), grouped by
    word and sense, in a fixed order for a given ``seed``.
    """
    if per_sense < 2:
        raise ValueError(f"per_sense must be ≥ 2 (one is held out), got {per_sense}")
    groups: dict = defaultdict(lambda: defaultdict(list))
    for e in examples:
        groups[key(e)][e.sense].append(e)
    qualifying = {w: sorted(s for s, occ in senses.items() if len(occ) >= per_sense)
                  for w, senses in groups.items()}
    words = sorted((w for w, s in qualifying.items() if len(s) >= min_senses), key=str)
    rng = random.Random(seed)
    if max_words is not None and len(words) > max_words:
        words = sorted(rng.sample(words, max_words), key=str)
    return [e for w in words for s in qualifying[w] for e in rng.sample(groups[w][s], per_sense)]


def wsd_examples(sentences: Sequence[dict]) -> list[SenseExample]:
    """Sense-tagged sentences (``wsd_framework`` dicts) → one ``SenseExample`` per instance.

    Multiword tokens are split into words (:func:`elmo_tutorial.analyses.wsd.split_words`);
    multiword instances and those with several gold keys are left out. ``word`` is the lemma,
    ``sense`` the WordNet sense key, ``pos`` ``NOUN``, ``VERB``, ``ADJ`` or ``ADV``.
    """
    words, instances = split_words(sentences)
    return [SenseExample(words[i.sentence], i.start, i.lemma, i.keys[0], i.pos)
            for i in instances if i.end - i.start == 1 and len(i.keys) == 1]


def example_vectors(embeddings: Sequence[np.ndarray], examples: Sequence) -> np.ndarray:
    """Each example's word vector in every layer: ``(L + 1, N, 2P)``."""
    return np.stack([layers[:, e.index] for layers, e in zip(embeddings, examples, strict=True)],
                    axis=1)


def static_example_vectors(static: StaticVectors, examples: Sequence,
                           window: int | None = None) -> np.ndarray:
    """Notebook 00's baselines: the word's static vector (``window=None``) or that plus the
    mean static vector of its neighbours within ``window`` tokens.

    ``(N, D)``; an unknown target word is the zero vector, an unknown neighbour left out.
    """
    zero = np.zeros(static.vectors.shape[1])

    def vector(token: str) -> np.ndarray:
        return static[token] if token in static else zero

    rows = []
    for e in examples:
        x = vector(e.tokens[e.index])
        if window is not None:
            near = [e.tokens[j] for j in range(max(0, e.index - window),
                                               min(len(e.tokens), e.index + window + 1))
                    if j != e.index and e.tokens[j] in static]
            if near:
                x = x + np.mean([static[t] for t in near], axis=0)
        rows.append(x)
    return np.stack(rows)  # (N, D)
