"""ScalarMix: γ · Σ softmax(w)_j · LN?(h_j), its regulariser, and its errors."""

import pytest
import torch

from elmo_tutorial.model.layer_norm import masked_layer_norm
from elmo_tutorial.model.scalar_mix import ScalarMix


def _layers(n=3, shape=(2, 4, 6), dtype=torch.float32):
    torch.manual_seed(0)
    return [torch.randn(shape, dtype=dtype) * (j + 1) + j for j in range(n)]


def test_uniform_weights_and_unit_gamma_give_the_mean_of_the_layers():
    layers = _layers()
    torch.testing.assert_close(ScalarMix(3)(layers), torch.stack(layers).mean(0))


def test_mix_equals_the_formula_with_given_parameters():
    layers = _layers()
    mix = ScalarMix(3, initial_scalar_parameters=[0.5, -1.0, 2.0])
    with torch.no_grad():
        mix.gamma.fill_(0.7)
    s = torch.softmax(torch.tensor([0.5, -1.0, 2.0]), 0)
    expected = 0.7 * sum(s[j] * layers[j] for j in range(3))
    torch.testing.assert_close(mix(layers), expected)
    torch.testing.assert_close(mix.weights, s)


def test_layer_norm_variant_normalises_each_layer_over_real_tokens():
    layers = _layers()
    mask = torch.tensor([[True, True, True, False], [True, False, False, False]])
    mix = ScalarMix(3, do_layer_norm=True)
    expected = sum(masked_layer_norm(h, mask) for h in layers) / 3
    torch.testing.assert_close(mix(layers, mask=mask), expected)


def test_layer_norm_variant_without_mask_explains_what_to_pass():
    with pytest.raises(ValueError, match="needs the mask"):
        ScalarMix(3, do_layer_norm=True)(_layers())


def test_wrong_number_of_layers_is_a_clear_error():
    with pytest.raises(ValueError, match="built for 3 layers but got 2"):
        ScalarMix(3)(_layers(2))
    with pytest.raises(ValueError, match="initial_scalar_parameters has 2 values"):
        ScalarMix(3, initial_scalar_parameters=[0.0, 1.0])
    with pytest.raises(ValueError, match="at least one layer"):
        ScalarMix(0)


def test_default_penalty_is_bilm_tf_l2_on_the_raw_parameters():
    # bilm-tf: l2_coef * reduce_sum(square(ELMo_W)), ELMo_W taken before the softmax
    w = [1.5, -0.5, 2.0]
    mix = ScalarMix(3, initial_scalar_parameters=w)
    torch.testing.assert_close(mix.penalty(), torch.tensor(sum(v * v for v in w)))
    torch.testing.assert_close(mix.penalty(on="parameters"), mix.penalty())
    # a shift of w leaves s unchanged but not the penalty on w
    shifted = ScalarMix(3, initial_scalar_parameters=[v + 3.0 for v in w])
    torch.testing.assert_close(shifted.weights, mix.weights)
    assert shifted.penalty() > mix.penalty()
    torch.testing.assert_close(shifted.penalty(on="weights"), mix.penalty(on="weights"))


def test_penalty_on_weights_is_smallest_at_uniform_weights():
    uniform = ScalarMix(4).penalty(on="weights")
    torch.testing.assert_close(uniform, torch.tensor(0.25))
    torch.manual_seed(0)
    for _ in range(20):
        w = torch.randn(4).tolist()
        assert ScalarMix(4, initial_scalar_parameters=w).penalty(on="weights") > uniform
        assert ScalarMix(4, initial_scalar_parameters=w).penalty() > ScalarMix(4).penalty()
    peaked = ScalarMix(4, initial_scalar_parameters=[50.0, 0.0, 0.0, 0.0])
    assert abs(float(peaked.penalty(on="weights").detach()) - 1.0) < 1e-6


@pytest.mark.parametrize("on", ["parameters", "weights"])
def test_penalty_gradient_pulls_weights_towards_uniform(on):
    mix = ScalarMix(3, initial_scalar_parameters=[1.0, 0.0, -1.0])
    mix.penalty(on=on).backward()
    # descending the penalty lowers the largest w and raises the smallest
    assert mix.scalar_parameters.grad[0] > 0 > mix.scalar_parameters.grad[2]


def test_penalty_rejects_an_unknown_kind():
    with pytest.raises(ValueError, match="must be"):
        ScalarMix(3).penalty(on="s")


def test_not_trainable_means_no_gradients():
    mix = ScalarMix(3, trainable=False)
    assert not mix.scalar_parameters.requires_grad and not mix.gamma.requires_grad
    assert sum(p.requires_grad for p in mix.parameters()) == 0


@pytest.mark.parametrize("do_layer_norm", [False, True])
def test_scalar_mix_gradcheck_float64(do_layer_norm):
    layers = [t.requires_grad_() for t in _layers(3, (2, 3, 2), torch.float64)]
    mask = torch.tensor([[True, True, False], [True, False, False]])
    mix = ScalarMix(3, do_layer_norm, initial_scalar_parameters=[0.3, -0.2, 0.1]).double()
    # gradients with respect to the layers ...
    assert torch.autograd.gradcheck(lambda *hs: mix(list(hs), mask=mask), layers)

    # ... and with respect to w and γ
    def by_parameters(w, gamma):
        parameters = {"scalar_parameters": w, "gamma": gamma}
        return torch.func.functional_call(mix, parameters, (layers,), {"mask": mask})

    w = torch.tensor([0.3, -0.2, 0.1], dtype=torch.float64, requires_grad=True)
    gamma = torch.tensor([0.8], dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(by_parameters, (w, gamma))
