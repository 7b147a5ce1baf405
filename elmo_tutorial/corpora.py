"""Reading the course's datasets into plain Python lists.

Each loader finds its files through the registry (:mod:`elmo_tutorial.registry`: offline
directory ``ELMO_TUTORIAL_DATA`` first, then the download cache) and never downloads: a
missing dataset raises :class:`DatasetNotAvailable` saying how to get it
(``elmo-tutorial data download NAME``, or ``ELMO_TUTORIAL_DATA``).

- ``nltk_corpus(name)`` → the nltk corpus reader (``brown``, ``wordnet``, ...)
- ``english_mix(split)`` → ``[tokens, ...]`` from six nltk corpora (the ``small`` config)
- ``wikitext(split, name)`` / ``one_billion_words(split)`` → ``[tokens, ...]``
- ``embedded_corpus(split)`` → ``[tokens, ...]`` shipped with the package (no data needed)
- ``load_sentences(corpus, split)`` → ``[tokens, ...]`` of a training corpus, by its config name

Splits are called ``"train"``, ``"valid"`` and ``"test"`` everywhere (``"dev"`` and
``"validation"`` are accepted as ``"valid"``).
"""

from __future__ import annotations

import hashlib
import itertools
import sys

from .downloads import DatasetNotAvailable
from .registry import REGISTRY, fetch, get_dataset, is_available, locate

__all__ = [
    "REGISTRY",
    "DatasetNotAvailable",
    "ENGLISH_MIX_CORPORA",
    "load_sentences",
    "embedded_corpus",
    "english_mix",
    "fetch",
    "get_dataset",
    "is_available",
    "locate",
    "nltk_corpus",
    "one_billion_words",
    "wikitext",
]

Sentence = list[str]


def _split(split: str) -> str:
    name = {"dev": "valid", "validation": "valid"}.get(split, split)
    if name not in ("train", "valid", "test"):
        raise ValueError(f"split must be 'train', 'valid' or 'test', got {split!r}")
    return name


def nltk_corpus(name: str, download: bool = False):
    """The nltk corpus reader ``nltk.corpus.<name>``, after checking its data is there.

    Args:
        name: a registry entry of kind nltk (``"brown"``, ``"wordnet"``, ...).
        download: call ``nltk.download`` if it is missing (otherwise raise with instructions).
    """
    ds = get_dataset(name)
    if ds.kind != "nltk" or not ds.nltk_resource.startswith("corpora/"):
        raise ValueError(f"{name!r} is not an nltk corpus; nltk corpora: " + ", ".join(
            n for n, d in REGISTRY.items() if d.nltk_resource.startswith("corpora/")))
    if download:
        fetch(ds.name)
    else:
        locate(ds.name)
    import nltk.corpus

    return getattr(nltk.corpus, ds.name)


ENGLISH_MIX_CORPORA = ("brown", "gutenberg", "state_union", "inaugural", "webtext", "masc_tagged")
_RAW_TEXT = {"gutenberg", "state_union", "inaugural", "webtext"}  # no sentence/word split
_QUOTES = {"``": '"', "''": '"'}
_BLOCK = 50  # consecutive sentences that always land in the same split
_SPLIT_PERCENT = {"train": (0, 90), "valid": (90, 95), "test": (95, 100)}


def _block_split(corpus: str, fileid: str, block: int) -> str:
    """Deterministic split of one block: a stable hash (not Python's salted ``hash``)."""
    digest = hashlib.sha1(f"{corpus}/{fileid}/{block}".encode()).digest()
    bucket = int.from_bytes(digest[:4], "big") % 100
    return next(s for s, (lo, hi) in _SPLIT_PERCENT.items() if lo <= bucket < hi)


def _document_sentences(reader, corpus: str, fileid: str) -> list:
    """One document's sentences: strings for raw-text corpora, token lists for the others.

    Raw sentences are word-tokenized only once their block is selected: splitting sentences is
    cheap, tokenizing words is not, and valid/test keep only a twentieth of the blocks.
    """
    if corpus in _RAW_TEXT:  # these readers' .sents() would need punkt
        from .tokenize import split_sentences

        return split_sentences(reader.raw(fileid))
    # Brown writes quotes LaTeX-style; tokenize() and the 1B Word Benchmark use a plain ".
    return [[_QUOTES.get(w, w) for w in s] for s in reader.sents(fileid)]


def _tokens(sentence: str | Sentence) -> Sentence:
    """A sentence's tokens; a tagged corpus's empty or blank words (MASC has some) are dropped."""
    if isinstance(sentence, str):
        from .tokenize import tokenize_words

        return tokenize_words(sentence)
    return [word for word in sentence if word.strip()]


def english_mix(split: str = "train", max_sentences: int | None = None) -> list[Sentence]:
    """Tokenized English sentences from six nltk corpora, for training a small biLM offline.

    Brown, Gutenberg, State of the Union, Inaugural, Web Text and MASC (about 4M words): edited
    prose, speeches, fiction and informal web text. Corpora that come as raw text are split and
    tokenized by :mod:`elmo_tutorial.tokenize` (rules, no punkt).

    The split is deterministic and needs no shuffling: each document is cut into blocks of
    50 consecutive sentences, and a stable hash of ``corpus/fileid/block`` sends a block to
    train (90%), valid (5%) or test (5%). Blocks keep neighbouring sentences together, so
    valid/test text is not a near-copy of train text, while every corpus feeds every split.

    Args:
        split: ``"train"``, ``"valid"`` or ``"test"``.
        max_sentences: stop after this many sentences of ``split``. Documents are visited
            round-robin across the corpora, so a small sample still mixes all of them.
    """
    split = _split(split)
    readers = {name: nltk_corpus(name) for name in ENGLISH_MIX_CORPORA}
    per_corpus = [[(name, f) for f in readers[name].fileids()] for name in ENGLISH_MIX_CORPORA]
    sentences: list[Sentence] = []
    for item in itertools.chain.from_iterable(itertools.zip_longest(*per_corpus)):
        if item is None:
            continue
        corpus, fileid = item
        doc = _document_sentences(readers[corpus], corpus, fileid)
        for start in range(0, len(doc), _BLOCK):
            if _block_split(corpus, fileid, start // _BLOCK) == split:
                sentences.extend(t for s in doc[start:start + _BLOCK] if (t := _tokens(s)))
        if max_sentences is not None and len(sentences) >= max_sentences:
            return sentences[:max_sentences]
    return sentences


def wikitext(split: str = "train", name: str = "wikitext-2") -> list[Sentence]:
    """WikiText paragraphs (one per non-empty line), whitespace-tokenized; headings skipped."""
    path = locate(name) / f"wiki.{_split(split)}.tokens"
    with open(path, encoding="utf-8") as f:
        lines = (line.split() for line in f if line.strip())
        return [toks for toks in lines if not (toks[0] == "=" and toks[-1] == "=")]


def one_billion_words(split: str = "train", max_sentences: int | None = None) -> list[Sentence]:
    """1B Word Benchmark sentences, already tokenized (one per line).

    train: the 99 ``training-monolingual`` shards; test: ``news.en.heldout-00000-of-00050``
    (the benchmark's test set); valid: ``news.en.heldout-00001-of-00050``.
    """
    root, split = locate("1b-word"), _split(split)
    if split == "train":
        paths = sorted((root / "training-monolingual.tokenized.shuffled").glob("news.en-*"))
    else:
        shard = "00000" if split == "test" else "00001"
        paths = [root / "heldout-monolingual.tokenized.shuffled" /
                 f"news.en.heldout-{shard}-of-00050"]
    sentences: list[Sentence] = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if max_sentences is not None and len(sentences) >= max_sentences:
                    return sentences
                if line.strip():
                    sentences.append(line.split())
    return sentences


def embedded_corpus(split: str = "train") -> list[Sentence]:
    """The small corpus shipped with the package (no download).

    See :mod:`elmo_tutorial.embedded_corpus`.
    """
    from .embedded_corpus import embedded_corpus as _embedded

    return _embedded(split)


def _wikitext_sentences(split: str) -> list[Sentence]:
    """WikiText-2 paragraphs cut into sentences after ``.``, ``!`` and ``?`` tokens."""
    sentences = []
    for paragraph in wikitext(split, "wikitext-2"):
        current = []
        for token in paragraph:
            current.append(token)
            if token in (".", "!", "?"):
                sentences.append(current)
                current = []
        if current:
            sentences.append(current)
    return sentences


def load_sentences(corpus: str, split: str, max_sentences: int | None = None) -> list[Sentence]:
    """Tokenized sentences of a corpus split ("train", "valid", "test").

    ``corpus`` is a ``TrainConfig.corpus`` name: ``embedded`` (shipped with the package),
    ``english_mix`` (offline nltk corpora), ``wikitext2`` (paragraphs cut into sentences),
    ``one_billion_words`` (the paper's corpus) or ``auto`` (WikiText-2 if it is on disk or can be
    downloaded, 10 s timeout per attempt; the offline nltk English mix otherwise).

    ``max_sentences`` keeps the first ones (the large corpora then stop reading early). Tokens
    that are empty or contain whitespace (a vocabulary file holds one word per line) are
    dropped, and so are empty sentences.
    """
    sentences = _load_sentences(corpus, split, max_sentences)
    cleaned = ([w for w in s if w and not any(c.isspace() for c in w)] for s in sentences)
    return [s for s in cleaned if s][:max_sentences]


def _load_sentences(corpus: str, split: str, max_sentences: int | None) -> list[Sentence]:
    import socket

    if corpus == "embedded":
        return embedded_corpus(split)
    if corpus == "english_mix":
        return english_mix(split, max_sentences)
    if corpus == "wikitext2":
        return _wikitext_sentences(split)
    if corpus == "one_billion_words":  # the paper's corpus (download: elmo-tutorial data)
        return one_billion_words(split, max_sentences)
    previous = socket.getdefaulttimeout()
    try:
        socket.setdefaulttimeout(10)
        if not is_available("wikitext-2"):
            fetch("wikitext-2", progress=False)
        return _wikitext_sentences(split)
    except Exception as err:  # noqa: BLE001 - any failure to fetch means "offline"
        print(f"WikiText-2 is not available ({type(err).__name__}); using english_mix",
              file=sys.stderr)
        return english_mix(split, max_sentences)
    finally:
        socket.setdefaulttimeout(previous)
