"""Static word vectors from co-occurrence counts, and a first context-dependent vector.

Taught in notebook 00 (``00_static_vs_contextual``).

The baseline ELMo improves on (Peters et al. 2018, Sec. 1): one vector per word *type*, built
the count-based way (Levy, Goldberg & Dagan 2015), with no training loop:

1. count how often ``w`` and ``c`` occur within ``window`` tokens in a sentence: ``#(w, c)``;
2. positive pointwise mutual information with context smoothing ``α`` (0.75 as in word2vec):

   .. math::
       \\mathrm{PPMI}(w, c) = \\max\\Bigl(0,\\ \\log \\frac{\\#(w,c)\\, \\sum_{c'} \\#(c')^α}
                                     {\\#(w)\\, \\#(c)^α}\\Bigr)

3. a truncated SVD ``PPMI ≈ U Σ Vᵀ`` keeps ``d`` dimensions: the vectors are ``U_d Σ_d^{1/2}``.

Every occurrence of *bank* then gets the same vector; :func:`context_vector` lets context in.

Example:
    >>> sv = StaticVectors.from_sentences([["a", "b", "c"], ["a", "c"]], dim=2, window=1)
    >>> sv["a"].shape
    (2,)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np


def cosine_similarity(a: np.ndarray, b: np.ndarray, eps: float = 1e-12) -> np.ndarray:
    """Cosine of the angle between ``a`` and ``b`` along the last axis: ``(..., D)``
    broadcastable → ``(...)``."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    norms = np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1)
    return (a * b).sum(-1) / np.maximum(norms, eps)


def cooccurrence_counts(sentences: Sequence[Sequence[str]], window: int = 4,
                        min_count: int = 1) -> tuple[list[str], np.ndarray]:
    """``(words, counts)``: symmetric counts ``(V, V)`` of ``words[i]`` within ``window`` tokens
    of ``words[j]`` in a sentence.

    Words are lower-cased; words seen fewer than ``min_count`` times are dropped (they still
    take up a position). Vocabulary order: descending frequency, ties alphabetical.
    """
    if window < 1:
        raise ValueError(f"window must be ≥ 1 token, got {window}")
    freq = Counter(t.lower() for s in sentences for t in s)
    words = sorted((w for w, n in freq.items() if n >= min_count), key=lambda w: (-freq[w], w))
    index = {w: i for i, w in enumerate(words)}
    # One flat array of ids with -1 between sentences, so no window crosses a boundary.
    flat = []
    for sentence in sentences:
        flat.extend(index.get(t.lower(), -2) for t in sentence)
        flat.extend([-1] * window)
    ids = np.asarray(flat, dtype=np.int64)  # (N,)
    V = len(words)
    counts = np.zeros(V * V, dtype=np.float64)  # (V * V,), flat so that bincount can fill it
    for d in range(1, window + 1):
        left, right = ids[:-d], ids[d:]
        keep = (left >= 0) & (right >= 0)
        counts += np.bincount(left[keep] * V + right[keep], minlength=V * V)
    counts = counts.reshape(V, V)  # (V, V): counts[i, j] = #(words[i] d tokens before words[j])
    return words, counts + counts.T  # count both directions: w before c and c before w


def ppmi(counts: np.ndarray, alpha: float = 0.75) -> np.ndarray:
    """Positive PMI of a ``(V, C)`` count matrix, with context counts raised to ``alpha``."""
    counts = np.asarray(counts, dtype=np.float64)
    word_totals = counts.sum(1, keepdims=True)  # (V, 1)
    context_totals = counts.sum(0, keepdims=True) ** alpha  # (1, C)
    with np.errstate(divide="ignore", invalid="ignore"):
        pmi = np.log(counts * context_totals.sum() / (word_totals * context_totals))
    return np.where(np.isfinite(pmi) & (pmi > 0), pmi, 0.0)


def svd_vectors(matrix: np.ndarray, dim: int, method: str = "full") -> np.ndarray:
    """The first ``dim`` left singular vectors scaled by ``√σ``: ``U_d Σ_d^{1/2}``, ``(V, d)``,
    signs fixed (largest entry of each column positive).

    ``method``: ``"full"``, NumPy's exact SVD, slow beyond a few thousand words;
    ``"randomized"``, ``torch.svd_lowrank`` (Halko et al. 2011), seeded, close to the exact.
    """
    if method == "full":
        u, s, _ = np.linalg.svd(matrix, full_matrices=False)
    elif method == "randomized":
        import torch

        with torch.random.fork_rng(devices=[]):  # the caller's random state is left alone
            torch.manual_seed(0)  # the random start fixes the result: same input, same vectors
            u, s, _ = torch.svd_lowrank(torch.from_numpy(np.asarray(matrix, dtype=np.float64)),
                                        q=min(dim + 10, *np.shape(matrix)), niter=4)
        u, s = u.numpy(), s.numpy()
    else:
        raise ValueError(f"method must be 'full' or 'randomized', got {method!r}")
    u, s = u[:, :dim], s[:dim]
    signs = np.sign(u[np.abs(u).argmax(0), np.arange(u.shape[1])])
    return u * signs * np.sqrt(s)  # (V, d)


def context_vector(vectors: np.ndarray, ids: Sequence[int], index: int, window: int,
                   side: str = "both") -> np.ndarray:
    """The static vector of ``ids[index]`` plus the mean static vector of its neighbours.

    .. math:: x_t = e_{w_t} + \\frac{1}{|C_t|} \\sum_{j \\in C_t} e_{w_j}

    with ``C_t`` the positions within ``window`` of ``t``: on ``side`` ``"left"`` (what a
    forward LM has read), ``"right"`` or ``"both"``; with none the mean term is zero.
    ``vectors`` ``(V, D)`` → ``(D,)``.
    """
    if side not in ("left", "right", "both"):
        raise ValueError(f"side must be 'left', 'right' or 'both', got {side!r}")
    left = range(max(0, index - window), index) if side != "right" else range(0)
    right = range(index + 1, min(len(ids), index + window + 1)) if side != "left" else range(0)
    neighbours = [ids[j] for j in (*left, *right)]
    if not neighbours:
        return vectors[ids[index]].copy()
    return vectors[ids[index]] + vectors[neighbours].mean(0)


class StaticVectors:
    """One vector per word type: ``sv[word]``, ``sv.nearest(word)``; ``words`` (lower case)
    name the rows of the ``(V, D)`` ``vectors``."""

    def __init__(self, words: Sequence[str], vectors: np.ndarray):
        self.words = list(words)
        self.vectors = np.asarray(vectors, dtype=np.float64)
        self.index = {w: i for i, w in enumerate(self.words)}

    @classmethod
    def from_sentences(cls, sentences, dim: int = 50, window: int = 4, min_count: int = 1,
                       alpha: float = 0.75, svd: str = "full") -> StaticVectors:
        """Count → PPMI → truncated SVD (``svd``: see :func:`svd_vectors`)."""
        words, counts = cooccurrence_counts(sentences, window=window, min_count=min_count)
        return cls(words, svd_vectors(ppmi(counts, alpha=alpha), dim, method=svd))

    def __len__(self) -> int:
        return len(self.words)

    def __contains__(self, word: str) -> bool:
        return word.lower() in self.index

    def __getitem__(self, word: str) -> np.ndarray:
        return self.vectors[self.row(word)]

    def row(self, word: str) -> int:
        """The row of ``word`` in ``vectors``; a KeyError that says why if it has none."""
        try:
            return self.index[word.lower()]
        except KeyError:
            raise KeyError(f"{word!r} is not in the vocabulary of {len(self)} words "
                           "(it occurred fewer than min_count times, or never)") from None

    def ids(self, tokens: Sequence[str]) -> list[int]:
        """Row ids of ``tokens``; every token must be in the vocabulary."""
        missing = [t for t in tokens if t.lower() not in self.index]
        if missing:
            raise KeyError(f"not in the vocabulary of {len(self)} words: {missing}; "
                           "drop or replace them first")
        return [self.index[t.lower()] for t in tokens]

    def nearest(self, word: str, k: int = 10) -> list[tuple[str, float]]:
        """The ``k`` words with the highest cosine similarity to ``word`` (itself excluded)."""
        sims = cosine_similarity(self.vectors, self[word][None, :])  # (V,)
        order = [i for i in np.argsort(-sims, kind="stable") if self.words[i] != word.lower()]
        return [(self.words[i], float(sims[i])) for i in order[:k]]

    def analogy_scores(self, a: str, b: str, c: str) -> np.ndarray:
        """3CosAdd scores (Mikolov et al. 2013) of every word for "``a`` is to ``b`` as ``c`` is
        to ?", ``(V,)``: ``cos(x, b) - cos(x, a) + cos(x, c)``, up to a factor the same for
        every ``x`` the cosine of ``x`` with ``b̂ - â + ĉ``. The query words get ``-inf``
        (``b - a + c`` is usually closest to ``b`` or ``c``, which would answer nothing).
        """
        rows = [self.row(word) for word in (a, b, c)]
        unit = self.vectors / np.maximum(np.linalg.norm(self.vectors, axis=1, keepdims=True),
                                         1e-12)  # (V, D)
        query = unit[rows[1]] - unit[rows[0]] + unit[rows[2]]  # (D,): b̂ - â + ĉ
        scores = unit @ query  # (V,)
        scores[rows] = -np.inf
        return scores

    def analogy(self, a: str, b: str, c: str, k: int = 5) -> list[tuple[str, float]]:
        """The ``k`` best answers to "``a`` is to ``b`` as ``c`` is to ?" (3CosAdd), best first:
        ``sv.analogy("man", "king", "woman")`` starts with ``("queen", ...)`` in good vectors."""
        scores = self.analogy_scores(a, b, c)
        order = [i for i in np.argsort(-scores, kind="stable") if np.isfinite(scores[i])]
        return [(self.words[i], float(scores[i])) for i in order[:k]]

    def analogy_rank(self, a: str, b: str, c: str, expected: str) -> int:
        """Rank (1 = first) of ``expected`` among the answers of :meth:`analogy`."""
        scores = self.analogy_scores(a, b, c)
        target = scores[self.row(expected)]
        if not np.isfinite(target):
            raise ValueError(f"the expected answer {expected!r} is one of the query words "
                             f"{(a, b, c)}; 3CosAdd never answers a query word")
        return int((scores > target).sum()) + 1
