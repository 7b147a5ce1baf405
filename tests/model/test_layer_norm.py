"""LayerNorm from the formula, and the masked whole-batch layer norm of the scalar mix."""

import pytest
import torch

from elmo_tutorial.model.layer_norm import LayerNorm, masked_layer_norm


def _pair(shape, dtype):
    torch.manual_seed(0)
    ours, theirs = LayerNorm(shape).to(dtype), torch.nn.LayerNorm(shape).to(dtype)
    with torch.no_grad():  # non-trivial gain and bias, the same in both
        for p in (ours.weight, ours.bias):
            p.normal_()
        theirs.load_state_dict(ours.state_dict())
    return ours, theirs


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("shape", [8, (3, 8)])
def test_layer_norm_matches_torch_forward_and_gradients(shape, dtype):
    ours, theirs = _pair(shape, dtype)
    x = (torch.randn(4, 5, 3, 8, dtype=dtype) * 3 + 2).requires_grad_()
    x_t = x.detach().clone().requires_grad_()
    y, y_t = ours(x), theirs(x_t)
    torch.testing.assert_close(y, y_t, atol=1e-6, rtol=0)
    upstream = torch.randn_like(y)
    (y * upstream).sum().backward()
    (y_t * upstream).sum().backward()
    torch.testing.assert_close(x.grad, x_t.grad, atol=1e-6, rtol=0)
    # γ and β gradients sum over all 60-480 positions: in float32 the summation order alone
    # moves them by ~1e-6 relative, so they are held to 1e-6 in float64 and to 1e-5 in float32
    tolerance = dict(atol=1e-6, rtol=0) if dtype == torch.float64 else dict(atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(ours.weight.grad, theirs.weight.grad, **tolerance)
    torch.testing.assert_close(ours.bias.grad, theirs.bias.grad, **tolerance)


def test_layer_norm_without_affine_matches_torch_and_has_no_parameters():
    x = torch.randn(6, 10)
    ours = LayerNorm(10, eps=1e-3, elementwise_affine=False)
    assert list(ours.parameters()) == []
    expected = torch.nn.functional.layer_norm(x, (10,), eps=1e-3)
    torch.testing.assert_close(ours(x), expected, atol=1e-6, rtol=0)


def test_layer_norm_rejects_a_wrong_trailing_shape_with_a_hint():
    with pytest.raises(ValueError, match="last 1 dimension"):
        LayerNorm(8)(torch.randn(2, 7))


def test_layer_norm_gradcheck_float64():
    norm = LayerNorm(5).double()
    x = torch.randn(3, 5, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(norm, (x,))


def _direct_masked_norm(x, mask, eps):
    """Straight from the definition: gather the real elements, normalise them, scatter back."""
    real = x[mask]  # (n_real, D)
    mean = real.mean()
    variance = ((real - mean) ** 2).mean()
    out = torch.zeros_like(x)
    out[mask] = (real - mean) / torch.sqrt(variance + eps)
    return out


def _batch_with_padding():
    torch.manual_seed(1)
    x = torch.randn(3, 5, 4, dtype=torch.float64) * 2 + 1
    lengths = torch.tensor([5, 2, 3])
    mask = torch.arange(5).unsqueeze(0) < lengths.unsqueeze(1)  # (3, 5)
    return x, mask


def test_masked_layer_norm_matches_direct_computation_over_unmasked_elements():
    x, mask = _batch_with_padding()
    for eps in (1e-12, 0.5):
        expected = _direct_masked_norm(x, mask, eps)
        torch.testing.assert_close(masked_layer_norm(x, mask, eps), expected)


def test_masked_layer_norm_real_elements_have_mean_zero_and_variance_one():
    x, mask = _batch_with_padding()
    real = masked_layer_norm(x, mask)[mask]
    assert abs(float(real.mean())) < 1e-10
    assert abs(float(real.var(unbiased=False)) - 1.0) < 1e-10


def test_masked_layer_norm_is_invariant_to_values_at_masked_positions():
    x, mask = _batch_with_padding()
    garbage = x.clone()
    garbage[~mask] = torch.tensor([1e6, float("inf"), float("nan"), -3.0], dtype=x.dtype)
    out, out_garbage = masked_layer_norm(x, mask), masked_layer_norm(garbage, mask)
    torch.testing.assert_close(out, out_garbage)
    assert torch.all(out[~mask] == 0)


def test_masked_layer_norm_differs_from_a_norm_that_counts_padding():
    """Why the mask matters: zeros in the padding would pull the mean and variance."""
    x, mask = _batch_with_padding()
    padded_with_zeros = x.masked_fill(~mask.unsqueeze(-1), 0.0)
    everything = torch.ones_like(mask)
    naive = masked_layer_norm(padded_with_zeros, everything)
    assert not torch.allclose(naive[mask], masked_layer_norm(x, mask)[mask], atol=1e-3)


def test_masked_layer_norm_all_masked_gives_zeros_not_nan():
    x = torch.randn(2, 3, 4)
    out = masked_layer_norm(x, torch.zeros(2, 3, dtype=torch.bool))
    assert torch.all(out == 0)


def test_masked_layer_norm_rejects_a_mask_of_the_wrong_shape():
    with pytest.raises(ValueError, match="mask should be"):
        masked_layer_norm(torch.randn(2, 3, 4), torch.ones(2, 4, dtype=torch.bool))


def test_masked_layer_norm_gradcheck_float64():
    x, mask = _batch_with_padding()
    x = x[:, :, :2].contiguous().requires_grad_()
    assert torch.autograd.gradcheck(lambda t: masked_layer_norm(t, mask, eps=1e-6), (x,))


# --- the notebook's self-checks accept the right answer and reject wrong ones ---

from _check_helpers import own_copy  # noqa: E402

from elmo_tutorial import checks  # noqa: E402

my_masked_layer_norm = own_copy(masked_layer_norm)  # the package's code, in a student's cell


def _layer_norm_from_the_package(x, gamma, beta, eps):
    norm = LayerNorm(x.shape[-1], eps=eps)
    with torch.no_grad():
        norm.weight.copy_(gamma)
        norm.bias.copy_(beta)
    return norm(x)


def _left_padded_norm(x, lengths, left=True, count_padding=False):
    T = x.shape[1]
    positions = torch.arange(T)
    mask = positions >= T - lengths[:, None] if left else positions < lengths[:, None]
    return my_masked_layer_norm(x, torch.ones_like(mask) if count_padding else mask)


def test_check_left_padded_layer_norm_accepts_the_right_answer(capsys):
    checks.check_left_padded_layer_norm(_left_padded_norm)
    assert "✓" in capsys.readouterr().out


def test_the_left_padded_and_per_sentence_checks_refuse_masked_layer_norm():
    def left_padded(x, lengths):
        return masked_layer_norm(x, torch.arange(x.shape[1]) >= x.shape[1] - lengths[:, None])

    def per_sentence(x, mask):
        return torch.cat([masked_layer_norm(x[b:b + 1], mask[b:b + 1]) for b in range(len(x))])

    with pytest.raises(checks.Delegated, match="masked_layer_norm"):
        checks.check_left_padded_layer_norm(left_padded)
    with pytest.raises(checks.Delegated, match="masked_layer_norm"):
        checks.check_per_sentence_layer_norm(per_sentence)


@pytest.mark.parametrize("wrong, message", [
    (lambda x, lengths: _left_padded_norm(x, lengths, left=False), "FIRST lengths"),
    (lambda x, lengths: _left_padded_norm(x, lengths, count_padding=True), "include the padded"),
    (lambda x, lengths: _left_padded_norm(x, lengths) * 2, "largest difference"),
])
def test_check_left_padded_layer_norm_rejects_wrong_answers(wrong, message):
    with pytest.raises(checks.CheckFailed, match=message):
        checks.check_left_padded_layer_norm(wrong)


def _per_sentence_norm(x, mask):
    keep = mask.unsqueeze(-1)
    n = keep.sum(dim=(1, 2), keepdim=True) * x.shape[-1]  # (B, 1, 1)
    mean = x.masked_fill(~keep, 0).sum(dim=(1, 2), keepdim=True) / n
    centred = (x - mean).masked_fill(~keep, 0)
    return centred / torch.sqrt(centred.pow(2).sum(dim=(1, 2), keepdim=True) / n + 1e-12)


def _per_token_norm(x, mask):
    return torch.nn.functional.layer_norm(x, x.shape[-1:], eps=1e-12)


def test_check_per_sentence_layer_norm_accepts_the_right_answer(capsys):
    checks.check_per_sentence_layer_norm(_per_sentence_norm)
    assert "✓" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, message", [
    (my_masked_layer_norm, "whole-batch version"),
    (_per_token_norm, "each token on its own"),
    (lambda x, mask: _per_sentence_norm(x, torch.ones_like(mask)), "largest difference"),
])
def test_check_per_sentence_layer_norm_rejects_wrong_answers(wrong, message):
    with pytest.raises(checks.CheckFailed, match=message):
        checks.check_per_sentence_layer_norm(wrong)
