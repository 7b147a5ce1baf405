"""Notebooks 04 and 05's self-checks accept the package's own answers and reject wrong ones."""

import pytest
import torch
import torch.nn.functional as F

from elmo_tutorial import checks
from elmo_tutorial.lstm import reverse_padded
from elmo_tutorial.lstmp import lstmp_step


def test_checks_accept_the_package_functions():
    checks.check_lstmp_step(lstmp_step)
    checks.check_reverse_padded(reverse_padded)


def tf_gate_order(x, h, c, w_ih, w_hh, b_ih, b_hh, w_hr, cell_clip, proj_clip):
    gates = F.linear(x, w_ih, b_ih) + F.linear(h, w_hh, b_hh)
    i, g, f, o = gates.chunk(4, dim=-1)  # TensorFlow's (i, j, f, o)
    c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
    if cell_clip is not None:
        c = c.clamp(-cell_clip, cell_clip)
    h = (torch.sigmoid(o) * torch.tanh(c)) @ w_hr.t()
    return (h.clamp(-proj_clip, proj_clip) if proj_clip is not None else h), c


def clip_before_projecting(x, h, c, w_ih, w_hh, b_ih, b_hh, w_hr, cell_clip, proj_clip):
    _, c = lstmp_step(x, h, c, w_ih, w_hh, b_ih, b_hh, w_hr, cell_clip, None)
    gates = F.linear(x, w_ih, b_ih) + F.linear(h, w_hh, b_hh)
    out = torch.sigmoid(gates.chunk(4, dim=-1)[3]) * torch.tanh(c)
    if proj_clip is not None:
        out = out.clamp(-proj_clip, proj_clip)
    return out @ w_hr.t(), c


def unclipped_memory_in_output(x, h, c, w_ih, w_hh, b_ih, b_hh, w_hr, cell_clip, proj_clip):
    h_raw, c_raw = lstmp_step(x, h, c, w_ih, w_hh, b_ih, b_hh, w_hr, None, proj_clip)
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
