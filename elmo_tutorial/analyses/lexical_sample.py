"""A lexical-sample WSD task per layer: many sense-tagged uses of four words (nltk's senseval).

Taught in notebook 09 (``09_word_senses``).

nltk's ``senseval`` corpus holds a few thousand uses each of *hard* (adjective), *interest*,
*line* (nouns) and *serve* (verb), each with its sense. :mod:`.wsd`'s nearest-centroid classifier
is trained and tested on a split of them, per layer, against the training split's **most
frequent sense**, which a classifier must beat to have learned anything.
"""

from __future__ import annotations

import functools
import random
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Sequence

import numpy as np

from elmo_tutorial.analyses.embedder import Embedder
from elmo_tutorial.analyses.embedding_cache import embed_corpus
from elmo_tutorial.analyses.wsd import REPRESENTATIONS, SenseCentroids, mix_weights
from elmo_tutorial.data.corpora import nltk_corpus
from elmo_tutorial.data.downloads import BadDatasetFile
from elmo_tutorial.data.registry import locate

WORDS = ("hard", "interest", "line", "serve")


def read_senseval(word: str) -> list[dict]:
    """Every use of ``word`` in nltk's senseval corpus: ``{"tokens", "index", "senses"}``, as
    ``nltk.corpus.senseval.instances(f"{word}.pos")`` reads them, in one ``ElementTree`` pass
    (nltk's reader takes 6 times as long) and once per process.
    """
    if word not in WORDS:
        raise ValueError(f"word must be one of {', '.join(WORDS)}, got {word!r}")
    return [{**i, "tokens": list(i["tokens"])} for i in _parsed(word)]


@functools.cache
def _parsed(word: str) -> tuple[dict, ...]:
    import nltk

    nltk_corpus("senseval")  # a clear error, with what to do, if the corpus is missing
    folder, name = locate("senseval"), f"{word}.pos"
    instances = []
    with (open(folder / name, "rb") if folder.is_dir()
          else nltk.data.find(f"corpora/senseval/{name}").open()) as f:  # else: zipped
        try:
            for _, element in ET.iterparse(f):
                if element.tag == "instance":
                    instances.append(_instance(element))
                    element.clear()
        except ET.ParseError as error:  # a SyntaxError, which no caller expects
            raise BadDatasetFile(f"{folder / name} is not well-formed XML ({error}): replace "
                                 "it by nltk's own file") from None
    return tuple(instances)


def _instance(element) -> dict:
    """One ``<instance>``, read as nltk's ``SensevalCorpusReader._parse_instance`` reads it."""
    senses = tuple(answer.get("senseid") for answer in element.iter("answer"))
    context = element.find("context")
    tokens, index = (context.text or "").split(), None
    for child in context:
        if child.tag == "compound":  # nltk keeps a compound's first word only
            child = child[0]
        if child.tag == "head":
            index = len(tokens)
            if (child.text or "").strip():
                tokens.append(child.text.strip())
            else:
                tokens.append(child[0].text)
                tokens += (child[0].tail or "").split()
        elif child.tag == "wf":
            tokens.append(child.text)
        tokens += (child.tail or "").split()
    return {"tokens": tokens, "index": index, "senses": senses}


def load_instances(word: str, per_word: int | None = 400, seed: int = 0) -> list[dict]:
    """A seeded random sample of ``per_word`` uses of ``word`` (``None``: all), in corpus
    order, without the few whose context has an empty token."""
    found = [i for i in read_senseval(word)
             if i["index"] is not None and all(i["tokens"])]
    if per_word is not None and per_word < len(found):
        keep = sorted(random.Random(f"{seed}-{word}").sample(range(len(found)), per_word))
        found = [found[i] for i in keep]
    return found


def split(n: int, test_fraction: float = 0.5, seed: int = 0) -> tuple[list[int], list[int]]:
    """A seeded random train/test split of ``n`` items, as two sorted index lists."""
    order = list(range(n))
    random.Random(seed).shuffle(order)
    n_test = round(n * test_fraction)
    return sorted(order[n_test:]), sorted(order[:n_test])


def evaluate(embedder: Embedder, words: Sequence[str] = WORDS, per_word: int | None = 400,
             test_fraction: float = 0.5, seed: int = 0, progress: bool = False,
             max_train: int | None = None) -> dict:
    """Accuracy (%) of the nearest sense centroid per representation and of the most frequent
    sense: ``{word: {"layer0", ..., "elmo", "most_frequent_sense", "n_train", "n_test",
    "n_senses"}}``; right when among the instance's senses.

    ``max_train`` keeps a seeded random sample of each word's training uses (random, not the
    first: the corpus files are ordered by sense); the test uses stay the same.
    """
    weights = mix_weights(embedder)
    result = {}
    for word in words:
        instances = load_instances(word, per_word, seed)
        layers = embed_corpus(embedder, [i["tokens"] for i in instances],
                              f"senseval-{word}-{per_word}-{seed}", progress)
        vectors = np.stack([layers[n][:, i["index"]] for n, i in enumerate(instances)], 1)
        mixed = np.tensordot(weights, vectors, axes=1)  # (n, 2P)
        reps = {**{f"layer{j}": vectors[j] for j in range(len(vectors))}, "elmo": mixed}
        rows_train, rows_test = split(len(instances), test_fraction, seed)
        if max_train is not None:
            if max_train < 1:
                raise ValueError(f"max_train must be at least 1, got {max_train}")
            rows_train = sorted(random.Random(f"{seed}-{word}-train").sample(
                rows_train, min(max_train, len(rows_train))))
        senses_train = [instances[r]["senses"] for r in rows_train]
        gold = [instances[r]["senses"] for r in rows_test]
        scores = {}
        for rep in REPRESENTATIONS:
            centroids = SenseCentroids(reps[rep][rows_train], senses_train,
                                       [word] * len(rows_train))
            predicted = centroids.predict(reps[rep][rows_test], [word] * len(rows_test))
            scores[rep] = _accuracy(predicted, gold)
        majority = Counter(s for senses in senses_train for s in senses).most_common(1)[0][0]
        scores["most_frequent_sense"] = _accuracy([majority] * len(gold), gold)
        scores.update(n_train=len(rows_train), n_test=len(rows_test),
                      n_senses=len({s for i in instances for s in i["senses"]}))
        result[word] = scores
    return result


def _accuracy(predicted: Sequence[str], gold: Sequence[Sequence[str]]) -> float:
    return 100.0 * sum(p in g for p, g in zip(predicted, gold, strict=True)) / max(len(gold), 1)


__all__ = ["WORDS", "evaluate", "load_instances", "read_senseval", "split"]
