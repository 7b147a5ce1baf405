"""Notebook 06's self-check accepts the joint loss and rejects the usual mistakes."""

import pytest
import torch
import torch.nn.functional as F

from elmo_tutorial import checks


def _nll(logits, targets):
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1),
                           ignore_index=-100)


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
    return sum(F.cross_entropy(x.reshape(-1, x.shape[-1]), t.clamp(min=0).reshape(-1))
               for x, t in ((fwd, fwd_targets), (bwd, bwd_targets)))


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


@pytest.mark.parametrize("answer", [padding_counted, forward_only, swapped_targets,
                                    lambda *a: torch.zeros(2)])
def test_check_rejects_wrong_losses(answer):
    with pytest.raises(checks.CheckFailed):
        checks.check_joint_loss(answer)
