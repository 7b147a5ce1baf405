"""Self-checks for notebook 01 (layer normalisation): per-vector, whole-batch and per-sentence."""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn.functional as F

from elmo_tutorial.checks._core import (
    CheckFailed,
    assert_close,
    check,
    forbidding,
    passed,
    tensor_of_shape,
)
from elmo_tutorial.model.layer_norm import LayerNorm, masked_layer_norm

__all__ = ["check_layer_norm", "check_left_padded_layer_norm", "check_masked_layer_norm",
           "check_per_sentence_layer_norm"]


def _inputs() -> list[torch.Tensor]:
    generator = torch.Generator().manual_seed(1234)
    return [
        torch.randn(2, 3, 8, generator=generator) * 5 + 3,  # large mean and scale
        torch.randn(4, 16, generator=generator),
        torch.tensor([[1.0, 1.0, 1.0, 1.0]]),  # zero variance: ε keeps it finite
        1.0 + 3e-3 * torch.randn(3, 6, generator=generator),  # σ² ≈ ε: where ε goes matters
    ]


@check
def check_layer_norm(fn: Callable[..., torch.Tensor]) -> None:
    """``fn(x, gamma, beta, eps)`` must layer-normalise ``x`` over its last dimension.

    Compared with :class:`elmo_tutorial.model.layer_norm.LayerNorm` (which equals
    ``torch.nn.LayerNorm``) on inputs with a large offset, on a constant vector, and on
    nearly constant vectors whose variance is close to ε (so ε must sit inside the root).
    ``fn`` runs with ``LayerNorm``, ``torch.nn.LayerNorm`` and ``F.layer_norm`` unavailable.
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
            with forbidding(fn, (LayerNorm, "forward"), (torch.nn.LayerNorm, "forward"),
                            (F, "layer_norm"), (torch, "layer_norm"), instead=(
                                "compute μ and σ² over the last dimension yourself")):
                got = fn(x.clone(), gamma.clone(), beta.clone(), 1e-5)
        tensor_of_shape(got, x.shape, "layer_norm", "It keeps the input's shape: reduce with "
                        "keepdim=True so μ and σ² broadcast.")
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


@check
def check_masked_layer_norm(fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]) -> None:
    """``fn(x, mask)`` must normalise ``x`` (B, T, D) with one mean and variance over the real
    positions (``mask`` (B, T) True) and need not care what the padding holds. ``fn`` runs
    with :func:`elmo_tutorial.model.layer_norm.masked_layer_norm` unavailable."""
    generator = torch.Generator().manual_seed(7)
    x = torch.randn(3, 5, 4, generator=generator) * 2 + 1
    mask = torch.tensor([[1, 1, 1, 1, 1], [1, 1, 0, 0, 0], [1, 1, 1, 0, 0]], dtype=torch.bool)
    x = x.masked_fill(~mask.unsqueeze(-1), 0.0)  # zeros in the padding, as a model leaves them
    expected = masked_layer_norm(x, mask)
    with forbidding(fn, masked_layer_norm, instead=(
            "compute the masked mean and variance yourself")):
        got = fn(x.clone(), mask.clone())
    tensor_of_shape(got, x.shape, "masked layer norm")
    everything = masked_layer_norm(x, torch.ones_like(mask))
    if torch.allclose(got[mask], everything[mask], atol=1e-4):
        raise CheckFailed("Your statistics include the padded positions: the zeros there pull "
                          "the mean towards 0 and shrink the variance. Average over real "
                          "elements only: divide the masked sums by (number of real tokens × D).")
    assert_close(got[mask], expected[mask], "masked layer norm at real positions", atol=1e-4,
                 hint="One μ and one σ² for the whole batch (not per token), biased variance, "
                      "ε = 1e-12 inside the square root, no γ/β.")
    passed("masked layer norm: one mean and variance over the real tokens of the batch")


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
def check_left_padded_layer_norm(fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]) -> None:
    """``fn(x, lengths)``: ``x`` (B, T, D) holds sentence ``b`` in its **last** ``lengths[b]``
    positions (padding at the start); one mean and variance over the real elements, as
    :func:`elmo_tutorial.model.layer_norm.masked_layer_norm` with the matching mask, which ``fn``
    cannot call."""
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
    passed("left-padded layer norm from lengths: one mean and variance over the real tokens")


@check
def check_per_sentence_layer_norm(fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]
                                  ) -> None:
    """``fn(x, mask)``: each sentence ``b`` normalised with its **own** mean and variance over
    its real elements (``mask`` (B, T) True), as ``masked_layer_norm(x[b:b+1], mask[b:b+1])``,
    which ``fn`` cannot call."""
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
    per_token = x[mask]
    per_token = (per_token - per_token.mean(-1, keepdim=True)) / torch.sqrt(
        per_token.var(-1, unbiased=False, keepdim=True) + 1e-12)
    if torch.allclose(got, per_token, atol=1e-4):
        raise CheckFailed("This normalises each token on its own (plain layer norm). Each "
                          "SENTENCE gets one μ and σ², over all its real tokens and features.")
    assert_close(got, expected, "per-sentence layer norm at real positions", atol=1e-4,
                 hint="For each b: μ_b and σ²_b over the real positions of sentence b and all D "
                      "features (divide by lengths[b] × D), ε = 1e-12 inside the root.")
    passed("per-sentence layer norm: each sentence with its own mean and variance")
