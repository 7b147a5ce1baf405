"""The LSTMP cell and the LSTM stack: exact maths, both execution paths, padding and direction."""

import pytest
import torch

from elmo_tutorial.model.lstm import LSTMStack, reverse_padded
from elmo_tutorial.model.lstmp import LSTMCellWithProjection, lstmp_sequence, lstmp_step

LENGTHS = [7, 4, 1, 6]


pytestmark = pytest.mark.usefixtures("one_thread")  # see conftest.py


def ragged_mask(lengths, steps=None):
    steps = steps or max(lengths)
    return torch.arange(steps) < torch.tensor(lengths).unsqueeze(1)  # (B, T)


def make_stack(go_forward=True, clip=None, n_layers=2, dtype=torch.float64, **kwargs):
    torch.manual_seed(0)
    stack = LSTMStack(6, 10, 5 if n_layers == 1 else 6, n_layers, cell_clip=clip, proj_clip=clip,
                      go_forward=go_forward, **kwargs)
    return stack.to(dtype)


@pytest.mark.parametrize("clips", [(None, None), (0.4, 0.05)], ids=["no_clip", "clip"])
def test_lstmp_step_passes_float64_gradcheck(clips):
    torch.manual_seed(0)
    cell_clip, proj_clip = clips
    cell = LSTMCellWithProjection(4, 6, 3).double()
    x = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    h = torch.randn(3, 3, dtype=torch.float64, requires_grad=True)
    c = (2 * torch.randn(3, 6, dtype=torch.float64)).requires_grad_()
    weights = [cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh, cell.weight_hr]
    if cell_clip is not None:  # the clipping must bind somewhere for this test to mean much
        h_t, c_t = lstmp_step(x, h, c, *weights, cell_clip, proj_clip)
        assert (c_t.abs() == cell_clip).any() and (h_t.abs() == proj_clip).any()
        assert (c_t.abs() < cell_clip).any() and (h_t.abs() < proj_clip).any()
    assert torch.autograd.gradcheck(
        lambda *args: lstmp_step(*args, cell_clip, proj_clip), (x, h, c, *weights)
    )


def test_lstmp_step_without_projection_equals_torch_lstm_cell():
    torch.manual_seed(0)
    ref = torch.nn.LSTMCell(4, 5).double()
    x, h, c = (torch.randn(2, n, dtype=torch.float64) for n in (4, 5, 5))
    expected = ref(x, (h, c))
    got = lstmp_step(x, h, c, ref.weight_ih, ref.weight_hh, ref.bias_ih, ref.bias_hh)
    for g, e in zip(got, expected, strict=True):
        torch.testing.assert_close(g, e)


def test_clipped_step_follows_allennlp_order_clip_memory_then_clip_projection():
    # The reference spells out LstmCellWithProjection: gates i, f, g, o; the memory is
    # clipped right after its update and used clipped; the output is clipped after projecting.
    torch.manual_seed(0)
    x, h, c = torch.randn(3, 4), torch.randn(3, 2), 3 * torch.randn(3, 5)
    w_ih, w_hh, w_hr = torch.randn(20, 4), torch.randn(20, 2), torch.randn(2, 5)
    b_ih, b_hh = torch.randn(20), torch.randn(20)
    pre = x @ w_ih.T + b_ih + h @ w_hh.T + b_hh
    i, f, g, o = (pre[:, k * 5 : (k + 1) * 5] for k in range(4))
    memory = (torch.sigmoid(i) * torch.tanh(g) + torch.sigmoid(f) * c).clamp(-0.8, 0.8)
    output = ((torch.sigmoid(o) * torch.tanh(memory)) @ w_hr.T).clamp(-0.3, 0.3)
    assert (memory.abs() == 0.8).any() and (output.abs() == 0.3).any()
    h_t, c_t = lstmp_step(x, h, c, w_ih, w_hh, b_ih, b_hh, w_hr, 0.8, 0.3)
    torch.testing.assert_close(c_t, memory)
    torch.testing.assert_close(h_t, output)


def test_single_layer_faithful_path_equals_torch_lstm_with_proj_size():
    stack = make_stack(n_layers=1, fused=False)
    x = torch.randn(3, 8, 6, dtype=torch.float64)
    got = stack(x, torch.ones(3, 8, dtype=torch.bool))[0]
    expected = stack.layers[0](x)[0]  # nn.LSTM(6, 10, proj_size=5) on the same tensors
    torch.testing.assert_close(got, expected)


def test_teaching_cell_run_over_time_equals_lstmp_sequence():
    torch.manual_seed(0)
    cell = LSTMCellWithProjection(4, 6, 3, cell_clip=0.5, proj_clip=0.2).double()
    x = torch.randn(2, 5, 4, dtype=torch.float64)
    state, outputs = None, []
    for t in range(5):
        state = cell(x[:, t], state)
        outputs.append(state[0])
    weights = [cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh, cell.weight_hr]
    assert torch.equal(torch.stack(outputs, 1), lstmp_sequence(x, *weights, 0.5, 0.2))


def test_lstmp_sequence_equals_torch_lstm_with_gradients_in_float64():
    torch.manual_seed(0)
    lstm = torch.nn.LSTM(4, 6, proj_size=3, batch_first=True).double()
    x = torch.randn(2, 7, 4, dtype=torch.float64, requires_grad=True)
    weights = [lstm.weight_ih_l0, lstm.weight_hh_l0, lstm.bias_ih_l0, lstm.bias_hh_l0,
               lstm.weight_hr_l0]
    ours, theirs = lstmp_sequence(x, *weights), lstm(x)[0]
    torch.testing.assert_close(ours, theirs, atol=1e-12, rtol=0)
    direction = torch.randn_like(ours)
    for a, b in zip(torch.autograd.grad(ours, [x, *weights], direction),
                    torch.autograd.grad(theirs, [x, *weights], direction), strict=True):
        torch.testing.assert_close(a, b, atol=1e-12, rtol=0)


def test_lstmp_sequence_with_clipping_passes_float64_gradcheck():
    torch.manual_seed(0)
    cell = LSTMCellWithProjection(3, 4, 2).double()
    x = (2 * torch.randn(2, 4, 3, dtype=torch.float64)).requires_grad_()
    weights = [cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh, cell.weight_hr]
    assert (lstmp_sequence(x, *weights, 0.3, 0.1).abs() == 0.1).any(), "the clip must bind"
    assert torch.autograd.gradcheck(lambda *a: lstmp_sequence(*a, 0.3, 0.1), (x, *weights))


def test_lstmp_sequence_of_no_steps_is_empty():
    weights = [torch.randn(8, 3), torch.randn(8, 2), torch.randn(8), torch.randn(8)]
    assert lstmp_sequence(torch.randn(4, 0, 3), *weights).shape == (4, 0, 2)


@pytest.mark.parametrize("go_forward", [True, False], ids=["forward", "backward"])
def test_faithful_and_fused_paths_agree_on_ragged_batches_with_gradients(go_forward):
    stack = make_stack(go_forward, dtype=torch.float32)
    mask = ragged_mask(LENGTHS)
    x = torch.randn(len(LENGTHS), max(LENGTHS), 6)
    results = []
    for fused in (False, True):
        stack.fused = fused
        stack.zero_grad()
        xi = x.clone().requires_grad_()
        outputs = stack(xi, mask)
        (sum((o * torch.linspace(-1, 1, 6)).sum() for o in outputs)).backward()
        grads = [xi.grad] + [p.grad.clone() for p in stack.parameters()]
        results.append((outputs, grads))
    for a, b in zip(*[outs + grads for outs, grads in results], strict=True):
        torch.testing.assert_close(a, b, atol=1e-5, rtol=0)


def test_clipping_bounds_the_outputs_and_changes_the_result():
    stack = make_stack(clip=0.05)
    assert not stack.fused, "auto mode must pick the faithful path when clipping"
    x = 3 * torch.randn(2, 6, 6, dtype=torch.float64)
    first = stack(x, torch.ones(2, 6, dtype=torch.bool))[0]
    assert first.abs().max() <= 0.05 + 1e-12
    unclipped = LSTMStack(6, 10, 6, 2).double()
    unclipped.load_state_dict(stack.state_dict())
    assert not torch.allclose(unclipped(x, torch.ones(2, 6, dtype=torch.bool))[0], first)


def test_fused_path_with_clipping_is_refused():
    with pytest.raises(ValueError, match="cannot clip"):
        LSTMStack(4, 8, 4, 1, cell_clip=3.0, fused=True)


@pytest.mark.parametrize("fused", [False, True], ids=["faithful", "fused"])
@pytest.mark.parametrize("go_forward", [True, False], ids=["forward", "backward"])
def test_stack_is_causal_in_its_direction(go_forward, fused):
    stack = make_stack(go_forward, fused=fused)
    mask = ragged_mask([7, 7])
    x = torch.randn(2, 7, 6, dtype=torch.float64)
    before = stack(x, mask)
    t = 3
    x2 = x.clone()
    x2[:, t] += 1.0
    for a, b in zip(before, stack(x2, mask), strict=True):
        changed = (a - b).abs().amax(dim=(0, 2)) > 0  # (T,)
        expected = torch.arange(7) >= t if go_forward else torch.arange(7) <= t
        assert changed.tolist() == expected.tolist()


@pytest.mark.parametrize("go_forward", [True, False], ids=["forward", "backward"])
def test_padded_positions_change_nothing_and_output_zeros(go_forward):
    stack = make_stack(go_forward, clip=3.0)
    mask = ragged_mask(LENGTHS)
    x = torch.randn(len(LENGTHS), max(LENGTHS), 6, dtype=torch.float64)
    noisy = torch.where(mask.unsqueeze(-1), x, 100 * torch.randn_like(x))
    for a, b in zip(stack(x, mask), stack(noisy, mask), strict=True):
        torch.testing.assert_close(a, b)
        assert (a[~mask] == 0).all()


@pytest.mark.parametrize("fused", [False, True], ids=["faithful", "fused"])
@pytest.mark.parametrize("go_forward", [True, False], ids=["forward", "backward"])
def test_sentence_alone_equals_sentence_in_a_padded_batch(go_forward, fused):
    stack = make_stack(go_forward, fused=fused, dtype=torch.float32)
    x = torch.randn(3, 9, 6)
    mask = ragged_mask([9, 3, 8])
    batched = stack(x, mask)
    alone = stack(x[1:2, :3], torch.ones(1, 3, dtype=torch.bool))
    for b, a in zip(batched, alone, strict=True):
        torch.testing.assert_close(b[1:2, :3], a, atol=1e-5, rtol=0)


def test_outputs_do_not_depend_on_call_history():
    stack = make_stack(False, clip=3.0)
    x, other = torch.randn(2, 5, 6, dtype=torch.float64), torch.randn(4, 9, 6, dtype=torch.float64)
    mask = ragged_mask([5, 2])
    first = stack(x, mask)
    stack(other, ragged_mask([9, 1, 4, 9]))
    for a, b in zip(first, stack(x, mask), strict=True):
        assert torch.equal(a, b)


def test_backward_direction_starts_at_each_sequences_last_token():
    stack = make_stack(False, n_layers=1)
    x = torch.randn(2, 6, 6, dtype=torch.float64)
    out = stack(x, ragged_mask([6, 4]))[0]
    layer = stack.layers[0]
    h0 = torch.zeros(1, 5, dtype=torch.float64)
    c0 = torch.zeros(1, 10, dtype=torch.float64)
    weights = [layer.weight_ih_l0, layer.weight_hh_l0, layer.bias_ih_l0, layer.bias_hh_l0,
               layer.weight_hr_l0]
    first_step = lstmp_step(x[1, 3:4], h0, c0, *weights)[0]  # the 2nd row's last real token
    torch.testing.assert_close(out[1, 3:4], first_step)


def test_skip_connection_adds_each_layers_input_from_the_second_layer_on():
    with_skip, without = make_stack(), make_stack(use_skip_connections=False)
    x, mask = torch.randn(2, 5, 6, dtype=torch.float64), ragged_mask([5, 3])
    (a1, a2), (b1, b2) = with_skip(x, mask), without(x, mask)
    torch.testing.assert_close(a1, b1)  # no residual around the first layer
    torch.testing.assert_close(a2 - b2, a1)


def test_dropout_acts_between_layers_only_in_training():
    stack = make_stack(dropout=0.5)
    x, mask = torch.randn(2, 5, 6, dtype=torch.float64), ragged_mask([5, 3])
    stack.eval()
    assert torch.equal(stack(x, mask)[1], stack(x, mask)[1])
    stack.train()
    torch.manual_seed(1)
    first, second = stack(x, mask)
    torch.testing.assert_close(first, stack.eval()(x, mask)[0])  # no dropout on layer 1's input
    assert not torch.allclose(second, stack(x, mask)[1])


def test_reverse_padded_reverses_within_each_length_and_is_its_own_inverse():
    x = torch.arange(1, 6).repeat(2, 1)  # (2, 5)
    lengths = torch.tensor([5, 3])
    reversed_ = reverse_padded(x, lengths)
    assert reversed_.tolist() == [[5, 4, 3, 2, 1], [3, 2, 1, 4, 5]]
    assert torch.equal(reverse_padded(reversed_, lengths), x)


def test_mask_with_a_hole_is_rejected_with_a_clear_message():
    stack = make_stack()
    mask = torch.tensor([[True, False, True]])
    with pytest.raises(ValueError, match="right-padded"):
        stack(torch.randn(1, 3, 6, dtype=torch.float64), mask)


def test_parameter_names_are_those_of_nn_lstm():
    names = set(make_stack().state_dict())
    for k in range(2):
        for name in ("weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0", "weight_hr_l0"):
            assert f"layers.{k}.{name}" in names
