"""Reading running text for language modelling: lists of tokenized sentences.

Training, evaluation and the notebooks read a corpus by its config name (:data:`LM_CORPORA`)
through ``load_sentences(corpus, split)``; ``nltk_corpus(name)`` gives an nltk corpus reader,
and ``ensure_nltk(*names)`` (a notebook's first data cell) downloads only what is missing. The
readers find a dataset through :mod:`elmo_tutorial.data.registry` and never download.
"""

from __future__ import annotations

import hashlib
import itertools
import sys

from elmo_tutorial.data import sense_corpus
from elmo_tutorial.data.downloads import nltk_download, nltk_find
from elmo_tutorial.data.registry import fetch, get_dataset, is_available, locate, normalize_split
from elmo_tutorial.data.tokenize import split_sentences, tokenize_words

__all__ = ["ENGLISH_MIX_CORPORA", "LM_CORPORA", "english_mix", "ensure_nltk", "load_sentences",
           "nltk_corpus", "one_billion_words"]

Sentence = list[str]

# The corpora ``load_sentences`` reads (``TrainConfig.corpus``).
LM_CORPORA = ("embedded", "english_mix", "wikitext2", "wikitext103", "one_billion_words", "auto")


def nltk_corpus(name: str):
    """The nltk corpus reader ``nltk.corpus.<name>`` (``"brown"``, ``"wordnet"``...), after
    checking that its data is there (otherwise raise, saying how to get it)."""
    ds = get_dataset(name)
    locate(ds.name)
    import nltk.corpus

    return getattr(nltk.corpus, ds.name)


def ensure_nltk(*names: str) -> None:
    """Make nltk data (``"brown"``, ``"wordnet"``...) available: found where nltk looks, else
    ``nltk.download``-ed; one line per name says which (``DatasetNotAvailable`` if it fails)."""
    for name in names:
        ds = get_dataset(name)
        if nltk_find(ds.nltk_resource) is not None:
            print(f"✓ {ds.name}: found (nltk data {ds.nltk_resource}), nothing to download")
            continue
        print(f"{ds.name}: not found; downloading it with nltk.download({ds.name!r}) ...")
        where = nltk_download(ds.nltk_resource, progress=False)
        print(f"✓ {ds.name}: downloaded to {where}")


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
    """One document's sentences: strings for raw-text corpora (word-tokenized only once their
    block is selected: valid/test keep a twentieth of them), token lists for the others."""
    if corpus in _RAW_TEXT:  # these readers' .sents() would need punkt
        return split_sentences(reader.raw(fileid))
    # Brown writes quotes LaTeX-style; tokenize() and the 1B Word Benchmark use a plain ".
    return [[_QUOTES.get(w, w) for w in s] for s in reader.sents(fileid)]


def _tokens(sentence: str | Sentence) -> Sentence:
    """A sentence's tokens; a tagged corpus's empty or blank words (MASC has some) are dropped."""
    if isinstance(sentence, str):
        return tokenize_words(sentence)
    return [word for word in sentence if word.strip()]


def english_mix(split: str = "train", max_sentences: int | None = None) -> list[Sentence]:
    """Tokenized English sentences from six nltk corpora, for training a small biLM offline.

    Brown, Gutenberg, State of the Union, Inaugural, Web Text and MASC (about 4M words): edited
    prose, speeches, fiction and informal web text; raw text is split by
    :mod:`elmo_tutorial.data.tokenize`. Each document is cut into blocks of 50 consecutive
    sentences, and a stable hash of ``corpus/fileid/block`` sends a block to train (90%), valid
    (5%) or test (5%): valid/test text is not a near-copy of train text, and every corpus feeds
    every split. Documents are visited round-robin across the corpora, so that the first
    ``max_sentences`` still mix all of them.
    """
    split = normalize_split(split)
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


def one_billion_words(split: str = "train", max_sentences: int | None = None) -> list[Sentence]:
    """1B Word Benchmark sentences, already tokenized (one per line).

    train: the 99 ``training-monolingual`` shards; test: ``news.en.heldout-00000-of-00050``
    (the benchmark's test set); valid: ``news.en.heldout-00001-of-00050``.
    """
    root, split = locate("1b-word"), normalize_split(split)
    if split == "train":
        paths = sorted((root / "training-monolingual.tokenized.shuffled").glob("news.en-*"))
    else:
        shard = "00000" if split == "test" else "00001"
        paths = [root / "heldout-monolingual.tokenized.shuffled" /
                 f"news.en.heldout-{shard}-of-00050"]
    sentences: list[Sentence] = []
    for path in paths:
        with open(path, encoding="utf-8") as lines:
            for line in lines:
                if max_sentences is not None and len(sentences) >= max_sentences:
                    return sentences
                if line.strip():
                    sentences.append(line.split())
    return sentences


def _wikitext_sentences(split: str, name: str, max_sentences: int | None) -> list[Sentence]:
    """WikiText's paragraphs (one per line, headings skipped; read lazily: WikiText-103's train
    file is 0.5 GB), cut into sentences after ``.``, ``!`` and ``?`` tokens."""
    sentences = []
    with open(locate(name) / f"wiki.{split}.tokens", encoding="utf-8") as lines:
        for line in lines:
            paragraph, current = line.split(), []
            if paragraph and paragraph[0] == "=" and paragraph[-1] == "=":
                continue  # a heading
            for token in paragraph:
                current.append(token)
                if token in (".", "!", "?"):
                    sentences.append(current)
                    current = []
            if current:
                sentences.append(current)
            if max_sentences is not None and len(sentences) >= max_sentences:
                break
    return sentences


def load_sentences(corpus: str, split: str, max_sentences: int | None = None) -> list[Sentence]:
    """Tokenized sentences of a training corpus's split (``"train"``, ``"valid"``, ``"test"``).

    ``corpus`` is one of :data:`LM_CORPORA`: ``embedded`` (shipped with the course),
    ``english_mix`` (offline nltk corpora), ``wikitext2``, ``wikitext103``,
    ``one_billion_words`` (the paper's corpus) or ``auto`` (WikiText-2 if it is on disk or can
    be downloaded within 10 s an attempt, else ``english_mix``). Tokens that are empty or hold
    whitespace (a vocabulary file has one word per line) are dropped, as are empty sentences.

    Example:
        >>> load_sentences("embedded", "dev", max_sentences=1)[0][:5]
        ['After', 'she', 'disturbed', 'the', 'colony']
    """
    if corpus not in LM_CORPORA:
        raise ValueError(f"unknown corpus {corpus!r}; expected one of {', '.join(LM_CORPORA)}")
    sentences = _load_sentences(corpus, normalize_split(split), max_sentences)
    # w.split() == [w]: not empty and no whitespace (str.split splits where str.isspace)
    cleaned = ([w for w in s if w.split() == [w]] for s in sentences)
    return [s for s in cleaned if s][:max_sentences]


def _load_sentences(corpus: str, split: str, max_sentences: int | None) -> list[Sentence]:
    import socket

    if corpus == "embedded":
        return sense_corpus.sense_corpus(split)
    if corpus == "english_mix":
        return english_mix(split, max_sentences)
    if corpus in ("wikitext2", "wikitext103"):
        return _wikitext_sentences(split, f"wikitext-{corpus[8:]}", max_sentences)
    if corpus == "one_billion_words":  # the paper's corpus (download: elmo-tutorial data)
        return one_billion_words(split, max_sentences)
    previous = socket.getdefaulttimeout()
    try:
        socket.setdefaulttimeout(10)
        if not is_available("wikitext-2"):
            fetch("wikitext-2", progress=False)
        return _wikitext_sentences(split, "wikitext-2", max_sentences)
    except Exception as err:  # noqa: BLE001 - any failure to fetch means "offline"
        print(f"WikiText-2 is not available ({type(err).__name__}); using english_mix",
              file=sys.stderr)
        return english_mix(split, max_sentences)
    finally:
        socket.setdefaulttimeout(previous)
