"""Notebooks 04 and 05's self-checks accept the package's own answers and reject wrong ones."""

import pytest
import torch
import torch.nn.functional as F
from _check_helpers import own_copy

from elmo_tutorial import checks
from elmo_tutorial.model.lstm import reverse_padded
from elmo_tutorial.model.lstmp import lstmp_step

# The package's code as a student could write it; its own functions, the checks refuse.
my_lstmp_step, my_reverse_padded = own_copy(lstmp_step), own_copy(reverse_padded)


def test_checks_accept_the_package_formulas_and_refuse_its_functions():
    checks.check_lstmp_step(my_lstmp_step)
    checks.check_reverse_padded(my_reverse_padded)
    with pytest.raises(checks.Delegated, match="lstmp.lstmp_step, the function this check"):
        checks.check_lstmp_step(lambda *args: lstmp_step(*args))
    with pytest.raises(checks.Delegated, match="lstm.reverse_padded, the function this check"):
        checks.check_reverse_padded(lambda x, lengths: reverse_padded(x, lengths))


def tf_gate_order(x, h, c, w_ih, w_hh, b_ih, b_hh, w_hr, cell_clip, proj_clip):
    gates = F.linear(x, w_ih, b_ih) + F.linear(h, w_hh, b_hh)
    i, g, f, o = gates.chunk(4, dim=-1)  # TensorFlow's (i, j, f, o)
    c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
    if cell_clip is not None:
        c = c.clamp(-cell_clip, cell_clip)
    h = (torch.sigmoid(o) * torch.tanh(c)) @ w_hr.t()
    return (h.clamp(-proj_clip, proj_clip) if proj_clip is not None else h), c


def clip_before_projecting(x, h, c, w_ih, w_hh, b_ih, b_hh, w_hr, cell_clip, proj_clip):
    _, c = my_lstmp_step(x, h, c, w_ih, w_hh, b_ih, b_hh, w_hr, cell_clip, None)
    gates = F.linear(x, w_ih, b_ih) + F.linear(h, w_hh, b_hh)
    out = torch.sigmoid(gates.chunk(4, dim=-1)[3]) * torch.tanh(c)
    if proj_clip is not None:
        out = out.clamp(-proj_clip, proj_clip)
    return out @ w_hr.t(), c


def unclipped_memory_in_output(x, h, c, w_ih, w_hh, b_ih, b_hh, w_hr, cell_clip, proj_clip):
    h_raw, c_raw = my_lstmp_step(x, h, c, w_ih, w_hh, b_ih, b_hh, w_hr, None, proj_clip)
    return h_raw, (c_raw.clamp(-cell_clip, cell_clip) if cell_clip is not None else c_raw)


@pytest.mark.parametrize(
    "wrong, message",
    [(tf_gate_order, "TensorFlow's order"), (clip_before_projecting, "h_t with clipping"),
     (unclipped_memory_in_output, "h_t with clipping")],
    ids=["tf_gate_order", "clip_before_projecting", "unclipped_memory_in_output"],
)
def test_lstmp_check_rejects_wrong_steps(wrong, message):
    with pytest.raises(checks.CheckFailed, match=message):
        checks.check_lstmp_step(wrong)


def reverse_each_row_fully(x, lengths):
    return torch.flip(x, dims=[1])


def reverse_by_mask_only(x, lengths):
    out = x.clone()
    for b, n in enumerate(lengths.tolist()):
        out[b, :n] = x[b, :n]  # forgets to reverse
    return out


def reverse_one_off(x, lengths):
    out = x.clone()
    for b, n in enumerate(lengths.tolist()):
        out[b, : n - 1] = x[b, : n - 1].flip(0)  # leaves the last token in place
    return out


@pytest.mark.parametrize(
    "wrong, message",
    [(reverse_each_row_fully, "torch.flip"), (reverse_by_mask_only, "Nothing changed"),
     (reverse_one_off, "reversed batch")],
    ids=["flip", "identity", "off_by_one"],
)
def test_reverse_check_rejects_wrong_reversals(wrong, message):
    with pytest.raises(checks.CheckFailed, match=message):
        checks.check_reverse_padded(wrong)


def tf_step(x, h, c, kernel, bias, proj_kernel, cell_clip, proj_clip, forget_bias=1.0,
            order="ijfo"):
    gates = torch.cat([x, h], dim=-1) @ kernel + bias
    if order == "ijfo":
        i, j, f, o = gates.chunk(4, dim=-1)
    else:  # read as torch's (i, f, g, o)
        i, f, j, o = gates.chunk(4, dim=-1)
    c = torch.sigmoid(f + forget_bias) * c + torch.sigmoid(i) * torch.tanh(j)
    if cell_clip is not None:
        c = c.clamp(-cell_clip, cell_clip)
    h = (torch.sigmoid(o) * torch.tanh(c)) @ proj_kernel
    return (h.clamp(-proj_clip, proj_clip) if proj_clip is not None else h), c


def test_tf_step_check_accepts_bilm_tfs_step():
    checks.check_tf_lstmp_step(tf_step)


@pytest.mark.parametrize(
    "wrong, message",
    [(lambda *a: tf_step(*a, forget_bias=0.0), "forget_bias"),
     (lambda *a: tf_step(*a, order="ifgo"), "torch's order"),
     (lambda x, h, c, k, b, p, cc, pc: tf_step(x, h, c, k, b, p, cc, None), "h_t with clipping"),
     (lambda *a: tf_step(*a)[0], "pair")],
    ids=["no-forget-bias", "torch-order", "no-proj-clip", "one-output"],
)
def test_tf_step_check_rejects_wrong_steps(wrong, message):
    with pytest.raises(checks.CheckFailed, match=message):
        checks.check_tf_lstmp_step(wrong)


def test_residual_check_accepts_the_experiment_and_names_what_is_wrong():
    from dataclasses import replace

    from elmo_tutorial.model.config import MODEL_PRESETS
    base = MODEL_PRESETS["tiny"]
    changed = replace(base, use_skip_connections=False)
    checks.check_residual_experiment(changed, base, 0.056, 0.0062)
    for args, message in [
        ((base, base, 0.056, 0.056), "still has use_skip_connections=True"),
        ((replace(changed, n_layers=3), base, 0.056, 0.0062), r"also changed \['n_layers'\]"),
        ((changed, base, 0.056, 0.056), "Both measurements are equal"),
        ((changed, base, 0.0062, 0.056), "swap"),
        (({"use_skip_connections": False}, base, 0.056, 0.0062), "ModelConfig"),
    ]:
        with pytest.raises(checks.CheckFailed, match=message):
            checks.check_residual_experiment(*args)


def reverse_left_padded(x, lengths):
    T = x.shape[1]
    t = torch.arange(T)
    start = T - lengths[:, None]  # (B, 1): where each row's tokens begin
    index = torch.where(t >= start, start + T - 1 - t, t)  # (B, T)
    return x.gather(1, index.unsqueeze(-1).expand_as(x))


def test_left_padded_check_accepts_a_right_answer():
    checks.check_reverse_left_padded(reverse_left_padded)
    checks.check_reverse_left_padded(  # the other way round: move to right padding and back
        lambda x, n: torch.flip(reverse_padded(torch.flip(x, dims=[1]), n), dims=[1]))


@pytest.mark.parametrize(
    "wrong, message",
    [(lambda x, n: torch.flip(x, dims=[1]), "padding must stay in front"),
     (reverse_padded, "right-padded reversal"),
     (lambda x, n: x, "Nothing changed"),
     (lambda x, n: reverse_left_padded(x, n - (n > 0).long()), "reversed left-padded batch")],
    ids=["flip", "right-padded", "identity", "one-off"],
)
def test_left_padded_check_rejects_wrong_reversals(wrong, message):
    with pytest.raises(checks.CheckFailed, match=message):
        checks.check_reverse_left_padded(wrong)
