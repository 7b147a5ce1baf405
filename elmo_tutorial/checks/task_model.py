"""Self-checks for notebook 12 (ELMo in a task model): ELMo at the BiLSTM's output, and the
relative error reduction the paper's Table 1 reports."""

from __future__ import annotations

from collections.abc import Callable

import torch

from ..task_model import TaskModel
from ._core import CheckFailed, assert_close, passed

__all__ = ["check_elmo_at_output", "check_error_reduction"]


def check_elmo_at_output(fn: Callable) -> None:
    """``fn(model, words, mask, layers)`` must return a classifier's logits with ELMo at the
    BiLSTM's output only: ``[h_k; ELMo_k]`` pooled (mean and max), then ``model.output``.

    ``model`` is a :class:`TaskModel` built with ``elmo_at=("output",)``; compared with its own
    ``forward`` on random inputs, with padding, in eval mode (no dropout).
    """
    torch.manual_seed(1)
    model = TaskModel(torch.randn(20, 6), n_classes=3, task="classify", elmo_layers=3,
                      elmo_dim=8, elmo_at=("output",), hidden_size=5).eval()
    with torch.no_grad():
        model.mixes["output"].scalar_parameters.copy_(torch.tensor([0.5, -1.0, 2.0]))
        model.mixes["output"].gamma.fill_(1.7)
    words = torch.tensor([[3, 4, 5, 6], [7, 8, 0, 0]])
    mask = torch.tensor([[1, 1, 1, 1], [1, 1, 0, 0]]).bool()
    layers = torch.randn(2, 4, 3, 8)
    with torch.no_grad():
        got, expected = fn(model, words, mask, layers), model(words, mask, layers)
    if not isinstance(got, torch.Tensor):
        raise CheckFailed(f"got {type(got).__name__}; return the logits tensor (B, n_classes)")
    assert_close(got, expected, "logits with ELMo at the output",
                 hint="The LSTM reads the word vectors only; concatenate "
                      "model.elmo('output', layers, mask) to its states h (B, T, 2H) along the "
                      "last axis, then pool the mean and the max over real tokens only.")
    passed("ELMo at the output: your logits equal TaskModel(elmo_at=('output',))")


def check_error_reduction(fn: Callable[[float, float], float]) -> None:
    """``fn(baseline, elmo)`` must return the relative error reduction in percent, as the
    paper's Table 1 reports it: the share of the baseline's errors that ELMo removes."""
    cases = [(51.4, 54.7, 6.8), (90.15, 92.22, 21.0), (80.0, 80.0, 0.0), (60.0, 50.0, -25.0)]
    for baseline, elmo, expected in cases:
        got = float(fn(baseline, elmo))
        if abs(got - expected) > 0.05:
            raise CheckFailed(
                f"baseline {baseline}, +ELMo {elmo}: got {got:.2f}, expected {expected:.1f}. "
                "The error is 100 - score; the reduction is (error before - error after) / "
                "error before, in percent.")
    passed("relative error reduction: SST-5 6.8 %, NER 21.0 %, as in the paper's Table 1")
