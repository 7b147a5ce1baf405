"""Full and sampled softmax: the log-uniform sampler, its expected counts, and the loss."""

import math

import pytest
import torch
import torch.nn.functional as F

from elmo_tutorial.model.softmax import (
    IGNORE_INDEX,
    Softmax,
    draw_log_uniform,
    expected_count,
    log_uniform_probs,
    masked_nll,
    sample_log_uniform,
)


def test_log_uniform_probs_sum_to_one_and_follow_the_formula():
    q = log_uniform_probs(1000)
    assert math.isclose(float(q.sum()), 1.0, rel_tol=1e-12)
    for k in (0, 1, 2, 999):
        assert math.isclose(float(q[k]), math.log((k + 2) / (k + 1)) / math.log(1001))
    assert (q[1:] < q[:-1]).all(), "lower ids (more frequent words) must be more probable"


def test_draws_follow_the_log_uniform_distribution():
    generator = torch.Generator().manual_seed(0)
    draws = draw_log_uniform(200_000, 20, generator)
    assert draws.min() >= 0 and draws.max() < 20
    frequencies = torch.bincount(draws, minlength=20).double() / len(draws)
    torch.testing.assert_close(frequencies, log_uniform_probs(20), atol=4e-3, rtol=0)


def test_sampled_candidates_are_distinct_and_count_their_draws():
    generator = torch.Generator().manual_seed(0)
    ids, num_tries = sample_log_uniform(30, 40, generator)
    assert len(ids) == 30 and len(set(ids.tolist())) == 30
    assert ids.min() >= 0 and ids.max() < 40
    assert num_tries > 30, "30 distinct ids out of 40 cannot come without repeated draws"


def test_expected_counts_match_tensorflows_two_cases():
    ids = torch.arange(10)
    q = log_uniform_probs(10)
    torch.testing.assert_close(expected_count(ids, 4, 4, 10), 4 * q)  # no rejected draws
    torch.testing.assert_close(expected_count(ids, 9, 4, 10), 1 - (1 - q) ** 9)


def test_sampled_loss_equals_full_loss_when_every_word_is_a_certain_candidate():
    # Every word is a candidate with expected count 1 (log Q = 0): after removing the target's
    # accidental hit, the sampled softmax normalises over exactly the full vocabulary.
    torch.manual_seed(0)
    softmax = Softmax(8, 50).double()
    h, targets = torch.randn(6, 8, dtype=torch.float64), torch.randint(50, (6,))
    full, n = softmax(h, targets)
    sampled = softmax.sampled_nll(h, targets, candidates=(torch.arange(50), 10**9))
    torch.testing.assert_close(sampled, full)
    assert n == 6


def test_sampled_loss_subtracts_log_q_and_drops_accidental_hits():
    torch.manual_seed(0)
    softmax = Softmax(4, 30).double()
    h, targets = torch.randn(2, 4, dtype=torch.float64), torch.tensor([3, 7])
    ids, tries = torch.tensor([0, 3, 12]), 5  # 3 is an accidental hit for the first row
    logits = F.linear(h, softmax.weight, softmax.bias)  # (2, 30)
    log_q = expected_count(torch.arange(30), tries, 3, 30).log()
    corrected = logits - log_q
    expected = 0.0
    for row, target in enumerate(targets.tolist()):
        negatives = [i for i in ids.tolist() if i != target]
        z = corrected[row, [target, *negatives]]
        expected = expected + torch.logsumexp(z, 0) - z[0]
    torch.testing.assert_close(softmax.sampled_nll(h, targets, (ids, tries)), expected)


def test_sampled_loss_only_updates_target_and_candidate_rows():
    torch.manual_seed(0)
    softmax = Softmax(4, 100)
    targets = torch.tensor([5, 9])
    ids = torch.tensor([0, 1, 40])
    softmax.sampled_nll(torch.randn(2, 4), targets, (ids, 3)).backward()
    touched = softmax.weight.grad.abs().sum(1) > 0
    assert set(torch.nonzero(touched).flatten().tolist()) == {0, 1, 5, 9, 40}


def test_full_nll_ignores_minus_100_and_matches_cross_entropy():
    torch.manual_seed(0)
    softmax = Softmax(8, 20)
    h = torch.randn(3, 4, 8)
    targets = torch.randint(20, (3, 4))
    targets[1, 2:] = -100
    nll_sum, n = softmax(h, targets)
    assert n == 10
    expected = F.cross_entropy(softmax.log_probs(h).view(12, 20), targets.view(12),
                               reduction="sum")
    torch.testing.assert_close(nll_sum, expected)
    changed = h.clone()
    changed[1, 2:] = 1e3  # what the ignored positions see must not matter
    torch.testing.assert_close(softmax(changed, targets)[0], nll_sum)


def test_sampled_mode_with_as_many_samples_as_words_is_the_full_softmax():
    softmax = Softmax(8, 20, num_samples=20)
    h, targets = torch.randn(5, 8), torch.randint(20, (5,))
    torch.testing.assert_close(softmax(h, targets, sampled=True)[0], softmax(h, targets)[0])


def test_sampled_mode_draws_candidates_and_gives_a_finite_loss():
    torch.manual_seed(0)
    softmax = Softmax(8, 500, num_samples=16)
    loss, n = softmax(torch.randn(7, 8), torch.randint(500, (7,)), sampled=True)
    assert n == 7 and torch.isfinite(loss)


def test_out_of_range_targets_are_reported():
    with pytest.raises(ValueError, match=r"word ids in \[0, 20\)"):
        Softmax(8, 20)(torch.randn(2, 8), torch.tensor([3, 20]))


def test_masked_nll_accepts_log_probabilities_and_handles_no_targets():
    X = IGNORE_INDEX
    logits = torch.randn(3, 4, 6)
    targets = torch.tensor([[1, 2, X, X], [0, 5, 5, X], [X, X, X, X]])
    assert torch.allclose(masked_nll(logits, targets), masked_nll(logits.log_softmax(-1), targets))
    assert masked_nll(logits, torch.full((3, 4), X)).item() == 0.0
