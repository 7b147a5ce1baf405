"""The token vectors an Embedder remembers are those of the weights it holds now: a change of
the character CNN's weights (in place, by load_state_dict, by training, or a new CNN) is
noticed without ``clear_cache``."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from elmo_tutorial.analyses.embedder import Embedder
from elmo_tutorial.analyses.token_cache import TokenCache
from elmo_tutorial.model.char_cnn import CharCNN
from elmo_tutorial.model.config import MODEL_PRESETS
from elmo_tutorial.model.elmo import ELMo

TOKENS = ["bank", "river", "bank"]


def _fresh(char_cnn) -> torch.Tensor:
    return TokenCache(char_cnn, max_size=0).table(TOKENS)


def _edit_in_place(cnn):
    with torch.no_grad():
        cnn.projection.weight.mul_(2.0)


def _load_other_weights(cnn):
    torch.manual_seed(1)
    cnn.load_state_dict(CharCNN(MODEL_PRESETS["tiny"]).state_dict())


def _train_one_step(cnn):
    optimizer = torch.optim.SGD(cnn.parameters(), lr=0.5)
    ids = torch.randint(1, 200, (4, 50))
    cnn.embed_tokens(ids).pow(2).sum().backward()
    optimizer.step()


def _replace_a_tensor(cnn):
    cnn.projection.weight = torch.nn.Parameter(cnn.projection.weight.detach() * 3.0)


@pytest.mark.parametrize("change", [_edit_in_place, _load_other_weights, _train_one_step,
                                    _replace_a_tensor])
def test_vectors_of_changed_weights_are_never_served(change):
    torch.manual_seed(0)
    cnn = CharCNN(MODEL_PRESETS["tiny"])
    cache = TokenCache(cnn, max_size=100)
    with torch.inference_mode():
        before = cache.table(TOKENS)
    change(cnn)
    with torch.inference_mode():
        after, expected = cache.table(TOKENS), _fresh(cnn)
    assert not torch.allclose(before, expected)  # the change changes the vectors
    torch.testing.assert_close(after, expected)


def test_unchanged_weights_are_not_computed_again(monkeypatch):
    torch.manual_seed(0)
    cnn = CharCNN(MODEL_PRESETS["tiny"])
    cache = TokenCache(cnn, max_size=100)
    with torch.inference_mode():
        first = cache.table(TOKENS)
        monkeypatch.setattr(cnn, "embed_tokens", lambda ids: pytest.fail("computed again"))
        torch.testing.assert_close(cache.table(TOKENS), first)


def test_an_embedder_follows_its_model_when_weights_change_or_the_cnn_is_replaced():
    torch.manual_seed(0)
    model = ELMo(MODEL_PRESETS["tiny"])
    embedder = Embedder(model)
    embedder.embed_sentence(["the", "bank"])  # remembers both tokens
    with torch.no_grad():
        model.bilm.char_cnn.projection.bias.add_(0.5)  # no clear_cache()
    expected = Embedder(model, cache_size=0).embed_sentence(["the", "bank"])
    np.testing.assert_allclose(embedder.embed_sentence(["the", "bank"]), expected, atol=1e-6)
    torch.manual_seed(2)
    model.bilm.char_cnn = type(model.bilm.char_cnn)(model.config)  # another CNN object
    expected = Embedder(model, cache_size=0).embed_sentence(["the", "bank"])
    np.testing.assert_allclose(embedder.embed_sentence(["the", "bank"]), expected, atol=1e-6)


def test_a_cnn_made_under_inference_mode_is_followed_too():
    torch.manual_seed(0)
    with torch.inference_mode():  # its tensors keep no count of their changes
        cnn = CharCNN(MODEL_PRESETS["tiny"])
        cache = TokenCache(cnn, max_size=100)
        cache.table(TOKENS)
        cnn.projection.weight.mul_(2.0)
        torch.testing.assert_close(cache.table(TOKENS), _fresh(cnn))
