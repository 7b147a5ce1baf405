"""Self-checks for notebook 11 (what the paper's model costs): FLOPs of one LSTMP layer, and
the cost of every cell count of a sweep."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import torch
from torch.utils.flop_counter import FlopCounterMode

from elmo_tutorial.checks._core import CheckFailed, check, filled_dict, forbidding, one_number
from elmo_tutorial.model.lstm import LSTMStack
from elmo_tutorial.training.cost import flops_per_token, measure_flops, parameter_counts

__all__ = ["check_cell_costs", "check_lstm_flops", "measured_lstm_flops"]

# (input_size, cell_size, proj_size): input ≠ projection, projection ≪ cells, and a small one.
_SHAPES = ((12, 40, 8), (8, 64, 16), (5, 6, 3))


def measured_lstm_flops(input_size: int, cell_size: int, proj_size: int) -> int:
    """Forward FLOPs per token of one LSTMP layer in one direction, as ``FlopCounterMode``
    counts them on a one-layer, step-by-step :class:`~elmo_tutorial.model.lstm.LSTMStack`."""
    stack = LSTMStack(input_size, cell_size, proj_size, n_layers=1, fused=False)
    x, mask = torch.zeros(2, 5, input_size), torch.ones(2, 5, dtype=torch.bool)
    with torch.no_grad():
        total, _ = measure_flops(lambda: stack(x, mask))
    return total // 10


@check
def check_lstm_flops(fn: Callable[[int, int, int], int]) -> str:
    """``fn(input_size, cell_size, proj_size)`` must return the forward FLOPs per token of one
    LSTMP layer in one direction, as :func:`measured_lstm_flops` counts them, without a counter:
    its three matrix products, 2 FLOPs per multiply-add."""
    for inputs, cells, proj in _SHAPES:
        expected = measured_lstm_flops(inputs, cells, proj)
        with forbidding(fn, measured_lstm_flops, measure_flops, flops_per_token,
                        (FlopCounterMode, "__enter__"),  # however it was imported
                        instead="count the multiply-adds of the three matrix products yourself"):
            got = fn(inputs, cells, proj)
        got = one_number(got, "the FLOPs per token")
        if got == expected:
            continue
        where = f"for input {inputs}, {cells} cells, projection {proj}: got {got:.10g}, expected "
        where += f"{expected}."
        if 2 * got == expected:
            raise CheckFailed(f"{where} You counted multiply-adds: each is 2 FLOPs.")
        if got == expected - 2 * cells * proj:
            raise CheckFailed(f"{where} The projection W_hr (P × C) is missing: every step "
                              "multiplies the C cell outputs down to P.")
        if got == expected - 2 * 4 * cells * proj:
            raise CheckFailed(f"{where} The recurrent product is missing: the gates also see "
                              "h_{t-1} through W_hh (4C × P).")
        if got == expected + 2 * 4 * cells * (cells - proj):
            raise CheckFailed(f"{where} The recurrent input h_{{t-1}} is the projected output, "
                              "P wide, not the C cells: W_hh is 4C × P.")
        raise CheckFailed(f"{where} Count 2 FLOPs per multiply-add in W_ih (4C × input), "
                          "W_hh (4C × P) and W_hr (P × C).")
    return "FLOPs per token of an LSTMP layer agree with FlopCounterMode (3 shapes)"


@check
def check_cell_costs(cost: dict, config, vocab_size: int, sampled_softmax: int) -> str:
    """``cost[C]``, for every cell count ``C`` it holds, must be the pair (``parameter_counts``,
    ``flops_per_token``) of ``replace(config, lstm_dim=C)``, with ``vocab_size`` and
    ``sampled_softmax``; every pair is recomputed."""
    filled_dict(cost, "cost", "it must map each cell count C to the pair (parameter counts, "
                "FLOPs per token) of the model with C cells.")
    for cells, got in cost.items():
        if not isinstance(cells, int) or cells < 1:
            raise CheckFailed(f"cost has the key {cells!r}: the keys are cell counts, whole "
                              "numbers.")
        sized = replace(config, lstm_dim=cells)
        params = parameter_counts(sized, vocab_size=vocab_size)
        flops = flops_per_token(sized, vocab_size=vocab_size, sampled_softmax=sampled_softmax)
        if not isinstance(got, tuple | list) or len(got) != 2:
            raise CheckFailed(f"cost[{cells}] is {got!r:.60}: it must be the pair (parameter "
                              "counts, FLOPs per token).")
        if tuple(got) == (params, flops):
            continue
        if cells != config.lstm_dim and tuple(got) == (
                parameter_counts(config, vocab_size=vocab_size),
                flops_per_token(config, vocab_size=vocab_size, sampled_softmax=sampled_softmax)):
            raise CheckFailed(f"cost[{cells}] is the cost of {config.lstm_dim} cells: count "
                              f"replace(config, lstm_dim={cells}), not the paper's config.")
        if got[0] != params:
            raise CheckFailed(f"cost[{cells}]'s parameter counts are {got[0]!r:.80}, expected "
                              f"{params}: parameter_counts(replace(paper, lstm_dim={cells}), "
                              f"vocab_size={vocab_size}).")
        full = got[1] == flops_per_token(sized, vocab_size=vocab_size)
        hint = f" That is the full softmax: pass sampled_softmax={sampled_softmax}." if full else ""
        raise CheckFailed(f"cost[{cells}]'s FLOPs are {got[1]!r:.80}, expected {flops}.{hint}")
    return (f"the parameters and FLOPs of {', '.join(f'{c:,}' for c in cost)} cells, each "
            "recomputed and equal")
