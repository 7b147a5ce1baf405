"""Embed a corpus once, keep the layers on disk, and load them instantly the next time.

Taught in notebook 09 (``09_word_senses``).

Embedding SemCor's 37,000 sentences takes about a minute on a laptop CPU; the analyses of
notebooks 08-10 and the ``layers`` command read the same vectors again and again. So
:func:`embed_corpus` stores them in the package's cache directory
(``downloads.cache_dir() / "embeddings"``, i.e. ``$ELMO_TUTORIAL_CACHE/embeddings``), under a
key made of

- the **model's checksum**: sha256 of the biLM's architecture (its ``ModelConfig``, which
  ``options.json`` or ``config.json`` gave: the activation, the clipping, ...) and of its
  weights (names, shapes, dtypes and bytes), so retraining, loading other weights, editing
  one number or the same weights with another ``options.json`` gives a new key;
- the **sentences' checksum**: sha256 of the token lists, so any change of the text does too.

Layout of one entry, ``{name}-{key}``: a ``.npy`` array ``(L + 1, N, 2P)`` holding every
token's layers, the sentences one after the other (``N`` tokens in all), stored as
**float16** (half the size of float32: about 1.2 GB for SemCor with the shipped model, where
float32 would take 2.4 GB; the rounding, a relative 5e-4, is far below what separates word
senses), and a ``.json`` with both checksums of the key, the lengths' checksum, the shape and
the data file's sha256 (the record of :mod:`elmo_tutorial.files.cache_record`, checked before the
data is read: two entries swapped, ``.npy`` with its ``.json``, name another model or other
sentences than their file name's, and are computed again). Both are
written atomically, with ordinary file writes: free space is checked first, and a disk
that fills anyway raises :class:`CacheNotWritable` (an ``OSError``) naming the folder, with the
temporary file removed; temporary files left by a process that was killed are removed on the
next write. A damaged or mismatching entry (other sentences, or an array whose layer count,
width or dtype is not this model's) is recomputed with a warning.

The result, :class:`EmbeddedSentences`, reads the ``.npy`` memory-mapped: loading costs the
checksum and no memory, and ``corpus[i]`` gives sentence ``i``'s ``(L + 1, T_i, 2P)`` float32
array as ``Embedder.embed_sentences`` would (up to the float16 rounding).
"""

from __future__ import annotations

import dataclasses
import errno
import hashlib
import json
import os
import shutil
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch

from elmo_tutorial.analyses.embedder import Embedder, index_tokens
from elmo_tutorial.data.downloads import cache_dir, write_problem
from elmo_tutorial.files.cache_record import check_record, write_record
from elmo_tutorial.files.safe_files import atomic_write, remove_stale_temporaries

FORMAT = 2  # bump when the stored layout changes: old entries then miss instead of misread
DTYPE = np.dtype("<f2")  # float16, little-endian on every machine
CACHE_VARIABLE = "ELMO_TUTORIAL_CACHE"


class CacheNotWritable(OSError):
    """The embedding cache's folder cannot take a new entry (not a folder, read-only, full);
    the message names the folder and what to do."""


def cache_problem(folder: str | Path) -> str | None:
    """Why ``folder`` cannot hold the embedding cache, in words; ``None`` when it can.

    Checks what ``doctor`` reports and :func:`embed_corpus` refuses: a path that is a file
    (or lies under one), a folder that cannot be created or written (a read-only mount).
    """
    folder = Path(folder)
    existing = next((p for p in (folder, *folder.parents) if p.exists()), None)
    if existing is not None and not existing.is_dir():
        return f"{existing} is a file, not a folder"
    if existing is not None and not os.access(existing, os.W_OK | os.X_OK):
        return f"{existing} is not writable (a read-only mount?)"
    return write_problem(folder)  # tried: root is "allowed" to write into /proc, and cannot


def _not_writable(folder: Path, why: str, full: bool = False) -> CacheNotWritable:
    if full:
        return CacheNotWritable(f"no space left on {folder} for the embedding cache ({why}); "
                                f"free space or set {CACHE_VARIABLE} elsewhere")
    return CacheNotWritable(f"the embedding cache cannot be written in {folder}: {why}; set "
                            f"{CACHE_VARIABLE} to a writable folder")


def model_checksum(model: torch.nn.Module) -> str:
    """sha256 of what decides a module's output: its ``config`` (a biLM's or an ELMo's
    ``ModelConfig``: the same weights with another activation or clipping compute other
    layers) and its state, every tensor's name, dtype, shape and bytes, in order."""
    digest = hashlib.sha256()
    config = getattr(model, "config", None)
    if dataclasses.is_dataclass(config):
        digest.update(json.dumps(dataclasses.asdict(config), sort_keys=True).encode() + b"\n")
    for name, tensor in model.state_dict().items():
        tensor = tensor.detach().cpu().contiguous()
        digest.update(f"{name}|{tensor.dtype}|{tuple(tensor.shape)}|".encode())
        digest.update(tensor.view(torch.uint8).numpy().tobytes() if tensor.numel() else b"")
    return digest.hexdigest()


def sentences_checksum(sentences: Sequence[Sequence[str]]) -> str:
    """sha256 of tokenized sentences (tokens and sentence ends are both delimited)."""
    digest = hashlib.sha256()
    for sentence in sentences:
        digest.update("\x1f".join(sentence).encode("utf-8", errors="surrogatepass"))
        digest.update(b"\x1e")
    return digest.hexdigest()


class EmbeddedSentences(Sequence):
    """A corpus's layers as a read-only sequence of ``(L + 1, T_i, 2P)`` float32 arrays.

    Attributes:
        data: ``(L + 1, N, 2P)`` float16, memory-mapped: all tokens, sentence after sentence.
        offsets: ``(n_sentences + 1,)``; sentence ``i`` is ``data[:, offsets[i]:offsets[i+1]]``.
        path: the ``.npy`` file.
    """

    def __init__(self, data: np.ndarray, lengths: Sequence[int], path: Path) -> None:
        self.data = data
        self.offsets = np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)])
        self.path = path

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        start, end = self.offsets[i], self.offsets[i + 1]  # IndexError past the end
        return np.asarray(self.data[:, start:end], dtype=np.float32)  # (L + 1, T_i, 2P)

    def tokens(self, positions: np.ndarray) -> np.ndarray:
        """The layers of tokens at global ``positions`` (into ``N``): ``(L + 1, n, 2P)``
        float32, read in one go; ``offsets[i] + t`` is token ``t`` of sentence ``i``."""
        return np.asarray(self.data[:, np.asarray(positions, dtype=np.int64)], dtype=np.float32)


def embed_corpus(
    embedder: Embedder,
    sentences: Sequence[Sequence[str]],
    name: str = "corpus",
    progress: bool = True,
    batch_size: int = 64,
    directory: str | Path | None = None,
) -> EmbeddedSentences:
    """Every sentence's layers, from the disk cache if this model embedded them before.

    Args:
        embedder: an ``Embedder`` (its model's weights make half of the key).
        sentences: tokenized sentences; empty ones are allowed.
        name: a readable prefix of the cache files, e.g. ``"semcor"``.
        progress: show a progress bar while embedding.
        batch_size: passed to ``Embedder.iter_batches``.
        directory: where the entries live; default ``downloads.cache_dir() / "embeddings"``.

    Returns:
        ``EmbeddedSentences``: ``result[i]`` is ``(L + 1, T_i, 2P)`` float32.

    Example:
        >>> import tempfile
        >>> from elmo_tutorial import ELMo
        >>> from elmo_tutorial.model.config import MODEL_PRESETS
        >>> embedder = Embedder(ELMo(MODEL_PRESETS["tiny"]))
        >>> folder = tempfile.mkdtemp()
        >>> layers = embed_corpus(embedder, [["Hi"], ["Hello", "there"]], progress=False,
        ...                       directory=folder)
        >>> [v.shape for v in layers]
        [(3, 1, 128), (3, 2, 128)]
    """
    if not name or not all(c.isalnum() or c in "-_." for c in name):
        raise ValueError(f"name must be letters, digits, '-', '_' or '.', got {name!r}")
    folder = Path(directory) if directory is not None else cache_dir() / "embeddings"
    index_tokens(sentences)  # checks every token, before the checksum reads them
    lengths = [len(s) for s in sentences]
    inputs = {"model": model_checksum(embedder.model.bilm),
              "sentences": sentences_checksum(sentences)}  # the record names both, too
    key = hashlib.sha256(f"{FORMAT}|{inputs['model']}|{inputs['sentences']}"
                         .encode()).hexdigest()[:24]
    data_path, meta_path = folder / f"{name}-{key}.npy", folder / f"{name}-{key}.json"
    config = embedder.model.config  # the layer count and width every entry must have
    shape = (config.n_layers + 1, sum(lengths), 2 * config.projection_dim)
    cached = _load(data_path, meta_path, lengths, shape, inputs)
    if cached is not None:
        return EmbeddedSentences(cached, lengths, data_path)
    problem = cache_problem(folder)
    if problem is not None:
        raise _not_writable(folder, problem)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        remove_stale_temporaries(folder)
        _embed_to_file(embedder, sentences, lengths, data_path, shape, batch_size, progress)
        write_record(data_path, format=FORMAT, **inputs, n_sentences=len(lengths),
                     lengths=_lengths_checksum(lengths), shape=list(shape), dtype=DTYPE.str)
    except CacheNotWritable:
        raise
    except OSError as error:
        if error.errno not in (errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES,
                               errno.EPERM, errno.ENOTDIR, errno.EEXIST, errno.EISDIR):
            raise
        full = error.errno in (errno.ENOSPC, errno.EDQUOT)
        why = os.strerror(error.errno) if full else error.strerror or str(error)  # DiskFull's
        raise _not_writable(folder, why, full) from None  # own text would repeat the folder
    return EmbeddedSentences(np.load(data_path, mmap_mode="r"), lengths, data_path)


def _embed_to_file(embedder, sentences, lengths, path, shape, batch_size, progress) -> None:
    """Write the layers into a ``.npy`` file batch by batch, with ordinary writes at each
    sentence's place: the whole corpus is never held in memory, and a full disk is an
    ``OSError`` (a memory map would die of SIGBUS instead, leaving its temporary file)."""
    offsets = np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)])
    header = {"descr": DTYPE.str, "fortran_order": False, "shape": shape}
    needed = 4096 + int(np.prod(shape)) * DTYPE.itemsize  # generous for the header
    free = shutil.disk_usage(path.parent).free
    if free < needed:
        raise _not_writable(path.parent, f"needs {needed / 1e6:.0f} MB, "
                            f"{free / 1e6:.0f} MB free", full=True)
    layer_bytes = shape[1] * shape[2] * DTYPE.itemsize  # one layer of every token

    def write(tmp: str) -> None:
        with open(tmp, "wb") as f:
            np.lib.format.write_array_header_1_0(f, header)
            start = f.tell()
            for indices, arrays in embedder.iter_batches(sentences, batch_size, progress,
                                                         dtype=torch.float16):
                for i, vectors in zip(indices, arrays, strict=True):  # (L + 1, T_i, 2P)
                    if vectors.shape != (shape[0], lengths[i], shape[2]):
                        raise ValueError(f"sentence {i} gave layers of shape {vectors.shape}")
                    row = start + int(offsets[i]) * shape[2] * DTYPE.itemsize
                    for layer, values in enumerate(vectors.astype(DTYPE, copy=False)):
                        f.seek(row + layer * layer_bytes)
                        f.write(values.tobytes())
            f.truncate(start + shape[0] * layer_bytes)  # the size, also with no tokens at all

    atomic_write(path, write)


def _lengths_checksum(lengths: Sequence[int]) -> str:
    return hashlib.sha256(np.asarray(lengths, dtype=np.int64).tobytes()).hexdigest()


def _load(data_path: Path, meta_path: Path, lengths: Sequence[int],
          shape: tuple[int, int, int], inputs: dict[str, str]) -> np.ndarray | None:
    """The stored array if the entry is there, intact, of ``inputs`` (the model's and the
    sentences' checksums) and of ``shape`` (float16), else ``None`` (with a warning when
    something was there but damaged or of another model or text)."""
    if not data_path.exists() and not meta_path.exists():
        return None
    try:
        check_record(data_path, format=FORMAT, **inputs, lengths=_lengths_checksum(lengths))
        data = np.load(data_path, mmap_mode="r")
        if data.shape != shape or data.dtype != DTYPE:
            raise ValueError(f"its array is {data.dtype} of shape {data.shape}, where this "
                             f"model gives float16 of shape {shape}")
        return data
    except (OSError, ValueError) as error:  # EntryMismatch is a ValueError
        warnings.warn(f"embedding cache {data_path.name} is damaged or not of this model and "
                      f"these sentences ({error}); embedding again", stacklevel=3)
        return None


__all__ = ["CacheNotWritable", "EmbeddedSentences", "cache_problem", "embed_corpus",
           "model_checksum", "sentences_checksum"]
