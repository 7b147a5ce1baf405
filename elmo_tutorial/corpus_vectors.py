r"""The baseline's word vectors: static vectors learned from the biLM's own training text.

To measure what ELMo adds to a task model, the model without ELMo needs the best token vectors
that do *not* use context, learned from the *same text* as the biLM: then a gain of the ELMo
model is a gain of context, not of more or other data. The paper's baselines use GloVe
(Peters et al. 2018, Sec. 4), learned by counting co-occurrences; so do we, with the count
method of :mod:`elmo_tutorial.static_vectors` (PPMI, then a truncated SVD), made to scale to a
corpus of millions of words:

- the co-occurrence matrix is **sparse**: a 30,000-word vocabulary has 9·10⁸ cells but only a
  few million pairs ever occur within ``window`` tokens of each other;
- the SVD is randomized (``torch.svd_lowrank`` on the sparse PPMI matrix, Halko et al. 2011);
- the result is **cached** on disk (``$ELMO_TUTORIAL_CACHE/static_vectors``) under a key made
  of the corpus's name and the settings, so it is computed once per corpus (the corpora of
  :func:`~elmo_tutorial.corpora.load_sentences` are fixed; delete the file if one changes).

.. math::
    \mathrm{PPMI}(w, c) = \max\Bigl(0,\ \log \frac{\#(w,c)\, \sum_{c'} \#(c')^{α}}
                                  {\#(w)\, \#(c)^{α}}\Bigr), \qquad
    E = U_d \Sigma_d^{1/2}

Words are lower-cased; words seen fewer than ``min_count`` times get no vector (the task model
gives them a learned ``<UNK>`` vector).

Example:
    >>> sv = sparse_static_vectors([["a", "b", "c"], ["a", "c", "b"]], dim=2, window=1,
    ...                            min_count=1)
    >>> sv.vectors.shape, sv.words[:2]
    ((3, 2), ['a', 'b'])
"""

from __future__ import annotations

import hashlib
import io
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch

from .static_vectors import StaticVectors

__all__ = ["corpus_vectors", "sparse_static_vectors"]

FORMAT = 1  # bump when the counting changes: old cache files then miss instead of misread


def _sparse_counts(sentences: Sequence[Sequence[str]], index: dict[str, int], window: int
                   ) -> torch.Tensor:
    """Symmetric co-occurrence counts within ``window`` tokens, a sparse ``(V, V)`` tensor."""
    flat = []
    for sentence in sentences:  # -1 between sentences: no window crosses a boundary
        flat.extend(index.get(t.lower(), -2) for t in sentence)
        flat.extend([-1] * window)
    ids = np.asarray(flat, dtype=np.int64)  # (N,)
    V = len(index)
    pairs = []
    for d in range(1, window + 1):
        left, right = ids[:-d], ids[d:]
        keep = (left >= 0) & (right >= 0)
        pairs.append(left[keep] * V + right[keep])
        pairs.append(right[keep] * V + left[keep])  # both directions: the matrix is symmetric
    cells, counts = np.unique(np.concatenate(pairs), return_counts=True)  # (nnz,) each
    indices = torch.from_numpy(np.stack([cells // V, cells % V]))  # (2, nnz)
    return torch.sparse_coo_tensor(indices, torch.from_numpy(counts).double(), (V, V),
                                   check_invariants=True).coalesce()


def _sparse_ppmi(counts: torch.Tensor, alpha: float) -> torch.Tensor:
    """PPMI of the non-zero cells of a sparse ``(V, V)`` count matrix (zero cells stay zero)."""
    rows, cols = counts.indices()
    values = counts.values()  # (nnz,)
    word_totals = torch.zeros(counts.shape[0], dtype=torch.float64).index_add_(0, rows, values)
    context = torch.zeros(counts.shape[1], dtype=torch.float64).index_add_(0, cols, values)
    context = context.pow(alpha)  # (V,): smoothed context counts
    pmi = torch.log(values * context.sum() / (word_totals[rows] * context[cols]))  # (nnz,)
    keep = pmi > 0
    return torch.sparse_coo_tensor(counts.indices()[:, keep], pmi[keep], counts.shape,
                                   check_invariants=True).coalesce()


def sparse_static_vectors(sentences: Sequence[Sequence[str]], dim: int = 100, window: int = 4,
                          min_count: int = 5, alpha: float = 0.75) -> StaticVectors:
    """Count → PPMI → randomized truncated SVD, sparse throughout (see the module docstring).

    Vocabulary: lower-cased words seen at least ``min_count`` times, most frequent first.
    """
    freq = Counter(t.lower() for s in sentences for t in s)
    words = sorted((w for w, n in freq.items() if n >= min_count), key=lambda w: (-freq[w], w))
    if len(words) < 2:
        raise ValueError(f"only {len(words)} word(s) occur at least min_count={min_count} times; "
                         "give more text or a lower min_count")
    matrix = _sparse_ppmi(_sparse_counts(sentences, {w: i for i, w in enumerate(words)}, window),
                          alpha)
    dim = min(dim, len(words) - 1)
    state = torch.random.get_rng_state()
    torch.manual_seed(0)  # the random start of the SVD: same text, same vectors
    try:
        u, s, _ = torch.svd_lowrank(matrix, q=min(dim + 10, len(words)), niter=4)  # (V, q), (q,)
    finally:
        torch.random.set_rng_state(state)
    u, s = u[:, :dim].numpy(), s[:dim].numpy()
    signs = np.sign(u[np.abs(u).argmax(0), np.arange(dim)])  # largest entry positive: reproducible
    return StaticVectors(words, (u * signs * np.sqrt(s)).astype(np.float32))  # (V, dim)


def corpus_vectors(corpus: str = "english_mix", dim: int = 100, window: int = 4,
                   min_count: int = 5, directory: str | Path | None = None) -> StaticVectors:
    """:func:`sparse_static_vectors` of a corpus's ``train`` split, cached on disk.

    The first call reads the corpus (english_mix: 4.7 M words, about a minute on a laptop CPU)
    and counts; later calls load a ``.npz`` of a few MB.

    Args:
        corpus: a name :func:`~elmo_tutorial.corpora.load_sentences` knows (``"english_mix"``
            for the shipped small biLM, ``"embedded"`` for the tiny one).
        directory: where the cache lives; default ``downloads.cache_dir() / "static_vectors"``.
    """
    from .corpora import load_sentences
    from .downloads import cache_dir
    from .safe_files import atomic_write, remove_stale_temporaries

    folder = Path(directory) if directory is not None else cache_dir() / "static_vectors"
    key = hashlib.sha256(f"{FORMAT}|{corpus}|{dim}|{window}|{min_count}".encode()).hexdigest()
    path = folder / f"{corpus}-{key[:24]}.npz"
    if path.exists():
        with np.load(path) as stored:
            return StaticVectors([str(w) for w in stored["words"]], stored["vectors"])
    vectors = sparse_static_vectors(load_sentences(corpus, "train"), dim=dim, window=window,
                                    min_count=min_count)

    def write(tmp: str) -> None:
        buffer = io.BytesIO()
        np.savez(buffer, words=np.array(vectors.words), vectors=vectors.vectors)
        Path(tmp).write_bytes(buffer.getvalue())

    atomic_write(path, write)
    remove_stale_temporaries(folder)  # of earlier runs that were killed while writing
    return vectors
