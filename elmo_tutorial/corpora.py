"""Reading the course's datasets into plain Python lists.

Each loader finds its files through the registry (:mod:`elmo_tutorial.registry`: offline
directory ``ELMO_TUTORIAL_DATA`` first, then the download cache) and never downloads: a
missing dataset raises :class:`DatasetNotAvailable` saying how to get it
(``elmo-tutorial data download NAME``, or ``ELMO_TUTORIAL_DATA``).

- ``ud_english_ewt(split)`` → ``[(tokens, upos_tags), ...]`` (UD English-EWT r2.16)
- ``wnut17(split)`` → ``[(tokens, bio_tags), ...]`` (WNUT-17 emerging entities)
- ``wsd_framework(dataset)`` → ``[{"id", "tokens", "lemmas", "pos", "instances"}, ...]``
- ``nltk_corpus(name)`` → the nltk corpus reader (``brown``, ``wordnet``, ...)
- ``english_mix(split)`` → ``[tokens, ...]`` from six nltk corpora (the ``small`` config)
- ``wikitext(split, name)`` / ``one_billion_words(split)`` → ``[tokens, ...]``
- ``embedded_corpus(split)`` → ``[tokens, ...]`` shipped with the package (no data needed)

Splits are called ``"train"``, ``"valid"`` and ``"test"`` everywhere (``"dev"`` and
``"validation"`` are accepted as ``"valid"``).
"""

from __future__ import annotations

import hashlib
import itertools
import xml.etree.ElementTree as ET
from pathlib import Path

from .downloads import DatasetNotAvailable
from .registry import REGISTRY, fetch, get_dataset, is_available, locate

__all__ = [
    "REGISTRY",
    "DatasetNotAvailable",
    "ENGLISH_MIX_CORPORA",
    "embedded_corpus",
    "english_mix",
    "fetch",
    "get_dataset",
    "is_available",
    "locate",
    "nltk_corpus",
    "one_billion_words",
    "treebank_pos",
    "ud_english_ewt",
    "wikitext",
    "wnut17",
    "wsd_framework",
]

Sentence = list[str]


def _split(split: str) -> str:
    name = {"dev": "valid", "validation": "valid"}.get(split, split)
    if name not in ("train", "valid", "test"):
        raise ValueError(f"split must be 'train', 'valid' or 'test', got {split!r}")
    return name


def _read_columns(path: Path, form: int, tag: int, conllu: bool) -> list[tuple[list, list]]:
    """Blank-line-separated sentences, one tab-separated token per line; keep two columns.

    Whitespace-only lines also end a sentence (WNUT-17's training file uses a lone tab).
    With ``conllu``, comment lines (``# text = ...``), multiword ranges (``3-4``) and empty
    nodes (``8.1``) are skipped: the words of a range are listed again one by one. (Without
    it, a token may well start with ``#``: WNUT-17 has hashtags.)
    """
    sentences, tokens, tags = [], [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                if tokens:
                    sentences.append((tokens, tags))
                tokens, tags = [], []
                continue
            cols = line.rstrip("\n").split("\t")
            if conllu and (line.startswith("#") or not cols[0].isdigit()):
                continue
            tokens.append(cols[form])
            tags.append(cols[tag])
    if tokens:
        sentences.append((tokens, tags))
    return sentences


def ud_english_ewt(split: str = "train") -> list[tuple[Sentence, list[str]]]:
    """UD English-EWT r2.16 sentences as ``(tokens, upos_tags)`` (12,544 / 2,001 / 2,077)."""
    name = {"train": "train", "valid": "dev", "test": "test"}[_split(split)]
    path = locate("ud-english-ewt") / f"en_ewt-ud-{name}.conllu"
    return _read_columns(path, form=1, tag=3, conllu=True)


def wnut17(split: str = "train") -> list[tuple[Sentence, list[str]]]:
    """WNUT-17 sentences as ``(tokens, BIO tags)`` (3,394 / 1,009 / 1,287).

    Tags are ``O`` or ``B-``/``I-`` with ``person``, ``location``, ``group``,
    ``creative-work``, ``corporation``, ``product``. The test split is the adjudicated
    ``emerging.test.annotated`` (the file Hugging Face's ``wnut_17`` reads).
    """
    files = {"train": "wnut17train.conll", "valid": "emerging.dev.conll",
             "test": "emerging.test.annotated"}
    return _read_columns(locate("wnut17") / files[_split(split)], form=0, tag=1, conllu=False)


# The Penn Treebank writes some characters as escapes; the biLM read them as plain text.
_PTB_TEXT = {"-LRB-": "(", "-RRB-": ")", "-LCB-": "{", "-RCB-": "}", "``": '"', "''": '"'}
_PTB_TEST_FROM = "wsj_0151.mrg"  # documents wsj_0001-0150 train, wsj_0151-0199 test


def treebank_pos(split: str = "train") -> list[tuple[Sentence, list[str]]]:
    """PTB-tagged sentences of nltk's Penn Treebank sample as ``(tokens, tags)``.

    The sample is 10% of the WSJ part (199 documents, 3,914 sentences). It has no official
    split; we cut it by document: wsj_0001-0150 are ``"train"`` (3,262 sentences), wsj_0151-0199
    ``"test"`` (652 sentences), so no article is on both sides. ``"valid"`` is not defined.

    Traces and empty elements (tag ``-NONE-``, e.g. ``*T*-1``) are dropped: they are not words.
    Escaped characters are written as the characters they stand for (``-LRB-`` → ``(``, the
    LaTeX quotes → ``"``, an escaped slash → ``/``), as in the text the biLM was trained on; the
    tags stay as they are (``-LRB-``, ``''``...).
    """
    split = _split(split)
    if split == "valid":
        raise ValueError("the treebank sample has only 'train' and 'test' splits")
    reader = nltk_corpus("treebank")
    fileids = [f for f in reader.fileids() if (f >= _PTB_TEST_FROM) == (split == "test")]
    sentences = []
    for sentence in reader.tagged_sents(fileids):
        words = [(_PTB_TEXT.get(w, w.replace("\\/", "/").replace("\\*", "*")), t)
                 for w, t in sentence if t != "-NONE-"]
        if words:
            sentences.append(([w for w, _ in words], [t for _, t in words]))
    return sentences


WSD_DATASETS = ("semcor", "senseval2", "senseval3", "semeval2007", "semeval2013",
                "semeval2015", "ALL")


def wsd_framework(dataset: str = "senseval2") -> list[dict]:
    """Sentences of one dataset of the WSD Evaluation Framework, with gold sense keys.

    Args:
        dataset: ``"semcor"`` (training) or an evaluation set: ``"senseval2"``,
            ``"senseval3"``, ``"semeval2007"``, ``"semeval2013"`` (plus ``"semeval2015"`` and
            ``"ALL"`` in the official archive).

    Returns:
        One dict per ``<sentence>``: ``id``; ``tokens``, ``lemmas``, ``pos`` (one entry per
        ``<wf>``/``<instance>``; a multiword expression is one token, e.g. ``"took place"``);
        ``instances``: a list of dicts ``index`` (position in ``tokens``), ``id``, ``lemma``,
        ``pos`` and ``keys`` (the gold WordNet 3.0 sense keys, usually one).
    """
    if dataset not in WSD_DATASETS:
        raise ValueError(f"dataset must be one of {', '.join(WSD_DATASETS)}, got {dataset!r}")
    root = locate("wsd-framework")
    base = (root / "Training_Corpora" / "SemCor" / "semcor" if dataset == "semcor"
            else root / "Evaluation_Datasets" / dataset / dataset)
    xml_path, key_path = base.with_name(base.name + ".data.xml"), base.with_name(
        base.name + ".gold.key.txt")
    if not xml_path.exists():
        raise DatasetNotAvailable(f"{xml_path} does not exist: this copy of the framework "
                                  f"lacks {dataset!r} (the official archive has it).")
    gold = {}
    with open(key_path, encoding="utf-8") as f:
        for line in f:
            instance_id, *keys = line.split()
            gold[instance_id] = keys
    sentences = []
    for _, elem in ET.iterparse(xml_path, events=("end",)):
        if elem.tag != "sentence":
            continue
        sentence = {"id": elem.get("id"), "tokens": [], "lemmas": [], "pos": [],
                    "instances": []}
        for i, tok in enumerate(elem):
            sentence["tokens"].append(tok.text or "")
            sentence["lemmas"].append(tok.get("lemma"))
            sentence["pos"].append(tok.get("pos"))
            if tok.tag == "instance":
                sentence["instances"].append({
                    "index": i, "id": tok.get("id"), "lemma": tok.get("lemma"),
                    "pos": tok.get("pos"), "keys": gold.get(tok.get("id"), []),
                })
        sentences.append(sentence)
        elem.clear()  # SemCor is 45 MB of XML: free each sentence once read
    return sentences


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
    """The small corpus shipped with the package (no download); see ``elmo_tutorial.synthetic``."""
    from .synthetic import embedded_corpus as _embedded

    return _embedded(split)
