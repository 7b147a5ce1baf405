"""The embedded corpus: synthetic English in which six polysemous words carry known senses.

Taught in notebook 00 (``00_static_vs_contextual``).

ELMo's claim (Peters et al. 2018, Sec. 1 and 5.3) is that a word's vector should depend on its
context: *bank* next to *river* is not *bank* next to *loan*. To see that on a laptop we need a
corpus where we *know* each occurrence's sense. ``data/embedded/`` holds one (about 250k
training tokens):

* six polysemous words (``bank``, ``play``, ``work``, ``point``, ``bat``, ``spring``) with two to
  four senses each, some both a noun and a verb (``work``: "their work" / "they work");
* every sense has its own *cue words* (``cues.tsv``), never near the word's other senses: next
  to the word, or 3-8 tokens before or after it, so that sometimes only the forward reader, or
  only the backward one, knows the sense at the word;
* generic sentences, questions, two clauses joined by a conjunction, punctuation, proper names,
  and Zipf-like word frequencies (the r-th word of a list drawn with weight 1/r).

As a training corpus its name is ``embedded`` (the ``tiny`` preset's). The maintainer's script
``.ci/make_sense_corpus.py`` generates it; a test checks that it still writes the same bytes.

Example:
    >>> tokens, index, word, sense, pos = sense_examples("valid")[0]
    >>> tokens[index].lower() == word, "canoe" in cue_words("bank", "RIVER")
    (True, True)
"""

from __future__ import annotations

import functools
from typing import NamedTuple

from elmo_tutorial.data.registry import normalize_split
from elmo_tutorial.runtime import REPOSITORY

__all__ = ["SenseExample", "cue_distances", "cue_words", "sense_corpus", "sense_examples"]

CORPUS_DIR = REPOSITORY / "data" / "embedded"  # {train,valid,test}.txt, senses.*.tsv, cues.tsv


@functools.cache
def _cues() -> dict[tuple[str, str], frozenset[str]]:
    """``(word, sense) -> cue words``, from ``cues.tsv``."""
    rows = (CORPUS_DIR / "cues.tsv").read_text(encoding="utf-8").splitlines()[1:]
    return {(word, sense): frozenset(cues.split())
            for word, sense, cues in (row.split("\t") for row in rows)}


def cue_words(word: str, sense: str) -> frozenset[str]:
    """The cue words of one sense, e.g. ``cue_words("bank", "RIVER")`` contains ``"canoe"``."""
    if (word, sense) not in _cues():
        known = ", ".join(f"{w}/{s}" for w, s in _cues())
        raise KeyError(f"no sense {word}/{sense} in the synthetic corpus; known: {known}")
    return _cues()[word, sense]


def cue_distances(tokens, index: int, word: str, sense: str) -> tuple[int | None, int | None]:
    """``(before, after)``: how many positions left / right of ``tokens[index]`` the nearest cue
    word of its sense is (1 = adjacent; ``None``: none on that side). A forward model sees only
    the ``before`` cues at the word itself; a backward model only the ``after`` cues."""
    cues = cue_words(word, sense)
    before = next((d for d in range(1, index + 1) if tokens[index - d].lower() in cues), None)
    after = next((d for d in range(1, len(tokens) - index) if tokens[index + d].lower() in cues),
                 None)
    return before, after


class SenseExample(NamedTuple):
    """One labelled occurrence as read back from ``senses.<split>.tsv``."""

    tokens: list[str]
    index: int
    word: str
    sense: str
    pos: str


def sense_corpus(split: str) -> list[list[str]]:
    """The sentences of one split (``"train"``, ``"valid"`` or ``"test"``) as token lists."""
    text = (CORPUS_DIR / f"{normalize_split(split)}.txt").read_text(encoding="utf-8")
    return [line.split(" ") for line in text.splitlines()]


def sense_examples(split: str) -> list[SenseExample]:
    """Every labelled polysemous occurrence of one split, from ``senses.<split>.tsv``: a header,
    then ``sentence  token  word  sense  pos`` (0-based indices) per occurrence."""
    split = normalize_split(split)
    sentences = sense_corpus(split)
    rows = (CORPUS_DIR / f"senses.{split}.tsv").read_text(encoding="utf-8").splitlines()[1:]
    return [SenseExample(sentences[int(sentence)], int(index), word, sense, pos)
            for sentence, index, word, sense, pos in (row.split("\t") for row in rows)]
