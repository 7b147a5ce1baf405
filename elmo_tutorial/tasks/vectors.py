r"""The baseline's word vectors: static vectors learned from the biLM's own training text.

A gain of + ELMo over the baseline should be a gain of context, not of more or other text, so
the baseline's vectors are learned from the *same text* as the biLM, by counting, as GloVe's
are in the paper (Sec. 4): PPMI, then a randomized truncated SVD (``torch.svd_lowrank``), sparse
throughout (a 30,000-word vocabulary has 9·10⁸ cells, of which a few million ever occur).

.. math::
    \mathrm{PPMI}(w, c) = \max\Bigl(0,\ \log \frac{\#(w,c)\, \sum_{c'} \#(c')^{α}}
                                  {\#(w)\, \#(c)^{α}}\Bigr), \qquad
    E = U_d \Sigma_d^{1/2}

Words are lower-cased; words seen fewer than ``min_count`` times share the task model's learned
``<UNK>``. The vectors are cached under their recipe (:func:`word_vectors_recipe`). A report
writes the rows of its tasks' words beside it (:func:`write_task_vectors`), which
:func:`task_word_vectors` reads back: notebook 12 starts in a second, not a minute.

Example:
    >>> sv = sparse_static_vectors([["a", "b", "c"], ["a", "c", "b"]], dim=2, window=1,
    ...                            min_count=1)
    >>> sv.vectors.shape, sv.words[:2]
    ((3, 2), ['a', 'b'])
"""

from __future__ import annotations

import hashlib
import io
import json
import warnings
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch
from safetensors import safe_open
from safetensors.torch import save

from elmo_tutorial.analyses.embedding_cache import sentences_checksum
from elmo_tutorial.analyses.static_vectors import StaticVectors
from elmo_tutorial.data.corpora import load_sentences
from elmo_tutorial.data.downloads import cache_dir
from elmo_tutorial.files.safe_files import (
    atomic_write_bytes,
    check_sha256sums,
    read_sha256sums,
    write_sha256sums,
)
from elmo_tutorial.tasks.registry import TASKS, read_task
from elmo_tutorial.training.checkpoints import check_weights
from elmo_tutorial.training.run_folder import read_run_config

__all__ = ["VECTORS_FILE", "sparse_static_vectors", "task_word_vectors", "task_words",
           "trained_on", "word_vectors", "word_vectors_recipe", "write_task_vectors"]

FORMAT = 2  # bump when the counting changes: old cache files then miss instead of misread
WINDOW = 4
VECTORS_FILE = "baseline_vectors.safetensors"
_text_checksums: dict[str, str] = {}  # corpus → sha256 of its train text: read once a process


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


def sparse_static_vectors(sentences: Sequence[Sequence[str]], dim: int = 100,
                          window: int = WINDOW, min_count: int = 5,
                          alpha: float = 0.75) -> StaticVectors:
    """Count → PPMI → randomized truncated SVD (the module docstring); the vocabulary: the
    lower-cased words seen at least ``min_count`` times, most frequent first."""
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


def _min_count(corpus: str) -> int:
    return 1 if corpus == "embedded" else 5  # the embedded corpus is too small to leave words out


def word_vectors_recipe(corpus: str, dim: int = 100,
                        sentences: Sequence[Sequence[str]] | None = None) -> dict:
    """What :func:`word_vectors` computes its vectors from: the counting's format, the
    settings and the sha256 of the corpus's ``train`` sentences (read unless given).

    Two computations of one recipe agree to float rounding only (the SVD's sparse sums follow
    the threads), so a runs file names the vectors by this recipe, never by their bytes.

    Example:
        >>> recipe = word_vectors_recipe("embedded")
        >>> recipe["corpus"], recipe["dim"], recipe["min_count"], len(recipe["sentences"])
        ('embedded', 100, 1, 64)
    """
    if corpus not in _text_checksums:
        text = sentences if sentences is not None else load_sentences(corpus, "train")
        _text_checksums[corpus] = sentences_checksum(text)
    return {"format": FORMAT, "corpus": corpus, "dim": dim, "window": WINDOW,
            "min_count": _min_count(corpus), "sentences": _text_checksums[corpus]}


def word_vectors(corpus: str, dim: int = 100) -> tuple[torch.Tensor, dict[str, int]]:
    """The baseline's static vectors from ``corpus``'s ``train`` split: ``(V + 1, dim)`` (row 0:
    ``<UNK>``, zeros) scaled to unit variance, and ``{word: row}``; computed once (english_mix:
    about a minute), then read from ``$ELMO_TUTORIAL_CACHE/static_vectors``."""
    sentences = None if corpus in _text_checksums else load_sentences(corpus, "train")
    recipe = word_vectors_recipe(corpus, dim, sentences)
    key = hashlib.sha256(json.dumps(recipe, sort_keys=True).encode()).hexdigest()
    path = cache_dir() / "static_vectors" / f"{corpus}-{key[:24]}.npz"
    if path.exists():
        with np.load(path, allow_pickle=False) as stored:
            static = StaticVectors([str(w) for w in stored["words"]], stored["vectors"])
    else:
        sentences = sentences if sentences is not None else load_sentences(corpus, "train")
        static = sparse_static_vectors(sentences, dim, min_count=_min_count(corpus))
        buffer = io.BytesIO()
        np.savez(buffer, words=np.array(static.words), vectors=static.vectors)
        atomic_write_bytes(path, buffer.getvalue())
    vectors = torch.from_numpy(np.asarray(static.vectors, dtype=np.float32))  # (V, dim)
    vectors = vectors / vectors.std()  # the scale of a usual embedding initialisation
    table = torch.cat([torch.zeros(1, vectors.shape[1]), vectors])  # (V + 1, dim)
    return table, {w: i for i, w in enumerate(static.words, start=1)}


def trained_on(model: str | Path) -> str:
    """The corpus a run folder's biLM was trained on (its ``config.json``), else
    ``english_mix`` (the shipped small biLM's)."""
    if not (Path(model) / "config.json").is_file():
        return "english_mix"
    return read_run_config(model)[1].get("corpus") or "english_mix"


def task_words(tasks: Sequence[str] = tuple(TASKS)) -> set[str]:
    """Every lower-cased token of every split of ``tasks`` (what the task models look up)."""
    return {token.lower() for task in tasks for pairs in read_task(task).values()
            for tokens, _ in pairs for token in tokens}


def _covers(tasks: Sequence[str]) -> set[str]:
    """The tasks whose words ``tasks`` hold (SST-5's phrases are spans of its sentences)."""
    return {TASKS[t].words_of or t if t in TASKS else t for t in tasks}


def write_task_vectors(folder: str | Path, corpus: str,
                       tasks: Sequence[str] = tuple(TASKS)) -> Path:
    """Write the rows of :func:`word_vectors` ``(corpus)`` for the words of ``tasks``, bit for
    bit (row 0 stays the zero ``<UNK>`` row), to ``folder/baseline_vectors.safetensors``; a
    ``SHA256SUMS`` in ``folder`` lists it too."""
    full, index = word_vectors(corpus)  # (V + 1, dim), {word: row}
    words = sorted(task_words(tasks) & index.keys())
    table = full[[0, *(index[w] for w in words)]].contiguous()  # (len(words) + 1, dim)
    metadata = {"format": "1", "corpus": corpus, "tasks": ",".join(tasks),
                "words": json.dumps(words, ensure_ascii=False)}
    path = Path(folder) / VECTORS_FILE
    atomic_write_bytes(path, save({"vectors": table}, metadata=metadata))
    listed = read_sha256sums(folder)
    if listed:  # a shipped or exported folder: its sums vouch for the new file too
        write_sha256sums(folder, sorted({*listed, VECTORS_FILE}))
    return path


def task_word_vectors(run_dir: str | Path, tasks: Sequence[str] = tuple(TASKS)
                      ) -> tuple[torch.Tensor, dict[str, int]]:
    """The baseline's ``(V + 1, dim)`` vectors (row 0: ``<UNK>``) and ``{word: row}`` for
    task models of ``tasks`` over the biLM in ``run_dir``: read from its
    ``baseline_vectors.safetensors`` when that covers ``tasks`` (checked against the folder's
    ``SHA256SUMS``, finite), else computed by :func:`word_vectors` from its corpus."""
    path = Path(run_dir) / VECTORS_FILE
    if not path.exists():
        return word_vectors(trained_on(run_dir))
    check_sha256sums(run_dir, [VECTORS_FILE])
    with safe_open(path, "pt") as f:
        metadata, table = f.metadata(), f.get_tensor("vectors")
    words = json.loads(metadata["words"])
    check_weights(path, {"vectors": table})  # floating point and finite
    if table.shape[0] != len(words) + 1:
        raise ValueError(f"{path}: {table.shape[0]} rows for {len(words)} words and <UNK>")
    missing = _covers(tasks) - _covers(metadata["tasks"].split(","))
    if missing:  # written by a report of other tasks: its words are not all there
        warnings.warn(f"{path} has no vectors for the words of {', '.join(sorted(missing))}; "
                      "computing the vectors from the corpus", stacklevel=2)
        return word_vectors(metadata["corpus"])
    return table, {w: i for i, w in enumerate(words, start=1)}
