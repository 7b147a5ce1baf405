"""The two LM directions in two threads give the same numbers as one thread, in training too."""

import pytest
import torch

from elmo_tutorial.fast.direction_threads import (
    DirectionThreads,
    encode_in_threads,
    lm_loss_in_threads,
)
from elmo_tutorial.model.batching import make_lm_batch
from elmo_tutorial.model.chars import check_char_ids
from elmo_tutorial.model.config import ModelConfig
from elmo_tutorial.model.dropout import step_generators
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


def _loss_and_gradients(model, batch, threads=None, sampled=False, step=0):
    generators = step_generators(0, step) if model.config.dropout or sampled else None
    model.zero_grad(set_to_none=True)
    out = (model(batch, sampled=sampled, generators=generators) if threads is None else
           lm_loss_in_threads(model, batch, threads, sampled=sampled, generators=generators))
    (out.loss * 3.0).backward()
    return out, {name: p.grad.clone() for name, p in model.named_parameters()}


@pytest.mark.parametrize("dropout, sampled", [(0.0, False), (0.3, False), (0.3, True)])
def test_a_step_in_two_threads_has_the_loss_and_gradients_of_one_thread_bit_for_bit(
        one_thread, dropout, sampled):
    model, vocab = _model(dropout)
    model.softmax.num_samples = 6  # of 13 words: the sampled softmax draws candidates
    batch = make_lm_batch(SENTENCES, vocab)
    one, grads_one = _loss_and_gradients(model, batch, sampled=sampled)
    with DirectionThreads(1) as threads:
        two, grads_two = _loss_and_gradients(model, batch, threads, sampled=sampled)
    assert torch.equal(one.loss, two.loss) and one.n_tokens == two.n_tokens
    assert torch.equal(one.forward_nll, two.forward_nll)
    assert torch.equal(one.backward_nll, two.backward_nll)
    assert grads_one.keys() == grads_two.keys()
    for name, grad in grads_one.items():
        assert torch.equal(grad, grads_two[name]), name
    if dropout or sampled:  # and the draws are real: another step draws other masks
        other, _ = _loss_and_gradients(model, batch, sampled=sampled, step=1)
        assert not torch.equal(one.loss, other.loss)


def test_each_direction_draws_its_own_masks_from_its_own_stream(one_thread):
    model, vocab = _model(dropout=0.5)
    mask = check_char_ids(make_lm_batch(SENTENCES, vocab).char_ids)
    x = torch.ones(4, mask.shape[1], 8)

    def layers(generators):
        return model.encode_embeddings(x, mask, generators)

    first = layers(step_generators(0, 0))
    assert all(torch.equal(a, b) for d in ("forward", "backward")
               for a, b in zip(first[d], layers(step_generators(0, 0))[d], strict=True))
    # a forward stream of another step leaves the backward direction's masks as they were
    mixed = {**step_generators(0, 0), "forward": step_generators(0, 1)["forward"]}
    again = layers(mixed)
    assert torch.equal(again["backward"][1], first["backward"][1])
    assert not torch.equal(again["forward"][1], first["forward"][1])


def test_random_draws_inside_the_directions_need_their_generators():
    model, vocab = _model(dropout=0.1)
    batch = make_lm_batch(SENTENCES, vocab)
    with DirectionThreads(1) as threads:
        with pytest.raises(ValueError, match="generators=step_generators"):
            lm_loss_in_threads(model, batch, threads)
        with pytest.raises(ValueError, match="generators=step_generators"):
            encode_in_threads(model, torch.randn(2, 3, 8), torch.ones(2, 3, dtype=torch.bool),
                              threads)
        with pytest.raises(ValueError, match="one per direction"):  # one stream is missing
            lm_loss_in_threads(model, batch, threads,
                               generators={"forward": torch.Generator().manual_seed(0)})
    model.eval()  # no dropout in evaluation: allowed without generators
    with DirectionThreads(1) as threads, torch.no_grad():
        out = lm_loss_in_threads(model, batch, threads)
    assert torch.isfinite(out.loss)


def test_the_sampled_softmax_in_threads_needs_generators():
    model, vocab = _model()
    model.softmax.num_samples = 6
    with DirectionThreads(1) as threads, pytest.raises(ValueError, match="sampled=True"):
        lm_loss_in_threads(model, make_lm_batch(SENTENCES, vocab), threads, sampled=True)


@pytest.mark.parametrize("mode", ["grad", "no_grad", "inference"])
def test_encoding_in_threads_equals_encode_embeddings_in_the_callers_autograd_mode(mode):
    model, vocab = _model()
    batch = make_lm_batch(SENTENCES, vocab)
    mask = check_char_ids(batch.char_ids)  # (B, T): real positions
    word_emb = model.char_cnn(batch.char_ids).detach().requires_grad_(mode == "grad")
    context = {"grad": torch.enable_grad, "no_grad": torch.no_grad,
               "inference": torch.inference_mode}[mode]
    with DirectionThreads(1) as threads, context():
        expected = model.encode_embeddings(word_emb, mask)
        got = encode_in_threads(model, word_emb, mask, threads)
    assert got.keys() == expected.keys()
    for direction in ("forward", "backward"):
        for a, b in zip(got[direction], expected[direction], strict=True):
            assert torch.equal(a, b), direction
            assert a.requires_grad == (mode == "grad") and a.is_inference() == b.is_inference()
    if mode == "grad":  # the graphs built in the workers carry gradients back to the caller
        sum(h.sum() for h in got["backward"]).backward()
        assert word_emb.grad is not None and word_emb.grad.abs().sum() > 0


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


def test_training_with_dropout_and_sampling_runs_the_directions_at_once_with_the_same_bits(
        tmp_path, monkeypatch):
    from _train_helpers import micro_config

    from elmo_tutorial.model.checkpoint import load_weights
    from elmo_tutorial.training.train import Trainer

    calls = []
    nll = DirectionThreads.nll
    monkeypatch.setattr(DirectionThreads, "nll", lambda self, *a: calls.append(1) or nll(self, *a))
    threads = torch.get_num_threads()
    try:
        for n in (1, 2):  # micro_config: dropout 0.2 and the sampled softmax
            Trainer(micro_config(tmp_path / f"threads{n}", threads=n, max_steps=3)).fit()
            assert len(calls) == (0 if n == 1 else 3)
    finally:
        torch.set_num_threads(threads)
    one = load_weights(tmp_path / "threads1" / "model.safetensors")
    two = load_weights(tmp_path / "threads2" / "model.safetensors")
    assert all(torch.equal(one[name], two[name]) for name in one)


def test_a_trainer_told_fast_false_trains_the_plain_model_one_direction_after_the_other(
        tmp_path, monkeypatch):
    from _train_helpers import micro_config

    from elmo_tutorial.fast import is_fast
    from elmo_tutorial.training.train import Trainer

    monkeypatch.setattr(DirectionThreads, "nll", lambda *a: pytest.fail("threads, fast=False"))
    threads = torch.get_num_threads()
    config = micro_config(tmp_path / "plain", threads=2, dropout=0.0, sampled_softmax=0,
                          max_steps=2)
    try:
        trainer = Trainer(config, fast=False)
        assert not is_fast(trainer.model)
        trainer.fit()
        by_default = Trainer(micro_config(tmp_path / "fast", max_steps=2))
        by_default.release()
    finally:
        torch.set_num_threads(threads)
    assert is_fast(by_default.model)
