"""Self-checks for notebook 05 (the backward LM): reversing a padded batch row by row."""

from __future__ import annotations

from collections.abc import Callable

import torch

from elmo_tutorial.checks._core import CheckFailed, assert_close, check, forbidding, passed
from elmo_tutorial.model.lstm import reverse_padded

__all__ = ["check_reverse_left_padded", "check_reverse_padded"]


@check
def check_reverse_padded(fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]) -> None:
    """``fn(x, lengths)`` gets a right-padded batch ``x`` (B, T, D) and the row lengths (B,),
    and must reverse each row's first ``lengths[b]`` positions, leaving the padding where it is.
    Compared with :func:`elmo_tutorial.model.lstm.reverse_padded`, which ``fn`` cannot call."""
    generator = torch.Generator().manual_seed(5)
    lengths = torch.tensor([6, 3, 1, 5])
    x = torch.randn(4, 6, 2, generator=generator)
    x[torch.arange(6) >= lengths.unsqueeze(1)] = 0.0  # padding is zero, as in the model
    with forbidding(fn, reverse_padded, instead=(
            "build, row by row, the index of the position each output takes its vector from")):
        got = fn(x.clone(), lengths.clone())
    if isinstance(got, torch.Tensor) and got.shape == x.shape:
        if torch.equal(got, torch.flip(x, dims=[1])):
            raise CheckFailed("torch.flip reverses the padding too: row 1 would start with 3 "
                              "padding positions. Reverse only the first lengths[b] positions.")
        if torch.equal(got, x):
            raise CheckFailed("Nothing changed: the rows must come back reversed.")
    assert_close(got, reverse_padded(x, lengths), "reversed batch", hint=(
        "Row b: position t < L_b takes x[b, L_b - 1 - t]; positions t ≥ L_b stay as they are. "
        "One way: build that index per row and use x.gather(1, index)."))
    with forbidding(fn, reverse_padded):
        twice = fn(got.clone(), lengths.clone())
    assert_close(twice, x, "reversing twice", hint="Reversing twice must give the input back.")
    passed("reverse_padded agrees with elmo_tutorial.model.lstm.reverse_padded on a ragged batch")


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
