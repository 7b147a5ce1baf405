"""Embed tokenized sentences with a biLM: every layer's vectors as NumPy arrays.

``Embedder`` is the convenience layer over :class:`~elmo_tutorial.elmo.ELMo` for analysis and
feature extraction (notebooks 08-10): it takes lists of tokens, batches them, runs the model
without autograd, and hands back one ``(L + 1, T_i, 2P)`` array per sentence, the layout of
AllenNLP's ``ElmoEmbedder``: layer 0 is the token embedding duplicated to ``2P``, layer ``j``
the concatenated forward and backward outputs of LSTM layer ``j``.

Batching by length: sentences are sorted by length, cut into batches of similar lengths (little
padding, so little wasted work), run, and returned in the caller's order. Because the model is
stateless, the result for a sentence does not depend on how it was batched.

Token cache: a token's layer-0 vector depends on its characters only, and the character CNN is
most of the inference time (the paper's 2048 filters and 2 highway layers of 2048 × 4096). So
the ``Embedder`` remembers the vectors of tokens it has seen (``cache_size`` of them) and runs
the CNN only on new ones. The cache sits outside the model: while a batch runs, the biLM's
``char_cnn`` is wrapped by :class:`TokenCache`, then put back. ``embed_sentences`` fills the
cache with all the sentences' distinct tokens before the first batch: a few large matrix
products use the CPU better than each batch's few new tokens would.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager

import numpy as np
import torch
from torch import nn

from .chars import batch_to_ids, ids_to_mask, word_to_char_ids
from .elmo import ELMo, remove_sentence_boundaries


class TokenCache(nn.Module):
    """Wraps a ``CharCNN``: remembers each distinct token's vector, computes only new ones.

    Tokens are keyed by their 50 character ids. Once ``max_size`` tokens are stored, new ones
    are computed but not stored (the frequent words of a text come first, so they are kept).

    Shape:
        ``(B, T, 50)`` character ids → ``(B, T, P)``, exactly what the wrapped ``CharCNN`` gives.
    """

    def __init__(self, char_cnn: nn.Module, max_size: int) -> None:
        super().__init__()
        self.char_cnn = char_cnn
        self.max_size = max_size
        self.vectors: dict[bytes, torch.Tensor] = {}

    def forward(self, char_ids: torch.Tensor) -> torch.Tensor:
        B, T, C = char_ids.shape
        tokens, where = torch.unique(char_ids.reshape(-1, C), dim=0, return_inverse=True)
        keys = [row.tobytes() for row in tokens.cpu().numpy()]  # (U,) one key per token
        new = [i for i, key in enumerate(keys) if key not in self.vectors]
        fresh = {}
        if new:
            computed = self.char_cnn(tokens[new].unsqueeze(0))[0]  # (N, P)
            fresh = {keys[i]: vector for i, vector in zip(new, computed, strict=True)}
            room = max(self.max_size - len(self.vectors), 0)
            self.vectors.update(list(fresh.items())[:room])
        vectors = torch.stack([self.vectors.get(k, fresh.get(k)) for k in keys])  # (U, P)
        return vectors[where].view(B, T, -1)  # (B, T, P)

    def add_tokens(self, ids: torch.Tensor, chunk: int = 2048) -> None:
        """Compute and store the vectors of the new tokens among ``ids (N, 50)``, while there
        is room, ``chunk`` tokens per call of the character CNN."""
        keys = [row.tobytes() for row in ids.cpu().numpy()]
        first: dict[bytes, int] = {}  # each new token once, at its first row
        for i, key in enumerate(keys):
            if key not in self.vectors:
                first.setdefault(key, i)
        new = list(first.values())[: max(self.max_size - len(self.vectors), 0)]
        for start in range(0, len(new), chunk):
            rows = new[start : start + chunk]
            computed = self.char_cnn.embed_tokens(ids[rows])  # (n, P)
            self.vectors.update(zip((keys[i] for i in rows), computed, strict=True))


class Embedder:
    """Compute ELMo layer vectors for tokenized sentences.

    Args:
        model: an ``ELMo`` (e.g. from ``load_allennlp`` or ``ELMo.from_run``). It is put in
            eval mode and moved to ``device``.
        device: where to run; default: where the model's parameters are.
        cache_size: how many distinct tokens' layer-0 vectors to remember (0: no cache).
            Call ``clear_cache()`` if the model's weights change.

    Example:
        >>> from elmo_tutorial.config import MODEL_PRESETS
        >>> embedder = Embedder(ELMo(MODEL_PRESETS["tiny"]))
        >>> embedder.embed_sentence(["I", "went", "to", "the", "bank"]).shape
        (3, 5, 128)
        >>> [v.shape for v in embedder.embed_sentences([["Hi"], ["Hello", "there"]])]
        [(3, 1, 128), (3, 2, 128)]
    """

    def __init__(
        self, model: ELMo, device: str | torch.device | None = None, cache_size: int = 20_000
    ) -> None:
        if device is None:
            device = next(model.parameters()).device
        self.device = torch.device(device)
        self.model = model.to(self.device).eval()
        self.cache = TokenCache(model.bilm.char_cnn, cache_size) if cache_size > 0 else None

    def clear_cache(self) -> None:
        """Forget the remembered token vectors (needed after changing the model's weights)."""
        if self.cache is not None:
            self.cache.vectors.clear()

    @contextmanager
    def _cached_tokens(self) -> Iterator[None]:
        """Let the biLM's ``char_cnn`` go through the cache for the duration of a batch."""
        if self.cache is None:
            yield
            return
        bilm = self.model.bilm
        bilm.char_cnn = self.cache
        try:
            yield
        finally:
            bilm.char_cnn = self.cache.char_cnn

    def embed_batch(self, sentences: Sequence[Sequence[str]]) -> list[np.ndarray]:
        """Embed one batch as given (no sorting): a list of ``(L + 1, T_i, 2P)`` arrays."""
        char_ids = batch_to_ids(sentences).to(self.device)  # (B, T, 50)
        with torch.inference_mode(), self._cached_tokens():
            layers, _, _ = self.model.layers(char_ids)  # L + 1 × (B, T + 2, 2P)
            mask = ids_to_mask(char_ids)  # (B, T)
            stacked = torch.stack([remove_sentence_boundaries(h, mask) for h in layers], 1)
            stacked = stacked.float().cpu().numpy()  # (B, L + 1, T, 2P)
        return [stacked[b, :, : len(s)] for b, s in enumerate(sentences)]

    def embed_sentence(self, tokens: Sequence[str]) -> np.ndarray:
        """One sentence → ``(L + 1, T, 2P)``, ``T = len(tokens)``."""
        if isinstance(tokens, str):
            raise TypeError(
                f"embed_sentence expects a list of tokens, got the string {tokens!r:.40}; "
                "tokenize it first, e.g. elmo_tutorial.tokenize.tokenize_words(text)"
            )
        return self.embed_batch(_check_sentences([tokens]))[0]

    def embed_sentences(
        self, sentences: Sequence[Sequence[str]], batch_size: int = 64
    ) -> list[np.ndarray]:
        """Many sentences → list of ``(L + 1, T_i, 2P)`` arrays, in the order given.

        Args:
            sentences: tokenized sentences (lists of strings); empty ones give ``T_i = 0``.
            batch_size: sentences per forward pass; sentences of similar length share one.
        """
        sentences = _check_sentences(sentences, batch_size)
        self._precompute_tokens(sentences)
        order = sorted(range(len(sentences)), key=lambda i: len(sentences[i]))
        results: list[np.ndarray | None] = [None] * len(sentences)
        for start in range(0, len(order), batch_size):
            chunk = order[start : start + batch_size]
            for i, vectors in zip(chunk, self.embed_batch([sentences[i] for i in chunk]),
                                  strict=True):
                results[i] = vectors
        return results

    def _precompute_tokens(self, sentences: Sequence[Sequence[str]]) -> None:
        """Put every distinct token of ``sentences`` through the character CNN up front.

        Its highway layers are matrix products over tokens, and a CPU runs them at a higher
        rate on thousands of tokens at once than on the few new ones of each batch
        (benchmarks/RESULTS.md). The tokens go in order of first use, so a full cache keeps
        the same words as batch by batch would. Invalid tokens are skipped here; their batch
        reports them.
        """
        if self.cache is None or len(self.cache.vectors) >= self.cache.max_size:
            return
        rows = []
        for token in dict.fromkeys(t for sentence in sentences for t in sentence):
            if len(rows) == self.cache.max_size:  # more could not be stored anyway
                break
            try:
                rows.append(word_to_char_ids(token))
            except (TypeError, ValueError):
                continue
        if rows:
            with torch.inference_mode():
                self.cache.add_tokens(torch.tensor(rows, device=self.device))


def _check_sentences(sentences: Iterable[Sequence[str]], batch_size: int = 1) -> list:
    """The input of the public entry points as a list, or a one-line error saying what is wrong
    (checked up front: deeper down, a wrong type surfaces as an unrelated message)."""
    if isinstance(batch_size, bool) or not isinstance(batch_size, int):
        raise TypeError(f"batch_size must be an int, got {type(batch_size).__name__} "
                        f"{batch_size!r}")
    if batch_size < 1:
        raise ValueError(f"batch_size must be ≥ 1, got {batch_size}")
    if isinstance(sentences, str) or not isinstance(sentences, Iterable):
        raise TypeError("embed_sentences expects a list of token lists, e.g. [['Hello', "
                        f"'world'], ['Hi']]; got {type(sentences).__name__} {sentences!r:.40}")
    sentences = list(sentences)
    for i, sentence in enumerate(sentences):
        if isinstance(sentence, str) or not isinstance(sentence, Sequence):
            raise TypeError(f"sentence {i} must be a list of token strings, got "
                            f"{type(sentence).__name__} {sentence!r:.40}; tokenize it first, "
                            "e.g. with elmo_tutorial.tokenize.tokenize_words")
        for j, token in enumerate(sentence):
            if not isinstance(token, str):
                raise TypeError(f"sentence {i}, token {j} must be a str, got "
                                f"{type(token).__name__} {token!r:.40}")
    return sentences


__all__ = ["Embedder", "TokenCache"]
