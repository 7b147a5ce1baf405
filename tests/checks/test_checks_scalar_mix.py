"""Notebook 07's self-check accepts the package's ScalarMix and rejects wrong mixes."""

import pytest
import torch

from elmo_tutorial import checks
from elmo_tutorial.model.scalar_mix import ScalarMix


def test_scalar_parameters_check_accepts_the_smallest_w_and_names_the_misses():
    checks.check_scalar_parameters(lambda s: s.log() - s.log().mean())
    for wrong, message in [
        (lambda s: s, "returned s itself"),
        (lambda s: s.log(), "not the smallest"),
        (lambda s: s.log() - s.log().mean() + 1.0, r"\+1.000 from the best"),
        (lambda s: s.exp(), r"softmax\(w\) for s"),
        (lambda s: s.tolist(), "returned list, expected a tensor"),
    ]:
        with pytest.raises(checks.CheckFailed, match=message):
            checks.check_scalar_parameters(wrong)


def test_lstm_layers_mix_check_accepts_the_mix_without_layer_0_and_names_the_misses():
    generator = torch.Generator().manual_seed(0)
    layers = [torch.randn(2, 4, 6, generator=generator) * (j + 1) for j in range(3)]
    mask = torch.tensor([[True] * 4, [True, True, False, False]])
    right = ScalarMix(3, initial_scalar_parameters=[-1e4, 0.0, 0.0], trainable=False)
    checks.check_lstm_layers_mix(right(layers), layers, mask)
    for wrong, message in [
        (ScalarMix(3, trainable=False)(layers), "layer 0 is still in"),
        (layers[2], "Only one LSTM layer"),
        (layers[1] + layers[2], "must sum to 1"),
        (ScalarMix(3, initial_scalar_parameters=[-1e4, 0.0, 1.0])(layers), "mixed vectors"),
    ]:
        with pytest.raises(checks.CheckFailed, match=message):
            checks.check_lstm_layers_mix(wrong, layers, mask)
