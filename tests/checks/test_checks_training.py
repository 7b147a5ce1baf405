"""Notebook 06's self-check accepts the joint loss and rejects the usual mistakes."""

import pytest
import torch
import torch.nn.functional as F

from elmo_tutorial import checks


def _nll(logits, targets, mask=True):
    """Mean NLL by the formula (the check makes PyTorch's losses unavailable); with
    ``mask=False`` the padded positions count too (target -100 read as word 0)."""
    log_p = logits.log_softmax(-1).gather(-1, targets.clamp(min=0).unsqueeze(-1)).squeeze(-1)
    keep = targets != -100 if mask else torch.ones_like(targets, dtype=torch.bool)
    return -log_p[keep].mean()


def joint_loss(fwd, bwd, fwd_targets, bwd_targets):
    return _nll(fwd, fwd_targets) + _nll(bwd, bwd_targets)


def by_hand(fwd, bwd, fwd_targets, bwd_targets):
    total = 0
    for logits, targets in ((fwd, fwd_targets), (bwd, bwd_targets)):
        keep = targets != -100
        log_p = logits.log_softmax(-1)[keep]  # (N, V)
        total = total - log_p.gather(1, targets[keep].unsqueeze(1)).mean()
    return total


def averaged(fwd, bwd, fwd_targets, bwd_targets):
    return joint_loss(fwd, bwd, fwd_targets, bwd_targets) / 2


def padding_counted(fwd, bwd, fwd_targets, bwd_targets):
    return _nll(fwd, fwd_targets, mask=False) + _nll(bwd, bwd_targets, mask=False)


def forward_only(fwd, bwd, fwd_targets, bwd_targets):
    return 2 * _nll(fwd, fwd_targets)


def swapped_targets(fwd, bwd, fwd_targets, bwd_targets):
    return _nll(fwd, bwd_targets) + _nll(bwd, fwd_targets)


@pytest.mark.parametrize("answer", [joint_loss, by_hand])
def test_check_accepts_the_joint_loss(answer, capsys):
    checks.check_joint_loss(answer)
    assert "✓" in capsys.readouterr().out


def test_check_accepts_the_mean_of_the_two_directions_and_says_so(capsys):
    checks.check_joint_loss(averaged)  # bilm-tf averages; a constant factor from the sum
    assert "averaged the two directions" in capsys.readouterr().out


@pytest.mark.parametrize(("answer", "message"), [
    (padding_counted, "padding counts"), (forward_only, "joint loss"),
    (swapped_targets, "joint loss"), (lambda *a: torch.zeros(2), "one number")])
def test_check_rejects_wrong_losses(answer, message):
    with pytest.raises(checks.CheckFailed, match=message):
        checks.check_joint_loss(answer)


def test_joint_loss_refuses_pytorchs_ready_made_losses():
    """The exercise is the formula: F.cross_entropy or nn.CrossEntropyLoss does it in one call."""
    from torch import nn

    def with_cross_entropy(fwd, bwd, fwd_t, bwd_t):
        return sum(F.cross_entropy(x.flatten(0, 1), t.flatten(), ignore_index=-100)
                   for x, t in ((fwd, fwd_t), (bwd, bwd_t)))

    def with_the_module(fwd, bwd, fwd_t, bwd_t):
        loss = nn.CrossEntropyLoss(ignore_index=-100)
        return loss(fwd.flatten(0, 1), fwd_t.flatten()) + loss(bwd.flatten(0, 1), bwd_t.flatten())

    for shortcut in (with_cross_entropy, with_the_module):
        with pytest.raises(checks.CheckFailed, match="log_softmax"):
            checks.check_joint_loss(shortcut)
