"""Self-check for notebook 06 (the biLM's joint loss, paper Sec. 3.1)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import torch

from elmo_tutorial.checks._core import (
    CheckFailed,
    assert_close,
    check,
    forbidding,
    nothing_returned,
    passed,
)
from elmo_tutorial.model.batching import make_lm_batch
from elmo_tutorial.model.config import MODEL_PRESETS
from elmo_tutorial.model.lm import BidirectionalLM
from elmo_tutorial.model.vocab import Vocabulary

__all__ = ["check_joint_loss"]

SENTENCES = [["the", "bank", "of", "the", "river"], ["a", "loan", "from", "the", "bank", "."],
             ["money"]]


# The losses that would do the exercise in one call (nn.CrossEntropyLoss and nn.NLLLoss call
# these functions).
READY_MADE_LOSSES = [(torch.nn.functional, "cross_entropy"), (torch.nn.functional, "nll_loss"),
                     (torch._C._nn, "cross_entropy_loss"), (torch._C._nn, "nll_loss"),
                     (torch._C._nn, "nll_loss_nd")]


def _case(seed: int):
    """A small random biLM, a padded batch, and the two directions' logits."""
    torch.manual_seed(seed)
    vocab = Vocabulary.from_sentences(SENTENCES)
    config = replace(MODEL_PRESETS["tiny"], lstm_dim=16, projection_dim=8,
                     filters=((1, 4), (2, 4)), vocab_size=len(vocab))
    model = BidirectionalLM(config).eval()
    batch = make_lm_batch(SENTENCES, vocab)
    with torch.no_grad():
        states = model.encode(batch.char_ids)
        logits = [torch.nn.functional.linear(states[d][-1], model.softmax.weight,
                                             model.softmax.bias)  # (B, T, V)
                  for d in ("forward", "backward")]
        expected = model(batch).loss
    return logits, batch, expected


@check
def check_joint_loss(fn: Callable[..., torch.Tensor]) -> None:
    """``fn(fwd_logits, bwd_logits, fwd_targets, bwd_targets)`` must return the biLM loss.

    Logits are ``(B, T, V)`` from the shared softmax, targets ``(B, T)`` with -100 where there
    is nothing to predict. The loss is the forward NLL mean plus the backward NLL mean, each
    over real targets only: ``BidirectionalLM(batch).loss``, which this check compares with.
    ``fn`` runs with PyTorch's ready-made losses unavailable (``F.cross_entropy``,
    ``F.nll_loss`` and their modules): the log-softmax, the target's log-probability and the
    mean over the real targets are the exercise.

    Half of it, the mean of the two directions (what bilm-tf minimises), is accepted too: the
    two differ by a constant factor of 2, so they have the same minimiser and their gradients
    point the same way; only the step size changes (a factor on the learning rate for SGD;
    Adam is nearly indifferent to it).
    """
    averaged = 0
    for seed in (0, 1):
        (fwd, bwd), batch, expected = _case(seed)
        with forbidding(fn, *READY_MADE_LOSSES, instead=(
                "take log_softmax over the vocabulary, gather each target's log-probability "
                "and average minus that over the real targets (a mask of targets != -100)")):
            got = fn(fwd.clone(), bwd.clone(), batch.forward_targets.clone(),
                     batch.backward_targets.clone())
        nothing_returned(got, "your function", "the loss, a 0-dim tensor")
        if not isinstance(got, torch.Tensor) or got.numel() != 1:
            raise CheckFailed("the joint loss is one number (a 0-dim tensor): average each "
                              "direction's NLL over its targets, then add the two.")
        keep = batch.forward_targets != -100
        with_padding = sum(torch.nn.functional.cross_entropy(
            x.reshape(-1, x.shape[-1]), t.clamp(min=0).reshape(-1)) for x, t in
            ((fwd, batch.forward_targets), (bwd, batch.backward_targets)))
        if torch.allclose(got.float(), with_padding, atol=1e-5):
            raise CheckFailed("padding counts in your loss: leave out the positions whose "
                              "target is -100 (a mask), in the sum and in the count.")
        if torch.allclose(got.float(), expected / 2, atol=1e-5):
            averaged += 1
            continue
        if int(keep.sum()) and torch.allclose(got.float(), expected * int(keep.sum()), atol=1e-3):
            raise CheckFailed("you summed over tokens: take the mean over real targets.")
        assert_close(got.detach().reshape(()), expected, "joint loss", atol=1e-5, hint=(
            "mean NLL of the forward targets + mean NLL of the backward targets, ignoring -100."))
    if averaged == 2:
        passed("joint loss: you averaged the two directions, as bilm-tf does. That is half of "
               "BidirectionalLM's loss (forward NLL mean + backward NLL mean, the sum of Sec. "
               "3.1): same minimum, gradients half as large.")
    elif averaged:
        raise CheckFailed("your loss is the mean of the two directions on one batch and not on "
                          "the other; compute it the same way every time.")
    else:
        passed("joint loss: forward NLL mean + backward NLL mean equals BidirectionalLM's loss")
