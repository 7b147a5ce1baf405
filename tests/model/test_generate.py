"""Sampling from the shipped tiny biLM: greedy limit, prefix and suffix, both directions, errors."""

from __future__ import annotations

import pytest
import torch

from elmo_tutorial.model.batching import make_lm_batch
from elmo_tutorial.model.generate import sample_sentences
from elmo_tutorial.model.lm import BidirectionalLM, ForwardLM
from elmo_tutorial.training.run_folder import load_run, shipped_model


@pytest.fixture(scope="module")
def tiny():
    config, state, vocab, _ = load_run(shipped_model("tiny"))
    model = BidirectionalLM(config)
    model.load_state_dict(state)
    return model.eval(), vocab


def _argmax_next(model, vocab, sentence, direction):
    """The most likely word after (forward) or before (backward) ``sentence``, scored by hand
    on a whole-sentence batch: ``sentence`` is wrapped in ``<S> .. </S>`` by make_lm_batch."""
    batch = make_lm_batch([sentence], vocab)
    with torch.no_grad():
        top = model.encode(batch.char_ids)[direction][-1][0]  # (T, P)
        position = len(sentence) if direction == "forward" else 1  # the end next to the gap
        log_probs = model.softmax.log_probs(top[position]).clone()
    log_probs[vocab.index("<UNK>")] = float("-inf")
    log_probs[vocab.index("<S>" if direction == "forward" else "</S>")] = float("-inf")
    return vocab.word(int(log_probs.argmax()))


def test_a_tiny_temperature_gives_the_argmax_continuation_of_the_prefix(tiny):
    model, vocab = tiny
    prefix = ["She", "said", "that"]
    (sample,) = sample_sentences(model, vocab, n=1, given=prefix, temperature=1e-4, max_len=6)
    assert sample.tokens[:3] == prefix
    for k in range(3, len(sample.tokens)):
        # the forward LM on <S> w_1 .. w_{k-1} </S> at w_{k-1} has read only the words before
        expected = _argmax_next(model, vocab, sample.tokens[:k], "forward")
        assert sample.tokens[k] == expected, (k, sample.tokens)


def test_backward_sampling_grows_the_sentence_to_the_left_of_the_suffix(tiny):
    model, vocab = tiny
    suffix = ["on", "the", "bank", "."]
    (sample,) = sample_sentences(model, vocab, n=1, direction="backward", given=suffix,
                                 temperature=1e-4, max_len=8)
    assert sample.tokens[-4:] == suffix
    n_drawn = len(sample.tokens) - 4
    assert n_drawn == sample.n_drawn > 0
    # Drawn right to left: each word is the backward LM's argmax given everything after it
    # (the sentence must not come back in drawing order, i.e. reversed).
    for k in range(n_drawn - 1, -1, -1):
        if sample.tokens[k] == "<S>":
            assert k == 0 and sample.finished
            continue
        expected = _argmax_next(model, vocab, sample.tokens[k + 1:], "backward")
        assert sample.tokens[k] == expected, (k, sample.tokens)


def test_forward_samples_end_with_the_boundary_and_keep_the_prefix(tiny):
    model, vocab = tiny
    samples = sample_sentences(model, vocab, n=6, given=["The", "old"], seed=3)
    assert all(s.tokens[:2] == ["The", "old"] for s in samples)
    for s in samples:
        assert s.finished == (s.tokens[-1] == "</S>")
        assert "</S>" not in s.tokens[:-1] and "<UNK>" not in s.tokens and "<S>" not in s.tokens
        assert s.n_drawn == len(s.tokens) - 2 and s.log_prob < 0


def test_the_same_seed_gives_the_same_sentences_and_another_seed_others(tiny):
    model, vocab = tiny
    first = [s.tokens for s in sample_sentences(model, vocab, n=4, seed=1)]
    assert first == [s.tokens for s in sample_sentences(model, vocab, n=4, seed=1)]
    assert first != [s.tokens for s in sample_sentences(model, vocab, n=4, seed=2)]


def test_log_prob_is_the_models_probability_of_the_drawn_words(tiny):
    model, vocab = tiny
    (sample,) = sample_sentences(model, vocab, n=1, temperature=2.0, seed=4)
    assert sample.finished
    batch = make_lm_batch([sample.tokens[:-1]], vocab)
    with torch.no_grad():
        nll = model(batch).forward_nll.item() * batch.forward_targets.ne(-100).sum().item()
    # the sampler excludes <UNK> and <S>; their probability is negligible for a trained model
    assert sample.log_prob == pytest.approx(-nll, abs=1e-2)


def test_generation_leaves_the_model_in_its_mode(tiny):
    model, vocab = tiny
    model.train()
    try:
        sample_sentences(model, vocab, n=1, max_len=3)
        assert model.training
    finally:
        model.eval()


@pytest.mark.parametrize("kwargs, message", [
    ({"temperature": 0}, "temperature must be a number > 0"),
    ({"temperature": -1.0}, "temperature must be a number > 0"),
    ({"temperature": float("nan")}, "temperature must be a number > 0"),
    ({"given": "She said"}, "not a str"),
    ({"given": ["She", "quibbled"]}, "'quibbled'] not in the model's vocabulary"),
    ({"given": ["she", "SAID"]}, "mind the capitals"),
    ({"given": ["<S>", "She"]}, "without <S>/</S>"),
    ({"given": [""]}, "non-empty tokens"),
    ({"direction": "sideways"}, "'forward' or 'backward'"),
    ({"n": 0}, "at least 1"),
])
def test_bad_requests_are_clear_errors(tiny, kwargs, message):
    model, vocab = tiny
    with pytest.raises((ValueError, TypeError), match=message.replace("[", r"\[")
                       .replace("]", r"\]")):
        sample_sentences(model, vocab, **kwargs)


def test_unknown_words_are_read_when_allowed(tiny):
    model, vocab = tiny
    (sample,) = sample_sentences(model, vocab, n=1, given=["Zyx"], allow_unknown=True,
                                 max_len=3)
    assert sample.tokens[0] == "Zyx"


def test_a_model_without_the_direction_or_a_softmax_is_refused(tiny):
    model, vocab = tiny
    forward_only = ForwardLM(model.config)
    with pytest.raises(ValueError, match="cannot generate backward"):
        sample_sentences(forward_only, vocab, direction="backward")
    with pytest.raises(ValueError, match="pass the vocabulary the model was trained on"):
        sample_sentences(model, vocab.__class__(vocab.words[:-1]))
