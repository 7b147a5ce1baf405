"""The lexical sample: the fast senseval reader against nltk's, the split, the evaluation."""

from __future__ import annotations

import random
from collections import Counter

import pytest
import torch

from elmo_tutorial.analyses import lexical_sample
from elmo_tutorial.analyses.embedder import Embedder
from elmo_tutorial.data.registry import is_available
from elmo_tutorial.model.config import ModelConfig
from elmo_tutorial.model.elmo import ELMo

needs_senseval = pytest.mark.skipif(not is_available("senseval"), reason="needs nltk's senseval")


@pytest.mark.slow  # nltk's own reader takes seconds
@needs_senseval
def test_reader_gives_what_nltks_reader_gives():
    from nltk.corpus import senseval

    ours = lexical_sample.read_senseval("interest")
    theirs = senseval.instances("interest.pos")
    assert len(ours) == len(theirs) == 2368
    for mine, ref in zip(ours, theirs, strict=True):
        tokens = [t[0] if isinstance(t, tuple) else t for t in ref.context]
        assert (mine["tokens"], mine["index"], mine["senses"]) == (
            tokens, ref.position, tuple(ref.senses))
    assert ours[0]["tokens"][ours[0]["index"]] == "interest"


def test_split_is_seeded_disjoint_and_complete():
    train, test = lexical_sample.split(10, test_fraction=0.3, seed=1)
    assert len(test) == 3 and sorted(train + test) == list(range(10))
    assert (train, test) == lexical_sample.split(10, test_fraction=0.3, seed=1)
    assert test != lexical_sample.split(10, test_fraction=0.3, seed=2)[1]


@needs_senseval
def test_evaluate_reports_every_layer_and_the_most_frequent_sense(tmp_path, monkeypatch):
    monkeypatch.setenv("ELMO_TUTORIAL_CACHE", str(tmp_path))
    torch.manual_seed(0)
    config = ModelConfig(char_embed_dim=4, filters=((1, 4), (2, 8)), n_highway=1, lstm_dim=16,
                         projection_dim=6, n_layers=2)
    embedder = Embedder(ELMo(config))
    result = lexical_sample.evaluate(embedder, words=("interest",), per_word=40)
    scores = result["interest"]
    assert (scores["n_train"], scores["n_test"]) == (20, 20)
    for name in ("layer0", "layer1", "layer2", "elmo", "most_frequent_sense"):
        assert 0.0 <= scores[name] <= 100.0 and (scores[name] * 20 / 100).is_integer()
    instances = lexical_sample.load_instances("interest", 40)
    train, test = lexical_sample.split(40)
    majority = Counter(s for i in train for s in instances[i]["senses"]).most_common(1)[0][0]
    expected = 100 * sum(majority in instances[i]["senses"] for i in test) / len(test)
    assert scores["most_frequent_sense"] == expected
    with pytest.raises(ValueError, match="word must be one of"):
        lexical_sample.load_instances("bank")

    fewer = lexical_sample.evaluate(embedder, words=("interest",), per_word=40,
                                    max_train=5)["interest"]
    assert (fewer["n_train"], fewer["n_test"]) == (5, 20), "fewer training uses, same test"
    # a seeded random five, not the first five: the corpus is ordered by sense
    five = sorted(random.Random("0-interest-train").sample(train, 5))
    assert five != train[:5]
    majority = Counter(s for i in five for s in instances[i]["senses"]).most_common(1)[0][0]
    assert fewer["most_frequent_sense"] == (
        100 * sum(majority in instances[i]["senses"] for i in test) / len(test))
    with pytest.raises(ValueError, match="max_train must be at least 1"):
        lexical_sample.evaluate(embedder, words=("interest",), per_word=40, max_train=0)
