"""Embed a corpus once, keep the layers on disk, and load them instantly the next time.

Embedding SemCor's 37,000 sentences takes about a minute on a laptop CPU; the analyses of
notebooks 08-10 and the ``layers`` command read the same vectors again and again. So
:func:`embed_corpus` stores them in the package's cache directory
(``downloads.cache_dir() / "embeddings"``, i.e. ``$ELMO_TUTORIAL_CACHE/embeddings``), under a
key made of

- the **model's checksum**: sha256 of the biLM's weights (names, shapes, dtypes and bytes), so
  retraining, loading other weights or editing one number gives a new key;
- the **sentences' checksum**: sha256 of the token lists, so any change of the text does too.

Layout of one entry, ``{name}-{key}``: a ``.npy`` array ``(L + 1, N, 2P)`` holding every
token's layers, the sentences one after the other (``N`` tokens in all), stored as
**float16** (half the size of float32: about 1.2 GB for SemCor with the shipped model, where
float32 would take 2.4 GB; the rounding, a relative 5e-4, is far below what separates word
senses), and a ``.json`` with the lengths' checksum, the shape and the data file's sha256.
Both are written atomically. A damaged or mismatching entry is recomputed with a warning.

The result, :class:`EmbeddedSentences`, reads the ``.npy`` memory-mapped: loading costs the
checksum and no memory, and ``corpus[i]`` gives sentence ``i``'s ``(L + 1, T_i, 2P)`` float32
array as ``Embedder.embed_sentences`` would (up to the float16 rounding).
"""

from __future__ import annotations

import hashlib
import json
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch

from .downloads import cache_dir
from .embedder import Embedder, index_tokens
from .safe_files import atomic_write, atomic_write_text, file_digest

FORMAT = 1  # bump when the stored layout changes: old entries then miss instead of misread


def model_checksum(model: torch.nn.Module) -> str:
    """sha256 of a module's state: every tensor's name, dtype, shape and bytes, in order."""
    digest = hashlib.sha256()
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
        >>> from elmo_tutorial.config import MODEL_PRESETS
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
    key = hashlib.sha256(
        f"{FORMAT}|{model_checksum(embedder.model.bilm)}|{sentences_checksum(sentences)}"
        .encode()).hexdigest()[:24]
    data_path, meta_path = folder / f"{name}-{key}.npy", folder / f"{name}-{key}.json"
    cached = _load(data_path, meta_path, lengths)
    if cached is not None:
        return EmbeddedSentences(cached, lengths, data_path)
    _embed_to_file(embedder, sentences, lengths, data_path, batch_size, progress)
    meta = {"format": FORMAT, "n_sentences": len(lengths), "lengths": _lengths_checksum(lengths),
            "sha256": file_digest(data_path)}
    atomic_write_text(meta_path, json.dumps(meta, indent=1))
    return EmbeddedSentences(np.load(data_path, mmap_mode="r"), lengths, data_path)


def _embed_to_file(embedder, sentences, lengths, path, batch_size, progress) -> None:
    """Write the layers into a memory-mapped ``.npy`` batch by batch: the whole corpus is
    never held in memory."""
    offsets = np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)])
    probe = embedder.embed_sentence(["."])  # (L + 1, 1, 2P): the model's layer count and width
    shape = (probe.shape[0], int(offsets[-1]), probe.shape[2])

    def write(tmp: str) -> None:
        out = np.lib.format.open_memmap(tmp, mode="w+", dtype=np.float16, shape=shape)
        for indices, arrays in embedder.iter_batches(sentences, batch_size, progress,
                                                     dtype=torch.float16):
            for i, vectors in zip(indices, arrays, strict=True):
                out[:, offsets[i] : offsets[i + 1]] = vectors
        out.flush()
        del out  # close the map before the file is renamed

    atomic_write(path, write)


def _lengths_checksum(lengths: Sequence[int]) -> str:
    return hashlib.sha256(np.asarray(lengths, dtype=np.int64).tobytes()).hexdigest()


def _load(data_path: Path, meta_path: Path, lengths: Sequence[int]) -> np.ndarray | None:
    """The stored array if the entry is there and intact, else ``None`` (with a warning
    when something was there but damaged)."""
    if not data_path.exists() and not meta_path.exists():
        return None
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        if meta.get("format") != FORMAT or meta.get("lengths") != _lengths_checksum(lengths):
            raise ValueError("it describes other sentences or another format")
        if file_digest(data_path) != meta.get("sha256"):
            raise ValueError("its data does not match the checksum written with it")
        data = np.load(data_path, mmap_mode="r")
        if data.ndim != 3 or data.shape[1] != sum(lengths):
            raise ValueError(f"its array has shape {data.shape}")
        return data
    except (OSError, ValueError, json.JSONDecodeError) as error:
        warnings.warn(f"embedding cache {data_path.name} is damaged ({error}); embedding again",
                      stacklevel=3)
        return None


__all__ = ["EmbeddedSentences", "embed_corpus", "model_checksum", "sentences_checksum"]
