r"""Word sense disambiguation with a nearest sense centroid (Peters et al. 2018, §5.3, Table 5).

Taught in notebook 09 (``09_word_senses``).

Following Melamud et al. (2016), with nothing to train: average the vectors of every WordNet
sense's occurrences in SemCor (its **centroid** :math:`c_k`); predict, among the senses of the
test word's ``(lemma, pos)`` seen in SemCor, the nearest centroid by cosine; back off to
WordNet's first sense for a lemma SemCor never shows. Each representation (layers 0-2 and the
mix :math:`\sum_j s_j h_j` with the model's weights, uniform if untrained) gets its own
centroids; a multiword expression's vector is the mean of its words'. Scoring is the WSD
Evaluation Framework's (Raganato et al. 2017): :func:`score`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import torch

from elmo_tutorial.analyses.embedder import Embedder
from elmo_tutorial.analyses.embedding_cache import embed_corpus
from elmo_tutorial.data.annotated import wsd_framework
from elmo_tutorial.data.corpora import nltk_corpus

TEST_SETS = ("senseval2", "senseval3", "semeval2007", "semeval2013")
REPRESENTATIONS = ("layer0", "layer1", "layer2", "elmo")
WORDNET_POS = {"NOUN": "n", "VERB": "v", "ADJ": "a", "ADV": "r"}
PAPER_ALL = {"first_sense": 65.9, "layer1": 67.4, "layer2": 69.0,  # Table 5, F1 on ALL
             "cove_layer1": 59.4, "cove_layer2": 64.7}


@dataclass(frozen=True)
class Instance:
    """One sense-annotated word: ``words[start:end]`` of sentence ``sentence``."""

    id: str
    lemma: str
    pos: str  # NOUN, VERB, ADJ or ADV
    keys: tuple[str, ...]  # gold WordNet sense keys (usually one)
    sentence: int
    start: int
    end: int


def split_words(sentences: Sequence[dict]) -> tuple[list[list[str]], list[Instance]]:
    """Framework sentences (:func:`~elmo_tutorial.data.annotated.wsd_framework`) → the word lists
    to embed (multiword expressions split at spaces) and the instances with their word spans."""
    words, instances = [], []
    for s, sentence in enumerate(sentences):
        spans, row = [], []
        for token in sentence["tokens"]:
            parts = token.split() or [token]
            spans.append((len(row), len(row) + len(parts)))
            row.extend(parts)
        words.append(row)
        for inst in sentence["instances"]:
            start, end = spans[inst["index"]]
            instances.append(Instance(inst["id"], inst["lemma"], inst["pos"],
                                      tuple(inst["keys"]), s, start, end))
    return words, instances


def mix_weights(embedder: Embedder) -> np.ndarray:
    """The model's scalar-mix weights ``s = softmax(w)``, ``(L + 1,)`` (uniform if untrained)."""
    return embedder.model.scalar_mix.weights.detach().cpu().numpy().astype(np.float32)


def instance_vectors(layers, instances: Sequence[Instance], weights: np.ndarray) -> dict:
    """Each instance's vector per representation: ``{"layer0": (n, 2P), ..., "elmo": (n, 2P)}``,
    the mean over its span in ``layers`` (``embed_corpus``'s), mixed by ``weights`` for "elmo"."""
    positions = np.concatenate([np.arange(layers.offsets[i.sentence] + i.start,
                                          layers.offsets[i.sentence] + i.end)
                                for i in instances]) if instances else np.zeros(0, int)
    words = layers.tokens(positions)  # (L + 1, Σ span lengths, 2P)
    starts = np.cumsum([0] + [i.end - i.start for i in instances[:-1]])
    sums = np.add.reduceat(words, starts, axis=1) if instances else words
    vectors = sums / np.array([i.end - i.start for i in instances], np.float32)[:, None]
    out = {f"layer{j}": vectors[j] for j in range(len(vectors))}
    out["elmo"] = np.tensordot(weights, vectors, axes=1)  # Σ_j s_j h_j, (n, 2P)
    return out


class SenseCentroids:
    """The mean vector of every sense seen in training, and 1-NN among a group's senses.

    Args:
        vectors: ``(n, D)`` training vectors.
        labels: per training vector its senses (it counts towards each).
        groups: per training vector what it is a sense *of*, e.g. ``(lemma, pos)``.

    Attributes:
        senses: sense labels, sorted; centroids: ``(K, D)`` unit-length mean vectors;
        by_group: group → indices of its senses.
    """

    def __init__(self, vectors: np.ndarray, labels: Sequence[Sequence[str]],
                 groups: Sequence) -> None:
        pairs = sorted({(g, k) for g, keys in zip(groups, labels, strict=True) for k in keys})
        self.senses = [k for _, k in pairs]
        index = {pair: i for i, pair in enumerate(pairs)}
        rows = [r for r, keys in enumerate(labels) for _ in keys]
        targets = [index[(groups[r], k)] for r, keys in enumerate(labels) for k in keys]
        x = torch.as_tensor(np.asarray(vectors, np.float32))[rows]  # (m, D), m ≥ n
        sums = x.new_zeros(len(pairs), x.shape[1]).index_add_(0, torch.tensor(targets), x)
        # The mean's direction is the sum's: normalising gives cosine by a dot product.
        self.centroids = torch.nn.functional.normalize(sums, dim=1).numpy()  # (K, D)
        self.by_group: dict = {}
        for i, (group, _) in enumerate(pairs):
            self.by_group.setdefault(group, []).append(i)

    def predict(self, vectors: np.ndarray, groups: Sequence) -> list[str | None]:
        """The nearest centroid's sense among the group's, ``None`` for an unseen group."""
        unit = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        out = []
        for v, group in zip(unit, groups, strict=True):
            candidates = self.by_group.get(group)
            if candidates is None:
                out.append(None)
                continue
            best = candidates[int(np.argmax(self.centroids[candidates] @ v))]  # ties: first
            out.append(self.senses[best])
        return out


def first_sense(lemma: str, pos: str, wordnet=None) -> str | None:
    """WordNet's first (most frequent) sense key of ``lemma`` as ``pos`` (NOUN, VERB, ADJ,
    ADV), or ``None`` if WordNet does not know it.

    >>> first_sense("bank", "NOUN")
    'bank%1:17:01::'
    """
    if wordnet is None:
        wordnet = nltk_corpus("wordnet")
    lemmas = wordnet.lemmas(lemma, pos=WORDNET_POS[pos])  # in WordNet's sense order
    return lemmas[0].key() if lemmas else None


@dataclass(frozen=True)
class Score:
    """The framework's scores, in percent, and the counts they come from."""

    precision: float
    recall: float
    f1: float
    correct: int
    answered: int
    total: int


def score(predictions: Mapping[str, str | None], gold: Mapping[str, Sequence[str]]) -> Score:
    """Precision (over the answered instances), recall (over all) and F1 of ``predictions``
    (instance id → key, or ``None``/missing: no answer) against ``gold`` (id → keys), in %.

    >>> s = score({"a": "x", "b": "y", "c": None}, {"a": ["x"], "b": ["z", "w"], "c": ["x"]})
    >>> round(s.precision, 2), round(s.recall, 2), round(s.f1, 2), s.answered, s.total
    (50.0, 33.33, 40.0, 2, 3)
    """
    unknown = set(predictions) - set(gold)
    if unknown:
        raise ValueError(f"{len(unknown)} predicted instance(s) have no gold keys, e.g. "
                         f"{sorted(unknown)[0]!r}: score predictions against their own test set")
    answered = [i for i, key in predictions.items() if key is not None]
    correct = sum(predictions[i] in gold[i] for i in answered)
    precision = 100.0 * correct / len(answered) if answered else 0.0
    recall = 100.0 * correct / len(gold) if gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if correct else 0.0
    return Score(precision, recall, f1, correct, len(answered), len(gold))


def predict(centroids: SenseCentroids, vectors: np.ndarray, instances: Sequence[Instance],
            backoff: Mapping[tuple[str, str], str | None]) -> dict[str, str | None]:
    """1-NN for lemmas seen in training, ``backoff[(lemma, pos)]`` (first sense) for the rest."""
    groups = [(i.lemma, i.pos) for i in instances]
    nearest = centroids.predict(vectors, groups)
    return {i.id: key if key is not None else backoff.get(g)
            for i, g, key in zip(instances, groups, nearest, strict=True)}


def evaluate_all(embedder: Embedder, progress: bool = True, test_sets: Sequence[str] = TEST_SETS,
                 semcor_every: int = 1, details: dict | None = None) -> dict:
    """Table 5 for a model: ``{"senseval2": {"layer0", "layer1", "layer2", "elmo",
    "first_sense": F1 (%)}, ..., "ALL": {...}}``, ALL the union of ``test_sets``.

    Args:
        semcor_every: train on every n-th SemCor sentence only (1: the paper's setting).
        details: if given, receives ``Score``s (``details[set][rep]``), the predictions
            (``details["predictions"][rep][set]``), the gold keys (``details["gold"][set]``:
            instance id → keys, in order), per set the instances whose lemma SemCor never
            shows (``details["unseen"]``) and the training instances (``details["n_train"]``).
    """
    wordnet = nltk_corpus("wordnet")
    weights = mix_weights(embedder)
    train_words, train = split_words(wsd_framework("semcor")[::semcor_every])
    name = "semcor" if semcor_every == 1 else f"semcor-every{semcor_every}"
    train_vectors = instance_vectors(embed_corpus(embedder, train_words, name, progress),
                                     train, weights)
    labels, groups = [i.keys for i in train], [(i.lemma, i.pos) for i in train]
    centroids = {rep: SenseCentroids(train_vectors[rep], labels, groups)
                 for rep in REPRESENTATIONS}
    predictions = {rep: {} for rep in (*REPRESENTATIONS, "first_sense")}
    gold_by_set, unseen = {}, {}
    for test_set in test_sets:
        words, instances = split_words(wsd_framework(test_set))
        vectors = instance_vectors(embed_corpus(embedder, words, test_set, progress),
                                   instances, weights)
        backoff = {(i.lemma, i.pos): first_sense(i.lemma, i.pos, wordnet) for i in instances}
        gold_by_set[test_set] = {i.id: i.keys for i in instances}
        unseen[test_set] = sum((i.lemma, i.pos) not in centroids["layer1"].by_group
                               for i in instances)
        predictions["first_sense"][test_set] = {i.id: backoff[(i.lemma, i.pos)]
                                                for i in instances}
        for rep in REPRESENTATIONS:
            predictions[rep][test_set] = predict(centroids[rep], vectors[rep], instances, backoff)
    result, scores = {}, {}
    for test_set in (*test_sets, "ALL"):
        sets = test_sets if test_set == "ALL" else (test_set,)
        gold = {(s, i): keys for s in sets for i, keys in gold_by_set[s].items()}
        scores[test_set] = {rep: score({(s, i): key for s in sets
                                        for i, key in predictions[rep][s].items()}, gold)
                            for rep in predictions}
        result[test_set] = {rep: round(sc.f1, 2) for rep, sc in scores[test_set].items()}
    if details is not None:
        unseen["ALL"] = sum(unseen.values())
        details.update(scores, predictions=predictions, gold=gold_by_set, unseen=unseen,
                       n_train=len(train))
    return result


__all__ = ["Instance", "PAPER_ALL", "REPRESENTATIONS", "SenseCentroids", "Score", "TEST_SETS",
           "evaluate_all", "first_sense", "instance_vectors", "mix_weights", "predict", "score",
           "split_words"]
