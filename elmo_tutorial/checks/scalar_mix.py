"""Self-checks for notebook 07 (the scalar mix, paper Eq. 1)."""

from __future__ import annotations

from collections.abc import Callable

import torch

from elmo_tutorial.checks._core import (
    CheckFailed,
    assert_close,
    check,
    forbidding,
    passed,
    tensor_of_shape,
)
from elmo_tutorial.model.scalar_mix import ScalarMix

__all__ = ["check_lstm_layers_mix", "check_scalar_mix", "check_scalar_parameters"]


def _cases() -> list[tuple[list[torch.Tensor], torch.Tensor, float]]:
    generator = torch.Generator().manual_seed(2018)
    cases = []
    for n_layers, shape, gamma in ((3, (2, 4, 6), 1.7), (2, (3, 5), 0.5), (4, (1, 2, 3, 8), 2.0)):
        layers = [torch.randn(*shape, generator=generator) * (j + 1) for j in range(n_layers)]
        w = torch.randn(n_layers, generator=generator) * 2  # far from uniform
        cases.append((layers, w, gamma))
    return cases


@check
def check_scalar_mix(fn: Callable[[list[torch.Tensor], torch.Tensor, float], torch.Tensor]) -> None:
    """``fn(layers, w, gamma)`` must return ``γ Σ_j softmax(w)_j · layers[j]``.

    ``layers`` is a list of same-shape tensors, ``w`` the un-normalised weights ``(L,)``,
    ``gamma`` a float. Compared with :class:`elmo_tutorial.model.scalar_mix.ScalarMix` for 2-4
    layers of different shapes, non-uniform weights and γ ≠ 1; ``fn`` runs with ``ScalarMix``
    unavailable.
    """
    for layers, w, gamma in _cases():
        mix = ScalarMix(len(layers), initial_scalar_parameters=w.tolist())
        with torch.no_grad():
            mix.gamma.fill_(gamma)
            expected = mix(layers)
            with forbidding(fn, (ScalarMix, "forward"), instead=(
                    "normalise w with a softmax and add up the weighted layers yourself")):
                got = fn([h.clone() for h in layers], w.clone(), gamma)
        tensor_of_shape(got, expected.shape, "scalar mix", "One tensor of a layer's shape: "
                        "weight each layer by a number, then add them up.")
        raw = sum(wj * h for wj, h in zip(w, layers, strict=True)) * gamma
        if torch.allclose(got, raw, atol=1e-5):
            raise CheckFailed("You used w as it is: normalise it first, s = softmax(w), so the "
                              "weights are positive and sum to 1.")
        if torch.allclose(got, expected / gamma, atol=1e-5):
            raise CheckFailed("The weighted sum is right but γ is missing: multiply it by gamma.")
        assert_close(got, expected, "scalar mix", atol=1e-5, hint=(
            "γ · Σ_j s_j · layers[j] with s = softmax(w) over the layers (dim 0 of w)."))
    passed("scalar mix: γ · Σ_j softmax(w)_j h_j agrees with ScalarMix (2-4 layers, γ ≠ 1)")


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
