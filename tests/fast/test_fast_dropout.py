"""FastDropout draws from nn.Dropout's distribution; the task models train with it."""

import math

import pytest
import torch
from torch import nn

from elmo_tutorial.fast import speed_up
from elmo_tutorial.fast.dropout import FastDropout
from elmo_tutorial.tasks.model import TaskModel

N = 200_000  # units per draw: the keep rate's standard deviation is below 0.0012


@pytest.mark.parametrize("p", [0.1, 0.5, 0.8])
def test_fast_dropout_keeps_each_unit_with_probability_1_minus_p_like_nn_dropout(p):
    x = torch.rand(N) + 0.5  # no zeros among the inputs: a zero output means dropped
    torch.manual_seed(0)
    fast = FastDropout(p)(x)
    torch.manual_seed(0)
    reference = nn.Dropout(p)(x)
    sigma = math.sqrt(p * (1 - p) / N)
    for y, name in ((fast, "FastDropout"), (reference, "nn.Dropout")):
        kept = y != 0
        rate = kept.float().mean().item()
        assert abs(rate - (1 - p)) < 5 * sigma, f"{name} kept {rate:.4f}, expected {1 - p}"
        torch.testing.assert_close(y[kept], x[kept] / (1 - p))  # scaled by 1 / (1 - p)
    assert abs(fast.mean().item() - x.mean().item()) < 0.02, "the expectation must be kept"


def test_fast_dropout_draws_its_mask_as_the_task_models_always_did():
    # The committed task reports were made with this formula; the same seed, the same mask.
    x = torch.randn(64, 33)
    torch.manual_seed(3)
    got = FastDropout(0.5)(x)
    torch.manual_seed(3)
    assert torch.equal(got, x * (torch.rand_like(x) >= 0.5) / (1.0 - 0.5))


def test_fast_dropout_is_the_identity_in_eval_mode_and_at_p_0_and_zero_at_p_1():
    x = torch.randn(4, 7)
    assert torch.equal(FastDropout(0.5).eval()(x), x)
    assert torch.equal(FastDropout(0.0)(x), x)
    assert torch.equal(FastDropout(1.0)(x), nn.Dropout(1.0)(x))
    assert torch.equal(FastDropout(1.0)(x), torch.zeros_like(x))


def test_fast_dropout_in_place_changes_its_input_as_nn_dropout_does():
    x = torch.randn(5, 9)
    torch.manual_seed(1)
    expected = FastDropout(0.3)(x)
    torch.manual_seed(1)
    y = x.clone()
    out = FastDropout(0.3, inplace=True)(y)
    assert out.data_ptr() == y.data_ptr() and torch.equal(y, expected)


def test_fast_dropout_passes_gradients_through_the_kept_units_only():
    x = torch.randn(50, 40, requires_grad=True)
    y = FastDropout(0.25)(x)
    y.sum().backward()
    torch.testing.assert_close(x.grad, (y != 0).float() / 0.75)


def test_fast_dropout_has_nn_dropouts_arguments_and_checks():
    dropout = FastDropout(0.2, inplace=True)
    assert isinstance(dropout, nn.Dropout) and (dropout.p, dropout.inplace) == (0.2, True)
    with pytest.raises(ValueError, match="probability"):
        FastDropout(1.5)


def task_model() -> TaskModel:
    torch.manual_seed(0)
    return TaskModel(torch.randn(12, 6), 3, "tag", elmo_layers=3, elmo_dim=8,
                     elmo_at=("input", "output"), hidden_size=5, dropout=0.5, char_filters=4)


def test_speed_up_keeps_a_task_models_state_dict_and_its_outputs():
    model = task_model().eval()
    before = {name: t.clone() for name, t in model.state_dict().items()}
    words = torch.randint(0, 12, (2, 5))
    mask = torch.tensor([[1, 1, 1, 1, 1], [1, 1, 1, 0, 0]]).bool()
    layers, chars = torch.randn(2, 5, 3, 8), torch.randint(1, 100, (2, 5, 7))
    with torch.no_grad():
        expected = model(words, mask, layers, chars)
        speed_up(model)
        got = model(words, mask, layers, chars)
    assert type(model.dropout) is FastDropout
    after = model.state_dict()
    assert list(after) == list(before)
    assert all(torch.equal(after[name], before[name]) for name in before)
    assert torch.equal(got, expected)


def test_the_task_model_is_plain_until_sped_up():
    assert type(task_model().dropout) is nn.Dropout
