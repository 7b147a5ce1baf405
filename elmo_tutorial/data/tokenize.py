"""From raw text to tokens: rule-based sentences, then nltk's Treebank-style words.

Taught in notebooks 00 and 02.

ELMo's biLM was trained on the 1B Word Benchmark (Chelba et al. 2013), text already split into
sentences and tokenized Penn-Treebank style (``don't`` → ``do n't``, punctuation split off).
This module reproduces that style with no downloaded model (no ``punkt``):

1. :func:`split_sentences` cuts after ``.``, ``!`` or ``?`` (plus closing quotes/brackets)
   when whitespace and an upper-case letter, a digit or an opening quote follow, unless the
   word before the full stop is a known abbreviation (``Mr.``) or initials (``U.S.``, ``J.``).
   Blank lines always end a sentence.
2. :func:`tokenize_words` runs nltk's ``NLTKWordTokenizer`` (a regex program, no model), its
   LaTeX quotes turned back into ``"`` as in the 1B Word Benchmark.
3. :func:`tokenize` does both: ``str`` → ``list[list[str]]``.

Example:
    >>> tokenize('Mr. Smith said "hi!" He left.')
    [['Mr.', 'Smith', 'said', '"', 'hi', '!', '"'], ['He', 'left', '.']]

Known limits (shared by every rule-based splitter): an abbreviation that really ends a
sentence (``... in the U.S. The next ...``) does not split, and a sentence that starts with a
lower-case word is joined to the one before.
"""

from __future__ import annotations

import re

from nltk.tokenize import NLTKWordTokenizer

__all__ = ["ABBREVIATIONS", "split_sentences", "tokenize", "tokenize_words"]

# Lower-cased, without the final full stop. A word ending in "." that is one of these does not
# end a sentence, even when a capitalised word follows ("Mr. Smith", "St. Louis"). Ordinary
# words that often end sentences ("no", "art", "sun", "mar") are left out on purpose.
ABBREVIATIONS = frozenset(
    """
    mr mrs ms dr prof rev hon st sr jr messrs mme mlle gen col lt sgt capt cmdr adm gov sen
    rep pres supt fr vs etc cf al approx dept univ inc ltd corp bros vol vols pp eds figs
    jan feb apr jun jul aug sep sept oct nov dec mt ft ave blvd
    """.split()
)

# Candidate boundary: terminal punctuation, optional closing quotes/brackets, then whitespace.
_CANDIDATE = re.compile(r"[.!?]+[\"'\u201d\u2019)\]]*\s+")
# What may open the next sentence: opening quotes/brackets, then an upper-case letter or digit.
_OPENER = re.compile(r"[\"'\u201c\u2018(\[]*(?:[^\W\d_]|\d)")
# Initials and dotted abbreviations: "U.S.", "e.g.", "i.e.", "J." (letters, each with a ".").
_INITIALS = re.compile(r"(?:[^\W\d_]\.)+")
_PARAGRAPH = re.compile(r"\n\s*\n")
# Characters stripped from the front of the word before a full stop ("(Mr." → "Mr.").
_LEADING_PUNCT = "\"'\u201c\u2018([{"

_WORD_TOKENIZER = NLTKWordTokenizer()


def _ends_with_abbreviation(before: str) -> bool:
    """True when the text up to and including a single "." ends in an abbreviation."""
    word = before.rsplit(None, 1)[-1].lstrip(_LEADING_PUNCT) if before.strip() else ""
    return word[:-1].lower() in ABBREVIATIONS or _INITIALS.fullmatch(word) is not None


def _split_paragraph(paragraph: str) -> list[str]:
    sentences, start = [], 0
    for match in _CANDIDATE.finditer(paragraph):
        following = paragraph[match.end() :]
        opener = _OPENER.match(following)
        # The next sentence must start with a capital letter or a digit (after any quotes).
        if opener is None or opener.group()[-1].islower():
            continue
        punct = match.group().rstrip()
        if punct.rstrip("\"'\u201d\u2019)]") == "." and _ends_with_abbreviation(
            paragraph[start : match.start() + 1]
        ):
            continue
        sentences.append(paragraph[start : match.end()].strip())
        start = match.end()
    sentences.append(paragraph[start:].strip())
    return [s for s in sentences if s]


def split_sentences(text: str) -> list[str]:
    """Split raw text into sentences with a few regular-expression rules (no trained model);
    line breaks inside a paragraph are spaces. The sentences are stripped; none is empty."""
    sentences = []
    for paragraph in _PARAGRAPH.split(text):
        paragraph = " ".join(paragraph.split())  # one line per paragraph, single spaces
        sentences.extend(_split_paragraph(paragraph))
    return sentences


def tokenize_words(sentence: str) -> list[str]:
    """Tokenize one sentence Penn-Treebank style, with plain ``"`` quotes (1B Word style).

    A full stop is split off only at the end of the string: pass sentences, not paragraphs.

    Example:
        >>> tokenize_words('She said "don\\'t".')
        ['She', 'said', '"', 'do', "n't", '"', '.']
    """
    tokens = _WORD_TOKENIZER.tokenize(sentence)
    return ['"' if token in ("``", "''") else token for token in tokens]


def tokenize(text: str) -> list[list[str]]:
    """Split ``text`` into sentences and each into tokens: one list per sentence that has any,
    ready for :class:`~elmo_tutorial.model.vocab.Vocabulary` and
    :func:`~elmo_tutorial.model.chars.batch_to_ids`."""
    return [tokens for s in split_sentences(text) if (tokens := tokenize_words(s))]
