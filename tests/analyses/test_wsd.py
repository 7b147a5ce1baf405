"""WSD: the framework's scorer, the nearest-centroid classifier, the first-sense back-off,
and Table 5 end to end on a tiny framework-format fixture."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from elmo_tutorial.analyses import wsd
from elmo_tutorial.analyses.embedder import Embedder
from elmo_tutorial.analyses.embedding_cache import embed_corpus
from elmo_tutorial.analyses.layer_report import wsd_instance_counts
from elmo_tutorial.analyses.paired import scores_from_counts
from elmo_tutorial.analyses.wsd import Instance, SenseCentroids, score
from elmo_tutorial.data.registry import is_available
from elmo_tutorial.model.config import ModelConfig
from elmo_tutorial.model.elmo import ELMo

needs_wordnet = pytest.mark.skipif(not is_available("wordnet"), reason="needs nltk's wordnet")

TINY = ModelConfig(char_embed_dim=4, filters=((1, 4), (2, 8)), n_highway=1, lstm_dim=16,
                   projection_dim=6, n_layers=2)


# ----------------------------------------------------------------------------- scorer

def test_scorer_counts_a_prediction_among_several_gold_keys_as_right():
    gold = {"d0.t0": ["a%1", "b%1"], "d0.t1": ["c%1"], "d0.t2": ["d%1"], "d0.t3": ["e%1"]}
    result = score({"d0.t0": "b%1", "d0.t1": "c%1", "d0.t2": "x%1", "d0.t3": "e%2"}, gold)
    assert (result.correct, result.answered, result.total) == (2, 4, 4)
    assert result.precision == result.recall == result.f1 == 50.0


def test_scorer_unanswered_instances_lower_recall_not_precision():
    gold = {"i1": ["a"], "i2": ["b"], "i3": ["c"], "i4": ["d"], "i5": ["e"]}
    result = score({"i1": "a", "i2": "b", "i3": "x", "i4": None}, gold)  # i5 missing
    assert result.precision == pytest.approx(100 * 2 / 3)
    assert result.recall == pytest.approx(100 * 2 / 5)
    p, r = 2 / 3, 2 / 5
    assert result.f1 == pytest.approx(100 * 2 * p * r / (p + r))  # = 50.0
    assert score({}, gold).f1 == 0.0 and score({"i1": "z"}, gold).precision == 0.0


def test_scorer_refuses_predictions_for_instances_of_another_test_set():
    with pytest.raises(ValueError, match="no gold keys"):
        score({"other.t0": "a"}, {"d0.t0": ["a"]})


# ----------------------------------------------------------------------------- 1-NN

def test_nearest_centroid_by_cosine_among_the_lemmas_own_senses():
    vectors = np.array([[1.0, 0.1], [3.0, -0.1],   # bank%1: along x (mean (2, 0))
                        [0.0, 1.0], [0.2, 1.0],    # bank%2: along y
                        [5.0, 5.0]])                # play%1
    labels = [["bank%1"], ["bank%1"], ["bank%2"], ["bank%2"], ["play%1"]]
    groups = [("bank", "NOUN")] * 4 + [("play", "VERB")]
    centroids = SenseCentroids(vectors, labels, groups)
    assert centroids.senses == ["bank%1", "bank%2", "play%1"]
    tests = np.array([[0.3, 0.2],    # cosine: x-like; Euclid would pick (0.1, 1) instead
                      [0.1, 2.0],    # y-like
                      [1.0, 0.0],    # x-like, but its lemma has one sense only
                      [1.0, 1.0]])   # unseen lemma
    groups_test = [("bank", "NOUN"), ("bank", "NOUN"), ("play", "VERB"), ("river", "NOUN")]
    assert centroids.predict(tests, groups_test) == ["bank%1", "bank%2", "play%1", None]


def test_an_instance_with_two_gold_keys_counts_towards_both_centroids():
    centroids = SenseCentroids(np.array([[1.0, 0.0], [0.0, 1.0]]), [["a", "b"], ["b"]],
                               ["w", "w"])
    np.testing.assert_allclose(centroids.centroids, [[1, 0], [2 ** -0.5, 2 ** -0.5]], atol=1e-6)


def test_predict_backs_off_to_the_first_sense_for_lemmas_unseen_in_training():
    centroids = SenseCentroids(np.eye(2), [["bank%1"], ["bank%2"]], [("bank", "NOUN")] * 2)
    instances = [Instance("t0", "bank", "NOUN", ("bank%2",), 0, 0, 1),
                 Instance("t1", "river", "NOUN", ("river%1",), 0, 1, 2),
                 Instance("t2", "xyzzy", "NOUN", ("xyzzy%1",), 0, 2, 3)]
    backoff = {("river", "NOUN"): "river%1", ("xyzzy", "NOUN"): None}
    predicted = wsd.predict(centroids, np.array([[0.1, 1.0], [1.0, 0.0], [1.0, 0.0]]),
                            instances, backoff)
    assert predicted == {"t0": "bank%2", "t1": "river%1", "t2": None}
    result = score(predicted, {i.id: i.keys for i in instances})
    assert (result.correct, result.answered, result.total) == (2, 2, 3)


@needs_wordnet
def test_first_sense_is_wordnets_most_frequent_sense_key():
    assert wsd.first_sense("bank", "NOUN") == "bank%1:17:01::"  # sloping land
    assert wsd.first_sense("bank", "VERB").startswith("bank%2:")
    assert wsd.first_sense("take_place", "VERB") == "take_place%2:30:00::"
    assert wsd.first_sense("xyzzyq", "NOUN") is None


# ----------------------------------------------------------------------------- vectors

SENTENCES = [
    {"id": "s0", "tokens": ["It", "took place", "at", "the", "bank", "."],
     "lemmas": ["it", "take_place", "at", "the", "bank", "."],
     "pos": ["PRON", "VERB", "ADP", "DET", "NOUN", "."],
     "instances": [{"index": 1, "id": "s0.t0", "lemma": "take_place", "pos": "VERB",
                    "keys": ["take_place%2:30:00::"]},
                   {"index": 4, "id": "s0.t1", "lemma": "bank", "pos": "NOUN",
                    "keys": ["bank%1:14:00::", "bank%1:17:01::"]}]},
    {"id": "s1", "tokens": ["Banks", "lend"], "lemmas": ["bank", "lend"],
     "pos": ["NOUN", "VERB"],
     "instances": [{"index": 0, "id": "s1.t0", "lemma": "bank", "pos": "NOUN",
                    "keys": ["bank%1:14:00::"]}]},
]


def test_multiword_expressions_are_split_into_words_with_their_span():
    words, instances = wsd.split_words(SENTENCES)
    assert words == [["It", "took", "place", "at", "the", "bank", "."], ["Banks", "lend"]]
    assert [(i.id, i.sentence, i.start, i.end) for i in instances] == [
        ("s0.t0", 0, 1, 3), ("s0.t1", 0, 5, 6), ("s1.t0", 1, 0, 1)]
    assert instances[1].keys == ("bank%1:14:00::", "bank%1:17:01::")


def test_instance_vectors_average_a_span_and_mix_the_layers(tmp_path):
    torch.manual_seed(0)
    embedder = Embedder(ELMo(TINY))
    words, instances = wsd.split_words(SENTENCES)
    layers = embedder.embed_sentences(words)
    weights = np.array([0.2, 0.3, 0.5], np.float32)
    stored = embed_corpus(embedder, words, "toy", progress=False, directory=tmp_path)
    vectors = wsd.instance_vectors(stored, instances, weights)
    atol = 3e-3  # float16 storage
    np.testing.assert_allclose(vectors["layer1"][0], layers[0][1, 1:3].mean(0), atol=atol)
    np.testing.assert_allclose(vectors["layer2"][2], layers[1][2, 0], atol=atol)
    np.testing.assert_allclose(vectors["elmo"], sum(w * vectors[f"layer{j}"]
                                                    for j, w in enumerate(weights)), atol=1e-6)
    np.testing.assert_allclose(wsd.mix_weights(embedder), [1 / 3] * 3, rtol=1e-6)


# ----------------------------------------------------------------------------- end to end

def _write_framework(root, name: str, sentences: list[list[tuple]]) -> None:
    """A dataset in the framework's format: (word, lemma, pos, key or None) per token."""
    folder = (root / "Training_Corpora" / "SemCor" if name == "semcor"
              else root / "Evaluation_Datasets" / name)
    folder.mkdir(parents=True, exist_ok=True)
    xml, keys = ['<?xml version="1.0" encoding="UTF-8"?>', f'<corpus lang="en" source="{name}">',
                 '<text id="d000">'], []
    for s, sentence in enumerate(sentences):
        xml.append(f'<sentence id="d000.s{s:03d}">')
        for t, (word, lemma, pos, key) in enumerate(sentence):
            if key is None:
                xml.append(f'<wf lemma="{lemma}" pos="{pos}">{word}</wf>')
            else:
                xml.append(f'<instance id="d000.s{s:03d}.t{t:03d}" lemma="{lemma}" pos="{pos}">'
                           f"{word}</instance>")
                keys.append(f"d000.s{s:03d}.t{t:03d} {key}")
        xml.append("</sentence>")
    xml += ["</text>", "</corpus>"]
    (folder / f"{name}.data.xml").write_text("\n".join(xml) + "\n")
    (folder / f"{name}.gold.key.txt").write_text("\n".join(keys) + "\n")


MONEY, RIVER = "bank%1:14:00::", "bank%1:17:01::"


@needs_wordnet
def test_evaluate_all_gives_table_5s_shape_and_all_is_the_union(tmp_path, monkeypatch):
    """Bank with two senses in training; a test set with an unseen lemma (back-off)."""
    data = tmp_path / "data"
    money = [("He", "he", "PRON", None), ("paid", "pay", "VERB", None),
             ("the", "the", "DET", None), ("bank", "bank", "NOUN", MONEY)]
    river = [("the", "the", "DET", None), ("river", "river", "NOUN", None),
             ("bank", "bank", "NOUN", RIVER), ("flooded", "flood", "VERB", None)]
    _write_framework(data / "WSD_Evaluation_Framework", "semcor", [money, river] * 3)
    _write_framework(data / "WSD_Evaluation_Framework", "senseval2", [money, river])
    unseen = [("a", "a", "DET", None), ("guitar", "guitar", "NOUN", "guitar%1:06:00::")]
    _write_framework(data / "WSD_Evaluation_Framework", "senseval3", [unseen, money])
    monkeypatch.setenv("ELMO_TUTORIAL_DATA", str(data))
    monkeypatch.setenv("ELMO_TUTORIAL_CACHE", str(tmp_path / "cache"))
    torch.manual_seed(0)
    details = {}
    result = wsd.evaluate_all(Embedder(ELMo(TINY)), progress=False,
                              test_sets=("senseval2", "senseval3"), details=details)
    assert list(result) == ["senseval2", "senseval3", "ALL"]
    for scores in result.values():
        assert set(scores) == {"layer0", "layer1", "layer2", "elmo", "first_sense"}
        assert all(0.0 <= f1 <= 100.0 for f1 in scores.values())
    # Identical sentences in training and test: every layer's vector is its own centroid.
    assert result["senseval2"]["layer2"] == result["senseval2"]["layer1"] == 100.0
    # "bank" (money) is not WordNet's first sense, "guitar" is and backs off to it.
    assert result["senseval2"]["first_sense"] == 50.0
    assert details["predictions"]["layer1"]["senseval3"]["d000.s000.t001"] == "guitar%1:06:00::"
    assert result["senseval3"]["layer1"] == 100.0 and result["senseval3"]["first_sense"] == 50.0
    assert result["ALL"]["first_sense"] == 50.0 and details["ALL"]["layer1"].total == 4
    assert details["unseen"] == {"senseval2": 0, "senseval3": 1, "ALL": 1}
    assert details["n_train"] == 6
    assert list(details["gold"]) == ["senseval2", "senseval3"]
    assert details["gold"]["senseval3"]["d000.s000.t001"] == ("guitar%1:06:00::",)
    counts = wsd_instance_counts(details, "first_sense")  # (4 instances of ALL, 3)
    assert counts.shape == (4, 3)
    assert scores_from_counts([counts])[0] == pytest.approx(details["ALL"]["first_sense"].f1)
