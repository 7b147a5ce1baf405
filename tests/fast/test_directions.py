"""The biLM's directions in two threads compute the plain model's numbers, bit for bit."""

from dataclasses import replace

import pytest
import torch
from _train_helpers import THREAD_SENSITIVE, micro_config

from elmo_tutorial.fast import speed_up
from elmo_tutorial.fast.directions import FastBidirectionalLM, run_directions_at_once
from elmo_tutorial.model.batching import make_lm_batch
from elmo_tutorial.model.config import MODEL_PRESETS
from elmo_tutorial.model.lm import BidirectionalLM
from elmo_tutorial.model.vocab import Vocabulary
from elmo_tutorial.training.train import Trainer

SENTENCES = [["the", "cat", "sat", "on", "the", "mat"], ["a", "dog", "ran"],
             ["the", "dog", "sat", "down", "and", "the", "cat", "ran", "away"]] * 4


@pytest.fixture
def two_threads(keep_threads):
    torch.set_num_threads(2)


def bilm(dropout=0.0):
    vocab = Vocabulary.from_sentences(SENTENCES)
    torch.manual_seed(0)
    config = replace(MODEL_PRESETS["tiny"], vocab_size=len(vocab), dropout=dropout)
    return speed_up(BidirectionalLM(config)), make_lm_batch(SENTENCES, vocab)


def step(model, batch, sampled=False):
    model.zero_grad(set_to_none=True)
    out = model(batch, sampled=sampled)
    out.loss.backward()
    grads = {name: p.grad.clone() for name, p in model.named_parameters()}
    return out, grads


def assert_same_step(a, b):
    (out_a, grads_a), (out_b, grads_b) = a, b
    for field in ("loss", "forward_nll", "backward_nll"):
        assert torch.equal(getattr(out_a, field), getattr(out_b, field)), field
    assert out_a.n_tokens == out_b.n_tokens
    different = [name for name in grads_a if not torch.equal(grads_a[name], grads_b[name])]
    assert not different


def test_the_directions_at_once_give_the_plain_models_loss_and_gradients_bit_for_bit(two_threads):
    model, batch = bilm()
    assert run_directions_at_once(model)
    assert model.threads_per_direction == 1 and torch.get_num_threads() == 1
    at_once = step(model, batch)
    assert_same_step(at_once, step(model, batch))  # and again: the same bits
    model.threads_per_direction = 0  # the plain forward, one direction after the other
    assert_same_step(at_once, step(model, batch))


@pytest.mark.parametrize("mode", [torch.no_grad, torch.inference_mode])
def test_evaluation_at_once_gives_the_plain_models_numbers(two_threads, mode):
    model, batch = bilm()
    run_directions_at_once(model)
    model.eval()
    with mode():
        at_once = model(batch)
        model.threads_per_direction = 0
        plain = model(batch)
    assert torch.equal(at_once.loss, plain.loss) and not at_once.loss.requires_grad


def test_a_frozen_character_cnn_still_trains_the_directions(two_threads):
    model, batch = bilm()
    run_directions_at_once(model)
    model.char_cnn.requires_grad_(False)
    out = model(batch)
    out.loss.backward()
    assert all(p.grad is not None for p in model.forward_lstm.parameters())
    assert model.softmax.weight.grad is not None


@pytest.mark.parametrize("why", ["dropout", "sampled", "processes", "one thread", "plain"])
def test_the_directions_stay_one_after_the_other_where_threads_would_change_the_numbers(
        two_threads, why):
    model, _ = bilm(dropout=0.1 if why == "dropout" else 0.0)
    model.softmax.num_samples = 5  # below the vocabulary: a real sample
    if why == "one thread":
        torch.set_num_threads(1)
    if why == "plain":
        model.__class__ = BidirectionalLM
    assert not run_directions_at_once(model, processes=2 if why == "processes" else 1,
                                      sampled=why == "sampled")
    assert torch.get_num_threads() == (1 if why == "one thread" else 2)


def test_a_model_that_draws_computes_its_directions_one_after_the_other(two_threads):
    model, batch = bilm(dropout=0.1)
    model.threads_per_direction = 1  # set by hand: dropout would draw in two threads
    torch.manual_seed(1)
    at_once = step(model, batch)
    model.threads_per_direction = 0
    torch.manual_seed(1)
    assert_same_step(at_once, step(model, batch))


def test_a_run_on_two_threads_trains_the_bits_of_a_run_on_one(tmp_path, two_threads):
    sizes = {**THREAD_SENSITIVE, "dropout": 0.0, "sampled_softmax": 0, "max_steps": 5}
    weights = []
    for threads in (1, 2):
        config = micro_config(tmp_path / str(threads), threads=threads, **sizes)
        trainer = Trainer(config)
        assert isinstance(trainer.model, FastBidirectionalLM)
        assert trainer.model.threads_per_direction == (threads // 2)
        trainer.fit()
        weights.append(trainer.model.state_dict())
        trainer.release()
    assert all(torch.equal(weights[0][name], weights[1][name]) for name in weights[0])
