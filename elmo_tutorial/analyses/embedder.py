"""Embed tokenized sentences with a biLM: every layer's vectors as NumPy arrays.

Taught in notebook 08 (``08_contextual_embeddings``).

:class:`Embedder` takes lists of tokens, batches them, runs an
:class:`~elmo_tutorial.model.elmo.ELMo` without autograd and hands back one ``(L + 1, T_i, 2P)``
array per sentence, the layout of AllenNLP's ``ElmoEmbedder``: layer 0 is the token embedding
duplicated to ``2P``, layer ``j`` LSTM layer ``j``'s forward and backward outputs. It is fast
(benchmarks/RESULTS.md): the modules are switched to :mod:`elmo_tutorial.fast`'s versions, each
distinct token goes through the character CNN once, in a few large products
(:meth:`~elmo_tutorial.model.lm.BidirectionalLM.encode_embeddings`), and sentences are batched
by length and returned in the caller's order (a result does not depend on its batch).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

import numpy as np
import torch
from torch import nn

from elmo_tutorial.fast import speed_up
from elmo_tutorial.model.chars import BOS_TOKEN, EOS_TOKEN, word_to_char_ids
from elmo_tutorial.model.elmo import ELMo
from elmo_tutorial.runtime import progress_bar

PAD_ROW, BOS_ROW, EOS_ROW = 0, 1, 2  # the first rows of every token table
# Longest sentence accepted, in tokens: a longer one is a whole text not split into sentences
# (12 KB a token for the shipped model's result alone), which no biLM saw in training either.
MAX_SENTENCE_TOKENS = 10_000


class Embedder:
    """Compute ELMo layer vectors for tokenized sentences.

    Args:
        model: an ``ELMo`` (e.g. from ``load_allennlp`` or ``load_elmo``), put in eval mode,
            moved to ``device`` (default: where its parameters are) and, with ``fast``, sped
            up (:func:`~elmo_tutorial.fast.speed_up`: the same vectors up to rounding), in place.

    Example:
        >>> from elmo_tutorial.model.config import MODEL_PRESETS
        >>> embedder = Embedder(ELMo(MODEL_PRESETS["tiny"]))
        >>> embedder.embed_sentence(["I", "went", "to", "the", "bank"]).shape
        (3, 5, 128)
        >>> [v.shape for v in embedder.embed_sentences([["Hi"], ["Hello", "there"]])]
        [(3, 1, 128), (3, 2, 128)]
    """

    def __init__(self, model: ELMo, device: str | torch.device | None = None,
                 fast: bool = True) -> None:
        if not isinstance(model, nn.Module):  # e.g. a path given instead of a model
            raise TypeError(f"Embedder expects an ELMo model, got {type(model).__name__} "
                            f"{model!r:.40}; e.g. Embedder(load_elmo(run_dir))")
        if device is None:
            device = next(model.parameters()).device
        self.device = torch.device(device)
        self.model = model.to(self.device).eval()
        if fast:
            speed_up(self.model)

    def embed_sentence(self, tokens: Sequence[str]) -> np.ndarray:
        """One sentence → ``(L + 1, T, 2P)``, ``T = len(tokens)``."""
        if isinstance(tokens, str):
            raise TypeError(
                f"embed_sentence expects a list of tokens, got the string {tokens!r:.40}; "
                "tokenize it first, e.g. elmo_tutorial.data.tokenize.tokenize_words(text)"
            )
        return self.embed_batch([tokens])[0]

    def embed_batch(self, sentences: Sequence[Sequence[str]]) -> list[np.ndarray]:
        """Embed one batch as given (no sorting): a list of ``(L + 1, T_i, 2P)`` arrays."""
        sentences = _as_list(sentences)
        rows = index_tokens(sentences)
        with torch.inference_mode():
            table = self._table(list(rows))
            return self._run_batch(sentences, rows, table)

    def embed_sentences(self, sentences: Sequence[Sequence[str]], batch_size: int = 64,
                        progress: bool = False) -> list[np.ndarray]:
        """Many sentences (any iterable of token lists) → list of ``(L + 1, T_i, 2P)`` float32
        arrays, in the order given; ``batch_size`` sentences of similar length per pass."""
        sentences = _as_list(sentences)
        results: list[np.ndarray | None] = [None] * len(sentences)
        for indices, arrays in self.iter_batches(sentences, batch_size, progress):
            for i, vectors in zip(indices, arrays, strict=True):
                results[i] = vectors
        return results

    def iter_batches(self, sentences: Sequence[Sequence[str]], batch_size: int = 64,
                     progress: bool = False) -> Iterator[tuple[list[int], list[np.ndarray]]]:
        """Embed sentences batch by batch, shortest first: yields ``(indices, arrays)``,
        ``arrays[k]`` the ``(L + 1, T_i, 2P)`` array of ``sentences[indices[k]]`` (for callers
        that store the vectors as they come, as ``embed_corpus`` does)."""
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise TypeError(f"batch_size must be an int ≥ 1, got {type(batch_size).__name__} "
                            f"{batch_size!r}")
        sentences = _as_list(sentences)
        rows = index_tokens(sentences)
        order = sorted(range(len(sentences)), key=lambda i: len(sentences[i]))
        bar = progress_bar(progress, total=sum(len(s) for s in sentences), unit="tok",
                           desc="embedding", dynamic_ncols=True)
        with torch.inference_mode(), bar:
            table = self._table(list(rows))
            for start in range(0, len(order), batch_size):
                chunk = order[start : start + batch_size]
                batch = [sentences[i] for i in chunk]
                yield chunk, self._run_batch(batch, rows, table)
                bar.update(sum(len(s) for s in batch))

    def _run_batch(self, batch: Sequence[Sequence[str]], rows: dict[str, int],
                   table: torch.Tensor) -> list[np.ndarray]:
        """The biLM on one batch whose token vectors are rows of ``table``."""
        lengths = [len(s) for s in batch]
        index = torch.full((len(batch), max(lengths, default=0) + 2), PAD_ROW)  # (B, T + 2)
        for b, sentence in enumerate(batch):
            index[b, : len(sentence) + 2] = torch.tensor(
                [BOS_ROW, *(rows[t] for t in sentence), EOS_ROW])
        index = index.to(self.device)
        word_emb = table[index]  # (B, T + 2, P), zero at padding (row 0)
        out = self.model.bilm.encode_embeddings(word_emb, index != PAD_ROW)
        # Each layer written once, straight into the result, <S> and </S> left out (ELMo's
        # layers() would concatenate, stack and mask: three more copies). A shorter row's </S>
        # and padding land after its own length and are cut off.
        P, T = word_emb.shape[-1], index.shape[1] - 2
        columns = [(word_emb, word_emb)] + list(zip(out["forward"], out["backward"], strict=True))
        stacked = word_emb.new_empty(len(batch), len(columns), T, 2 * P)  # (B, L + 1, T, 2P)
        for j, (left, right) in enumerate(columns):
            stacked[:, j, :, :P] = left[:, 1:-1]
            stacked[:, j, :, P:] = right[:, 1:-1]
        stacked = stacked.cpu().numpy()  # row b is cut to its length n_b below
        return [stacked[b, :, :n] for b, n in enumerate(lengths)]

    def _table(self, tokens: list[str], chunk: int = 2048) -> torch.Tensor:
        """``(3 + N, P)``: a zero row for padding, ``<S>``, ``</S>``, then ``tokens``, each
        through the character CNN once, ``chunk`` tokens per product (large products run at a
        higher rate than the few new tokens of one batch would)."""
        char_cnn = self.model.bilm.char_cnn
        ids = torch.tensor([word_to_char_ids(t) for t in (BOS_TOKEN, EOS_TOKEN, *tokens)],
                           device=self.device)  # (2 + N, 50)
        vectors = torch.cat([char_cnn.embed_tokens(ids[i : i + chunk])
                             for i in range(0, len(ids), chunk)])  # (2 + N, P)
        return torch.cat([vectors.new_zeros(1, vectors.shape[1]), vectors])


def index_tokens(sentences: Sequence[Sequence[str]]) -> dict[str, int]:
    """Each distinct token of ``sentences`` → its row in an ``Embedder`` token table (``3 +
    rank of first use``; rows 0-2 are padding, ``<S>``, ``</S>``), every token checked."""
    sentences = _as_list(sentences)
    rows: dict[str, int] = {}
    for i, sentence in enumerate(sentences):
        if isinstance(sentence, str) or not isinstance(sentence, Sequence):
            raise TypeError(f"sentence {i} must be a list of token strings, got "
                            f"{type(sentence).__name__} {sentence!r:.60}; tokenize it first")
        if len(sentence) > MAX_SENTENCE_TOKENS:
            raise ValueError(f"sentence {i} has {len(sentence):,} tokens, more than the "
                             f"{MAX_SENTENCE_TOKENS:,} an Embedder takes (memory grows with "
                             "length); split the text into sentences (tokenize.tokenize does)")
        for j, token in enumerate(sentence):
            if token.__class__ is not str or not token:  # the common case costs one check
                try:
                    word_to_char_ids(token)  # raises the message for what is wrong
                except (TypeError, ValueError) as error:
                    raise type(error)(f"sentence {i}, token {j} is invalid: {error}") from None
            rows.setdefault(token, len(rows) + 3)
    return rows


def _as_list(sentences: Iterable[Sequence[str]]) -> Sequence[Sequence[str]]:
    """Sentences as a sequence (a generator is read once), or a one-line error."""
    if isinstance(sentences, str) or not isinstance(sentences, Iterable):
        raise TypeError("expected a list of token lists, e.g. [['Hello', 'world'], ['Hi']]; "
                        f"got {type(sentences).__name__} {sentences!r:.40}")
    return sentences if isinstance(sentences, Sequence) else list(sentences)


__all__ = ["MAX_SENTENCE_TOKENS", "Embedder", "index_tokens"]
