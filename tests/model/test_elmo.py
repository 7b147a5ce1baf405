"""ELMo module: TF-Hub outputs, sentence boundaries, statelessness, awkward input."""

from __future__ import annotations

from dataclasses import replace

import pytest
import torch

from elmo_tutorial import batch_to_ids
from elmo_tutorial.model.chars import BOS_TOKEN, EOS_TOKEN
from elmo_tutorial.model.config import ModelConfig
from elmo_tutorial.model.elmo import ELMo

CONFIG = ModelConfig(  # small and clipping: the faithful LSTM path, like the released models
    char_embed_dim=4, filters=((1, 4), (2, 8), (3, 8)), n_highway=1, lstm_dim=24,
    projection_dim=8, n_layers=2, cell_clip=3.0, proj_clip=3.0,
)
SENTENCES = [["I", "went", "to", "the", "bank", "."], ["Hi", "!"], ["The", "river", "bank"]]


def make_elmo(config: ModelConfig = CONFIG, **kwargs) -> ELMo:
    torch.manual_seed(0)
    model = ELMo(config, **kwargs).eval()
    with torch.no_grad():  # non-trivial mix weights, so that a wrong layer order shows
        model.scalar_mix.scalar_parameters.copy_(torch.tensor([0.3, -0.2, 0.5]))
        model.scalar_mix.gamma.fill_(1.5)
    return model


@pytest.fixture(scope="module")
def elmo() -> ELMo:
    return make_elmo()


def run(model: ELMo, sentences) -> dict[str, torch.Tensor]:
    with torch.inference_mode():
        return model(batch_to_ids(sentences))


def test_outputs_have_the_tf_hub_names_and_shapes(elmo):
    out = run(elmo, SENTENCES)
    B, T, P = 3, 6, CONFIG.projection_dim
    shapes = {name: tuple(value.shape) for name, value in out.items()}
    assert shapes == {
        "word_emb": (B, T, P), "lstm_outputs1": (B, T, 2 * P), "lstm_outputs2": (B, T, 2 * P),
        "elmo": (B, T, 2 * P), "default": (B, 2 * P), "mask": (B, T),
    }
    assert out["mask"].dtype == torch.bool
    assert out["mask"].sum(dim=1).tolist() == [6, 2, 3]


def test_elmo_is_the_scalar_mix_of_the_duplicated_token_layer_and_the_lstm_layers(elmo):
    out = run(elmo, SENTENCES)
    s = torch.softmax(elmo.scalar_mix.scalar_parameters.detach(), dim=0)
    layer0 = torch.cat([out["word_emb"], out["word_emb"]], dim=-1)
    expected = 1.5 * (s[0] * layer0 + s[1] * out["lstm_outputs1"] + s[2] * out["lstm_outputs2"])
    torch.testing.assert_close(out["elmo"], expected, atol=1e-6, rtol=0)


def test_default_is_the_mean_of_elmo_over_real_tokens_only(elmo):
    out = run(elmo, SENTENCES)
    for b, sentence in enumerate(SENTENCES):
        expected = out["elmo"][b, : len(sentence)].mean(dim=0)
        torch.testing.assert_close(out["default"][b], expected, atol=1e-6, rtol=0)


def test_padded_positions_are_zero_in_every_output(elmo):
    out = run(elmo, SENTENCES)
    for name in ("word_emb", "lstm_outputs1", "lstm_outputs2", "elmo"):
        assert out[name][1, 2:].abs().max() == 0, name


def test_boundaries_are_added_after_each_sentence_and_stripped(elmo):
    kept = make_elmo(keep_sentence_boundaries=True)
    out, with_boundaries = run(elmo, SENTENCES), run(kept, SENTENCES)
    assert with_boundaries["mask"].shape == (3, 8)
    assert with_boundaries["mask"].sum(dim=1).tolist() == [8, 4, 5]
    for b, sentence in enumerate(SENTENCES):
        n = len(sentence)
        for name in ("word_emb", "lstm_outputs1", "lstm_outputs2", "elmo"):
            torch.testing.assert_close(with_boundaries[name][b, 1 : n + 1], out[name][b, :n])
        # <S> first and </S> right after the sentence's own last token, not after the padding
        explicit = run(elmo, [[BOS_TOKEN, *sentence, EOS_TOKEN]])["word_emb"][0]
        torch.testing.assert_close(with_boundaries["word_emb"][b, 0], explicit[0])
        torch.testing.assert_close(with_boundaries["word_emb"][b, n + 1], explicit[n + 1])
    torch.testing.assert_close(with_boundaries["default"], out["default"])


@pytest.mark.parametrize("clipping", [True, False], ids=["faithful", "fused"])
def test_a_sentence_alone_equals_the_same_sentence_in_a_padded_batch(clipping):
    config = CONFIG if clipping else replace(CONFIG, cell_clip=None, proj_clip=None)
    model = make_elmo(config)
    batch = [["a", "much", "longer", "sentence", "than", "the", "other", "."], *SENTENCES]
    together = run(model, batch)
    for b, sentence in enumerate(batch):
        alone = run(model, [sentence])
        n = len(sentence)
        for name in ("word_emb", "lstm_outputs1", "lstm_outputs2", "elmo"):
            torch.testing.assert_close(together[name][b, :n], alone[name][0], atol=1e-5, rtol=0)
        torch.testing.assert_close(together["default"][b], alone["default"][0], atol=1e-5, rtol=0)


def test_outputs_do_not_depend_on_what_ran_before(elmo):
    first = run(elmo, SENTENCES)
    run(elmo, [["Something", "else", "entirely"] * 7])  # a state-carrying model would change
    run(elmo, [["x"]] * 5)
    again = run(elmo, SENTENCES)
    for name, value in first.items():
        assert torch.equal(value, again[name]), name


def test_empty_batch_gives_empty_outputs(elmo):
    out = run(elmo, [])
    assert tuple(out["elmo"].shape) == (0, 0, 2 * CONFIG.projection_dim)
    assert tuple(out["default"].shape) == (0, 2 * CONFIG.projection_dim)


def test_empty_sentence_gives_zeros_and_leaves_the_others_unchanged(elmo):
    out = run(elmo, [["Hi", "!"], []])
    assert out["mask"][1].sum() == 0
    assert out["elmo"][1].abs().max() == 0 and out["default"][1].abs().max() == 0
    torch.testing.assert_close(out["elmo"][0], run(elmo, [["Hi", "!"]])["elmo"][0])
    only_empty = run(elmo, [[], []])
    assert tuple(only_empty["elmo"].shape) == (2, 0, 2 * CONFIG.projection_dim)
    assert torch.isfinite(only_empty["default"]).all() and only_empty["default"].abs().max() == 0


def test_unusual_tokens_give_finite_vectors(elmo):
    tokens = ["x" * 10_000, "😀", "שלום", "مرحبا", "\x00", "\u202e", "\u200f", "a\tb", "e\u0301"]
    out = run(elmo, [tokens])
    assert out["mask"].sum() == len(tokens)
    assert all(torch.isfinite(value).all() for value in out.values() if value.is_floating_point())


@pytest.mark.parametrize(
    ("bad", "error", "message"),
    [
        (["not", "tokenized"], TypeError, "batch_to_ids"),
        (torch.zeros(2, 3), ValueError, r"shape \(B, T, 50\)"),
        (torch.zeros(1, 2, 50), TypeError, "integers"),
        (torch.full((1, 2, 50), 300), ValueError, r"\[0, 262\)"),
        (torch.cat([torch.zeros(1, 1, 50), batch_to_ids([["a"]])], 1).long(), ValueError, "first"),
    ],
    ids=["list", "shape", "float", "range", "left-padding"],
)
def test_bad_input_gets_a_clear_error(elmo, bad, error, message):
    with pytest.raises(error, match=message):
        elmo(bad)


def test_layer_norm_mix_keeps_padding_at_zero_and_gradients_reach_the_mix():
    model = make_elmo(do_layer_norm=True).train()
    out = model(batch_to_ids(SENTENCES))
    assert out["elmo"][1, 2:].abs().max() == 0
    out["elmo"].sum().backward()
    assert model.scalar_mix.scalar_parameters.grad is not None
    assert model.scalar_mix.gamma.grad is not None


def test_fixed_mix_parameters_select_one_layer():
    model = ELMo(CONFIG, scalar_mix_parameters=[-1e4, -1e4, 0.0]).eval()
    out = run(model, SENTENCES)
    torch.testing.assert_close(out["elmo"], out["lstm_outputs2"])
    assert not model.scalar_mix.scalar_parameters.requires_grad


def test_both_tf_hub_signatures_give_the_vectors_of_the_same_token_lists(elmo):
    expected = run(elmo, [["the", "cat", "is", "on", "the", "mat"], ["dogs", "in", "fog"]])
    with torch.inference_mode():
        strings = elmo.embed(["the cat is  on the mat ", "dogs in fog"])  # extra spaces too
        tokens = elmo.embed({"tokens": [["the", "cat", "is", "on", "the", "mat"],
                                        ["dogs", "in", "fog", "", "", ""]],
                             "sequence_len": torch.tensor([6, 3])}, signature="tokens")
        # beyond its length a row's tokens are ignored, whatever they are; no length: up to ""
        longer = elmo.embed({"tokens": [["the", "cat", "is", "on", "the", "mat"],
                                        ["dogs", "in", "fog", "and", "rain", "!"]],
                             "sequence_len": [6, 3]}, signature="tokens")
        no_lengths = elmo.embed({"tokens": [["the", "cat", "is", "on", "the", "mat"],
                                            ["dogs", "in", "fog", ""]]}, signature="tokens")
    for out in (strings, tokens, longer, no_lengths):
        assert out.keys() == expected.keys()
        for name in expected:
            assert torch.equal(out[name], expected[name]), name


@pytest.mark.parametrize(
    ("inputs", "signature", "error", "message"),
    [
        ({"tokens": [["a", "b"], ["c"]], "sequence_len": [2]}, "tokens", ValueError,
         "1 lengths for 2 sentences"),
        ({"tokens": [["a", "b"], ["c", ""]], "sequence_len": [2, 3]}, "tokens", ValueError,
         r"sequence_len\"\]\[1\] = 3, but sentence 1 has 2 tokens"),
        ({"tokens": [["a", "", "b"]], "sequence_len": [3]}, "tokens", ValueError,
         "empty token"),
        ({"tokens": ["a b"]}, "tokens", TypeError, "list of token lists"),
        (["a b"], "tokens", TypeError, "sequence_len"),
        ([["a", "b"]], "default", TypeError, "untokenized sentences"),
        (["a b"], "elmo", ValueError, "signature must be"),
    ],
    ids=["count", "too-long", "empty-inside", "strings-as-tokens", "list-as-tokens",
         "tokens-as-default", "unknown-signature"],
)
def test_tf_hub_inputs_that_do_not_fit_their_signature_get_a_clear_error(
        elmo, inputs, signature, error, message):
    with pytest.raises(error, match=message):
        elmo.embed(inputs, signature=signature)
