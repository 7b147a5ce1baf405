"""Self-checks for notebooks 01 and 07 (layer normalisation, the scalar mix of paper Eq. 1):
left-padded and per-sentence statistics, the raw weights of a mix, the mix without layer 0."""

from __future__ import annotations

from collections.abc import Callable

import torch

from elmo_tutorial.checks._core import CheckFailed, assert_close, check, forbidding, tensor_of_shape
from elmo_tutorial.model.layer_norm import masked_layer_norm

__all__ = ["check_left_padded_layer_norm", "check_lstm_layers_mix", "check_per_sentence_layer_norm",
           "check_scalar_parameters"]


def _padded_batch(left: bool) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(x, lengths, mask)``: 3 sentences of 5, 2 and 3 tokens in 5 positions, D = 4, the
    padding at the start (``left``) or at the end, holding large values that must not count."""
    generator = torch.Generator().manual_seed(11)
    lengths = torch.tensor([5, 2, 3])
    positions = torch.arange(5)
    mask = (positions >= 5 - lengths[:, None]) if left else (positions < lengths[:, None])
    x = torch.randn(3, 5, 4, generator=generator) * 2 + 1
    x = x.masked_fill(~mask.unsqueeze(-1), 50.0)  # garbage in the padding
    return x, lengths, mask


_OWN_STATISTICS = ("compute the mean and the variance over the real elements yourself, with "
                   "the mask's sums")


def _real_part(got, x: torch.Tensor, mask: torch.Tensor, what: str) -> torch.Tensor:
    tensor_of_shape(got, x.shape, what, "It keeps the input's shape.")
    if not torch.isfinite(got[mask]).all():
        raise CheckFailed(f"{what} gave NaN or inf at real tokens.")
    return got[mask]


@check
def check_left_padded_layer_norm(fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]) -> str:
    """``fn(x, lengths)``: ``x`` (B, T, D) holds sentence ``b`` in its **last** ``lengths[b]``
    positions; one mean and variance over the real elements, as
    :func:`elmo_tutorial.model.layer_norm.masked_layer_norm` with the matching mask."""
    x, lengths, mask = _padded_batch(left=True)
    with forbidding(fn, masked_layer_norm, instead=_OWN_STATISTICS):
        got = fn(x.clone(), lengths.clone())
    got = _real_part(got, x, mask, "left-padded layer norm")
    expected = masked_layer_norm(x, mask)[mask]
    _, _, right_mask = _padded_batch(left=False)
    if torch.allclose(got, masked_layer_norm(x, right_mask)[mask], atol=1e-4):
        raise CheckFailed("You treated the FIRST lengths[b] positions as real, as in a right-"
                          "padded batch. Here the padding comes first: position t of sentence b "
                          "is real when t >= T - lengths[b].")
    if torch.allclose(got, masked_layer_norm(x, torch.ones_like(mask))[mask], atol=1e-4):
        raise CheckFailed("Your statistics include the padded positions (they hold 50.0 here): "
                          "build the mask from the lengths and average over real elements only.")
    assert_close(got, expected, "left-padded layer norm at real positions", atol=1e-4,
                 hint="Build mask[b, t] = t >= T - lengths[b], then one μ and one σ² over the "
                      "real elements of the whole batch, ε = 1e-12 inside the root, no γ/β.")
    return "left-padded layer norm from lengths: one mean and variance over the real tokens"


@check
def check_per_sentence_layer_norm(fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]
                                  ) -> str:
    """``fn(x, mask)``: each sentence ``b`` normalised with its **own** mean and variance over
    its real elements, as ``masked_layer_norm(x[b:b+1], mask[b:b+1])``."""
    x, _, mask = _padded_batch(left=False)
    with forbidding(fn, masked_layer_norm, instead=_OWN_STATISTICS):
        got = fn(x.clone(), mask.clone())
    got = _real_part(got, x, mask, "per-sentence layer norm")
    expected = torch.cat([masked_layer_norm(x[b:b + 1], mask[b:b + 1])
                          for b in range(x.shape[0])])[mask]
    if torch.allclose(got, masked_layer_norm(x, mask)[mask], atol=1e-4):
        raise CheckFailed("This is the whole-batch version: one μ and σ² shared by all "
                          "sentences. Reduce over the positions and features of each sentence "
                          "separately (dims 1 and 2), keeping the batch dimension.")
    per_token = torch.nn.functional.layer_norm(x[mask], x.shape[-1:], eps=1e-12)
    if torch.allclose(got, per_token, atol=1e-4):
        raise CheckFailed("This normalises each token on its own (plain layer norm). Each "
                          "SENTENCE gets one μ and σ², over all its real tokens and features.")
    assert_close(got, expected, "per-sentence layer norm at real positions", atol=1e-4,
                 hint="For each b: μ_b and σ²_b over the real positions of sentence b and all D "
                      "features (divide by lengths[b] × D), ε = 1e-12 inside the root.")
    return "per-sentence layer norm: each sentence with its own mean and variance"


@check
def check_scalar_parameters(fn: Callable[[torch.Tensor], torch.Tensor]) -> str:
    """``fn(s)``, given mixing weights ``s`` (positive, summing to 1), must return the raw
    weights ``w`` with ``softmax(w) = s`` that the penalty ``λ‖w‖²`` prefers."""
    for s in ([0.25, 0.25, 0.5], [0.1, 0.1, 0.8], [0.5, 0.5], [0.05, 0.15, 0.3, 0.2, 0.3]):
        s = torch.tensor(s, dtype=torch.float64)
        got = fn(s.clone())
        got = tensor_of_shape(got, s.shape, "your function", "Return the raw weights w, one "
                              "per layer.").double()
        if torch.allclose(got, s):
            raise CheckFailed("You returned s itself, but the mix applies softmax to w first: "
                              f"softmax(s) = {[round(v, 3) for v in torch.softmax(s, 0).tolist()]}"
                              f", not s. Which w has softmax(w) = s?")
        assert_close(torch.softmax(got, 0), s, f"softmax(w) for s = {s.tolist()}", atol=1e-6,
                     hint="softmax(w)_j = exp(w_j) / Σ_k exp(w_k): take logarithms.")
        expected = s.log() - s.log().mean()
        if not torch.allclose(got, expected, atol=1e-6):
            shift = float((got - expected).mean())
            raise CheckFailed(
                f"softmax(w) = s ✓, but ‖w‖² = {float((got ** 2).sum()):.3f} is not the smallest: "
                f"adding a constant to every w_j keeps the mix (yours is {shift:+.3f} from the "
                "best). Which constant minimises Σ_j (w_j + c)²?")
    return "w = log s − mean(log s): the mix you asked for, with the smallest penalty ‖w‖²"


@check
def check_lstm_layers_mix(mixed: torch.Tensor, layers: list[torch.Tensor], mask: torch.Tensor
                          ) -> str:
    """``mixed`` must be the scalar mix (``γ`` = 1, no layer norm) without layer 0 that weighs
    the LSTM layers equally, ``(h_1 + h_2) / 2``."""
    expected = (layers[1] + layers[2]) / 2
    tensor_of_shape(mixed, expected.shape, "the mix", "A layer's shape: the ScalarMix's output.")

    def near(other):
        return torch.allclose(mixed[mask], other[mask], atol=1e-4)

    if near(sum(layers) / 3):
        raise CheckFailed("This is the uniform mix of all three layers: layer 0 is still in. "
                          "Its raw weight must be very negative (softmax → 0), e.g. -1e4.")
    if near(layers[2]) or near(layers[1]):
        raise CheckFailed("Only one LSTM layer is left: weigh both equally (equal raw weights).")
    if near(layers[1] + layers[2]):
        raise CheckFailed("The sum of the two layers: the weights s must sum to 1 (softmax).")
    assert_close(mixed[mask], expected[mask], "mixed vectors at real tokens", atol=1e-4, hint=(
                     "ScalarMix(3, initial_scalar_parameters=w) with w_0 far below w_1 = w_2, "
                     "γ = 1, no layer norm."))
    return "the mix without layer 0: (h_1 + h_2) / 2 at every real token"
