"""Notebook 11's self-check accepts the FLOPs of an LSTMP layer and explains wrong counts."""

import pytest
import torch

from elmo_tutorial import checks


def correct(inputs, cells, proj):
    return 2 * (4 * cells * inputs + 4 * cells * proj + cells * proj)


def multiply_adds(inputs, cells, proj):
    return correct(inputs, cells, proj) // 2


def without_projection(inputs, cells, proj):
    return 2 * (4 * cells * inputs + 4 * cells * proj)


def without_recurrence(inputs, cells, proj):
    return 2 * (4 * cells * inputs + cells * proj)


def recurrent_input_of_cell_width(inputs, cells, proj):
    return 2 * (4 * cells * inputs + 4 * cells * cells + cells * proj)


def input_as_wide_as_the_projection(inputs, cells, proj):
    return 2 * (4 * cells * proj + 4 * cells * proj + cells * proj)


def test_check_accepts_the_count_and_agrees_with_the_counter(capsys):
    checks.check_lstm_flops(correct)
    assert "✓" in capsys.readouterr().out
    assert checks.measured_lstm_flops(100, 700, 60) == correct(100, 700, 60)


@pytest.mark.parametrize(("answer", "hint"), [
    (multiply_adds, "multiply-adds"), (without_projection, "projection W_hr"),
    (without_recurrence, "recurrent product"), (recurrent_input_of_cell_width, "P wide"),
    (input_as_wide_as_the_projection, "W_ih"), (lambda i, c, p: "many", "one number"),
])
def test_check_rejects_wrong_counts_with_a_hint(answer, hint):
    with pytest.raises(checks.CheckFailed, match=hint):
        checks.check_lstm_flops(answer)


def test_lstm_flops_refuses_pytorchs_own_counter_however_imported():
    """Running our LSTM under FlopCounterMode measures the answer instead of counting it."""
    from torch.utils.flop_counter import FlopCounterMode as Counter

    from elmo_tutorial.model.lstm import LSTMStack

    def measured(input_size, cell_size, proj_size):
        stack = LSTMStack(input_size, cell_size, proj_size, n_layers=1, fused=False)
        x, mask = torch.zeros(1, 4, input_size), torch.ones(1, 4, dtype=torch.bool)
        with torch.no_grad(), Counter(display=False) as counter:
            stack(x, mask)
        return counter.get_total_flops() // 4

    with pytest.raises(checks.CheckFailed, match="count the multiply-adds"):
        checks.check_lstm_flops(measured)


def _cell_costs(cells=(512, 4096, 8192), resize=True, sampled=8192):
    """Notebook 11's sweep of cell counts; ``resize`` and ``sampled`` make the usual slips."""
    from dataclasses import replace

    from elmo_tutorial.model.config import MODEL_PRESETS
    from elmo_tutorial.training.cost import flops_per_token, parameter_counts

    paper = MODEL_PRESETS["paper"]
    sized = {C: replace(paper, lstm_dim=C) if resize else paper for C in cells}
    return paper, {C: (parameter_counts(c, vocab_size=793_471),
                       flops_per_token(c, vocab_size=793_471, sampled_softmax=sampled))
                   for C, c in sized.items()}


def test_cell_costs_pass_when_every_count_is_right(capsys):
    paper, cost = _cell_costs()
    checks.check_cell_costs(cost, paper, 793_471, 8192)
    assert "512, 4,096, 8,192 cells, each recomputed" in capsys.readouterr().out


@pytest.mark.parametrize(("slip", "says"), [
    (lambda cost: {**cost, 512: cost[8192]}, r"cost\[512\]'s parameter counts"),  # any pair
    (lambda cost: _cell_costs(resize=False)[1], r"cost\[512\] is the cost of 4096 cells"),
    (lambda cost: _cell_costs(sampled=0)[1], r"cost\[512\]'s FLOPs .* the full softmax"),
    (lambda cost: {**cost, 8192: cost[8192][0]}, r"cost\[8192\] is .* the pair"),
    (lambda cost: {}, "cost is empty"),
])
def test_cell_costs_fail_on_a_wrong_point_of_the_sweep(slip, says):
    paper, cost = _cell_costs()
    with pytest.raises(checks.CheckFailed, match=says):
        checks.check_cell_costs(slip(cost), paper, 793_471, 8192)
