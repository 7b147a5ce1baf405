"""The cost formulas agree with the modules' parameters and with PyTorch's FLOP counter."""

from __future__ import annotations

import random
import string
from dataclasses import replace

import pytest
import torch

from elmo_tutorial.fast import speed_up
from elmo_tutorial.model.batching import make_lm_batch
from elmo_tutorial.model.config import MODEL_PRESETS, ModelConfig
from elmo_tutorial.model.lm import BidirectionalLM
from elmo_tutorial.model.vocab import Vocabulary
from elmo_tutorial.training.cost import (
    PARTS,
    TRAINING_FACTOR,
    flops_by_part,
    flops_per_token,
    measure_flops,
    parameter_counts,
)

SMALL = ModelConfig(  # every part present, widths that differ from each other
    char_embed_dim=4, filters=((1, 4), (2, 8), (3, 8)), n_highway=2, lstm_dim=24,
    projection_dim=8, n_layers=2, cell_clip=None, proj_clip=None, dropout=0.0,
)


def _part_sizes(model: BidirectionalLM) -> dict[str, int]:
    """Parameters per part, read off the module."""
    def size(module) -> int:
        return sum(p.numel() for p in module.parameters()) if module is not None else 0

    cnn = model.char_cnn
    return {
        "char_embedding": size(cnn.char_embedding),
        "convolutions": size(cnn.convs),
        "highway": size(cnn.highway),
        "projection": size(cnn.projection),
        "lstm": size(model.forward_lstm) + size(model.backward_lstm),
        "softmax": size(model.softmax),
    }


@pytest.mark.parametrize("preset", ["tiny", "small", "paper"])
def test_parameter_counts_match_the_modules(preset):
    config = replace(MODEL_PRESETS[preset], vocab_size=793_471 if preset == "paper" else 1000)
    with torch.device("meta"):  # no memory, even for the 793,471-word softmax
        model = BidirectionalLM(config)
    assert parameter_counts(config) == _part_sizes(model)
    assert parameter_counts(config, vocab_size=0)["softmax"] == 0


@pytest.mark.parametrize(("cells", "projection", "highway", "published"), [
    (1024, 128, 1, 13.6), (2048, 256, 1, 28.0), (4096, 512, 2, 93.6)])
def test_released_models_have_the_published_parameter_counts(cells, projection, highway,
                                                             published):
    """allennlp.org/elmo lists 13.6, 28.0 and 93.6 M parameters for small, medium, original.

    TensorFlow has one LSTM bias where nn.LSTM has two (the second holds TF's constant forget
    bias) and no padding row in the character table, so those are not counted.
    """
    config = replace(MODEL_PRESETS["paper"], lstm_dim=cells, projection_dim=projection,
                     n_highway=highway)
    ours = sum(parameter_counts(config, vocab_size=0).values())
    tensorflow = ours - 2 * config.n_layers * 4 * cells - config.char_embed_dim
    assert round(tensorflow / 1e6, 1) == published


def _words(n: int, length: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(string.ascii_letters) for _ in range(length)) for _ in range(n)]


@pytest.mark.parametrize("length", [48, 10])
def test_forward_flops_match_the_counter_part_by_part(length):
    """Distinct words of one length, no padding: every position runs the whole model.

    The fast CharCNN (what the trainer runs) keeps a word's characters plus one all-padding
    window per width (``length`` characters, the begin/end-of-word marks, ``max_width``
    columns), at most all 50.
    """
    B, T = 3, 6  # T positions with <S> and </S>
    sentences = [_words(T - 2, length, seed=b) for b in range(B)]
    vocab = Vocabulary.from_sentences(sentences[:1])  # the rest are <UNK>: targets all valid
    config = replace(SMALL, vocab_size=len(vocab.words))
    model = speed_up(BidirectionalLM(config).eval())  # what training runs
    counted_total, by_module = measure_flops(lambda: model(make_lm_batch(sentences, vocab)))
    counted = flops_by_part(by_module)

    columns = min(config.max_chars, length + 2 + max(w for w, _ in config.filters))
    per_token = flops_per_token(config, char_columns=columns)
    distinct = B * (T - 2) + 2  # the words, <S>, </S>: the char CNN runs once per distinct token
    for part in ("convolutions", "highway", "projection"):
        assert counted[part] == per_token[part] * distinct, part
    assert counted["lstm"] == per_token["lstm"] * B * T
    predictions = B * (T - 1)  # per direction: every position but the last (first) one
    assert counted["softmax"] == per_token["softmax"] * predictions
    assert counted_total == sum(counted.values())


def test_the_plain_char_cnn_costs_all_50_columns_at_every_position():
    """The plain CharCNN of notebook 03 convolves every position's 50 columns, padding too."""
    B, T = 2, 5
    sentences = [_words(T - 2, 6, seed=b) for b in range(B)]
    vocab = Vocabulary.from_sentences(sentences[:1])
    config = replace(SMALL, vocab_size=len(vocab.words))
    model = BidirectionalLM(config).eval()
    counted = flops_by_part(measure_flops(lambda: model(make_lm_batch(sentences, vocab)))[1])
    per_token = flops_per_token(config, char_columns=config.max_chars)
    for part in ("convolutions", "highway", "projection"):
        assert counted[part] == per_token[part] * B * T, part


def test_training_costs_three_forwards_but_the_first_step():
    """Backward computes two products per forward product, except the gradient of the zero
    initial state, which nothing needs; so 3× the forward less a term that shrinks as 1/T."""
    B, T = 2, 9
    x, mask = torch.randn(B, T, SMALL.projection_dim), torch.ones(B, T, dtype=torch.bool)
    model = BidirectionalLM(SMALL)
    forward, _ = measure_flops(lambda: model.forward_lstm(x.requires_grad_(), mask))
    both, _ = measure_flops(lambda: sum(h.sum() for h in model.forward_lstm(x, mask)).backward())
    assert forward == flops_per_token(SMALL)["lstm"] // 2 * B * T  # one direction
    assert TRAINING_FACTOR * forward * (1 - 1 / T) <= both <= TRAINING_FACTOR * forward


def test_sampled_softmax_counts_the_candidates_and_parts_are_complete():
    full = flops_per_token(SMALL, vocab_size=50_000)
    sampled = flops_per_token(SMALL, vocab_size=50_000, sampled_softmax=512)
    assert full["softmax"] == 2 * 2 * SMALL.projection_dim * 50_000
    assert sampled["softmax"] == 2 * 2 * SMALL.projection_dim * 512
    assert flops_per_token(SMALL, vocab_size=100, sampled_softmax=512)["softmax"] == 2 * 2 * 8 * 100
    assert {k: v for k, v in full.items() if k != "softmax"} == {
        k: v for k, v in sampled.items() if k != "softmax"}
    assert tuple(full) == PARTS == tuple(parameter_counts(SMALL))


def test_sampled_softmax_matches_the_counter():
    config = replace(SMALL, vocab_size=200)
    model = BidirectionalLM(config).train()
    model.softmax.num_samples = 64
    sentences = [_words(4, 6, seed=b) for b in range(2)]
    vocab = Vocabulary.from_sentences(sentences)
    torch.manual_seed(0)
    _, by_module = measure_flops(lambda: model(make_lm_batch(sentences, vocab), sampled=True))
    predictions = 2 * 5  # per direction
    expected = flops_per_token(config, sampled_softmax=64)["softmax"] * predictions
    assert flops_by_part(by_module)["softmax"] == expected


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="sampled_softmax"):
        flops_per_token(SMALL, sampled_softmax=-1)
    with pytest.raises(ValueError, match="char_columns"):
        flops_per_token(SMALL, char_columns=0)
