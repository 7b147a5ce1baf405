"""Contextual vectors of raw text from a trained run: what ``elmo-tutorial embed`` shows.

Layer 0 is the character CNN's token embedding: the same vector for a word wherever it appears
(duplicated to ``2P``, as in AllenNLP). Layers 1 and 2 are the forward and backward LSTM outputs
side by side: they depend on the whole sentence. ``"elmo"`` is the scalar mix
``γ Σ_j s_j h_j`` with untrained (equal) weights. Text is split into tokens with
:func:`elmo_tutorial.data.tokenize.tokenize_words` (no punkt needed).

For analysis of many tokenized sentences, use :class:`~elmo_tutorial.analyses.embedder.Embedder`.

Example:
    >>> tokens, vectors = embed_text("data/models/small", ["The bank ."], layer="2")
    >>> tokens, tuple(vectors[0].shape)
    ([['The', 'bank', '.']], (3, 256))
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import torch

from elmo_tutorial.data.tokenize import tokenize_words
from elmo_tutorial.model.chars import batch_to_ids
from elmo_tutorial.model.elmo import ELMo

__all__ = ["LAYERS", "SharedWord", "embed_text", "shared_word_similarities"]

LAYERS = {"0": "word_emb", "1": "lstm_outputs1", "2": "lstm_outputs2", "elmo": "elmo"}


def embed_text(run_dir: str | Path, sentences: list[str],
               layer: str = "elmo") -> tuple[list[list[str]], list[torch.Tensor]]:
    """Tokenize ``sentences`` and return their tokens and one layer's vectors.

    Args:
        run_dir: a run directory (from ``elmo-tutorial train``, or the shipped model).
        sentences: raw text, one string per sentence.
        layer: ``"0"``, ``"1"``, ``"2"`` or ``"elmo"`` (see the module docstring).

    Returns:
        The tokens of each sentence and its vectors, ``(T_i, 2P)`` each.
    """
    if layer not in LAYERS:
        raise ValueError(f"layer must be one of {', '.join(LAYERS)}, got {layer!r}")
    model = ELMo.from_run(run_dir).eval()
    key = LAYERS[layer]
    tokens = [tokenize_words(s) for s in sentences]
    empty = [i for i, sentence in enumerate(tokens, start=1) if not sentence]
    if empty:
        raise ValueError(f"sentence {empty[0]} is empty: give the text to embed, e.g. "
                         '"She sat on the bank ."')
    with torch.no_grad():
        out = model(batch_to_ids(tokens))
    vectors = out[key]
    if key == "word_emb":  # layer 0 is duplicated to 2P, as in AllenNLP
        vectors = torch.cat([vectors, vectors], dim=-1)
    return tokens, [vectors[i, : len(t)] for i, t in enumerate(tokens)]


class SharedWord(NamedTuple):
    """One word that occurs in both sentences, where (1-based word numbers), and the cosine
    similarity of its two vectors."""

    token: str
    in_first: int
    in_second: int
    cosine: float


def shared_word_similarities(tokens: list[list[str]],
                             vectors: list[torch.Tensor]) -> list[SharedWord]:
    """Cosine similarity of every occurrence of a word in sentence 2 with every occurrence of
    the same word in sentence 1 (a word used twice, such as *the*, gives one line per pair).

    How far context moves a word's vector: layer 0 gives 1.0 for every shared word.
    """
    return [SharedWord(tok, i + 1, j + 1,
                       float(torch.nn.functional.cosine_similarity(u, v, dim=0)))
            for j, (tok, v) in enumerate(zip(tokens[1], vectors[1], strict=True))
            for i, (other, u) in enumerate(zip(tokens[0], vectors[0], strict=True))
            if other == tok]
