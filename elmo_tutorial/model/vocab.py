"""The word vocabulary of the biLM's softmax (ELMo's *inputs* are characters, not word ids).

Taught in notebook 02 (``02_tokens_and_characters``).

ELMo reads every token through its characters (:mod:`elmo_tutorial.model.chars`), so it has no input
vocabulary at all. Word ids are needed only for the language-model *targets*: the softmax over
``V`` words that the forward and backward LMs predict (Peters et al. 2018, Sec. 3.1).

The layout follows bilm-tf's vocabulary file: the three special words come first,

    ====  ==========  ================================================
    id    word        meaning
    ====  ==========  ================================================
    0     ``<S>``     sentence start (the backward LM's last target)
    1     ``</S>``    sentence end (the forward LM's last target)
    2     ``<UNK>``   every word that is not in the vocabulary
    ====  ==========  ================================================

and the rest are sorted by descending frequency (ties alphabetically, so that the order is
deterministic). On disk a vocabulary is a UTF-8 text file with one word per line, in id order,
which bilm-tf reads unchanged.

Example:
    >>> vocab = Vocabulary.from_sentences([["the", "cat"], ["the", "dog"]])
    >>> vocab.words
    ['<S>', '</S>', '<UNK>', 'the', 'cat', 'dog']
    >>> vocab.encode(["the", "bird"])
    [3, 2]
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from elmo_tutorial.files.safe_files import atomic_write_text
from elmo_tutorial.model.chars import BOS_TOKEN, EOS_TOKEN

__all__ = ["SPECIALS", "UNK_TOKEN", "Vocabulary"]

UNK_TOKEN = "<UNK>"
SPECIALS = (BOS_TOKEN, EOS_TOKEN, UNK_TOKEN)


class Vocabulary:
    """An ordered list of words with ``<S>``, ``</S>``, ``<UNK>`` at ids 0, 1, 2.

    Args:
        words: every word in id order; the first three must be ``<S>``, ``</S>``, ``<UNK>``.
            Words must be unique, non-empty and free of whitespace (one word per file line).

    Attributes:
        bos_id, eos_id, unk_id: 0, 1 and 2.
    """

    bos_id, eos_id, unk_id = 0, 1, 2

    def __init__(self, words: Iterable[str]) -> None:
        words = list(words)
        if tuple(words[:3]) != SPECIALS:
            raise ValueError(
                f"a vocabulary must start with {list(SPECIALS)} (bilm-tf's layout), "
                f"got {words[:3]}; build it with Vocabulary.from_sentences, or add these three "
                "lines at the top of the vocabulary file"
            )
        index: dict[str, int] = {}
        for i, word in enumerate(words):
            if not isinstance(word, str) or word.split() != [word]:
                raise ValueError(
                    f"word {i} is {word!r}: vocabulary entries must be non-empty strings "
                    "without whitespace (the file stores one word per line)"
                )
            if word in index:
                raise ValueError(
                    f"duplicate word {word!r} at ids {index[word]} and {i}: every word must "
                    "appear once"
                )
            index[word] = i
        self._words = words
        self._index = index

    @classmethod
    def from_counts(
        cls, counts: Mapping[str, int], min_count: int = 1, max_size: int | None = None
    ) -> Vocabulary:
        """Keep words seen at least ``min_count`` times, the most frequent first.

        Args:
            counts: word → number of occurrences. Counts of the special words are ignored.
            min_count: rarer words are left out (they become ``<UNK>``).
            max_size: at most this many entries *including* the three specials, so that
                ``len(vocab) <= max_size``; ``None`` for no limit.
        """
        if min_count < 1:
            raise ValueError(f"min_count must be at least 1, got {min_count}")
        if max_size is not None and max_size < len(SPECIALS):
            raise ValueError(f"max_size must be at least 3 (the special words), got {max_size}")
        kept = [(w, c) for w, c in counts.items() if c >= min_count and w not in SPECIALS]
        kept.sort(key=lambda wc: (-wc[1], wc[0]))  # frequency, then alphabetical for ties
        if max_size is not None:
            kept = kept[: max_size - len(SPECIALS)]
        return cls([*SPECIALS, *(w for w, _ in kept)])

    @classmethod
    def from_sentences(
        cls, sentences: Iterable[Iterable[str]], min_count: int = 1, max_size: int | None = None
    ) -> Vocabulary:
        """Count the tokens of tokenized sentences and build the vocabulary (see from_counts)."""
        counts: Counter[str] = Counter()
        for i, sentence in enumerate(sentences):
            if isinstance(sentence, str):
                raise TypeError(
                    f"sentence {i} is a str; pass tokenized sentences (lists of tokens), "
                    "e.g. from elmo_tutorial.data.tokenize.tokenize"
                )
            counts.update(sentence)
        return cls.from_counts(counts, min_count=min_count, max_size=max_size)

    # -- file format -------------------------------------------------------------------------
    def _text(self) -> str:
        return "".join(w + "\n" for w in self._words)

    def save(self, path: str | Path) -> None:
        """Write one word per line, in id order (bilm-tf's vocabulary file)."""
        atomic_write_text(path, self._text())

    def digest(self) -> str:
        """SHA-256 of the file :meth:`save` writes: the words and their order (their ids)."""
        return hashlib.sha256(self._text().encode("utf-8")).hexdigest()

    @classmethod
    def load(cls, path: str | Path) -> Vocabulary:
        """Read a file written by :meth:`save` (or a bilm-tf vocabulary file)."""
        try:
            lines = Path(path).read_bytes().decode("utf-8").split("\n")
        except UnicodeDecodeError as error:
            raise ValueError(f"{path} is not a UTF-8 text file ({error.reason} at byte "
                             f"{error.start}); expected one word per line") from None
        while lines and lines[-1].strip() == "":
            lines.pop()  # trailing newline(s)
        words = [line.strip() for line in lines]  # bilm-tf strips each line, "\r" included
        for number, word in enumerate(words, start=1):
            if not word:
                raise ValueError(f"{path}, line {number}: empty line; expected one word per line")
        try:
            return cls(words)
        except ValueError as error:
            raise ValueError(f"{path}: {error}") from None

    # -- lookups -----------------------------------------------------------------------------
    @property
    def words(self) -> list[str]:
        """All words in id order (a copy)."""
        return list(self._words)

    def __len__(self) -> int:
        return len(self._words)

    def __contains__(self, word: object) -> bool:
        return word in self._index

    def __iter__(self) -> Iterator[str]:
        return iter(self._words)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Vocabulary) and self._words == other._words

    __hash__ = None  # mutable-looking container semantics: compare by content, no hashing

    def __repr__(self) -> str:
        preview = ", ".join(self._words[:6])
        return f"Vocabulary({len(self)} words: {preview}{', ...' if len(self) > 6 else ''})"

    def index(self, word: str) -> int:
        """The id of ``word``, or :attr:`unk_id` when it is not in the vocabulary."""
        return self._index.get(word, self.unk_id)

    def encode(self, tokens: Iterable[str]) -> list[int]:
        """Ids of a token sequence (unknown words → ``unk_id``)."""
        if isinstance(tokens, str):
            raise TypeError("encode expects a list of tokens, not a str; tokenize it first")
        return [self._index.get(t, self.unk_id) for t in tokens]

    def word(self, i: int) -> str:
        """The word with id ``i``."""
        if not 0 <= i < len(self._words):
            raise IndexError(f"word id {i} is out of range for a vocabulary of {len(self)} words")
        return self._words[i]

    def decode(self, ids: Iterable[int]) -> list[str]:
        """Words of a sequence of ids (the inverse of :meth:`encode` for known words)."""
        return [self.word(int(i)) for i in ids]
