"""The one supervised training loop: patience, a cap that grows while a run improves, a floor
of updates for small training sets, the best weights restored, and the same run twice."""

import pytest
import torch
from torch import nn

from elmo_tutorial.analyses.supervised import fit, length_batches


def _problem(n=64, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 1, generator=g)
    return x, 3 * x


def _fit_scripted(scores, **kw):
    """``fit`` on a model that learns nothing useful, with dev scores given round by round."""
    torch.manual_seed(0)
    model = nn.Linear(1, 1)
    x, y = _problem()
    batches = [(x[i:i + 16], y[i:i + 16]) for i in range(0, 64, 16)]
    script = iter(scores)
    result = fit(model, batches, lambda b: nn.functional.mse_loss(model(b[0]), b[1]),
                 lambda: next(script), lr=0.01, **kw)
    return result


def test_patience_stops_five_rounds_after_the_best():
    result = _fit_scripted([1, 2, 3, 2, 2, 2, 2, 2, 9], max_rounds=30, patience=5)
    assert (result.best_round, result.last_round, result.stopped) == (3, 8, "patience")


def test_a_run_still_improving_at_the_cap_gets_more_rounds():
    rising = list(range(1, 40)) + [0] * 10
    result = _fit_scripted(rising, max_rounds=10, patience=5, hard_cap=100)
    assert result.best_round == 39 and result.last_round == 44
    assert result.cap > 10 and result.stopped == "patience"


def test_a_run_whose_patience_has_not_acted_at_the_cap_continues():
    """Best at round 8 of a cap of 10: two rounds of patience used, three left: go on."""
    result = _fit_scripted([1, 2, 3, 4, 5, 6, 7, 8, 7, 7, 7, 7, 7, 7], max_rounds=10, patience=5)
    assert result.last_round == 13 and result.stopped == "patience"


def test_the_hard_cap_is_reported():
    result = _fit_scripted(list(range(100)), max_rounds=5, patience=3, hard_cap=12)
    assert result.last_round == 12 and result.stopped == "cap"


def test_no_stop_before_the_minimum_number_of_updates():
    # 4 batches a pass; a round of at least 10 updates is 3 passes (12 updates).
    result = _fit_scripted([5] + [1] * 20, max_rounds=30, patience=2, min_updates=100,
                           round_updates=10)
    assert result.history[0]["updates"] == 12 and result.history[0]["epochs"] == 3
    assert result.history[-1]["updates"] >= 100
    assert result.history[-2]["updates"] < 100  # it stopped at the first round allowed


def test_the_best_rounds_weights_are_restored_and_runs_repeat_exactly():
    x, y = _problem()
    finals = []
    for _ in range(2):
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(1, 8), nn.Dropout(0.2), nn.Linear(8, 1))
        batches = [(x[i:i + 8], y[i:i + 8]) for i in range(0, 64, 8)]
        snapshots = []

        def score(model=model, snapshots=snapshots):
            model.eval()
            with torch.no_grad():
                value = -float(nn.functional.mse_loss(model(x), y))
            snapshots.append((value, [p.detach().clone() for p in model.parameters()]))
            return value

        result = fit(model, batches, lambda b, m=model: nn.functional.mse_loss(m(b[0]), b[1]),
                     score, lr=0.05, seed=3, max_rounds=8, patience=3)
        best_value, best_params = snapshots[result.best_round - 1]
        assert best_value == max(v for v, _ in snapshots)
        for p, q in zip(model.parameters(), best_params, strict=True):
            assert torch.equal(p, q)
        finals.append(torch.cat([p.flatten() for p in model.parameters()]))
    assert torch.equal(finals[0], finals[1])


def test_no_batches_is_refused():
    with pytest.raises(ValueError, match="at least one training batch"):
        fit(nn.Linear(1, 1), [], lambda b: b, lambda: 0.0, lr=0.1)


def test_length_batches_keep_their_groups_and_shuffle_only_the_order():
    lengths = [5, 1, 3, 8, 2, 7, 4]
    plain = length_batches(lengths, 3, None)
    assert plain == [[1, 4, 2], [6, 0, 5], [3]]
    shuffled = length_batches(lengths, 3, torch.Generator().manual_seed(1))
    assert sorted(map(tuple, shuffled)) == sorted(map(tuple, plain))


def test_a_plateau_halves_the_learning_rate_before_patience_stops_the_run():
    """Halve after 2 rounds without a better dev score (counted from the best round or the
    last cut), stop after 6: a new best resets the count, the rate stays where it was."""
    scores = [1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 9]
    result = _fit_scripted(scores, max_rounds=30, patience=6, lr_patience=2)
    rates = [r["lr"] for r in result.history]
    assert rates == [0.01] * 4 + [0.01 / 2] * 4 + [0.01 / 4] * 2 + [0.01 / 8] * 2
    assert (result.best_round, result.last_round, result.stopped) == (6, 12, "patience")


def test_without_lr_patience_the_rate_stays_constant():
    result = _fit_scripted([1, 2, 2, 2, 2, 2, 2, 9], max_rounds=30, patience=5)
    assert {r["lr"] for r in result.history} == {0.01}


def test_rounds_before_the_first_score_above_zero_count_for_neither_patience_nor_halving():
    """An F1 of 0 is the untrained tagger's: six rounds of it are a start not yet made. The
    rate stays, the run goes on; from the first score above 0 the plateau rules apply."""
    scores = [0, 0, 0, 0, 0, 0, 4, 5, 5, 5, 5, 5, 5, 9]
    result = _fit_scripted(scores, max_rounds=30, patience=4, lr_patience=2,
                           wait_while_zero=True)
    rates = [r["lr"] for r in result.history]
    assert rates == [0.01] * 10 + [0.01 / 2] * 2
    assert (result.best_round, result.last_round, result.stopped) == (8, 12, "patience")
    # without the rule (the default, for scores such as a negative loss): the zero rounds
    # count, the rate is cut and the run stops at 0
    old = _fit_scripted(scores, max_rounds=30, patience=4, lr_patience=2)
    assert [r["lr"] for r in old.history] == [0.01] * 3 + [0.005] * 2
    assert (old.best_round, old.last_round) == (1, 5)


def test_a_run_that_never_scores_above_zero_waits_until_the_planned_cap_only():
    result = _fit_scripted([0] * 12, max_rounds=3, patience=2, hard_cap=9, lr_patience=1,
                           wait_while_zero=True)
    assert (result.last_round, result.stopped) == (3, "cap")
    assert {r["lr"] for r in result.history} == {0.01}
    # one that starts late gets the cap's extensions from then on, as any run
    late = _fit_scripted([0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9], max_rounds=3, patience=2,
                         hard_cap=9, wait_while_zero=True)
    assert (late.last_round, late.stopped) == (9, "cap") and late.best_round == 9


def _batch_order(**kw):
    """The batch indices ``fit`` trains on, in order, for 8 batches and 6 rounds."""
    seen = []
    batches = [torch.tensor([[float(i)]]) for i in range(8)]
    model = nn.Linear(1, 1)

    def loss_of(batch):
        seen.append(int(batch))
        return model(batch).sum() * 0.0

    result = fit(model, batches, loss_of, lambda: 1.0, lr=0.01, seed=5, max_rounds=6,
                 patience=6, hard_cap=6, **kw)
    return seen, result


def test_a_round_cap_scores_dev_within_a_pass_and_keeps_the_batch_order():
    whole, _ = _batch_order()
    cut, result = _batch_order(max_round_updates=3)
    assert len(whole) == 48 and len(cut) == 18  # 6 rounds of a pass, 6 rounds of 3 updates
    assert cut == whole[:18]  # the same shuffled passes, cut every 3 updates
    assert sorted(cut[:8]) == list(range(8))  # the first pass is still a permutation
    assert [r["updates"] for r in result.history] == [3, 6, 9, 12, 15, 18]
    assert result.history[0]["epochs"] == 3 / 8 and result.history[-1]["epochs"] == 18 / 8
    same, _ = _batch_order(max_round_updates=8)  # a cap at a whole pass changes nothing
    assert same == whole
