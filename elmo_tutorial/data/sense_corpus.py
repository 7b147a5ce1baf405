"""A small synthetic English-like corpus in which polysemous words have known senses.

Taught in notebook 00 (``00_static_vs_contextual``).

ELMo's claim (Peters et al. 2018, Sec. 1 and 5.3) is that a word's vector should depend on its
context: *bank* next to *river* is not *bank* next to *loan*. To see that on a laptop we need a
corpus where we *know* each occurrence's sense. This module generates one from the small
grammar in ``elmo_tutorial.data.sense_grammar``:

* six polysemous words (``bank``, ``play``, ``work``, ``point``, ``bat``, ``spring``) with two to
  four senses each, some used both as a noun and as a verb (``work``: "their work" / "they work");
* every sense has its own cue words; templates put them next to the word, 3-8 tokens before it,
  or 3-8 tokens after it, so that a left-to-right (forward) reader sometimes cannot know the
  sense yet and a right-to-left (backward) reader sometimes can, and vice versa;
* generic sentences without any polysemous word, questions, subordinate clauses, two clauses
  joined by a conjunction, punctuation tokens, a capitalised first word and proper names;
* words drawn with Zipf-like frequencies (the r-th word of a list with weight 1/r).

It ships with the package, so it needs no download: as a training corpus its name is
``embedded`` (``--corpus=embedded``, the ``tiny`` preset's corpus, kept in ``data/embedded/``),
beside ``wikitext2`` and the others of :data:`elmo_tutorial.data.corpora.LM_CORPORA`. (The vectors
of a corpus, by contrast, are
:func:`elmo_tutorial.analyses.embedding_cache.embed_corpus`'s business.)

Generation uses only ``random.Random(seed)``, so the same seed gives the same corpus on every
platform and Python version. The committed copy lives in ``data/embedded/``; regenerate it with
``python -m elmo_tutorial.data.sense_corpus data/embedded``.

Example:
    >>> sentences = generate(3, seed=0)
    >>> isinstance(sentences[0].tokens, tuple)
    True
    >>> all(s.tokens[o.index].lower() == o.word for s in sentences for o in s.occurrences)
    True
"""

from __future__ import annotations

import hashlib
import os
import random
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from elmo_tutorial.data import sense_grammar as lex
from elmo_tutorial.data.downloads import cache_dir
from elmo_tutorial.data.registry import normalize_split
from elmo_tutorial.data.sense_grammar import SENSES, Sense, cue_distances, cue_words
from elmo_tutorial.files.safe_files import file_digest
from elmo_tutorial.runtime import REPOSITORY

__all__ = [
    "SenseExample", "SenseOccurrence", "SenseSentence", "cue_distances", "cue_words",
    "sense_corpus", "sense_corpus_dir", "sense_examples", "generate", "write_corpus",
]

SPLITS = {"train": 21_500, "valid": 2_150, "test": 2_150}  # sentences per split
MIN_TOKENS, MAX_TOKENS = 5, 30  # sentence length bounds (tokens, punctuation included)
P_POLYSEMOUS = 0.6  # share of sentences with at least one polysemous word
P_TWO_CLAUSES = 0.25  # share of those that join a second clause with its own polysemous word
WORDS = tuple(dict.fromkeys(s.word for s in SENSES))  # the polysemous words, in lexicon order


@dataclass(frozen=True)
class SenseOccurrence:
    """One polysemous token: its position in the sentence, word (lower case), sense and POS."""

    index: int
    word: str
    sense: str
    pos: str


@dataclass(frozen=True)
class SenseSentence:
    """A generated sentence: its tokens and the polysemous occurrences in it."""

    tokens: tuple[str, ...]
    occurrences: tuple[SenseOccurrence, ...]


class SenseExample(NamedTuple):
    """One labelled occurrence as read back from ``senses.<split>.tsv``."""

    tokens: list[str]
    index: int
    word: str
    sense: str
    pos: str


def _zipf_choice(rng: random.Random, items):
    """Draw from ``items`` with the r-th item weighted 1/r (r = 1, 2, ...)."""
    return rng.choices(items, weights=[1.0 / r for r in range(1, len(items) + 1)])[0]


def _fill(template: str, rng: random.Random, sense: Sense | None):
    """Fill one template; return (tokens, index of $W or None).

    A sense noun right after a sense verb is one of that verb's objects, so that the
    verb and its object agree ("rowed the canoe", never "rowed the fish").
    """
    tokens: list[str] = []
    target = None
    objects = None  # the objects of the last sense verb drawn, until a noun uses them

    def verb(form: int) -> str:
        nonlocal objects
        chosen = _zipf_choice(rng, sense.verbs)
        objects = chosen[2]
        return chosen[form]

    def noun() -> str:
        nonlocal objects
        chosen = _zipf_choice(rng, objects or sense.nouns)
        objects = None
        return chosen

    slots = {
        "$n": noun,
        "$v": lambda: verb(1),
        "$vb": lambda: verb(0),
        "$a": lambda: _zipf_choice(rng, sense.adjectives),
        "$O": lambda: _zipf_choice(rng, sense.objects),
        "$D": lambda: _zipf_choice(rng, lex.DETERMINERS),
        "$S": lambda: _zipf_choice(rng, lex.SUBJECTS),
        "$SP": lambda: _zipf_choice(rng, lex.PLURAL_SUBJECTS),
        "$VN": lambda: _zipf_choice(rng, lex.NEUTRAL_VERBS)[1],
        "$VNB": lambda: _zipf_choice(rng, lex.NEUTRAL_VERBS)[0],
        "$NP": lambda: _zipf_choice(rng, lex.NEUTRAL_NPS),
        "$AN": lambda: _zipf_choice(rng, lex.NEUTRAL_ADJECTIVES),
        "$X": lambda: _zipf_choice(rng, lex.ADJUNCTS),
        "$XH": lambda: _zipf_choice(rng, lex.HABITUAL),
        "$L": lambda: _zipf_choice(rng, lex.LONG_FILLERS),
        "$P": lambda: _zipf_choice(rng, lex.PREPOSITIONS),
    }
    for slot in template.split():
        if slot == "$W":
            target = len(tokens)
            tokens.append(sense.word)
        else:
            tokens.extend(slots[slot]().split() if slot in slots else [slot])
    return tokens, target


def _article(token: str, following: str) -> str:
    """``a`` becomes ``an`` before a vowel (an athletic team, an outstretched finger)."""
    return "an" if token == "a" and following[:1] in "aeiou" else token


def _polysemous_clause(rng: random.Random):
    """A clause with one polysemous word: (tokens, SenseOccurrence with index in the clause)."""
    sense = rng.choices(SENSES, weights=[s.weight for s in SENSES])[0]
    pos = rng.choice(sense.pos)
    template = rng.choice(lex.NOUN_TEMPLATES if pos == "NOUN" else lex.VERB_TEMPLATES)
    tokens, target = _fill(template, rng, sense)
    return tokens, SenseOccurrence(target, sense.word, sense.sense, pos)


def _sentence(rng: random.Random) -> SenseSentence:
    """Draw one sentence (not yet length-checked)."""
    if rng.random() >= P_POLYSEMOUS:
        sense = rng.choice(SENSES)  # generic sentences still use cue words, with no target
        tokens, _ = _fill(rng.choice(lex.GENERIC_TEMPLATES), rng, sense)
        occurrences = []
    else:
        tokens, occurrence = _polysemous_clause(rng)
        occurrences = [occurrence]
        if rng.random() < P_TWO_CLAUSES and tokens[-1] == ".":
            second, other = _polysemous_clause(rng)
            while second[-1] != ".":  # a question cannot follow a conjunction
                second, other = _polysemous_clause(rng)
            joiner = rng.choice(lex.JOINERS)
            offset = len(tokens) - 1 + len(joiner)
            tokens = tokens[:-1] + joiner + second
            occurrences.append(SenseOccurrence(other.index + offset, other.word, other.sense,
                                               other.pos))
    tokens = [_article(t, tokens[i + 1]) for i, t in enumerate(tokens[:-1])] + tokens[-1:]
    tokens[0] = tokens[0][:1].upper() + tokens[0][1:]
    return SenseSentence(tuple(tokens), tuple(occurrences))


def generate(n_sentences: int, seed: int = 0) -> list[SenseSentence]:
    """Generate ``n_sentences`` sentences, deterministically from ``seed``.

    Sentences shorter than 5 or longer than 30 tokens are redrawn.

    Args:
        n_sentences: how many sentences to return (≥ 0).
        seed: the seed of the ``random.Random`` that draws every choice.

    Returns:
        A list of ``SenseSentence``; each polysemous token is listed in ``occurrences`` with its
        position, lower-case word, sense label and POS (``NOUN`` or ``VERB``).
    """
    if n_sentences < 0:
        raise ValueError(f"n_sentences must be ≥ 0, got {n_sentences}")
    rng = random.Random(seed)
    sentences = []
    while len(sentences) < n_sentences:
        sentence = _sentence(rng)
        if MIN_TOKENS <= len(sentence.tokens) <= MAX_TOKENS:
            sentences.append(sentence)
    return sentences


def write_corpus(out_dir, seed: int = 0) -> dict[str, Path]:
    """Write ``{train,valid,test}.txt``, ``senses.{split}.tsv`` and ``README.md`` to ``out_dir``.

    Each split has its own seed (``seed * 1000 + 0, 1, 2``), so splits never share a draw.
    ``*.txt``: one sentence per line, tokens separated by single spaces.
    ``senses.*.tsv``: a header, then ``sentence  token  word  sense  pos`` (0-based indices).

    Returns:
        The written files by name.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    stats = []
    for offset, (split, n) in enumerate(SPLITS.items()):
        sentences = generate(n, seed=seed * 1000 + offset)
        text = "".join(" ".join(s.tokens) + "\n" for s in sentences)
        rows = ["sentence\ttoken\tword\tsense\tpos\n"]
        rows += [f"{i}\t{o.index}\t{o.word}\t{o.sense}\t{o.pos}\n"
                 for i, s in enumerate(sentences) for o in s.occurrences]
        written[f"{split}.txt"] = out / f"{split}.txt"
        written[f"senses.{split}.tsv"] = out / f"senses.{split}.tsv"
        written[f"{split}.txt"].write_text(text, encoding="utf-8", newline="\n")
        written[f"senses.{split}.tsv"].write_text("".join(rows), encoding="utf-8", newline="\n")
        stats.append((split, len(sentences), sum(len(s.tokens) for s in sentences), len(rows) - 1))
    readme = out / "README.md"
    readme.write_text(_readme(seed, stats, {k: file_digest(p) for k, p in written.items()}),
                      encoding="utf-8", newline="\n")
    written["README.md"] = readme
    return written


def _readme(seed: int, stats, hashes: dict[str, str]) -> str:
    lines = [
        "# The embedded synthetic corpus",
        "",
        "Generated by `elmo_tutorial/data/sense_corpus.py` from the grammar in",
        "`elmo_tutorial/data/sense_grammar.py`; regenerate byte for byte with",
        "",
        "    python -m elmo_tutorial.data.sense_corpus data/embedded"
        + ("" if seed == 0 else f" {seed}"),
        "",
        "Files: `{train,valid,test}.txt` hold one sentence per line, tokens separated by single",
        "spaces. `senses.{split}.tsv` list every polysemous token: sentence index and token",
        "index (both 0-based), word, sense, universal POS tag.",
        "",
        "| split | sentences | tokens | labelled occurrences |",
        "|---|---|---|---|",
        *[f"| {split} | {n} | {t} | {o} |" for split, n, t, o in stats],
        "",
        "## Senses and their cue words",
        "",
        "| word | sense | POS | cue words (most frequent first) |",
        "|---|---|---|---|",
    ]
    for s in SENSES:
        cues = [*s.nouns[:4], *(v[1] for v in s.verbs[:2]), *s.adjectives[:2]]
        lines.append(f"| {s.word} | {s.sense} | {' '.join(s.pos)} | {', '.join(cues)}, ... |")
    lines += [
        "",
        "## Licence",
        "",
        "Written by this project's own code; the same licence as the project (Apache-2.0).",
        "",
        "## SHA-256",
        "",
        "```",
        *[f"{digest}  {name}" for name, digest in hashes.items()],
        "```",
        "",
    ]
    return "\n".join(lines)


def sense_corpus_dir() -> Path:
    """The folder holding the embedded corpus, generating it into the cache if needed.

    The repository's ``data/embedded/`` is used when present (an editable install or a
    clone). Otherwise the corpus is generated once into the download cache
    (``$ELMO_TUTORIAL_CACHE``), in a folder named after the generator's code,
    ``embedded-<sha256 prefix>``: a copy that another version of the package generated is
    never read as this one's. It is generated in a temporary folder and renamed into place
    whole, so a stopped generation leaves nothing that looks like a corpus.
    """
    repo = REPOSITORY / "data" / "embedded"
    if (repo / "README.md").exists():
        return repo
    target = cache_dir() / f"embedded-{_generator_version()}"
    if not target.is_dir():
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent)
        try:
            write_corpus(tmp)
            os.rename(tmp, target)
        except OSError:
            if not target.is_dir():  # else another process generated it meanwhile
                raise
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return target


def _generator_version() -> str:
    """sha256 prefix of the generator's code (this module and the grammar it draws from)."""
    digest = hashlib.sha256()
    for module in (sys.modules[__name__], lex):
        digest.update(Path(module.__file__).read_bytes())
    return digest.hexdigest()[:12]


def _read_corpus_file(name: str) -> str:
    """A file of the generated corpus."""
    return (sense_corpus_dir() / name).read_text(encoding="utf-8")


def sense_corpus(split: str) -> list[list[str]]:
    """The sentences of one split (``"train"``, ``"valid"`` or ``"test"``) as token lists.

    ``"dev"`` and ``"validation"`` mean ``"valid"``, as everywhere in the package.
    """
    text = _read_corpus_file(f"{normalize_split(split)}.txt")
    return [line.split(" ") for line in text.splitlines()]


def sense_examples(split: str) -> list[SenseExample]:
    """Every labelled polysemous occurrence of one split as ``SenseExample`` tuples.

    Example:
        >>> tokens, index, word, sense, pos = sense_examples("valid")[0]
        >>> tokens[index].lower() == word
        True
    """
    split = normalize_split(split)
    sentences = sense_corpus(split)
    rows = _read_corpus_file(f"senses.{split}.tsv").splitlines()
    examples = []
    for row in rows[1:]:
        sentence, index, word, sense, pos = row.split("\t")
        examples.append(SenseExample(sentences[int(sentence)], int(index), word, sense, pos))
    return examples


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: python -m elmo_tutorial.data.sense_corpus OUT_DIR [SEED]")
    files = write_corpus(sys.argv[1], seed=int(sys.argv[2]) if len(sys.argv) == 3 else 0)
    for path in files.values():
        print(f"{path}  {path.stat().st_size} bytes")
