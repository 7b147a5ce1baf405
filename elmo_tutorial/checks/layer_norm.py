"""Self-checks for notebook 01 (layer normalisation): per-vector and masked whole-batch norms."""

from __future__ import annotations

from collections.abc import Callable

import torch

from ..layer_norm import LayerNorm, masked_layer_norm
from ._core import CheckFailed, assert_close, passed

__all__ = ["check_layer_norm", "check_masked_layer_norm"]


def _inputs() -> list[torch.Tensor]:
    generator = torch.Generator().manual_seed(1234)
    return [
        torch.randn(2, 3, 8, generator=generator) * 5 + 3,  # large mean and scale
        torch.randn(4, 16, generator=generator),
        torch.tensor([[1.0, 1.0, 1.0, 1.0]]),  # zero variance: ε keeps it finite
        1.0 + 3e-3 * torch.randn(3, 6, generator=generator),  # σ² ≈ ε: where ε goes matters
    ]


def check_layer_norm(fn: Callable[..., torch.Tensor]) -> None:
    """``fn(x, gamma, beta, eps)`` must layer-normalise ``x`` over its last dimension.

    Compared with :class:`elmo_tutorial.layer_norm.LayerNorm` (which equals
    ``torch.nn.LayerNorm``) on inputs with a large offset, on a constant vector, and on
    nearly constant vectors whose variance is close to ε (so ε must sit inside the root).
    """
    generator = torch.Generator().manual_seed(99)
    for x in _inputs():
        D = x.shape[-1]
        gamma = torch.rand(D, generator=generator) + 0.5
        beta = torch.randn(D, generator=generator)
        reference = LayerNorm(D, eps=1e-5)
        with torch.no_grad():
            reference.weight.copy_(gamma)
            reference.bias.copy_(beta)
            expected = reference(x)
            got = fn(x.clone(), gamma.clone(), beta.clone(), 1e-5)
        if not isinstance(got, torch.Tensor) or got.shape != x.shape:
            shape = tuple(got.shape) if isinstance(got, torch.Tensor) else type(got).__name__
            raise CheckFailed(f"layer_norm returned {shape}; it should keep the input's shape "
                              f"{tuple(x.shape)}. Reduce with keepdim=True so μ and σ² broadcast.")
        unbiased = (x - x.mean(-1, keepdim=True)) / torch.sqrt(x.var(-1, keepdim=True) + 1e-5)
        centred = x - x.mean(-1, keepdim=True)
        eps_outside = centred / (centred.pow(2).mean(-1, keepdim=True).sqrt() + 1e-5)
        if x.std() > 0 and torch.allclose(got, gamma * eps_outside + beta, atol=1e-4) and not (
                torch.allclose(got, expected, atol=1e-4)):
            raise CheckFailed("ε is outside the square root: (x - μ) / (sqrt(σ²) + ε). The "
                              "formula (and torch.nn.LayerNorm) divides by sqrt(σ² + ε); the two "
                              "differ when σ² is as small as ε, as on this nearly constant input.")
        if D > 1 and x.std() > 0 and torch.allclose(got, gamma * unbiased + beta, atol=1e-5):
            raise CheckFailed("You used the unbiased variance (divide by D - 1). Layer norm "
                              "divides by D: x.var(-1, unbiased=False) or ((x - μ)**2).mean(-1).")
        assert_close(got, expected, "layer_norm(x, gamma, beta, eps)", atol=1e-4, hint=(
            "y = γ · (x - μ) / sqrt(σ² + ε) + β with μ and σ² over the LAST dimension of each "
            "vector (not the whole tensor), and ε inside the square root."))
    passed("layer_norm agrees with LayerNorm and torch.nn.LayerNorm (offsets, constant input)")


def check_masked_layer_norm(fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]) -> None:
    """``fn(x, mask)`` must normalise ``x`` (B, T, D) with one mean and variance over the real
    positions (``mask`` (B, T) True) and need not care what the padding holds."""
    generator = torch.Generator().manual_seed(7)
    x = torch.randn(3, 5, 4, generator=generator) * 2 + 1
    mask = torch.tensor([[1, 1, 1, 1, 1], [1, 1, 0, 0, 0], [1, 1, 1, 0, 0]], dtype=torch.bool)
    x = x.masked_fill(~mask.unsqueeze(-1), 0.0)  # zeros in the padding, as a model leaves them
    expected = masked_layer_norm(x, mask)
    got = fn(x.clone(), mask.clone())
    if got.shape != x.shape:
        raise CheckFailed(f"masked layer norm returned shape {tuple(got.shape)}, expected "
                          f"{tuple(x.shape)}.")
    everything = masked_layer_norm(x, torch.ones_like(mask))
    if torch.allclose(got[mask], everything[mask], atol=1e-4):
        raise CheckFailed("Your statistics include the padded positions: the zeros there pull "
                          "the mean towards 0 and shrink the variance. Average over real "
                          "elements only: divide the masked sums by (number of real tokens × D).")
    assert_close(got[mask], expected[mask], "masked layer norm at real positions", atol=1e-4,
                 hint="One μ and one σ² for the whole batch (not per token), biased variance, "
                      "ε = 1e-12 inside the square root, no γ/β.")
    passed("masked layer norm: one mean and variance over the real tokens of the batch")
