r"""The baseline's word vectors: static vectors learned from the biLM's own training text.

To measure what ELMo adds to a task model, the model without ELMo needs the best token vectors
that do *not* use context, learned from the *same text* as the biLM: then a gain of the ELMo
model is a gain of context, not of more or other data. The paper's baselines use GloVe
(Peters et al. 2018, Sec. 4), learned by counting co-occurrences; so do we, with the count
method of :mod:`elmo_tutorial.analyses.static_vectors` (PPMI, then a truncated SVD), made to scale
to a corpus of millions of words:

- the co-occurrence matrix is **sparse**: a 30,000-word vocabulary has 9·10⁸ cells but only a
  few million pairs ever occur within ``window`` tokens of each other;
- the SVD is randomized (``torch.svd_lowrank`` on the sparse PPMI matrix, Halko et al. 2011);
- the result is **cached** on disk (``$ELMO_TUTORIAL_CACHE/static_vectors``) under a key made
  of the sha256 of the corpus's sentences and the settings: the same text gives the same
  vectors once computed, and other text (``english_mix`` is read from whichever NLTK data is
  installed) gives other vectors, never the old ones. Each entry has a record of its inputs
  and its own sha256 (:mod:`elmo_tutorial.files.cache_record`); one cut short, flipped or of other
  text is computed again, with a one-line warning saying why.

Reading english_mix takes half a minute, hashing its 4.7 M words a fifth of a second. So that
a cache hit needs neither, ``CORPUS.text.json`` beside the entries remembers the text's sha256
with a fingerprint of what it was read from: the sha256 of the bytes of every file of the
corpus and of the readers' own code, with the versions of NLTK and of Python's Unicode tables
(english_mix's 35 MB hash in a tenth of a second). While that
fingerprint holds, the text is not read again. Size and modification time would not do: an
edit that keeps a file's length, then ``cp -p``, ``rsync -a`` or ``tar x``, gives the file its
old time back, and the old vectors would return.

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
import importlib.metadata
import io
import json
import sys
import unicodedata
import warnings
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch

from elmo_tutorial.analyses.embedding_cache import sentences_checksum
from elmo_tutorial.analyses.static_vectors import StaticVectors
from elmo_tutorial.data import corpora, sense_corpus, tokenize
from elmo_tutorial.data.corpora import ENGLISH_MIX_CORPORA, load_sentences, nltk_corpus
from elmo_tutorial.data.downloads import DatasetNotAvailable, cache_dir
from elmo_tutorial.data.registry import locate
from elmo_tutorial.data.sense_corpus import sense_corpus_dir
from elmo_tutorial.files.cache_record import (
    MAX_RECORD_BYTES,
    check_record,
    content_digest,
    record_path,
    write_record,
)
from elmo_tutorial.files.guarded_read import read_regular_file
from elmo_tutorial.files.json_input import parse_json
from elmo_tutorial.files.safe_files import atomic_write, atomic_write_text, remove_stale_temporaries

__all__ = ["corpus_vectors", "sparse_static_vectors", "vectors_recipe"]

FORMAT = 2  # bump when the counting changes: old cache files then miss instead of misread


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
    and counts; later calls load a ``.npz`` of a few MB after checking it (module docstring).

    Args:
        corpus: a name :func:`~elmo_tutorial.data.corpora.load_sentences` knows (``"english_mix"``
            for the shipped small biLM, ``"embedded"`` for the tiny one).
        directory: where the cache lives; default ``downloads.cache_dir() / "static_vectors"``.
    """
    folder = _folder(directory)
    settings = _settings(corpus, dim, window, min_count)
    fingerprint = _fingerprint(corpus)
    digest, sentences = _text_digest(folder, corpus, fingerprint)
    vectors = _read(_entry(folder, settings, digest), settings, digest)
    if vectors is None:
        if sentences is None:  # the entry is gone or damaged: its text is needed after all
            sentences = load_sentences(corpus, "train")
            digest = sentences_checksum(sentences)
        _announce_other_text(folder, settings, digest)
        vectors = sparse_static_vectors(sentences, dim=dim, window=window, min_count=min_count)
        _write(_entry(folder, settings, digest), vectors, settings, digest)
        remove_stale_temporaries(folder)  # of earlier runs that were killed while writing
    if fingerprint is not None and sentences is not None:
        try:
            atomic_write_text(folder / f"{corpus}.text.json",
                              json.dumps({"sources": fingerprint, "sentences": digest}))
        except OSError:  # a read-only cache still serves its entries; the text is read again
            pass
    return vectors


def vectors_recipe(corpus: str = "english_mix", dim: int = 100, window: int = 4,
                   min_count: int = 5, directory: str | Path | None = None) -> dict:
    """What :func:`corpus_vectors` computes its vectors from: the counting's format, the
    settings and the sha256 of the corpus's text.

    Two computations of one recipe agree to float rounding, not bit for bit: the SVD's sparse
    products sum in an order that depends on the threads (entries differ by a few 1e-9 from
    one run to the next on one machine). So what depends on the vectors, such as a runs file,
    names them by this recipe, never by the sha256 of their bytes.

    Example:
        >>> recipe = vectors_recipe("embedded", min_count=1)
        >>> recipe["corpus"], recipe["dim"], recipe["min_count"], len(recipe["sentences"])
        ('embedded', 100, 1, 64)
    """
    folder = _folder(directory)
    digest, _ = _text_digest(folder, corpus, _fingerprint(corpus))
    return {**_settings(corpus, dim, window, min_count), "sentences": digest}


def _folder(directory: str | Path | None) -> Path:
    return Path(directory) if directory is not None else cache_dir() / "static_vectors"


def _settings(corpus: str, dim: int, window: int, min_count: int) -> dict:
    return {"format": FORMAT, "corpus": corpus, "dim": dim, "window": window,
            "min_count": min_count}


def _text_digest(folder: Path, corpus: str, fingerprint: str | None
                 ) -> tuple[str, list | None]:
    """The sha256 of the corpus's text, and the text when it had to be read for it (the
    remembered sha256 while the sources' fingerprint holds: module docstring)."""
    digest = _remembered(folder / f"{corpus}.text.json", fingerprint)
    if digest is not None:
        return digest, None
    sentences = load_sentences(corpus, "train")  # the sources changed, or no fingerprint
    return sentences_checksum(sentences), sentences


def _entry(folder: Path, settings: dict, digest: str) -> Path:
    """The file of the vectors of the text with sha256 ``digest`` under ``settings``."""
    key = hashlib.sha256(json.dumps({**settings, "sentences": digest}, sort_keys=True)
                         .encode()).hexdigest()
    return folder / f"{settings['corpus']}-{key[:24]}.npz"


def _read(path: Path, settings: dict, digest: str) -> StaticVectors | None:
    """The stored vectors if the entry is there, whole and of this text and these settings;
    else ``None``, with a warning when something was there but damaged."""
    if not path.exists() and not record_path(path).exists():
        return None
    try:
        check_record(path, **settings, sentences=digest)
        with np.load(path, allow_pickle=False) as stored:
            return StaticVectors([str(w) for w in stored["words"]], stored["vectors"])
    except Exception as error:  # noqa: BLE001 - whatever a damaged zip raises: compute again
        warnings.warn(f"static vectors {path.name} are damaged ({error}); computing them again",
                      stacklevel=3)
        return None


def _write(path: Path, vectors: StaticVectors, settings: dict, digest: str) -> None:
    """The entry, written whole, then its record (an entry without one is not trusted)."""
    def write(tmp: str) -> None:
        buffer = io.BytesIO()
        np.savez(buffer, words=np.array(vectors.words), vectors=vectors.vectors)
        Path(tmp).write_bytes(buffer.getvalue())

    atomic_write(path, write)
    write_record(path, **settings, sentences=digest)


def _announce_other_text(folder: Path, settings: dict, digest: str) -> None:
    """Say so when vectors of this corpus and these settings exist, but of other text."""
    for record in folder.glob(f"{settings['corpus']}-*.json"):
        try:  # NotARegularFile is a ValueError: a planted FIFO is skipped, not waited on
            facts = parse_json(read_regular_file(record, MAX_RECORD_BYTES, folder), record)
        except (OSError, ValueError):
            continue
        if not isinstance(facts, dict):
            continue
        if facts.get("sentences") != digest and all(facts.get(k) == v
                                                     for k, v in settings.items()):
            warnings.warn(f"the text of corpus {settings['corpus']!r} is not the one its cached "
                          "static vectors were computed from (other NLTK data, or a new "
                          "version of its reader?); computing them again", stacklevel=3)
            return


def _remembered(memo: Path, fingerprint: str | None) -> str | None:
    """The text's sha256 recorded when its sources had ``fingerprint``; ``None`` if unknown."""
    if fingerprint is None:
        return None
    try:
        facts = parse_json(read_regular_file(memo, MAX_RECORD_BYTES, memo.parent), memo)
        return facts["sentences"] if facts["sources"] == fingerprint else None
    except (OSError, ValueError, KeyError, TypeError):  # none yet, or damaged: read the text
        return None


def _fingerprint(corpus: str) -> str | None:
    """sha256 of the path and the bytes' sha256 of every file the text of ``corpus`` is read
    from, and of the modules that read it; ``None`` where the files cannot be told (``auto``,
    which depends on a download, an unknown name, missing data, an unreadable file)."""
    try:
        roots = _source_roots(corpus)
    except (DatasetNotAvailable, OSError, ValueError, LookupError):
        return None
    if roots is None:
        return None
    files = [Path(m.__file__) for m in (corpora, sense_corpus, tokenize)]
    for root in roots:
        files += sorted(p for p in root.rglob("*") if p.is_file()) if root.is_dir() else [root]
    digest = hashlib.sha256(_reader_versions().encode())
    try:  # content_digest hashes each file once per process while its ctime holds
        for path in files:
            digest.update(f"{path}|{content_digest(path)}\n".encode())
    except (OSError, ValueError):  # a FIFO or a file gone meanwhile: the text itself decides
        return None
    return digest.hexdigest()


def _reader_versions() -> str:
    """The versions of the code outside this package that turns the files into sentences:
    NLTK's corpus readers, and Python's Unicode tables (case and character classes)."""
    try:
        nltk = importlib.metadata.version("nltk")
    except importlib.metadata.PackageNotFoundError:
        nltk = "none"
    return f"nltk {nltk}|python {sys.version_info[:2]}|unicode {unicodedata.unidata_version}\n"


def _source_roots(corpus: str) -> list[Path] | None:
    """The files and folders the text of ``corpus`` is read from (None: cannot be told)."""
    if corpus == "embedded":
        return [sense_corpus_dir()]
    if corpus == "english_mix":
        roots = [nltk_corpus(name).root for name in ENGLISH_MIX_CORPORA]
        return [Path(root.zipfile.filename) if hasattr(root, "zipfile") else Path(root)
                for root in roots]  # a zipped corpus is read from its zip file
    folders = {"wikitext2": "wikitext-2", "wikitext103": "wikitext-103",
               "one_billion_words": "1b-word"}
    return [locate(folders[corpus])] if corpus in folders else None
