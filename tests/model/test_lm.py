"""The character LMs: shared parts, targets, padding, direction, and that they can learn."""

import math

import pytest
import torch

from elmo_tutorial.model.batching import make_lm_batch
from elmo_tutorial.model.chars import batch_to_ids
from elmo_tutorial.model.config import ModelConfig
from elmo_tutorial.model.lm import BackwardLM, BidirectionalLM, ForwardLM
from elmo_tutorial.model.vocab import Vocabulary

SENTENCES = [
    ["the", "cat", "sat", "on", "the", "mat", "."],
    ["a", "dog", "ran", "."],
    ["the", "dog", "sat", "."],
    ["birds", "sing", "in", "the", "morning", "light", "."],
]


def small_config(**overrides):
    values = dict(char_embed_dim=4, filters=((1, 8), (2, 8), (3, 16)), n_highway=1,
                  lstm_dim=32, projection_dim=16, n_layers=2, cell_clip=3.0, proj_clip=3.0,
                  vocab_size=len(VOCAB), dropout=0.0)
    values.update(overrides)
    return ModelConfig(**values)


VOCAB = Vocabulary.from_sentences(SENTENCES)


pytestmark = pytest.mark.usefixtures("one_thread")  # see conftest.py


@pytest.fixture
def lm():
    torch.manual_seed(0)
    return BidirectionalLM(small_config()).eval()


def test_parameter_names_follow_the_shared_layout(lm):
    names = set(lm.state_dict())
    for expected in ("char_cnn.char_embedding.weight", "softmax.weight", "softmax.bias",
                     "forward_lstm.layers.1.weight_hr_l0", "backward_lstm.layers.0.bias_hh_l0"):
        assert expected in names
    assert lm.forward_lstm.go_forward and not lm.backward_lstm.go_forward


def test_encoder_only_model_has_no_softmax_and_says_so():
    lm = BidirectionalLM(small_config(vocab_size=0))
    assert lm.softmax is None
    with pytest.raises(ValueError, match="vocab_size"):
        lm(make_lm_batch(SENTENCES[:1], VOCAB))


def test_loss_is_the_sum_of_the_two_mean_nlls_and_ignores_padding(lm):
    batch = make_lm_batch(SENTENCES, VOCAB)
    out = lm(batch)
    torch.testing.assert_close(out.loss, out.forward_nll + out.backward_nll)
    assert out.n_tokens == sum(len(s) + 1 for s in SENTENCES)
    # Scoring each sentence alone gives the same summed NLL: padding adds nothing.
    alone = [lm(make_lm_batch([s], VOCAB)) for s in SENTENCES]
    for direction in ("forward_nll", "backward_nll"):
        summed = sum(getattr(o, direction) * o.n_tokens for o in alone)
        torch.testing.assert_close(getattr(out, direction) * out.n_tokens, summed,
                                   atol=1e-4, rtol=1e-5)


def test_perplexity_is_exp_of_the_mean_nll(lm):
    out = lm(make_lm_batch(SENTENCES, VOCAB))
    assert math.isclose(out.forward_perplexity, math.exp(out.forward_nll.item()))
    assert math.isclose(out.backward_perplexity, math.exp(out.backward_nll.item()))


def test_each_direction_sees_only_its_own_side_of_a_changed_word(lm):
    sentence = ["<S>", "the", "cat", "sat", "on", "the", "mat", "</S>"]
    changed = list(sentence)
    t = 3
    changed[t] = "jumped"
    a, b = lm.encode(batch_to_ids([sentence])), lm.encode(batch_to_ids([changed]))
    positions = torch.arange(len(sentence))
    for direction, expected in (("forward", positions >= t), ("backward", positions <= t)):
        for h_a, h_b in zip(a[direction], b[direction], strict=True):
            moved = (h_a - h_b).abs().amax(dim=(0, 2)) > 0  # (T,)
            assert moved.tolist() == expected.tolist(), direction


def test_forward_and_backward_lms_are_thin_halves_of_the_bilm(lm):
    forward, backward = ForwardLM(small_config()).eval(), BackwardLM(small_config()).eval()
    assert not hasattr(forward, "backward_lstm") and not hasattr(backward, "forward_lstm")
    state = lm.state_dict()
    for half in (forward, backward):  # every parameter of a half has the same name in the biLM
        half.load_state_dict({k: v for k, v in state.items() if k in half.state_dict()})
    batch = make_lm_batch(SENTENCES, VOCAB)
    both, out_f, out_b = lm(batch), forward(batch), backward(batch)
    assert out_f.backward_nll is None and out_b.forward_nll is None
    torch.testing.assert_close(out_f.loss, both.forward_nll)
    torch.testing.assert_close(out_b.loss, both.backward_nll)


def test_sampled_softmax_is_used_in_training_only():
    torch.manual_seed(0)
    lm = BidirectionalLM(small_config())
    lm.softmax.num_samples = 4
    batch = make_lm_batch(SENTENCES, VOCAB)
    lm.eval()
    torch.testing.assert_close(lm(batch, sampled=True).loss, lm(batch).loss)
    lm.train()
    assert not torch.allclose(lm(batch, sampled=True).loss, lm(batch).loss)


def test_tiny_lm_overfits_one_batch():
    torch.manual_seed(0)
    lm = BidirectionalLM(small_config(lstm_dim=64, projection_dim=32))
    batch = make_lm_batch(SENTENCES, VOCAB)
    optimizer = torch.optim.Adam(lm.parameters(), lr=1e-2)
    for _ in range(60):
        out = lm(batch)
        optimizer.zero_grad()
        out.loss.backward()
        optimizer.step()
    chance = math.log(len(VOCAB))
    lm.eval()
    final = lm(batch)
    assert final.forward_nll < 0.25 * chance and final.backward_nll < 0.25 * chance, (
        f"after 60 steps: forward {float(final.forward_nll):.3f}, backward "
        f"{float(final.backward_nll):.3f} nats; chance is {chance:.3f}"
    )


def test_bad_character_ids_are_caught_where_they_enter_the_model(lm):
    with pytest.raises(ValueError, match=r"shape \(B, T, 50\)"):
        lm.encode(torch.zeros(2, 50, dtype=torch.long))
    batch = make_lm_batch(SENTENCES[:1], VOCAB)
    batch.char_ids[0, 1, 0] = 300
    with pytest.raises(ValueError, match=r"must lie in \[0, 262\)"):
        lm(batch)


def test_character_ids_are_checked_once_per_call(lm, monkeypatch):
    import elmo_tutorial.model.chars
    import elmo_tutorial.model.elmo
    import elmo_tutorial.model.lm
    from elmo_tutorial.model.elmo import ELMo

    calls = []

    def counted(char_ids):
        calls.append(tuple(char_ids.shape))
        return elmo_tutorial.model.chars.check_char_ids(char_ids)

    for module in (elmo_tutorial.model.elmo, elmo_tutorial.model.lm):
        monkeypatch.setattr(module, "check_char_ids", counted)
    lm(make_lm_batch(SENTENCES, VOCAB))
    assert len(calls) == 1
    calls.clear()
    ELMo(small_config(vocab_size=0))(batch_to_ids(SENTENCES))
    assert calls == [(len(SENTENCES), max(map(len, SENTENCES)), 50)]  # the caller's ids, once
