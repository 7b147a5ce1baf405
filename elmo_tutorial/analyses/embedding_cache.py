"""Embed a corpus once, keep the layers on disk, and load them instantly the next time.

Taught in notebook 09 (``09_word_senses``).

:func:`embed_corpus` stores a corpus's layers in ``$ELMO_TUTORIAL_CACHE/embeddings``, in a file
named by the sha256 of the model (its ``ModelConfig`` and every weight) and of the token lists,
so a stale entry is never read. The file is a ``.npy`` array ``(L + 1, N, 2P)``, the sentences'
tokens one after the other, in **float16** (about 1.2 GB for SemCor with the shipped model; its
relative rounding of 5e-4 is far below what separates word senses), written under a temporary
name and renamed when complete, and read memory-mapped.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch

from elmo_tutorial.analyses.embedder import Embedder, index_tokens
from elmo_tutorial.data.downloads import CacheNotWritable, cache_dir
from elmo_tutorial.files.safe_files import atomic_write

FORMAT = 3  # bump when the stored layout changes: old entries then miss instead of misread
DTYPE = np.dtype("<f2")  # float16, little-endian on every machine
CACHE_VARIABLE = "ELMO_TUTORIAL_CACHE"


def cache_problem(folder: str | Path) -> str | None:
    """Why ``folder`` cannot hold the caches, in words (what ``doctor`` reports); ``None``
    when it can."""
    folder = Path(folder)
    existing = next(p for p in (folder, *folder.parents) if p.exists())
    if not existing.is_dir():
        return f"{existing} is a file, not a folder"
    if not os.access(existing, os.W_OK | os.X_OK):
        return f"{existing} is not writable (a read-only mount?)"
    return None


def model_checksum(model: torch.nn.Module) -> str:
    """sha256 of what decides a module's output: its ``config`` (the same weights with another
    activation compute other layers) and every state tensor's name, dtype, shape and bytes."""
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


def embed_corpus(embedder: Embedder, sentences: Sequence[Sequence[str]], name: str = "corpus",
                 progress: bool = True, batch_size: int = 64,
                 directory: str | Path | None = None) -> EmbeddedSentences:
    """Every sentence's layers, from the disk cache if this model embedded them before.

    ``name`` is a readable prefix of the cache file, e.g. ``"semcor"``; ``directory``: default
    ``downloads.cache_dir() / "embeddings"``. Raises ``CacheNotWritable`` when the folder
    cannot take the entry (read-only, a file, a full disk).

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
    key = hashlib.sha256(f"{FORMAT}|{model_checksum(embedder.model.bilm)}|"
                         f"{sentences_checksum(sentences)}".encode()).hexdigest()[:24]
    path = folder / f"{name}-{key}.npy"
    lengths = [len(s) for s in sentences]
    config = embedder.model.config
    shape = (config.n_layers + 1, sum(lengths), 2 * config.projection_dim)
    if not path.exists():
        try:
            folder.mkdir(parents=True, exist_ok=True)
            atomic_write(path, lambda tmp: _write_layers(embedder, sentences, lengths, shape,
                                                         tmp, batch_size, progress))
        except OSError as error:
            raise CacheNotWritable(f"the embedding cache cannot be written in {folder} "
                                   f"({error.strerror or error}); set {CACHE_VARIABLE} to a "
                                   "writable folder") from None
    return EmbeddedSentences(np.load(path, mmap_mode="r"), lengths, path)


def _write_layers(embedder, sentences, lengths, shape, path, batch_size, progress) -> None:
    """Write the layers into a ``.npy`` file batch by batch (shortest first), each sentence's
    rows at its place: ordinary writes, so a full disk is an ``OSError``."""
    offsets = np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)])
    layer_bytes = shape[1] * shape[2] * DTYPE.itemsize  # one layer of every token
    with open(path, "wb") as f:
        np.lib.format.write_array_header_1_0(
            f, {"descr": DTYPE.str, "fortran_order": False, "shape": shape})
        start = f.tell()
        for indices, arrays in embedder.iter_batches(sentences, batch_size, progress):
            for i, vectors in zip(indices, arrays, strict=True):  # (L + 1, T_i, 2P)
                row = start + int(offsets[i]) * shape[2] * DTYPE.itemsize
                for layer, values in enumerate(vectors.astype(DTYPE)):
                    f.seek(row + layer * layer_bytes)
                    f.write(values.tobytes())
        f.truncate(start + shape[0] * layer_bytes)  # the size, also with no tokens at all


__all__ = ["CACHE_VARIABLE", "EmbeddedSentences", "cache_problem", "embed_corpus",
           "model_checksum", "sentences_checksum"]
