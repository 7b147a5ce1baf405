"""Self-checks for notebook 07 (the scalar mix, paper Eq. 1)."""

from __future__ import annotations

from collections.abc import Callable

import torch

from elmo_tutorial.checks._core import (
    CheckFailed,
    assert_close,
    check,
    passed,
    tensor_of_shape,
)

__all__ = ["check_lstm_layers_mix", "check_scalar_parameters"]


@check
def check_scalar_parameters(fn: Callable[[torch.Tensor], torch.Tensor]) -> None:
    """``fn(s)`` gets mixing weights ``s`` (positive, summing to 1) and must return the raw
    weights ``w`` with ``softmax(w) = s`` and the smallest ``‖w‖²``: the ones the penalty
    ``λ‖w‖²`` prefers among all that give the same mix. Checked for 2-5 layers."""
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
    passed("w = log s − mean(log s): the mix you asked for, with the smallest penalty ‖w‖²")


@check
def check_lstm_layers_mix(mixed: torch.Tensor, layers: list[torch.Tensor], mask: torch.Tensor
                          ) -> None:
    """The experiment of notebook 07: ``mixed`` must be the scalar mix (``γ`` = 1, no layer
    norm) that leaves out layer 0 and weighs the LSTM layers equally, ``(h_1 + h_2) / 2``."""
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
    passed("the mix without layer 0: (h_1 + h_2) / 2 at every real token")
