"""The task model of notebook 12: shapes, masking, ELMo at the input and the output, training."""

import pytest
import torch

from elmo_tutorial.tasks.model import TaskModel
from elmo_tutorial.tasks.training import TaskSplit, evaluate, train_task_model

V, D, L = 12, 6, 3


def _model(task="classify", elmo_at=(), **kw):
    torch.manual_seed(0)
    return TaskModel(torch.randn(V, D), n_classes=4, task=task, elmo_layers=L, elmo_dim=8,
                     elmo_at=elmo_at, hidden_size=5, **kw).eval()


def _inputs():
    words = torch.tensor([[3, 4, 5, 0], [6, 7, 0, 0]])
    mask = torch.tensor([[1, 1, 1, 1], [1, 1, 0, 0]]).bool()
    return words, mask, torch.randn(2, 4, L, 8)


@pytest.mark.parametrize("elmo_at", [(), ("input",), ("output",), ("input", "output")])
def test_shapes_of_the_tagger_and_the_classifier(elmo_at):
    words, mask, layers = _inputs()
    assert _model("tag", elmo_at)(words, mask, layers).shape == (2, 4, 4)
    assert _model("classify", elmo_at)(words, mask, layers).shape == (2, 4)


@pytest.mark.parametrize("task", ["tag", "classify"])
def test_padding_does_not_change_any_real_output(task):
    """Junk in the padded positions (word ids and layers) must not reach a real output."""
    model = _model(task, ("input", "output"))
    words, mask, layers = _inputs()
    junk_words, junk_layers = words.clone(), layers.clone()
    junk_words[~mask] = 9
    junk_layers[~mask] = 100.0
    a, b = model(words, mask, layers), model(junk_words, mask, junk_layers)
    if task == "tag":
        a, b = a[mask], b[mask]
    torch.testing.assert_close(a, b)


def test_each_place_has_its_own_mix_and_the_lstm_sees_the_right_widths():
    both = _model("tag", ("output", "input"))
    assert both.elmo_at == ("input", "output") and set(both.mixes) == {"input", "output"}
    assert both.mixes["input"] is not both.mixes["output"]
    assert both.lstm.input_size == D + 8 and both.output.in_features == 2 * 5 + 8
    inp = _model("tag", ("input",))
    assert inp.lstm.input_size == D + 8 and inp.output.in_features == 2 * 5
    out = _model("classify", ("output",))
    assert out.lstm.input_size == D and out.output.in_features == 2 * (2 * 5 + 8)


def test_the_biLM_layers_matter_only_with_elmo_and_gradients_reach_both_mixes():
    words, mask, layers = _inputs()
    base = _model("tag")
    torch.testing.assert_close(base(words, mask, layers), base(words, mask, layers * 3 + 1))
    assert base(words, mask, None).shape == (2, 4, 4)  # the baseline needs no layers
    model = _model("tag", ("input", "output")).train()
    model(words, mask, layers).sum().backward()
    for place in ("input", "output"):
        grad = model.mixes[place].scalar_parameters.grad
        assert grad is not None and grad.abs().sum() > 0, f"no gradient reaches the {place} mix"


def test_penalty_is_the_sum_of_both_mixes_squared_weights():
    model = _model("tag", ("input", "output"))
    with torch.no_grad():
        model.mixes["input"].scalar_parameters.copy_(torch.tensor([1.0, 0.0, 0.0]))
        model.mixes["output"].scalar_parameters.copy_(torch.tensor([0.0, 2.0, 0.0]))
    assert model.penalty().item() == pytest.approx(5.0)
    assert _model("tag").penalty().item() == 0.0


def test_static_vectors_are_frozen_and_unknown_words_share_a_trained_vector():
    model = _model("tag").train()
    words, mask, _ = _inputs()
    model(words, mask).sum().backward()
    assert not model.words.weight.requires_grad
    assert model.unk.grad is not None and model.unk.grad.abs().sum() > 0  # id 0 is <UNK>


def test_bad_places_are_refused_with_the_accepted_ones():
    with pytest.raises(ValueError, match="subset of"):
        TaskModel(torch.randn(V, D), 2, elmo_layers=3, elmo_dim=8, elmo_at=("middle",))
    with pytest.raises(ValueError, match="'tag' or 'classify'"):
        TaskModel(torch.randn(V, D), 2, task="parse")


def _toy_split(n, seed):
    """Sentences of random words; the label says whether word 1 occurs (learnable)."""
    g = torch.Generator().manual_seed(seed)
    words = [torch.randint(2, V, (int(torch.randint(3, 8, (1,), generator=g)),), generator=g)
             for _ in range(n)]
    for w in words[: n // 2]:
        w[0] = 1
    return TaskSplit(words, [torch.randn(len(w), L, 8) for w in words],
                     [int((w == 1).any()) for w in words], ["no", "yes"])


def test_training_learns_a_toy_task_and_keeps_the_best_dev_epoch(one_thread):
    torch.manual_seed(0)
    model = TaskModel(torch.randn(V, D), 2, "classify", L, 8, ("input",), hidden_size=8,
                      dropout=0.0)
    train, valid = _toy_split(100, 0), _toy_split(60, 1)
    result = train_task_model(model, train, valid, max_epochs=8, patience=8, lr=1e-2)
    history = result.history
    assert max(r["valid"] for r in history) > 90, history
    assert evaluate(model, valid) == max(r["valid"] for r in history)  # best epoch restored
    assert history[result.best_round - 1]["valid"] == result.best_valid


@pytest.mark.parametrize("fast", [True, False], ids=["fast", "plain"])
def test_training_switches_the_dropout_to_its_fast_version_unless_told_not_to(fast):
    from elmo_tutorial.fast.dropout import FastDropout

    torch.manual_seed(0)
    model = TaskModel(torch.randn(V, D), 2, "classify", L, 8, ("input",), hidden_size=4)
    assert type(model.dropout) is torch.nn.Dropout  # the model as built is the plain one
    train, valid = _toy_split(20, 0), _toy_split(10, 1)
    train_task_model(model, train, valid, max_epochs=1, patience=1, hard_cap=1, fast=fast)
    assert type(model.dropout) is (FastDropout if fast else torch.nn.Dropout)


@pytest.mark.parametrize("places", [("input",), ("input", "output")])
def test_elmo_is_dropped_out_once_with_the_rate_of_the_whole_input(places):
    """One dropout on [x; ELMo]: each ELMo unit is kept with probability 1 - p and scaled by
    1 / (1 - p), not dropped twice (0.5 then 0.3 would keep 35 %, scaled by 2.86)."""
    torch.manual_seed(0)
    model = TaskModel(torch.randn(V, D), 4, "tag", L, 64, places, hidden_size=5,
                      dropout=0.5).train()
    words = torch.randint(1, V, (8, 50))
    mask = torch.ones(8, 50, dtype=torch.bool)
    layers = torch.randn(8, 50, L, 64)
    seen = {}
    model.lstm.register_forward_pre_hook(lambda m, args: seen.update(x=args[0].data))
    model.output.register_forward_pre_hook(lambda m, args: seen.update(h=args[0]))
    model(words, mask, layers)
    clean = model.elmo("input", layers, mask).flatten()  # ELMo before any dropout
    dropped = seen["x"][:, D:]  # the ELMo columns of the LSTM's (packed) input
    kept = dropped[dropped != 0]
    assert 0.45 < kept.numel() / dropped.numel() < 0.55, kept.numel() / dropped.numel()
    # every kept value is twice an ELMo value: scaled by 1 / (1 - 0.5), once
    assert torch.isin((kept / 2).round(decimals=4), clean.round(decimals=4)).all()
    if "output" in places:
        h_elmo = seen["h"][..., -64:]
        assert 0.45 < (h_elmo != 0).float().mean() < 0.55


def test_the_mix_uses_no_layer_norm_unless_asked():
    assert not _model("tag", ("input",)).mixes["input"].do_layer_norm
    assert _model("tag", ("input",), do_layer_norm=True).mixes["input"].do_layer_norm
