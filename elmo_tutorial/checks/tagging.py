"""Self-checks for notebook 10 (tagging): probes trained on fewer sentences, and reading entities
off BIO tags, as WNUT-17 scores them."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import torch

from elmo_tutorial.analyses.spans import bio_spans
from elmo_tutorial.checks._core import CheckFailed, check, filled_dict, forbidding, not_none

__all__ = ["check_bio_spans", "check_probes_on_fewer_sentences"]

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
def check_bio_spans(fn: Callable[[Sequence[str]], set]) -> str:
    """``fn(tags)`` must return the set of ``(type, start, end)`` entities (``end`` exclusive) of
    a BIO sequence, as :func:`elmo_tutorial.analyses.spans.bio_spans`."""
    for name, tags in _CASES:
        expected = bio_spans(tags)
        with forbidding(fn, bio_spans, instead="read the tags one by one yourself"):
            got = fn(list(tags))
        not_none(got, "your function", "a set of (type, start, end) tuples")
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
    return (f"BIO spans: {len(_CASES)} cases agree with tagger.bio_spans (edges, adjacent "
            "entities, ill-formed I- tags)")


def _gradient_ratio(probe, rows: torch.Tensor, labels: torch.Tensor, l2: float) -> float:
    """How far ``probe`` is from the minimum of :func:`~elmo_tutorial.analyses.probes.fit_probe`'s
    loss on ``rows`` and ``labels``: the gradient's norm there over its norm at zero weights. On
    notebook 10's data, at most 0.4 % for a probe fitted to these labels (L-BFGS stops short of
    the minimum); about 1 for one fitted to shuffled labels."""
    z = (rows - probe.mean.detach()) / probe.std.detach()  # (N, D), standardised as it does
    weight = probe.linear.weight.detach().clone().requires_grad_()  # (C, D)
    bias = probe.linear.bias.detach().clone().requires_grad_()  # (C,)
    norms = []
    for w, b, penalty in ((weight, bias, l2), (torch.zeros_like(weight).requires_grad_(),
                                               torch.zeros_like(bias).requires_grad_(), 0.0)):
        loss = (torch.nn.functional.cross_entropy(z @ w.T + b, labels)
                + 0.5 * penalty * w.pow(2).sum())
        norms.append(torch.cat([g.flatten() for g in torch.autograd.grad(loss, (w, b))]).norm())
    return float(norms[0] / norms[1])


@check
def check_probes_on_fewer_sentences(fitted: dict, sizes: Sequence[int], train_layers,
                                    train_labels, sentence_lengths: Sequence[int],
                                    l2: float = 1e-4) -> str:
    """``fitted`` must map ``(j, n)``, for layers 0 and 1 and every ``n`` in ``sizes``, to a
    :class:`~elmo_tutorial.analyses.probes.LinearProbe` trained on layer ``j``'s tokens of the
    first ``n`` training sentences and their labels.

    ``train_layers[j]`` ``(N, D)`` holds every training token, sentence after sentence
    (``sentence_lengths`` tokens each); ``train_labels`` ``(N,)`` their tags. A probe's rows show
    in its standardisation (``probe.mean``), its labels in the gradient of fit_probe's loss at
    the probe (:func:`_gradient_ratio`), so no probe is fitted again.
    """
    filled_dict(fitted, "fitted", "it must map (j, n) to the probe of layer j trained on the "
                "first n sentences.")
    wanted = [(j, n) for n in sizes for j in (0, 1)]
    missing = [key for key in wanted if key not in fitted]
    if missing:
        raise CheckFailed(f"fitted has no probe for {missing[0]}: train one for layers 0 and 1 "
                          "at every size in `sizes`, under the key (j, n).")
    labels = torch.as_tensor(np.asarray(train_labels, dtype=np.int64))
    for j, n in wanted:
        probe, where = fitted[j, n], f"fitted[{j}, {n}]"
        if not hasattr(probe, "mean") or not isinstance(probe.mean, torch.Tensor):
            raise CheckFailed(f"{where} is {type(probe).__name__}: it must be the LinearProbe "
                              "that probes.fit_probe returns.")
        features = torch.as_tensor(np.asarray(train_layers[j], dtype=np.float32))
        rows = int(sum(sentence_lengths[:n]))
        mean = probe.mean.detach().double()

        def trained_on(x: torch.Tensor, mean=mean) -> bool:
            return mean.shape == x.shape[1:] and torch.allclose(mean, x.double().mean(0),
                                                                atol=1e-4)

        if not trained_on(features[:rows]):
            if trained_on(features):
                raise CheckFailed(f"{where} was trained on all the training tokens: keep only "
                                  f"the tokens of the first {n} sentences, the first {rows} "
                                  "rows.")
            if n * 2 == len(sentence_lengths) and trained_on(features[: len(features) // 2]):
                raise CheckFailed(f"{where} was trained on the first half of the *tokens*, "
                                  "which cuts a sentence in two: take the tokens of the first "
                                  f"{n} sentences, the first {rows} rows.")
            raise CheckFailed(f"{where}'s standardisation is not that of the first {n} training "
                              f"sentences (the first {rows} rows of train_layers[{j}]): train it "
                              "with probes.fit_probe on those rows and their labels.")
        ratio = _gradient_ratio(probe, features[:rows], labels[:rows], l2)
        if not ratio < 0.05:
            raise CheckFailed(f"{where} is not the probe that fits the tags of its rows (the "
                              f"loss's gradient there is {ratio:.0%} of that at the start, "
                              "expected below 5%): train it on the first "
                              f"{rows} rows' own labels, y_train[:{rows}], in order, with "
                              f"l2={l2:g}.")
    return (f"{len(wanted)} probes, layers 0 and 1 on the first {', '.join(map(str, sizes))} "
            "sentences: the right rows, and a minimum of the loss on their tags")
