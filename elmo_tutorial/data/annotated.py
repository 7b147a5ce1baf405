"""Reading the course's annotated datasets: tagged tokens and sense-labelled words.

Taggers' data (``ud_english_ewt``, ``wnut17``, ``treebank_pos``, ``conll2000_chunks``) is a list
of ``(tokens, tags)``; ``sst`` gives ``(tokens, label)``, ``wsd_framework`` one dict a sentence.
Each reader finds its files through :func:`~elmo_tutorial.data.registry.locate` and never
downloads (a missing dataset raises ``DatasetNotAvailable``, saying how to get it).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

from elmo_tutorial.data.corpora import nltk_corpus
from elmo_tutorial.data.downloads import BadDatasetFile, DatasetNotAvailable
from elmo_tutorial.data.registry import locate, normalize_split

__all__ = ["WSD_DATASETS", "conll2000_chunks", "sst", "treebank_pos", "ud_english_ewt", "wnut17",
           "wsd_framework"]

Sentence = list[str]


def _lines(path: Path, encoding: str = "utf-8") -> Iterator[tuple[int, str]]:
    """``(line number, line)`` of a dataset's text file, read lazily."""
    with open(path, encoding=encoding) as lines:
        yield from enumerate(lines, start=1)


def _read_columns(path: Path, form: int, tag: int, conllu: bool) -> list[tuple[list, list]]:
    """Blank-line-separated sentences, one tab-separated token per line; keep two columns.

    Whitespace-only lines also end a sentence (WNUT-17's training file uses a lone tab). With
    ``conllu``, comments (``# text = ...``), multiword-token ranges (``3-4``, whose words follow
    one by one) and empty nodes (``8.1``) are skipped; without it, ``#`` may start a hashtag.
    """
    sentences, tokens, tags = [], [], []
    for number, line in _lines(path, "utf-8-sig"):
        if not line.strip():
            if tokens:
                sentences.append((tokens, tags))
            tokens, tags = [], []
            continue
        if conllu and line.startswith("#"):
            continue
        cols = line.rstrip("\r\n").split("\t")
        if len(cols) <= max(form, tag):
            raise BadDatasetFile(f"{path}, line {number}: {len(cols)} tab-separated column(s), "
                                 f"expected at least {max(form, tag) + 1}: {line.rstrip()!r:.60}")
        if conllu and not cols[0].isdigit():
            continue  # a multiword-token range or an empty node
        tokens.append(cols[form])
        tags.append(cols[tag])
    if tokens:
        sentences.append((tokens, tags))
    return sentences


def ud_english_ewt(split: str = "train") -> list[tuple[Sentence, list[str]]]:
    """UD English-EWT r2.16 sentences as ``(tokens, upos_tags)`` (12,544 / 2,001 / 2,077)."""
    name = {"train": "train", "valid": "dev", "test": "test"}[normalize_split(split)]
    path = locate("ud-english-ewt") / f"en_ewt-ud-{name}.conllu"
    return _read_columns(path, form=1, tag=3, conllu=True)


def wnut17(split: str = "train") -> list[tuple[Sentence, list[str]]]:
    """WNUT-17 sentences as ``(tokens, BIO tags)`` (3,394 / 1,009 / 1,287).

    Tags are ``O`` or ``B-``/``I-`` with ``person``, ``location``, ``group``,
    ``creative-work``, ``corporation``, ``product``. The test split is the adjudicated
    ``emerging.test.annotated`` (the file Hugging Face's ``wnut_17`` reads).
    """
    file = {"train": "wnut17train.conll", "valid": "emerging.dev.conll",
            "test": "emerging.test.annotated"}[normalize_split(split)]
    return _read_columns(locate("wnut17") / file, form=0, tag=1, conllu=False)


# The Penn Treebank writes some characters as escapes; the biLM read them as plain text.
_PTB_TEXT = {"-LRB-": "(", "-RRB-": ")", "-LCB-": "{", "-RCB-": "}", "``": '"', "''": '"'}
_PTB_TEST_FROM = "wsj_0151.mrg"  # documents wsj_0001-0150 train, wsj_0151-0199 test


def treebank_pos(split: str = "train") -> list[tuple[Sentence, list[str]]]:
    """PTB-tagged sentences of nltk's Penn Treebank sample (10% of the WSJ) as ``(tokens, tags)``.

    It has no official split; we cut it by document: wsj_0001-0150 are ``"train"`` (3,262
    sentences), wsj_0151-0199 ``"test"`` (652); no ``"valid"``. Traces (tag ``-NONE-``) are
    dropped, and escapes become what they stand for (``-LRB-`` → ``(``), as the biLM read them.
    """
    split = normalize_split(split)
    if split == "valid":
        raise ValueError("the treebank sample has only 'train' and 'test' splits")
    reader = nltk_corpus("treebank")
    fileids = [f for f in reader.fileids() if (f >= _PTB_TEST_FROM) == (split == "test")]
    sentences = []
    for sentence in reader.tagged_sents(fileids):
        words = [(_ptb_word(w), t) for w, t in sentence if t != "-NONE-"]
        if words:
            sentences.append(([w for w, _ in words], [t for _, t in words]))
    return sentences


def _ptb_word(word: str) -> str:
    """A treebank token as the plain text the biLM read (``-LRB-`` → ``(``, ``\\/`` → ``/``)."""
    return _PTB_TEXT.get(word, word.replace("\\/", "/").replace("\\*", "*"))


def conll2000_chunks(split: str = "train") -> list[tuple[Sentence, list[str]]]:
    """CoNLL-2000 chunking (WSJ) as ``(tokens, BIO chunk tags)``: 8,936 train / 2,012 test.

    Tags are ``O`` or ``B-``/``I-`` with the chunk type (``NP``, ``VP``, ``PP``...), scored like
    entities; the shared task has no validation set, so there is no ``"valid"``.
    """
    split = normalize_split(split)
    if split == "valid":
        raise ValueError("CoNLL-2000 has only 'train' and 'test' splits; hold out part of "
                         "'train' for validation")
    reader = nltk_corpus("conll2000")
    return [([_ptb_word(w) for w, _, _ in sentence], [tag for _, _, tag in sentence])
            for sentence in reader.iob_sents(f"{split}.txt")]


# "(2 word)": a leaf, its label and its word. Only a plain space separates: a word may hold a
# no-break space ("8\xa01/2", three training sentences), which `\s` would split or drop.
_SST_LEAF = re.compile(r"\(\d ([^() ]+)\)")
_SST_FILES = {"train": "train.txt", "valid": "dev.txt", "test": "test.txt"}


def sst(split: str = "train", classes: int = 5,
        phrases: bool = False) -> list[tuple[Sentence, int]]:
    """Stanford Sentiment Treebank sentences as ``(tokens, label)``, labelled at the root.

    Every line of ``trees/{train,dev,test}.txt`` is one sentence's binarised tree with a
    sentiment label on each node, ``(3 (2 The) (2 Rock) ...)``.

    Args:
        classes: ``5`` (SST-5, the paper's task: 0 very negative ... 4 very positive; 8,544 /
            1,101 / 2,210 sentences) or ``2`` (SST-2: neutral dropped, 0 negative (0-1),
            1 positive (3-4); 6,920 / 872 / 1,821).
        phrases: every labelled phrase (node) instead, each distinct token sequence once, in
            the order first met: 159,274 in SST-5's training trees, the training set of the
            paper's SST-5 model (AllenNLP's reader with ``use_subtrees``).
    """
    if classes not in (2, 5):
        raise ValueError(f"classes must be 5 (SST-5) or 2 (SST-2), got {classes}")
    path = locate("sst") / "trees" / _SST_FILES[normalize_split(split)]
    examples, seen = [], set()
    for number, line in _lines(path):
        line = line.strip()
        if not line:
            continue
        if not (line.startswith("(") and line[1:2].isdigit()):
            raise BadDatasetFile(f"{path}, line {number}: not a labelled tree: {line!r:.60}")
        if phrases:
            nodes = _tree_nodes(line, f"{path}, line {number}")
        else:
            nodes = [(int(line[1]), [_ptb_word(w) for w in _SST_LEAF.findall(line)])]
        for label, tokens in nodes:
            if classes == 2 and label == 2 or phrases and tuple(tokens) in seen:
                continue  # SST-2 has no neutral class; a phrase is kept once
            seen.add(tuple(tokens))
            examples.append((tokens, int(label > 2) if classes == 2 else label))
    return examples


_SST_TOKEN = re.compile(r"\(\d|\)|[^() ]+")  # "(" with its label digit, ")" or a word


def _tree_nodes(line: str, where: str) -> list[tuple[int, Sentence]]:
    """Every node of one SST tree as ``(label, tokens)``, the root last."""
    nodes, stack = [], []  # stack: per open node, its label and its tokens so far
    for piece in _SST_TOKEN.findall(line):
        if piece.startswith("("):
            stack.append((int(piece[1]), []))
        elif piece == ")" and stack:
            label, tokens = stack.pop()
            nodes.append((label, tokens))
            if stack:
                stack[-1][1].extend(tokens)
        elif stack:
            stack[-1][1].append(_ptb_word(piece))
    if stack or not nodes:
        raise BadDatasetFile(f"{where}: the tree is not closed")
    return nodes


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
    xml_path, key_path = Path(f"{base}.data.xml"), Path(f"{base}.gold.key.txt")
    if not xml_path.exists():
        raise DatasetNotAvailable(f"{xml_path} does not exist: this copy of the framework "
                                  f"lacks {dataset!r} (the official archive has it).")
    lines = (line.split() for _, line in _lines(key_path) if line.strip())
    gold = {instance_id: keys for instance_id, *keys in lines}  # per line: an id, its keys
    sentences = []
    with open(xml_path, "rb") as xml:
        try:
            for _, elem in ET.iterparse(xml, events=("end",)):
                if elem.tag == "sentence":
                    sentences.append(_framework_sentence(elem, gold, key_path))
                    elem.clear()  # SemCor is 45 MB of XML: free each sentence once read
        except ET.ParseError as error:  # a SyntaxError, which no command expects
            raise BadDatasetFile(f"{xml_path} is not well-formed XML ({error}): replace it by "
                                 "the framework's own file") from None
    return sentences


def _framework_sentence(elem: ET.Element, gold: dict[str, list[str]], key_path: Path) -> dict:
    """One ``<sentence>`` of a framework XML file as :func:`wsd_framework` returns it."""
    sentence = {"id": elem.get("id"), "tokens": [], "lemmas": [], "pos": [], "instances": []}
    for i, tok in enumerate(elem):
        sentence["tokens"].append(tok.text or "")
        sentence["lemmas"].append(tok.get("lemma"))
        sentence["pos"].append(tok.get("pos"))
        if tok.tag == "instance":
            if tok.get("id") not in gold:  # every instance of the framework has a gold key
                raise BadDatasetFile(f"{key_path} has no sense key for instance "
                                     f"{tok.get('id')!r}: it is not the key file of this XML; "
                                     "replace it by the framework's own")
            sentence["instances"].append({"index": i, "id": tok.get("id"),
                                          "lemma": tok.get("lemma"), "pos": tok.get("pos"),
                                          "keys": gold[tok.get("id")]})
    return sentence
