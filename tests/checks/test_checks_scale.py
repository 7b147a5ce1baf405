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
