"""Self-checks for notebook 05 (the backward LM): reversing a left-padded batch row by row."""

from __future__ import annotations

from collections.abc import Callable

import torch

from elmo_tutorial.checks._core import CheckFailed, assert_close, check, passed
from elmo_tutorial.model.lstm import reverse_padded

__all__ = ["check_reverse_left_padded"]


@check
def check_reverse_left_padded(fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]) -> None:
    """``fn(x, lengths)`` gets a LEFT-padded batch ``x`` (B, T, D) (row ``b``'s tokens are its
    last ``lengths[b]`` positions) and must reverse each row's tokens, leaving the padding at
    the start. Compared with :func:`elmo_tutorial.model.lstm.reverse_padded` on the batch moved to
    right padding and back (``fn`` may reuse it; called on the left-padded batch as it is, it
    reverses the wrong positions, and the check says so)."""
    generator = torch.Generator().manual_seed(6)
    lengths = torch.tensor([6, 3, 1, 5, 0])
    T = 6
    x = torch.randn(5, T, 2, generator=generator)
    x[torch.arange(T) < T - lengths.unsqueeze(1)] = 0.0  # padding first, zero
    # flip turns a left-padded row into a right-padded reversed one; reverse_padded restores
    # the order, the last flip puts the padding back in front, now with the tokens reversed.
    expected = torch.flip(reverse_padded(torch.flip(x, dims=[1]), lengths), dims=[1])
    got = fn(x.clone(), lengths.clone())
    if isinstance(got, torch.Tensor) and got.shape == x.shape:
        if torch.equal(got, torch.flip(x, dims=[1])):
            raise CheckFailed("torch.flip moves the padding to the end: row 1 would end with "
                              "3 padding positions. The padding must stay in front.")
        if torch.equal(got, reverse_padded(x, lengths)):
            raise CheckFailed("That is the right-padded reversal: it reverses positions "
                              "0..L_b-1, which here are padding and the first tokens. In a "
                              "left-padded row the tokens are the LAST L_b positions.")
        if torch.equal(got, x):
            raise CheckFailed("Nothing changed: the rows must come back reversed.")
    assert_close(got, expected, "reversed left-padded batch", hint=(
        "Row b has its tokens at positions T - L_b .. T - 1. Position t ≥ T - L_b takes the "
        "token at (T - L_b) + (T - 1 - t); the padding positions t < T - L_b stay."))
    passed("left-padded reversal: tokens reversed in place, padding kept in front (5 rows, "
           "one of them empty)")
