"""Self-checks for notebook 01 (layer normalisation): left-padded and per-sentence statistics."""

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
from elmo_tutorial.model.layer_norm import masked_layer_norm

__all__ = ["check_left_padded_layer_norm", "check_per_sentence_layer_norm"]


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
