"""The conv + max-pool check of notebook 03: the student's own window scores pass, any of
PyTorch's convolutions in their place is refused."""

import pytest
import torch
import torch.nn.functional as F

from elmo_tutorial import checks


def _own_windows(x, weight, bias):
    windows = x.unfold(2, weight.shape[2], 1)  # (N, E, W, w)
    scores = torch.einsum("newk,fek->nfw", windows, weight) + bias[:, None]  # (N, F, W)
    return scores.amax(-1)


def _conv2d(x, weight, bias):  # conv1d's windows, computed by conv2d on a height of 1
    return F.conv2d(x.unsqueeze(2), weight.unsqueeze(2), bias).squeeze(2).amax(-1)


def _torch_convolution(x, weight, bias):
    return torch.convolution(x, weight, bias, [1], [0], [1], False, [0], 1).amax(-1)


def test_the_windows_scored_by_hand_pass():
    checks.check_conv_max_pool(_own_windows)


@pytest.mark.parametrize("shortcut", [_conv2d, _torch_convolution],
                         ids=["F.conv2d", "torch.convolution"])
def test_a_convolution_of_pytorchs_in_their_place_is_refused(shortcut):
    with pytest.raises(checks.CheckFailed, match="x.unfold gives the windows"):
        checks.check_conv_max_pool(shortcut)
