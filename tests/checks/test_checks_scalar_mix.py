"""Notebook 07's self-check accepts the package's ScalarMix and rejects wrong mixes."""

import pytest
import torch

from elmo_tutorial import checks
from elmo_tutorial.model.scalar_mix import ScalarMix


def package_mix(layers, w, gamma):
    mix = ScalarMix(len(layers), initial_scalar_parameters=w.tolist())
    with torch.no_grad():
        mix.gamma.fill_(gamma)
        return mix(layers)


def from_the_formula(layers, w, gamma):
    s = torch.exp(w) / torch.exp(w).sum()
    return gamma * sum(s_j * h for s_j, h in zip(s, layers, strict=True))


def without_softmax(layers, w, gamma):
    return gamma * sum(w_j * h for w_j, h in zip(w, layers, strict=True))


def without_gamma(layers, w, gamma):
    return from_the_formula(layers, w, 1.0)


def plain_average(layers, w, gamma):
    return gamma * torch.stack(layers).mean(dim=0)


def weights_on_the_wrong_layers(layers, w, gamma):
    return from_the_formula(layers[::-1], w, gamma)


def test_check_accepts_the_formula_and_refuses_the_package_mix(capsys):
    checks.check_scalar_mix(from_the_formula)
    assert "✓" in capsys.readouterr().out
    with pytest.raises(checks.Delegated, match="ScalarMix.forward"):
        checks.check_scalar_mix(package_mix)


@pytest.mark.parametrize(
    ("answer", "hint"),
    [(without_softmax, "softmax"), (without_gamma, "γ is missing"), (plain_average, "scalar mix"),
     (weights_on_the_wrong_layers, "scalar mix")],
)
def test_check_rejects_wrong_mixes_with_a_hint(answer, hint):
    with pytest.raises(checks.CheckFailed, match=hint):
        checks.check_scalar_mix(answer)


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
