"""Self-checks for notebooks 06 and 14 (training a biLM, paper Sec. 3.1): the joint loss, a biLM
assembled from its parts, and the probes of the biLMs trained."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import torch

from elmo_tutorial.checks._core import CheckFailed, assert_close, check, forbidding, not_none
from elmo_tutorial.model.batching import make_lm_batch
from elmo_tutorial.model.config import MODEL_PRESETS
from elmo_tutorial.model.lm import BidirectionalLM, _LanguageModel
from elmo_tutorial.model.vocab import Vocabulary
from elmo_tutorial.training.train import check_same_parameters

__all__ = ["check_bilm_assembly", "check_joint_loss", "check_probe_accuracies"]

SENTENCES = [["the", "bank", "of", "the", "river"], ["a", "loan", "from", "the", "bank", "."],
             ["money"], ["rivers", "run", "to", "the", "sea", "at", "last"]]


# The losses that would do the exercise in one call (nn.CrossEntropyLoss and nn.NLLLoss call
# these functions).
READY_MADE_LOSSES = [(torch.nn.functional, "cross_entropy"), (torch.nn.functional, "nll_loss"),
                     (torch._C._nn, "cross_entropy_loss"), (torch._C._nn, "nll_loss"),
                     (torch._C._nn, "nll_loss_nd")]


def _case(seed: int):
    """A small random biLM, a padded batch, and the two directions' logits."""
    torch.manual_seed(seed)
    sentences = SENTENCES[:3]
    vocab = Vocabulary.from_sentences(sentences)
    config = replace(MODEL_PRESETS["tiny"], lstm_dim=16, projection_dim=8,
                     filters=((1, 4), (2, 4)), vocab_size=len(vocab))
    model = BidirectionalLM(config).eval()
    batch = make_lm_batch(sentences, vocab)
    with torch.no_grad():
        states = model.encode(batch.char_ids)
        logits = [torch.nn.functional.linear(states[d][-1], model.softmax.weight,
                                             model.softmax.bias)  # (B, T, V)
                  for d in ("forward", "backward")]
        expected = model(batch).loss
    return logits, batch, expected


@check
def check_joint_loss(fn: Callable[..., torch.Tensor]) -> str:
    """``fn(fwd_logits, bwd_logits, fwd_targets, bwd_targets)`` must return the biLM loss,
    ``BidirectionalLM(batch).loss``, without PyTorch's ready-made losses: the forward NLL mean
    plus the backward one, over real targets only (logits ``(B, T, V)``, targets ``(B, T)``,
    -100 where there is nothing to predict).

    Half of it, the mean of the two directions (what bilm-tf minimises), is accepted too: the
    same minimiser, gradients pointing the same way (Adam is nearly indifferent to the factor).
    """
    averaged = 0
    for seed in (0, 1):
        (fwd, bwd), batch, expected = _case(seed)
        with forbidding(fn, *READY_MADE_LOSSES, instead=(
                "take log_softmax over the vocabulary, gather each target's log-probability "
                "and average minus that over the real targets (a mask of targets != -100)")):
            got = fn(fwd.clone(), bwd.clone(), batch.forward_targets.clone(),
                     batch.backward_targets.clone())
        not_none(got, "your function", "the loss, a 0-dim tensor")
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
    if averaged == 1:
        raise CheckFailed("your loss is the mean of the two directions on one batch and not on "
                          "the other; compute it the same way every time.")
    if averaged:
        return ("joint loss: you averaged the two directions, as bilm-tf does. That is half of "
                "BidirectionalLM's loss (forward NLL mean + backward NLL mean, the sum of Sec. "
                "3.1): same minimum, gradients half as large.")
    return "joint loss: forward NLL mean + backward NLL mean equals BidirectionalLM's loss"


# What the package's biLM would do for the student: its forward and its encoder.
PACKAGE_BILM = [(_LanguageModel, "forward"), (_LanguageModel, "encode"),
                (_LanguageModel, "encode_embeddings")]


def _losses(model: torch.nn.Module, batch, train: bool, sampled: bool, seed: int):
    """The model's output on ``batch``: eval mode, or train mode from a seeded generator."""
    model.train(train)
    torch.manual_seed(seed)  # the same masks and candidates for both, drawn in the same order
    return model(batch, sampled=sampled)


def _compare(got, want, train: bool, sampled: bool, dropout: float) -> None:
    """Raise ``CheckFailed`` unless the student's ``LMOutput`` equals the package's."""
    softmax = " and the sampled softmax" if sampled else ""
    when = f"in training, with dropout {dropout}{softmax}" if train else "in evaluation"
    hint = ("dropout goes on the char CNN's output (once, for both directions), then per "
            "direction, forward first: its LSTM stack, dropout on its top layer, the softmax"
            if train else "the backward stack reads the same embeddings as the forward one; "
                          "each direction's loss is its NLL sum over its count")
    for name in ("loss", "forward_nll", "backward_nll"):
        if getattr(got, name, None) is None:
            raise CheckFailed(f"its forward returned no {name} {when}: return an "
                              "LMOutput(loss, forward_nll, backward_nll, n_tokens).")
        assert_close(getattr(got, name), getattr(want, name),
                     f"the {name.replace('_', ' ')} {when}", hint)
    if int(got.n_tokens) != int(want.n_tokens):
        raise CheckFailed(f"n_tokens is {got.n_tokens}, expected {want.n_tokens}: the number "
                          "of targets per direction.")


@check
def check_bilm_assembly(bilm_class: type) -> str:
    """``bilm_class(config)`` must be ELMo's biLM, assembled from the package's plain parts,
    with ``BidirectionalLM``'s parameter names and shapes (so the trainer can save it) and, on
    the same weights, its outputs: in evaluation, with dropout, with the sampled softmax.
    Subclassing the package's biLM, or calling its ``forward`` or ``encode``, fails."""
    if isinstance(bilm_class, type) and issubclass(bilm_class, _LanguageModel):
        raise CheckFailed(f"{bilm_class.__name__} subclasses the package's biLM, so its forward "
                          "is the package's: subclass torch.nn.Module and assemble it from "
                          "CharCNN, LSTMStack, Softmax and Dropout.")
    vocab = Vocabulary.from_sentences(SENTENCES)
    batch = make_lm_batch(SENTENCES, vocab)
    for dropout in (0.0, 0.3):
        config = replace(MODEL_PRESETS["tiny"], lstm_dim=16, projection_dim=8,
                         filters=((1, 4), (2, 4), (3, 8)), vocab_size=len(vocab), dropout=dropout)
        torch.manual_seed(0)
        reference = BidirectionalLM(config)
        reference.softmax.num_samples = 6
        settings = [(False, False)] if dropout == 0 else [(True, False), (True, True)]
        expected = [_losses(reference, batch, train, sampled, seed=3)
                    for train, sampled in settings]
        with forbidding(bilm_class, *PACKAGE_BILM,
                        instead="compute the two directions from the parts yourself"):
            mine = bilm_class(config)
            if not isinstance(mine, torch.nn.Module):
                raise CheckFailed(f"{bilm_class.__name__}(config) is not a torch.nn.Module: "
                                  "subclass nn.Module, so the trainer can find its parameters.")
            try:
                check_same_parameters(mine, reference)
            except ValueError as different:
                raise CheckFailed(str(different).replace("build() made", "you assembled")
                                  + ". Name the parts char_cnn, forward_lstm, backward_lstm, "
                                    "softmax and dropout, sized from config.") from None
            mine.load_state_dict(reference.state_dict())
            if hasattr(mine.softmax, "num_samples"):
                mine.softmax.num_samples = 6
            got_all = [_losses(mine, batch, train, sampled, seed=3) for train, sampled in settings]
        for (train, sampled), got, want in zip(settings, got_all, expected, strict=True):
            _compare(got, want, train, sampled, dropout)
        got_all[-1].loss.backward()  # the trainer will need gradients
    return ("your biLM has BidirectionalLM's parameters and computes its losses: in evaluation, "
            "with dropout and with the sampled softmax")


@check
def check_probe_accuracies(accuracy: dict, models: dict, train, test) -> str:
    """``accuracy[name]`` must be ``probes.probe_layers``'s result for each model of ``models``
    (``{name: run folder}``) on ``train`` and ``test``: layers 0 to 2, in percent; every entry
    is recomputed."""
    from elmo_tutorial.analyses import probes
    from elmo_tutorial.analyses.embedder import Embedder
    from elmo_tutorial.training.run_folder import load_elmo

    if not isinstance(accuracy, dict) or set(accuracy) != set(models):
        got = sorted(accuracy) if isinstance(accuracy, dict) else type(accuracy).__name__
        raise CheckFailed(f"accuracy should have one entry per model, {sorted(models)}; it has "
                          f"{got}.")
    for name, result in accuracy.items():
        if not isinstance(result, dict) or sorted(result) != ["layer0", "layer1", "layer2"]:
            raise CheckFailed(f"accuracy[{name!r}] should be what probes.probe_layers returns, "
                              "{'layer0': ..., 'layer1': ..., 'layer2': ...}.")
        if not all(0 <= float(v) <= 100 for v in result.values()):
            raise CheckFailed(f"accuracy[{name!r}] holds values outside 0-100: percentages.")
    for name, folder in models.items():
        expected = probes.probe_layers(Embedder(load_elmo(folder)), train, test, "check",
                                       cache=False)
        for layer, value in expected.items():
            assert_close(float(accuracy[name][layer]), value, f"{name}'s {layer}",
                         f"probe the model in {folder} on the given training and test "
                         "sentences, with cache=False", atol=1e-6)
    return f"the three layers of {len(models)} models probed, each accuracy recomputed and equal"
