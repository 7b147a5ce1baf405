"""Training the two LM directions in two threads gives the same numbers as one thread."""

import pytest
import torch

from elmo_tutorial.model.batching import make_lm_batch
from elmo_tutorial.model.config import ModelConfig
from elmo_tutorial.fast.direction_threads import DirectionThreads
from elmo_tutorial.model.lm import BidirectionalLM
from elmo_tutorial.model.vocab import Vocabulary

SENTENCES = [["the", "bank", "of", "the", "river"], ["money", "in", "the", "bank", "."],
             ["a", "river"], ["she", "paid", "the", "money", "into", "the", "bank", "today"]]


def _model(dropout: float = 0.0) -> tuple[BidirectionalLM, Vocabulary]:
    vocab = Vocabulary.from_sentences(SENTENCES)
    config = ModelConfig(char_embed_dim=4, filters=((1, 8), (2, 8)), n_highway=1,
                         lstm_dim=16, projection_dim=8, n_layers=2, cell_clip=None,
                         proj_clip=None, vocab_size=len(vocab), dropout=dropout)
    torch.manual_seed(0)
    return BidirectionalLM(config), vocab


def _loss_and_gradients(model, batch, **kwargs):
    model.zero_grad(set_to_none=True)
    out = model(batch, **kwargs)
    (out.loss * 3.0).backward()
    return out, {name: p.grad.clone() for name, p in model.named_parameters()}


def test_a_step_in_two_threads_has_the_loss_and_gradients_of_one_thread_bit_for_bit(one_thread):
    model, vocab = _model()
    batch = make_lm_batch(SENTENCES, vocab)
    one, grads_one = _loss_and_gradients(model, batch)
    with DirectionThreads(1) as threads:
        two, grads_two = _loss_and_gradients(model, batch, direction_threads=threads)
    assert torch.equal(one.loss, two.loss) and one.n_tokens == two.n_tokens
    assert torch.equal(one.forward_nll, two.forward_nll)
    assert torch.equal(one.backward_nll, two.backward_nll)
    assert grads_one.keys() == grads_two.keys()
    for name, grad in grads_one.items():
        assert torch.equal(grad, grads_two[name]), name


def test_random_draws_inside_the_directions_are_refused():
    model, vocab = _model(dropout=0.1)
    batch = make_lm_batch(SENTENCES, vocab)
    with DirectionThreads(1) as threads, pytest.raises(ValueError, match="dropout"):
        model(batch, direction_threads=threads)
    model.eval()  # no dropout in evaluation: allowed
    with DirectionThreads(1) as threads, torch.no_grad():
        out = model(batch, direction_threads=threads)
    assert torch.isfinite(out.loss)


def test_training_on_two_threads_runs_the_directions_at_once_and_matches_one_thread(
        tmp_path, monkeypatch):
    from _train_helpers import micro_config

    from elmo_tutorial.model.checkpoint import load_weights
    from elmo_tutorial.training.train import Trainer

    calls = []
    nll = DirectionThreads.nll
    monkeypatch.setattr(DirectionThreads, "nll", lambda self, *a: calls.append(1) or nll(self, *a))
    threads = torch.get_num_threads()
    for n in (1, 2):
        config = micro_config(tmp_path / f"threads{n}", threads=n, dropout=0.0,
                              sampled_softmax=0, max_steps=4)
        Trainer(config).fit()
        assert len(calls) == (0 if n == 1 else 4)
        assert torch.get_num_threads() == 1  # one direction's threads, also afterwards
    torch.set_num_threads(threads)
    one = load_weights(tmp_path / "threads1" / "model.safetensors")
    two = load_weights(tmp_path / "threads2" / "model.safetensors")
    assert all(torch.equal(one[name], two[name]) for name in one)


def test_training_with_dropout_keeps_the_directions_in_one_thread(tmp_path, monkeypatch):
    from _train_helpers import micro_config

    from elmo_tutorial.training.train import Trainer

    monkeypatch.setattr(DirectionThreads, "nll", lambda *a: pytest.fail("threads with dropout"))
    threads = torch.get_num_threads()
    Trainer(micro_config(tmp_path, threads=2, max_steps=2)).fit()  # dropout 0.2, sampled
    torch.set_num_threads(threads)
