"""Linear POS probes: the optimum they reach, determinism, baselines, and a probe per layer."""

import numpy as np
import pytest
import torch

from elmo_tutorial.analyses.embedder import Embedder
from elmo_tutorial.analyses.layer_report import pos_sentence_counts
from elmo_tutorial.analyses.paired import scores_from_counts
from elmo_tutorial.analyses.probes import (
    LinearProbe,
    fit_probe,
    most_frequent_tag_accuracy,
    probe_layers,
    token_layers,
)
from elmo_tutorial.model.config import ModelConfig
from elmo_tutorial.model.elmo import ELMo


def _overlapping_classes(n=300, d=5, c=3, seed=0):
    """Three Gaussian classes that overlap, so the optimum is finite and unique."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, c, n)
    x = rng.normal(size=(n, d)) + rng.normal(size=(c, d))[y] * 2 + 4  # off-centre on purpose
    return x.astype(np.float32), y


# a micro model: the order of the concatenated sentences does not depend on its size
MICRO = ModelConfig(char_embed_dim=4, filters=((1, 4), (2, 8)), n_highway=1, lstm_dim=16,
                    projection_dim=6, n_layers=2)


def test_probe_reaches_the_optimum_of_its_regularised_loss(one_thread):
    x, y = _overlapping_classes()
    l2 = 1e-2
    probe = fit_probe(x, y, 3, l2=l2, max_iter=200)
    # At the minimum the gradient of mean CE + (l2/2)‖W‖² vanishes; check it in float64.
    w = probe.linear.weight.detach().double().requires_grad_()
    b = probe.linear.bias.detach().double().requires_grad_()
    z = (torch.as_tensor(x).double() - probe.mean.double()) / probe.std.double()
    loss = torch.nn.functional.cross_entropy(z @ w.T + b, torch.as_tensor(y))
    (loss + 0.5 * l2 * w.pow(2).sum()).backward()
    assert w.grad.abs().max() < 1e-4 and b.grad.abs().max() < 1e-4, (w.grad, b.grad)


def test_probe_standardises_with_training_statistics():
    x, y = _overlapping_classes()
    probe = fit_probe(x, y, 3, max_iter=5)
    np.testing.assert_allclose(probe.mean.numpy(), x.mean(0), rtol=1e-5)
    np.testing.assert_allclose(probe.std.numpy(), x.std(0, ddof=1), rtol=1e-4)


def test_probe_is_deterministic(one_thread):
    x, y = _overlapping_classes(seed=1)
    a, b = fit_probe(x, y, 3), fit_probe(x, y, 3)
    torch.testing.assert_close(a.linear.weight, b.linear.weight, rtol=0, atol=0)
    torch.testing.assert_close(a.linear.bias, b.linear.bias, rtol=0, atol=0)


def test_probe_separates_separable_classes(one_thread):
    x = np.array([[0.0, 1.0], [0.1, 0.9], [1.0, 0.0], [0.9, 0.2], [5.0, 5.0], [5.2, 4.9]])
    y = np.array([0, 0, 1, 1, 2, 2])
    probe = fit_probe(x, y, 3)
    assert probe.predict(torch.as_tensor(x, dtype=torch.float32)).tolist() == y.tolist()


def test_probe_rejects_labels_outside_the_classes():
    with pytest.raises(ValueError, match=r"class ids in 0\.\.2"):
        fit_probe(np.zeros((2, 3)), np.array([0, 3]), 3)
    with pytest.raises(ValueError, match=r"features must be \(N, D\)"):
        fit_probe(np.zeros((2, 3)), np.array([0, 1, 2]), 3)


def test_probe_keeps_constant_dimensions_finite():
    x = np.array([[1.0, 0.0], [1.0, 1.0], [1.0, 2.0]])
    probe = fit_probe(x, np.array([0, 0, 1]), 2)
    assert isinstance(probe, LinearProbe) and torch.isfinite(probe.linear.weight).all()


def test_most_frequent_tag_accuracy_by_hand():
    train = [(["the", "run", "run"], ["DT", "NN", "VB"]), (["a", "run"], ["DT", "NN"])]
    test = [(["the", "run", "walk"], ["DT", "VB", "NN"])]
    # the→DT right; run→NN (2 of 3) wrong; walk unseen → DT (the most frequent tag) wrong.
    assert most_frequent_tag_accuracy(train, test) == pytest.approx(100 / 3)


class _LayeredEmbedder:
    """Three fake layers: layer 1 encodes the tag, layers 0 and 2 are noise."""

    def __init__(self, tag_of):
        self.tag_of = tag_of

    def embed_sentences(self, sentences):
        out = []
        for s in sentences:
            rng = np.random.default_rng(len(s))
            noise = rng.normal(size=(3, len(s), 4))
            noise[1, :, 0] += [4.0 * self.tag_of[w] for w in s]
            out.append(noise)
        return out


def test_probe_layers_finds_the_layer_that_holds_the_tags(one_thread):
    tag_of = {"a": 0, "b": 1, "c": 0, "d": 1}
    rng = np.random.default_rng(0)

    def sentences(n):
        return [(words, ["X" if tag_of[w] == 0 else "Y" for w in words])
                for words in (list(rng.choice(list(tag_of), size=rng.integers(2, 7)))
                              for _ in range(n))]

    test = sentences(20)
    details = {}
    results = probe_layers(_LayeredEmbedder(tag_of), sentences(60), test, cache=False,
                           details=details)
    assert set(results) == {"layer0", "layer1", "layer2"}
    assert results["layer1"] == 100.0
    assert results["layer0"] < 80 and results["layer2"] < 80
    # The token-level outcomes give every layer's accuracy back, sentence by sentence.
    assert details["lengths"] == [len(words) for words, _ in test]
    for layer, accuracy in results.items():
        counts = pos_sentence_counts(details["labels"], details["predicted"][layer],
                                     details["lengths"])  # (20 sentences, 3)
        assert scores_from_counts([counts])[0] == pytest.approx(accuracy, abs=1e-4)


@pytest.mark.parametrize("cache", [False, True])
def test_token_layers_concatenates_every_sentence_in_order(cache, tmp_path, monkeypatch):
    monkeypatch.setenv("ELMO_TUTORIAL_CACHE", str(tmp_path))
    torch.manual_seed(0)
    embedder = Embedder(ELMo(MICRO))
    sentences = [["The", "bank"], ["a"], ["We", "sat", "there", "."]]
    flat = token_layers(embedder, sentences, "toy", cache=cache)
    expected = np.concatenate(embedder.embed_sentences(sentences), axis=1)  # (3, 7, 2P)
    assert flat.shape == expected.shape and flat.dtype == np.float16
    np.testing.assert_allclose(flat.astype(np.float32), expected, rtol=2e-3, atol=2e-3)
    assert bool(list(tmp_path.rglob("toy-*.npy"))) == cache  # only a cached call writes
