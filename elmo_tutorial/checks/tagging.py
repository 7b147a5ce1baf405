"""Self-checks for notebook 10 (tagging): a probe trained on half the data, and reading entities
off BIO tags, as WNUT-17 scores them."""

from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence

import numpy as np
import torch

from elmo_tutorial.analyses.probes import accuracy as probe_accuracy
from elmo_tutorial.analyses.spans import bio_spans
from elmo_tutorial.checks._core import CheckFailed, check, forbidding, nothing_returned, passed

__all__ = ["check_bio_spans", "check_half_data_probe"]

# Each case names what it tests; the hints below say what a wrong answer usually missed.
_CASES: list[tuple[str, list[str]]] = [
    ("one entity of two tokens", ["O", "B-person", "I-person", "O"]),
    ("an entity that ends the sentence", ["O", "B-location", "I-location"]),
    ("two entities side by side", ["B-group", "B-group", "I-group"]),
    ("an I- tag after O starts an entity", ["O", "I-product", "I-product", "O"]),
    ("an I- tag of another type starts an entity", ["B-person", "I-location", "O"]),
    ("no entity at all", ["O", "O", "O"]),
    ("a one-token sentence", ["B-corporation"]),
    ("an empty sentence", []),
]


def _hint(name: str) -> str:
    if "ends the sentence" in name or "one-token" in name:
        return "An entity still open after the last token must be closed and kept."
    if "side by side" in name:
        return "A B- tag always starts a new entity, even right after one of the same type."
    if "I- tag after O" in name or "another type" in name:
        return ("Read an I-X that does not continue an entity of type X as the start of one "
                "(conlleval's rule), rather than dropping it.")
    return "Entities are (type, start, end) with `end` one past the last token."


@check
def check_bio_spans(fn: Callable[[Sequence[str]], set]) -> None:
    """``fn(tags)`` must return the set of ``(type, start, end)`` entities of a BIO sequence.

    ``end`` is exclusive. Compared with :func:`elmo_tutorial.analyses.spans.bio_spans` on entities
    at the edges of a sentence, adjacent entities, ill-formed ``I-`` tags and empty sentences;
    ``fn`` runs with that function unavailable.
    """
    for name, tags in _CASES:
        expected = bio_spans(tags)
        with forbidding(fn, bio_spans, instead="read the tags one by one yourself"):
            got = fn(list(tags))
        nothing_returned(got, "your function", "a set of (type, start, end) tuples")
        if not isinstance(got, set | frozenset | list | tuple):
            raise CheckFailed(f"{name}: got {type(got).__name__}; return a set of "
                              "(type, start, end) tuples.")
        try:
            got = {tuple(span) for span in got}
        except TypeError:
            raise CheckFailed(f"{name}: got {got!r}; each entity is a tuple (type, start, "
                              "end).") from None
        if got != expected:
            raise CheckFailed(f"{name}: tags {tags} gave {sorted(got)}, expected "
                              f"{sorted(expected)}. {_hint(name)}")
    passed(f"BIO spans: {len(_CASES)} cases agree with tagger.bio_spans (edges, adjacent "
           "entities, ill-formed I- tags)")


@check
def check_half_data_probe(probe, measured: float, train_features, sentence_lengths: Sequence[int],
                          test_features, test_labels) -> None:
    """``probe`` must be a :class:`~elmo_tutorial.analyses.probes.LinearProbe` trained on the
    tokens of the first half of the training sentences, and ``measured`` its test accuracy (%).

    Which rows a probe was trained on shows in its standardisation: ``probe.mean`` is the mean
    of its training rows. ``train_features (N, D)`` are all training tokens, sentence after
    sentence (``sentence_lengths`` tokens each); ``test_features (M, D)``, ``test_labels (M,)``.
    """
    features = np.asarray(train_features, dtype=np.float32)
    half = int(sum(sentence_lengths[: len(sentence_lengths) // 2]))
    if not hasattr(probe, "mean") or not isinstance(probe.mean, torch.Tensor):
        raise CheckFailed(f"half_probe is {type(probe).__name__}: it must be the LinearProbe "
                          "that probes.fit_probe returns.")
    if not isinstance(measured, numbers.Real):
        raise CheckFailed(f"the accuracy is {type(measured).__name__}: it must be a number, "
                          "what probes.accuracy returns.")
    mean = probe.mean.detach().double().numpy()

    def trained_on(rows: np.ndarray) -> bool:
        return mean.shape == rows.shape[1:] and np.allclose(mean, rows.mean(0), atol=1e-4)

    if not trained_on(features[:half]):
        if trained_on(features):
            raise CheckFailed("the probe was trained on all the training tokens: keep only the "
                              f"tokens of the first {len(sentence_lengths) // 2} sentences, "
                              f"the first {half} rows.")
        if trained_on(features[: len(features) // 2]):
            raise CheckFailed("the probe was trained on the first half of the *tokens*, which "
                              "cuts a sentence in two: take the tokens of the first half of "
                              f"the sentences, the first {half} rows.")
        raise CheckFailed("the probe's standardisation is not that of the first half of the "
                          f"training sentences (the first {half} rows of the layer's training "
                          "features): train it with probes.fit_probe on those rows and their "
                          "labels.")
    expected = probe_accuracy(probe, test_features, test_labels)
    if not np.isclose(float(measured), expected, atol=1e-6):
        raise CheckFailed(f"measured {float(measured):.2f}%, but this probe scores "
                          f"{expected:.2f}% on the test tokens: measure it with "
                          "probes.accuracy(probe, test features, test labels).")
    passed(f"a probe trained on {half} tokens (half the sentences), its accuracy measured on "
           "the test tokens")  # the accuracy itself differs in its last digits between CPUs
