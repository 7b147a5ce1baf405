"""The fast character CNN: its helpers, and FastCharCNN / FastHighway equal to the plain modules.

Equal means: float64 outputs and gradients within 1e-10; float32 within 1e-5 (the products add
in another order, addmm instead of Conv1d, lerp instead of g·x + (1 − g)·h: about 4e-7 on the
paper's encoder, whose outputs are near 1).
"""

import copy
from dataclasses import replace

import pytest
import torch
from _char_cnn_helpers import SENTENCES, SMALL, char_cnn_with_biases
from hypothesis import given, settings
from hypothesis import strategies as st

from elmo_tutorial.fast import char_cnn as fast_char_cnn
from elmo_tutorial.fast import plain, speed_up
from elmo_tutorial.fast.char_cnn import (
    FastCharCNN,
    FastHighway,
    conv1d_max,
    conv1d_windows,
    distinct_rows,
)
from elmo_tutorial.model.char_cnn import PAD_ID, CharCNN, Highway
from elmo_tutorial.model.chars import batch_to_ids
from elmo_tutorial.model.config import ModelConfig

FLOAT64 = {"atol": 1e-10, "rtol": 0}
FLOAT32 = {"atol": 1e-5, "rtol": 1e-5}


def _plain_model(config=SMALL, seed=0, dtype=torch.float64):
    return char_cnn_with_biases(config, seed, dtype, highway_biases=True)


def _fast_twin(model, highway="fast"):
    """A copy of ``model`` switched to FastCharCNN the way speed_up does it (class only); its
    highway fast too, or left plain: FastCharCNN must not depend on either."""
    twin = copy.deepcopy(model)
    if highway == "fast":
        return speed_up(twin)
    twin.__class__ = FastCharCNN
    return twin


BATCHES = {
    "padded sentences": lambda: batch_to_ids(SENTENCES),
    "an empty sentence": lambda: batch_to_ids([["a", "word"], [], ["."]]),
    "every token padding": lambda: torch.zeros(2, 3, 50, dtype=torch.long),
    "48-byte tokens": lambda: batch_to_ids([["x" * 48, "y" * 60, "a"], ["é" * 30, "x" * 48]]),
}


@pytest.mark.parametrize("highway", ["fast", "plain"])
@pytest.mark.parametrize("batch", BATCHES.values(), ids=BATCHES.keys())
def test_fast_char_cnn_equals_the_plain_one_in_float64_with_its_gradients(batch, highway):
    model = _plain_model()
    fast = _fast_twin(model, highway)
    ids = batch()
    upstream = torch.randn(*ids.shape[:2], SMALL.projection_dim, dtype=torch.float64)
    outputs = {}
    for name, encoder in (("plain", model), ("fast", fast)):
        out = encoder(ids)
        (out * upstream).sum().backward()
        outputs[name] = out.detach(), {n: p.grad for n, p in encoder.named_parameters()}
    torch.testing.assert_close(outputs["fast"][0], outputs["plain"][0], **FLOAT64)
    for name, grad in outputs["plain"][1].items():
        torch.testing.assert_close(outputs["fast"][1][name], grad, **FLOAT64,
                                   msg=f"gradient of {name}")


@pytest.mark.parametrize("activation", ["relu", "tanh"])
def test_fast_char_cnn_equals_the_plain_one_in_float32(activation):
    model = _plain_model(ModelConfig(**{**SMALL.to_dict(), "activation": activation}),
                         dtype=torch.float32)
    ids = batch_to_ids(SENTENCES + [["x" * 48, "tanh"]])
    torch.testing.assert_close(_fast_twin(model)(ids), model(ids), **FLOAT32)


def test_fast_char_cnn_with_tanh_equals_the_plain_one_in_float64():
    model = _plain_model(ModelConfig(**{**SMALL.to_dict(), "activation": "tanh"}))
    ids = batch_to_ids(SENTENCES)
    torch.testing.assert_close(_fast_twin(model)(ids), model(ids), **FLOAT64)


@pytest.mark.parametrize("shape", [(0, 0, 50), (2, 0, 50), (0, 3, 50)])
def test_empty_batches_give_the_same_empty_outputs(shape):
    model = _plain_model()
    ids = torch.zeros(shape, dtype=torch.long)
    assert _fast_twin(model)(ids).shape == model(ids).shape == (*shape[:2], 7)


def test_filter_features_and_embed_tokens_equal_the_plain_ones():
    model = _plain_model()
    fast = _fast_twin(model)
    tokens = batch_to_ids([["a", "bank", "x" * 48, "a", "é"]])[0]  # (5, 50), a repeat
    torch.testing.assert_close(fast.filter_features(tokens), model.filter_features(tokens),
                               **FLOAT64)
    torch.testing.assert_close(fast.embed_tokens(tokens), model.embed_tokens(tokens), **FLOAT64)


@pytest.mark.parametrize("activation", ["relu", "tanh"])
@pytest.mark.parametrize("n_layers", [0, 1, 3])
def test_fast_highway_equals_the_plain_one_with_its_gradients(activation, n_layers):
    torch.manual_seed(0)
    highway = Highway(6, n_layers, activation).double()
    fast = copy.deepcopy(highway)
    fast.__class__ = FastHighway
    x = torch.randn(2, 3, 6, dtype=torch.float64, requires_grad=True)
    upstream = torch.randn(2, 3, 6, dtype=torch.float64)
    grads = []
    for module in (highway, fast):
        out = module(x)
        grads.append(torch.autograd.grad((out * upstream).sum(), [x, *module.parameters()],
                                         allow_unused=True))
    torch.testing.assert_close(fast(x), highway(x), **FLOAT64)
    for plain_grad, fast_grad in zip(*grads, strict=True):
        torch.testing.assert_close(fast_grad, plain_grad, **FLOAT64)
    with pytest.raises(ValueError, match=r"shape \(\*, 6\)"):
        fast(torch.randn(4, 3, dtype=torch.float64))


def test_speed_up_then_plain_keeps_the_state_dict_and_sets_no_attribute():
    model = _plain_model()
    before = {name: tensor.clone() for name, tensor in model.state_dict().items()}
    attributes = set(vars(model))
    speed_up(model)
    assert type(model) is FastCharCNN and type(model.highway) is FastHighway
    model(batch_to_ids(SENTENCES)).sum().backward()  # a forward pass keeps nothing either
    assert set(vars(model)) == attributes
    plain(model)
    assert type(model) is CharCNN and type(model.highway) is Highway
    after = model.state_dict()
    assert list(after) == list(before)
    assert all(torch.equal(after[name], tensor) for name, tensor in before.items())


def test_plain_and_sped_up_models_loaded_from_one_state_dict_agree():
    state = _plain_model(seed=1).state_dict()
    plain_model, fast_model = _plain_model(seed=2), speed_up(_plain_model(seed=3))
    plain_model.load_state_dict(state)
    fast_model.load_state_dict(state)
    ids = batch_to_ids(SENTENCES)
    torch.testing.assert_close(fast_model(ids), plain_model(ids), **FLOAT64)


# --- the tricks one by one ---

@pytest.mark.parametrize("pad_shift", [+5.0, -5.0])
def test_dropping_padding_columns_keeps_the_max_even_when_padding_windows_win(pad_shift):
    """Windows of PAD characters only can hold a filter's maximum; cutting them must not lose it."""
    model = _plain_model()
    with torch.no_grad():  # make the PAD character's embedding extreme, either way
        model.char_embedding.weight[PAD_ID] = pad_shift * torch.ones(SMALL.char_embed_dim)
    fast = _fast_twin(model)
    ids = batch_to_ids([["a", "to", "word"], ["x" * 30]])
    _, groups = fast._length_groups(ids.view(-1, 50))
    assert [columns for _, columns in groups] == [37]  # "x" * 30 → BOW + 30 + EOW, + width 5
    torch.testing.assert_close(fast(ids), model(ids), **FLOAT64)


def test_length_groups_trim_each_group_to_its_own_longest_token():
    """32 short words and 32 long ones: two groups of 32, each cut to what it needs."""
    model = _plain_model()
    fast = _fast_twin(model)
    letters = "abcdefghijklmnopqrstuvwxyzABCDEF"
    short, long = [c * 2 for c in letters], [c * 20 for c in letters]  # 2 and 20 letters
    ids = batch_to_ids([long[:16] + short[:16], short[16:] + long[16:]])  # mixed order
    _, groups = fast._length_groups(ids.view(-1, 50))
    assert [len(rows) for rows, _ in groups] == [32, 32]
    assert [columns for _, columns in groups] == [4 + 5, 22 + 5]  # BOW + word + EOW, + width 5
    torch.testing.assert_close(fast(ids), model(ids), **FLOAT64)


def test_conv1d_max_equals_conv1d_then_max():
    torch.manual_seed(0)
    conv = torch.nn.Conv1d(16, 24, kernel_size=5).double()
    x = torch.randn(7, 12, 16, dtype=torch.float64)  # (N, C, E), channels last
    expected = conv(x.transpose(1, 2)).amax(dim=-1)  # nn.Conv1d wants (N, E, C)
    torch.testing.assert_close(conv1d_max(x, conv), expected, atol=1e-12, rtol=0)
    torch.testing.assert_close(conv1d_windows(x, conv), conv(x.transpose(1, 2)).transpose(1, 2),
                               atol=1e-12, rtol=0)
    x.requires_grad_(True)
    assert torch.autograd.gradcheck(lambda x: conv1d_max(x, conv), (x,))


@pytest.mark.parametrize("rows", [
    torch.tensor([[3, 4, 0], [5, 6, 7], [3, 4, 0], [0, 0, 0], [5, 6, 7]]),
    torch.randint(0, 262, (40, 50), generator=torch.Generator().manual_seed(0))[
        torch.randint(0, 40, (500,), generator=torch.Generator().manual_seed(1))],
    torch.zeros(0, 50, dtype=torch.long),
    torch.tensor([[600, 1], [600, 1]]),  # ids too large for the hash: the exact sort
])
def test_distinct_rows_has_torch_uniques_rows_and_inverse(rows):
    distinct, where = distinct_rows(rows)
    assert torch.equal(distinct[where], rows)
    assert len(distinct) == len(torch.unique(rows, dim=0))


def test_distinct_rows_falls_back_to_the_exact_sort_when_two_rows_share_a_key(monkeypatch):
    monkeypatch.setattr(fast_char_cnn, "_ROW_KEY_WEIGHTS", torch.zeros(64, dtype=torch.long))
    rows = torch.tensor([[1, 2], [2, 1], [1, 2]])  # every key is 0
    distinct, where = distinct_rows(rows)
    assert torch.equal(distinct[where], rows) and len(distinct) == 2


# --- property: any tokens, any PAD embedding: the fast path equals the plain computation ---

_tokens = st.text(min_size=1, max_size=60).filter(lambda t: t not in ("<S>", "</S>"))


@settings(max_examples=25, deadline=None)
@given(
    sentences=st.lists(st.lists(_tokens, min_size=0, max_size=4), min_size=1, max_size=3),
    pad_shift=st.floats(-6.0, 6.0),
)
def test_fast_path_equals_plain_computation_for_any_tokens(sentences, pad_shift):
    model = _plain_model(dtype=torch.float32)
    with torch.no_grad():
        model.char_embedding.weight[PAD_ID] += pad_shift
    ids = batch_to_ids(sentences)
    torch.testing.assert_close(_fast_twin(model)(ids), model(ids), **FLOAT32)


def test_on_two_threads_the_gradients_are_the_same_on_every_run(keep_threads):
    # Many repeats of one token: its gradient is the sum of its positions', which indexing's
    # backward added in an order that changed from run to run on two threads.
    torch.set_num_threads(2)
    torch.manual_seed(0)
    config = replace(SMALL, projection_dim=64)  # enough numbers to be split between threads
    cnn = speed_up(CharCNN(config))
    ids = batch_to_ids([["the", "cat", "the", "dog", "the"] * 40] * 16)
    weights = torch.randn(*ids.shape[:2], config.projection_dim)

    def gradients():
        cnn.zero_grad(set_to_none=True)
        (cnn(ids) * weights).sum().backward()
        return [p.grad.clone() for p in cnn.parameters()]

    first = gradients()
    for _ in range(3):
        assert all(torch.equal(a, b) for a, b in zip(first, gradients(), strict=True))
