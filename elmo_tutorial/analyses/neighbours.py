"""Nearest neighbours in context: every token of a corpus, searchable layer by layer.

Taught in notebook 08 (``08_contextual_embeddings``).

The paper's Table 4 (Peters et al. 2018, Sec. 5.3): the nearest neighbours of *play* in a
sentence about baseball are uses of *play* in games, in one about Broadway uses in theatre.
:class:`NeighbourIndex` holds every token's unit vector per layer and for the ELMo mix, for
cosine search; :func:`neighbour_explorer` prints a default query and adds a live form.

Example:
    >>> rng = np.random.default_rng(0)
    >>> index = NeighbourIndex([["a", "b"], ["b", "c"]], [rng.normal(size=(3, 2, 4)),
    ...                                                   rng.normal(size=(3, 2, 4))])
    >>> index.layers, len(index)
    (('0', '1', '2', 'elmo'), 4)
    >>> [n.word for n in index.search(index.vectors["2"][1], "2", k=1)]
    ['b']
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
import torch

from elmo_tutorial.analyses.sense_separation import _unit, mix_layers
from elmo_tutorial.data.tokenize import tokenize_words
from elmo_tutorial.widgets import Choice, Text, explore

__all__ = ["Neighbour", "NeighbourIndex", "neighbour_explorer"]


class Neighbour(NamedTuple):
    """One hit: its cosine ``similarity``, where it is (``sentence``, ``position``) and the
    sentence's ``tokens``."""

    similarity: float
    sentence: int
    position: int
    tokens: list[str]

    @property
    def word(self) -> str:
        return self.tokens[self.position]

    def context(self, width: int = 6) -> str:
        """The word in brackets with up to ``width`` tokens on each side."""
        left = self.tokens[max(0, self.position - width) : self.position]
        right = self.tokens[self.position + 1 : self.position + 1 + width]
        dots_left = "… " if self.position > width else ""
        dots_right = " …" if self.position + 1 + width < len(self.tokens) else ""
        return f"{dots_left}{' '.join(left)} [{self.word}] {' '.join(right)}{dots_right}".strip()


class NeighbourIndex:
    """The contextual vectors of every token of ``sentences`` (one ``(L + 1, T_i, D)`` array
    of ``embeddings`` each), per layer, for cosine search; ``scalar_mix`` makes ``"elmo"``.

    Attributes:
        layers: the names to search in: ``"0"`` … ``"L"`` and ``"elmo"``.
        vectors: ``{layer: (N, D) float32 unit vectors}``, one row per token of the corpus.
        words: ``(N,)`` the tokens as written; ``where``: ``(N, 2)`` sentence and position.
    """

    def __init__(self, sentences: Sequence[Sequence[str]], embeddings: Sequence[np.ndarray],
                 scalar_mix: torch.nn.Module | None = None) -> None:
        if len(sentences) != len(embeddings):
            raise ValueError(f"{len(sentences)} sentences but {len(embeddings)} embeddings")
        self.sentences = [list(s) for s in sentences]
        for s, layers in zip(self.sentences, embeddings, strict=True):
            if layers.shape[1] != len(s):
                raise ValueError(f"an embedding of {layers.shape[1]} positions for a sentence "
                                 f"of {len(s)} tokens: embed exactly these sentences")
        stacked = np.concatenate(list(embeddings), axis=1)  # (L + 1, N, D)
        self.words = np.array([t for s in self.sentences for t in s], dtype=object)  # (N,)
        self.where = np.array([(i, t) for i, s in enumerate(self.sentences)
                               for t in range(len(s))], dtype=np.int64).reshape(-1, 2)  # (N, 2)
        self.vectors = {str(j): _unit(h).astype(np.float32) for j, h in enumerate(stacked)}
        self.vectors["elmo"] = _unit(mix_layers(stacked, scalar_mix)).astype(np.float32)
        self.layers = tuple(self.vectors)
        self._lower = np.array([w.lower() for w in self.words], dtype=object)

    def __len__(self) -> int:
        return len(self.words)

    def _layer(self, layer) -> str:
        name = str(layer).lower()
        if name not in self.vectors:
            raise KeyError(f"no layer {layer!r}; choose one of {', '.join(self.layers)}")
        return name

    def search(self, vector: np.ndarray, layer, k: int = 10, words: Collection[str] | None = None,
               exclude: Sequence[str] | None = None) -> list[Neighbour]:
        """The ``k`` tokens whose ``layer`` vectors have the highest cosine with ``(D,)``
        ``vector``; only ``words`` (any case), if given, and not in sentences equal to
        ``exclude`` (the query's own)."""
        name = self._layer(layer)
        sims = self.vectors[name] @ _unit(np.asarray(vector, dtype=np.float32))  # (N,)
        keep = np.ones(len(self), dtype=bool)
        if words is not None:
            keep &= np.isin(self._lower, [w.lower() for w in words])
        if exclude is not None:
            same = [i for i, s in enumerate(self.sentences) if s == list(exclude)]
            keep &= ~np.isin(self.where[:, 0], same)
        candidates = np.flatnonzero(keep)
        best = candidates[np.argsort(-sims[candidates], kind="stable")[:k]]
        return [Neighbour(float(sims[i]), int(self.where[i, 0]), int(self.where[i, 1]),
                          self.sentences[self.where[i, 0]]) for i in best]

    def query(self, embedder, tokens: Sequence[str], index: int, layer, k: int = 10,
              same_word: bool = False) -> list[Neighbour]:
        """Embed ``tokens``, search with the ``layer`` vector of ``tokens[index]`` (not in its
        own sentence; ``same_word``: only that word, as in the paper's Table 4)."""
        tokens = list(tokens)
        vector = self.vector_of(embedder, tokens, index, layer)
        return self.search(vector, layer, k, [tokens[index]] if same_word else None, tokens)

    def vector_of(self, embedder, tokens: Sequence[str], index: int, layer) -> np.ndarray:
        """The ``layer`` vector of ``tokens[index]`` in its sentence, ``(D,)``."""
        if not 0 <= index < len(tokens):
            raise IndexError(f"index {index} is outside the sentence of {len(tokens)} tokens")
        name = self._layer(layer)
        layers = embedder.embed_sentence(list(tokens))  # (L + 1, T, D)
        if name == "elmo":
            return mix_layers(layers, embedder.model.scalar_mix)[index]
        return layers[int(name), index]

    def same_word_similarity(self, layer, min_count: int = 5, max_per_word: int = 20,
                             pairs: int = 20_000, centre: bool = False,
                             seed: int = 0) -> tuple[float, float]:
        """Mean cosine between occurrences of the same word, and between different words.

        Same word: the mean cosine of all pairs of the first ``max_per_word`` occurrences of
        each type with ≥ ``min_count``, averaged over types (in layer 0 exactly 1). Different
        words: ``pairs`` random pairs of tokens. ``centre``: subtract the layer's mean vector
        first (all of a layer share a direction; Ethayarajh 2019 adjusts the same way).
        """
        x = self.vectors[self._layer(layer)].astype(np.float64)  # (N, D) unit vectors
        if centre:
            x = _unit(x - x.mean(axis=0))
        positions = defaultdict(list)
        for i, w in enumerate(self.words):
            positions[w].append(i)
        per_type = []
        for rows in positions.values():
            if len(rows) >= min_count:
                v = x[rows[:max_per_word]]  # (n, D)
                n = len(v)
                per_type.append(((v @ v.T).sum() - (v * v).sum()) / (n * n - n))
        if not per_type:
            raise ValueError(f"no word occurs {min_count} times in this corpus of {len(self)} "
                             "tokens: index more sentences or lower min_count")
        rng = np.random.default_rng(seed)
        a, b = rng.integers(0, len(self), pairs), rng.integers(0, len(self), pairs)
        differ = self.words[a] != self.words[b]
        across = (x[a[differ]] * x[b[differ]]).sum(1).mean()
        return float(np.mean(per_type)), float(across)

    def same_word_neighbour_rate(self, layer, queries: int = 2000, seed: int = 0) -> float:
        """Share of tokens whose nearest other token (cosine) is the same word as written,
        over ``queries`` random tokens whose word occurs at least twice."""
        x = self.vectors[self._layer(layer)]
        types, counts = np.unique(self.words.astype(str), return_counts=True)
        repeated = np.flatnonzero(np.isin(self.words.astype(str), types[counts >= 2]))
        rng = np.random.default_rng(seed)
        chosen = rng.choice(repeated, size=min(queries, len(repeated)), replace=False)
        hits = 0
        for start in range(0, len(chosen), 500):  # (500, N) similarities at a time
            rows = chosen[start : start + 500]
            sims = x[rows] @ x.T
            sims[np.arange(len(rows)), rows] = -np.inf  # not itself
            hits += int((self.words[sims.argmax(1)] == self.words[rows]).sum())
        return hits / len(chosen)

    @staticmethod
    def table(neighbours: Sequence[Neighbour], width: int = 6) -> str:
        """The hits as a plain-text table: rank, cosine, the word in its context."""
        lines = [f"{r:>2}  {n.similarity:6.3f}  {n.context(width)}"
                 for r, n in enumerate(neighbours, start=1)]
        return "\n".join(lines) if lines else "(no hit: the corpus has no such word)"


def neighbour_explorer(index: NeighbourIndex, embedder, sentence: str, word: str,
                       layer="2", k: int = 8, same_word: bool = False,
                       static: Sequence[Mapping[str, Any]] = ({},), live: bool | None = None):
    """Neighbours of ``word`` in ``sentence``: printed for fixed settings, then a live form.

    The printed tables are there in a rendered notebook; the form needs a live kernel
    (:func:`elmo_tutorial.widgets.explore`, which ``static`` and ``live`` go to). The first
    occurrence of ``word`` is the query. Returns the live widget, or ``None``.
    """
    if word not in tokenize_words(sentence):
        raise ValueError(f"{word!r} is not a token of {tokenize_words(sentence)}; pick one")

    def draw(sentence: str, word: str, layer: str, neighbours: str) -> str:
        tokens = tokenize_words(sentence)
        if word not in tokens:
            return f"“{word}” is not a token of {tokens}: type one of them in the word box."
        same = neighbours == "same word only"
        hits = index.query(embedder, tokens, tokens.index(word), layer, k=k, same_word=same)
        title = f"nearest to [{word}] in “{' '.join(tokens)}”, layer {layer}"
        return f"{title}{', same word only' if same else ''}:\n{index.table(hits)}"

    controls = {
        "sentence": Text(sentence), "word": Text(word),
        "layer": Choice(index.layers, str(layer)),
        "neighbours": Choice(("any word", "same word only"),
                             "same word only" if same_word else "any word"),
    }
    return explore(draw, controls, static=static, live=live)
