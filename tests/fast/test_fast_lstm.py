"""The column-major LSTMP loop computes what the plain loop computes: values, padding, gradients."""

import copy
from dataclasses import replace

import pytest
import torch

from elmo_tutorial.fast import plain, speed_up
from elmo_tutorial.fast.lstm import FastLSTMStack, lstmp_sequence_columns
from elmo_tutorial.model.config import MODEL_PRESETS
from elmo_tutorial.model.lm import BidirectionalLM
from elmo_tutorial.model.lstm import LSTMStack
from elmo_tutorial.model.lstmp import lstmp_sequence

pytestmark = pytest.mark.usefixtures("one_thread")  # see conftest.py

LENGTHS = [7, 4, 1, 6]
# float32: the two loops add the same products in another order (rows against columns), so
# they differ by a few units in the last place, which the recurrence carries along.
FLOAT32 = {"atol": 1e-5, "rtol": 1e-5}


def ragged_mask(lengths, steps=None):
    steps = max(lengths, default=0) if steps is None else steps
    return torch.arange(steps) < torch.tensor(lengths, dtype=torch.long).unsqueeze(1)  # (B, T)


def plain_and_fast(go_forward=True, projection=5, clip=(0.5, 0.1), dtype=torch.float64):
    """A clipping ``LSTMStack`` and a ``FastLSTMStack`` with the same weights."""
    torch.manual_seed(0)
    stack = LSTMStack(6, 10, projection, n_layers=2 if projection == 6 else 1,
                      cell_clip=clip[0], proj_clip=clip[1], go_forward=go_forward).to(dtype)
    fast = copy.deepcopy(stack)
    fast.__class__ = FastLSTMStack  # what speed_up does
    return stack, fast


def outputs_and_gradients(stack, x, mask):
    stack.zero_grad(set_to_none=True)
    x = x.clone().requires_grad_()
    outputs = stack(x, mask)
    (sum((h * torch.linspace(-1, 1, h.shape[-1], dtype=h.dtype)).sum() for h in outputs)).backward()
    return outputs, [x.grad] + [p.grad for p in stack.parameters()]


@pytest.mark.parametrize("projection", [5, 6], ids=["projection", "two_layers_residual"])
@pytest.mark.parametrize("go_forward", [True, False], ids=["forward", "backward"])
def test_fast_stack_equals_plain_stack_with_clipping_in_float64(go_forward, projection):
    stack, fast = plain_and_fast(go_forward, projection)
    mask = ragged_mask(LENGTHS)
    x = 3 * torch.randn(len(LENGTHS), max(LENGTHS), 6, dtype=torch.float64)
    expected, expected_grads = outputs_and_gradients(stack, x, mask)
    got, got_grads = outputs_and_gradients(fast, x, mask)
    assert (expected[0].abs() == 0.1).any(), "the projection clip must bind for this test"
    for a, b in zip(got + got_grads, expected + expected_grads, strict=True):
        torch.testing.assert_close(a, b, atol=1e-10, rtol=0)
    for h in got:
        assert (h[~mask] == 0).all(), "padded positions must be zero"


@pytest.mark.parametrize("go_forward", [True, False], ids=["forward", "backward"])
def test_fast_stack_equals_plain_stack_in_float32_to_rounding(go_forward):
    stack, fast = plain_and_fast(go_forward, projection=6, clip=(3.0, 3.0), dtype=torch.float32)
    mask = ragged_mask(LENGTHS)
    x = torch.randn(len(LENGTHS), max(LENGTHS), 6)
    expected, expected_grads = outputs_and_gradients(stack, x, mask)
    got, got_grads = outputs_and_gradients(fast, x, mask)
    for a, b in zip(got + got_grads, expected + expected_grads, strict=True):
        torch.testing.assert_close(a, b, **FLOAT32)


def test_padding_changes_nothing_in_the_fast_stack():
    _, fast = plain_and_fast(go_forward=False)
    mask = ragged_mask(LENGTHS)
    x = torch.randn(len(LENGTHS), max(LENGTHS), 6, dtype=torch.float64)
    noisy = torch.where(mask.unsqueeze(-1), x, 100 * torch.randn_like(x))
    for a, b in zip(fast(x, mask), fast(noisy, mask), strict=True):
        assert torch.equal(a, b)


@pytest.mark.parametrize("batch, steps", [(0, 5), (3, 0), (0, 0)],
                         ids=["empty_batch", "zero_steps", "both"])
def test_empty_batches_and_zero_steps_give_empty_outputs_like_the_plain_stack(batch, steps):
    stack, fast = plain_and_fast(projection=6)
    x = torch.randn(batch, steps, 6, dtype=torch.float64)
    mask = ragged_mask([steps] * batch, steps)
    for plain_h, fast_h in zip(stack(x, mask), fast(x, mask), strict=True):
        assert plain_h.shape == fast_h.shape == (batch, steps, 6)


def test_column_loop_equals_plain_loop_without_clipping_and_without_projection():
    torch.manual_seed(0)
    x = torch.randn(3, 5, 4, dtype=torch.float64)
    weights = [torch.randn(24, 4), torch.randn(24, 6), torch.randn(24), torch.randn(24)]
    weights = [w.double() for w in weights]
    torch.testing.assert_close(lstmp_sequence_columns(x, *weights),
                               lstmp_sequence(x, *weights), atol=1e-12, rtol=0)


def test_fused_path_is_left_to_nn_lstm():
    torch.manual_seed(0)
    stack = LSTMStack(6, 10, 6, n_layers=2)  # no clipping: fused
    fast = copy.deepcopy(stack)
    fast.__class__ = FastLSTMStack
    x, mask = torch.randn(2, 5, 6), ragged_mask([5, 3])
    for a, b in zip(stack(x, mask), fast(x, mask), strict=True):
        assert torch.equal(a, b)


def clipping_bilm() -> BidirectionalLM:
    config = replace(MODEL_PRESETS["tiny"], cell_clip=3.0, proj_clip=3.0, vocab_size=50)
    torch.manual_seed(0)
    return BidirectionalLM(config).eval()


def test_speed_up_keeps_a_bilms_parameters_and_state_dict_and_its_outputs():
    bilm = clipping_bilm()
    before = bilm.state_dict()
    parameters = [id(p) for p in bilm.parameters()]
    attributes = {name: set(vars(m)) for name, m in bilm.named_modules()}
    char_ids = torch.randint(1, 200, (3, 6, 50))
    char_ids[1, 4:] = 0  # a shorter sentence: padding
    with torch.no_grad():
        expected = bilm.encode(char_ids)
        speed_up(bilm)
        got = bilm.encode(char_ids)
    assert isinstance(bilm.forward_lstm, FastLSTMStack)
    assert isinstance(bilm.backward_lstm, FastLSTMStack)
    assert [id(p) for p in bilm.parameters()] == parameters
    after = bilm.state_dict()
    assert list(after) == list(before)
    assert all(after[name] is before[name] or torch.equal(after[name], before[name])
               for name in before)
    assert {name: set(vars(m)) for name, m in bilm.named_modules()} == attributes
    for direction in ("forward", "backward"):
        for a, b in zip(got[direction], expected[direction], strict=True):
            torch.testing.assert_close(a, b, **FLOAT32)
    plain(bilm)
    assert type(bilm.forward_lstm) is LSTMStack
