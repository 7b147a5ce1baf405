"""Self-check for notebook 14 (a biLM assembled from its parts, paper Sec. 3.1)."""

from __future__ import annotations

from dataclasses import replace

import torch

from elmo_tutorial.checks._core import CheckFailed, assert_close, check, forbidding, passed
from elmo_tutorial.model.batching import make_lm_batch
from elmo_tutorial.model.config import MODEL_PRESETS
from elmo_tutorial.model.lm import BidirectionalLM, _LanguageModel
from elmo_tutorial.model.vocab import Vocabulary
from elmo_tutorial.training.train import check_same_parameters

__all__ = ["check_bilm_assembly", "check_probe_accuracies"]

SENTENCES = [["the", "bank", "of", "the", "river"], ["a", "loan", "from", "the", "bank", "."],
             ["money"], ["rivers", "run", "to", "the", "sea", "at", "last"]]

# What the package's biLM would do for the student: its forward and its encoder.
PACKAGE_BILM = [(_LanguageModel, "forward"), (_LanguageModel, "encode"),
                (_LanguageModel, "encode_embeddings")]


def _small_config(vocab_size: int, dropout: float):
    return replace(MODEL_PRESETS["tiny"], lstm_dim=16, projection_dim=8,
                   filters=((1, 4), (2, 4), (3, 8)), vocab_size=vocab_size, dropout=dropout)


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
def check_bilm_assembly(bilm_class: type) -> None:
    """``bilm_class(config)`` must be ELMo's biLM, assembled from the package's plain parts.

    The check builds it and ``BidirectionalLM`` for a small config, gives both the same
    weights and compares their outputs on a padded batch: evaluation (full softmax), training
    with dropout (the same masks, drawn in the same order), and training with the sampled
    softmax. Its parameters must have ``BidirectionalLM``'s names and shapes, so that the
    trainer can save it as a biLM run. Subclassing the package's biLM, or calling its ``forward`` or
    ``encode``, fails: the exercise is the assembly.
    """
    if isinstance(bilm_class, type) and issubclass(bilm_class, _LanguageModel):
        raise CheckFailed(f"{bilm_class.__name__} subclasses the package's biLM, so its forward "
                          "is the package's: subclass torch.nn.Module and assemble it from "
                          "CharCNN, LSTMStack, Softmax and Dropout.")
    vocab = Vocabulary.from_sentences(SENTENCES)
    batch = make_lm_batch(SENTENCES, vocab)
    for dropout in (0.0, 0.3):
        config = _small_config(len(vocab), dropout)
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
    passed("your biLM has BidirectionalLM's parameters and computes its losses: in evaluation, "
           "with dropout and with the sampled softmax")


@check
def check_probe_accuracies(accuracy: dict, models: dict, train, test) -> None:
    """``accuracy[name]`` must be ``probes.probe_layers``'s result for each model of ``models``
    (``{name: run folder}``) on ``train`` and ``test``: layers 0 to 2, in percent.

    Every model's probes are recomputed and compared, entry by entry (the same code and data
    give the same numbers): numbers of the wrong model, or of another run, fail.
    """
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
    passed(f"the three layers of {len(models)} models probed, each accuracy recomputed and "
           "equal")
