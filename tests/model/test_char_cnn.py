"""The plain character encoder: Highway, and CharCNN against a per-position loop of torch's own
F.conv1d; float64 gradchecks. The fast versions are tested in tests/fast/test_fast_char_cnn.py."""

import pytest
import torch
import torch.nn.functional as F
from _char_cnn_helpers import SENTENCES, SMALL, char_cnn_with_biases

from elmo_tutorial.model.char_cnn import PAD_ID, CharCNN, Highway
from elmo_tutorial.model.chars import batch_to_ids
from elmo_tutorial.model.config import ModelConfig


def _model(config=SMALL, seed=0, dtype=torch.float32):
    return char_cnn_with_biases(config, seed, dtype)


def _per_position(model, char_ids):
    """Every position on its own with torch's F.conv1d, written apart from CharCNN.forward."""
    B, T, _ = char_ids.shape
    act = torch.relu if model.config.activation == "relu" else torch.tanh
    out = torch.zeros(B, T, model.config.projection_dim, dtype=model.projection.weight.dtype)
    for b in range(B):
        for t in range(T):
            ids = char_ids[b, t]
            if not ids.any():
                continue  # a padded position stays zero
            x = model.char_embedding.weight[ids].T.unsqueeze(0)  # (1, E, 50)
            pooled = [act(F.conv1d(x, c.weight, c.bias).max(dim=-1).values) for c in model.convs]
            z = torch.cat(pooled, dim=-1)[0]  # (n_filters,)
            for layer in model.highway.layers:
                n = z.shape[0]
                h = torch.relu(layer.weight[:n] @ z + layer.bias[:n])
                g = torch.sigmoid(layer.weight[n:] @ z + layer.bias[n:])
                z = g * z + (1 - g) * h
            out[b, t] = model.projection.weight @ z + model.projection.bias
    return out


def test_output_shape_and_zeros_at_padded_positions():
    model = _model()
    ids = batch_to_ids(SENTENCES)
    out = model(ids)
    assert out.shape == (3, 6, SMALL.projection_dim)
    padded = ~(ids > 0).any(-1)
    assert padded.sum() == 7
    assert torch.all(out[padded] == 0)
    assert torch.all(out[~padded].abs().sum(-1) > 0)


@pytest.mark.parametrize("activation", ["relu", "tanh"])
def test_char_cnn_equals_a_per_position_loop_of_torchs_conv1d(activation):
    config = ModelConfig(**{**SMALL.to_dict(), "activation": activation})
    model = _model(config)
    ids = batch_to_ids(SENTENCES)
    torch.testing.assert_close(model(ids), _per_position(model, ids), atol=1e-6, rtol=0)


def test_char_cnn_has_the_per_position_loops_gradients():
    model = _model(dtype=torch.float64)
    ids = batch_to_ids(SENTENCES)
    upstream = torch.randn(3, 6, SMALL.projection_dim, dtype=torch.float64)
    (model(ids) * upstream).sum().backward()
    ours = {name: p.grad.clone() for name, p in model.named_parameters()}
    model.zero_grad()
    (_per_position(model, ids) * upstream).sum().backward()
    for name, p in model.named_parameters():
        torch.testing.assert_close(ours[name], p.grad, msg=f"gradient of {name}")
    assert torch.all(ours["char_embedding.weight"][0] == 0), "padding row must get no gradient"


@pytest.mark.parametrize("pad_shift", [+5.0, -5.0])
def test_windows_of_padding_count_in_the_maximum_as_in_bilm_tf(pad_shift):
    """All 50 columns are convolved: a window of PAD characters only can hold a maximum."""
    model = _model()
    with torch.no_grad():  # make the PAD character's embedding extreme, either way
        model.char_embedding.weight[PAD_ID] = pad_shift * torch.ones(SMALL.char_embed_dim)
    ids = batch_to_ids([["a", "to", "word"], ["x" * 30]])
    torch.testing.assert_close(model(ids), _per_position(model, ids), atol=1e-6, rtol=0)


def test_a_tokens_vector_does_not_depend_on_its_batch_neighbours():
    model = _model()
    alone = model(batch_to_ids([["bank"]]))[0, 0]
    crowd = [["the", "bank"], ["x" * 48, "emoji 🙂", "bank", "a"], ["riverbank"] * 9]
    together = model(batch_to_ids(crowd))
    for b, t in [(0, 1), (1, 2)]:
        torch.testing.assert_close(together[b, t], alone, atol=1e-6, rtol=0)


UNUSUAL_TOKENS = {
    "10k-chars": "x" * 10_000,  # cut to its first 48 bytes
    "emoji": "\U0001f642",
    "zwj-emoji": "\U0001f469\u200d\U0001f469\u200d\U0001f467",
    "hebrew-rtl": "\u05e9\u05b8\u05c1\u05dc\u05d5\u05b9\u05dd",
    "arabic-rtl": "\u0645\u0631\u062d\u0628\u0627",
    "nul": "\x00",
    "tab-newline": "\t\n",
    "zero-width-space": "\u200b",
    "rtl-override": "\u202e",
    "del": "a\x7fb",
}


@pytest.mark.parametrize("token", UNUSUAL_TOKENS.values(), ids=UNUSUAL_TOKENS.keys())
def test_unusual_tokens_get_finite_vectors(token):
    model = _model()
    ids = batch_to_ids([["before", token, "after"]])
    out = model(ids)
    assert torch.isfinite(out).all() and out[0, 1].abs().sum() > 0
    torch.testing.assert_close(out, _per_position(model, ids), atol=1e-6, rtol=0)


def test_empty_batches_give_empty_outputs():
    model = _model()
    assert model(torch.zeros(0, 0, 50, dtype=torch.long)).shape == (0, 0, 7)
    assert model(torch.zeros(2, 0, 50, dtype=torch.long)).shape == (2, 0, 7)


def test_char_cnn_gradcheck_float64():
    """Gradients by autograd equal finite differences, for the parameters and the characters."""
    model = _model(ModelConfig(char_embed_dim=3, filters=((1, 2), (3, 2)), n_highway=1,
                               projection_dim=2, activation="tanh"), dtype=torch.float64)
    ids = batch_to_ids([["ab", "c"], ["abc"]])  # (2, 2, 50), one padded position
    names = ["char_embedding.weight", "convs.1.weight", "highway.layers.0.weight",
             "projection.bias"]
    params = dict(model.named_parameters())

    def encode(*tensors):
        return torch.func.functional_call(model, dict(zip(names, tensors, strict=True)), (ids,))

    inputs = tuple(params[n].detach().clone().requires_grad_(True) for n in names)
    assert torch.autograd.gradcheck(encode, inputs, fast_mode=True)  # random projections


def test_embed_tokens_and_filter_features_are_what_forward_computes():
    model = _model()
    ids = batch_to_ids(SENTENCES)  # (3, 6, 50)
    real = (ids != 0).any(-1)  # (3, 6)
    tokens = ids[real]  # (N, 50)
    x = model.char_embedding(tokens).transpose(1, 2)  # (N, E, 50)
    pooled = torch.cat([F.max_pool1d(conv(x), conv(x).shape[-1])[..., 0] for conv in model.convs],
                       dim=-1)  # torch's own max-pool over all windows
    with torch.no_grad():
        torch.testing.assert_close(model.filter_features(tokens), torch.relu(pooled))
        torch.testing.assert_close(model.embed_tokens(tokens), model(ids)[real])
        assert model.filter_features(tokens).shape == (len(tokens), SMALL.n_filters)


def test_highway_without_layers_is_the_identity():
    x = torch.randn(3, 4)
    assert torch.equal(Highway(4, n_layers=0)(x), x)


def test_unknown_activation_is_a_clear_error():
    # Bad character ids are caught where they enter a model (tests/model/test_chars.py, test_lm.py).
    with pytest.raises(ValueError, match="unknown activation"):
        Highway(4, 1, activation="gelu")


def test_parameter_names_and_shapes_follow_the_config():
    model = CharCNN(ModelConfig())  # the paper's encoder
    shapes = {name: tuple(p.shape) for name, p in model.named_parameters()}
    assert shapes["char_embedding.weight"] == (262, 16)
    assert shapes["convs.6.weight"] == (1024, 16, 7) and shapes["convs.6.bias"] == (1024,)
    assert shapes["highway.layers.1.weight"] == (4096, 2048)
    assert shapes["projection.weight"] == (512, 2048)
    assert model.char_embedding.padding_idx == 0
    assert torch.all(model.char_embedding.weight[0] == 0)


def test_highway_gradcheck_float64():
    torch.manual_seed(0)
    highway = Highway(5, n_layers=2, activation="tanh").double()
    x = torch.randn(3, 5, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(highway, (x,))


def test_highway_gate_is_a_carry_gate():
    torch.manual_seed(0)
    highway = Highway(6, n_layers=1)
    x = torch.randn(4, 6)
    with torch.no_grad():
        highway.layers[0].bias[6:] = 100.0  # g = 1: carry x unchanged
    torch.testing.assert_close(highway(x), x)
    with torch.no_grad():
        highway.layers[0].bias[6:] = -100.0  # g = 0: the non-linear part only
    layer = highway.layers[0]
    torch.testing.assert_close(highway(x), torch.relu(x @ layer.weight[:6].T + layer.bias[:6]))


def test_highway_maps_onto_bilm_tf_weights_by_negating_the_carry_gate():
    torch.manual_seed(0)
    dim = 5
    W_carry, W_transform = torch.randn(dim, dim), torch.randn(dim, dim)  # TF: x @ W
    b_carry, b_transform = torch.randn(dim), torch.randn(dim)
    x = torch.randn(3, dim)
    t = torch.sigmoid(x @ W_carry + b_carry)  # bilm-tf's "carry_gate"
    tf_output = t * torch.relu(x @ W_transform + b_transform) + (1 - t) * x
    highway = Highway(dim, n_layers=1)
    with torch.no_grad():
        highway.layers[0].weight.copy_(torch.cat([W_transform.T, -W_carry.T]))
        highway.layers[0].bias.copy_(torch.cat([b_transform, -b_carry]))
    torch.testing.assert_close(highway(x), tf_output)


# --- the notebook's self-checks accept the right answer and reject wrong ones ---

from _check_helpers import highway_from_the_package  # noqa: E402

from elmo_tutorial import checks  # noqa: E402


def _highway_with_swapped_gate(x, weight, bias):
    h, g = F.linear(x, weight, bias).chunk(2, dim=-1)
    g = torch.sigmoid(g)
    return g * torch.relu(h) + (1 - g) * x


def _highway_without_sigmoid(x, weight, bias):
    h, g = F.linear(x, weight, bias).chunk(2, dim=-1)
    return g * x + (1 - g) * torch.relu(h)


def _highway_by_the_formula(x, weight, bias):
    h, g = F.linear(x, weight, bias).chunk(2, dim=-1)
    g = torch.sigmoid(g)
    return g * x + (1 - g) * torch.relu(h)


def test_check_highway_layer_accepts_the_formula_and_refuses_the_package(capsys):
    checks.check_highway_layer(_highway_by_the_formula)
    assert "✓" in capsys.readouterr().out
    with pytest.raises(checks.Delegated, match="Highway.forward"):
        checks.check_highway_layer(highway_from_the_package)


@pytest.mark.parametrize("wrong", [_highway_with_swapped_gate, _highway_without_sigmoid])
def test_check_highway_layer_rejects_wrong_answers(wrong):
    with pytest.raises(checks.CheckFailed):
        checks.check_highway_layer(wrong)


def _windows(x, w, b):
    """Every window's score, (N, count, C - width + 1), written out with unfold."""
    return torch.einsum("fek,netk->nft", w, x.unfold(2, w.shape[-1], 1)) + b[:, None]


def test_check_conv_max_pool_accepts_the_formula_and_rejects_wrong_answers():
    checks.check_conv_max_pool(lambda x, w, b: _windows(x, w, b).amax(dim=-1))
    with pytest.raises(checks.CheckFailed, match="one value per window"):
        checks.check_conv_max_pool(_windows)
    with pytest.raises(checks.CheckFailed):  # conv1d does not flip the kernel
        checks.check_conv_max_pool(lambda x, w, b: _windows(x, w.flip(-1), b).amax(dim=-1))
    with pytest.raises(checks.CheckFailed):  # mean-pool instead of max-pool
        checks.check_conv_max_pool(lambda x, w, b: _windows(x, w, b).mean(dim=-1))
    with pytest.raises(checks.CheckFailed, match="ReLU"):  # activated before max-pooling
        checks.check_conv_max_pool(lambda x, w, b: _windows(x, w, b).relu().amax(dim=-1))
    with pytest.raises(checks.CheckFailed, match="ReLU"):  # activated after max-pooling
        checks.check_conv_max_pool(lambda x, w, b: _windows(x, w, b).amax(dim=-1).relu())


def test_check_conv_max_pool_refuses_torchs_convolution():
    with pytest.raises(checks.Delegated, match="torch.nn.functional.conv1d"):
        checks.check_conv_max_pool(lambda x, w, b: F.conv1d(x, w, b).amax(dim=-1))
    with pytest.raises(checks.Delegated, match="conv1d"):
        checks.check_conv_max_pool(lambda x, w, b: torch.conv1d(x, w, b).amax(dim=-1))


def test_highway_refuses_a_wrong_width_instead_of_reshaping_it():
    highway = Highway(16, n_layers=1)
    with pytest.raises(ValueError, match=r"shape \(\*, 16\)"):
        highway(torch.randn(4, 8))  # 32 numbers would reshape to (2, 16) silently
    assert highway(torch.randn(3, 2, 16)).shape == (3, 2, 16)


def _parameters_by_formula(config, conv_biases=True, highway_factor=2, embedding_rows=None):
    E, F, P = config.char_embed_dim, config.n_filters, config.projection_dim
    rows = config.n_characters if embedding_rows is None else embedding_rows
    return {
        "char embeddings": rows * E,
        "convolutions": sum(n * (E * w + (1 if conv_biases else 0)) for w, n in config.filters),
        "highway": config.n_highway * (highway_factor * F * F + highway_factor * F),
        "projection": F * P + P,
    }


def test_check_char_cnn_parameters_accepts_the_formula(capsys):
    checks.check_char_cnn_parameters(_parameters_by_formula)
    assert "✓" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, message", [
    (lambda c: _parameters_by_formula(c, conv_biases=False), "convolutions.*count biases"),
    (lambda c: _parameters_by_formula(c, highway_factor=1), "highway.*the gate"),
    (lambda c: _parameters_by_formula(c, embedding_rows=261), "char embeddings"),
    (lambda c: sum(_parameters_by_formula(c).values()), "return a dict"),
])
def test_check_char_cnn_parameters_names_the_part_that_is_wrong(wrong, message):
    with pytest.raises(checks.CheckFailed, match=message):
        checks.check_char_cnn_parameters(wrong)
