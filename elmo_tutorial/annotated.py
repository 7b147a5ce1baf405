"""Reading the course's annotated datasets: tagged tokens and sense-labelled words.

Each reader finds its files through the registry (:mod:`elmo_tutorial.registry`: offline
directory ``ELMO_TUTORIAL_DATA`` first, then the download cache) and never downloads: a
missing dataset raises :class:`~elmo_tutorial.downloads.DatasetNotAvailable` saying how to get
it (``elmo-tutorial data download NAME``, or ``ELMO_TUTORIAL_DATA``).

- ``ud_english_ewt(split)`` → ``[(tokens, upos_tags), ...]`` (UD English-EWT r2.16)
- ``wnut17(split)`` → ``[(tokens, bio_tags), ...]`` (WNUT-17 emerging entities)
- ``wsd_framework(dataset)`` → ``[{"id", "tokens", "lemmas", "pos", "instances"}, ...]``

Splits are called ``"train"``, ``"valid"`` and ``"test"`` (``"dev"`` and ``"validation"`` are
accepted as ``"valid"``).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from .downloads import DatasetNotAvailable
from .registry import locate, normalize_split

__all__ = ["WSD_DATASETS", "ud_english_ewt", "wnut17", "wsd_framework"]

Sentence = list[str]


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
