"""Notebook 12's self-checks accept correct answers and explain the usual mistakes."""

import pytest
import torch
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from elmo_tutorial import checks
from elmo_tutorial.course.exercises import STUB_ADVICE
from elmo_tutorial.tasks.model import TaskModel


def _states(model, words, mask):
    x = torch.where((words == 0).unsqueeze(-1), model.unk, model.words(words))
    packed = pack_padded_sequence(x, mask.sum(1), batch_first=True, enforce_sorted=False)
    return pad_packed_sequence(model.lstm(packed)[0], batch_first=True,
                               total_length=mask.shape[1])[0]


def _pool_and_score(model, h, mask):
    keep = mask.unsqueeze(-1)
    mean = (h * keep).sum(1) / keep.sum(1)
    top = h.masked_fill(~keep, float("-inf")).max(1).values
    return model.output(torch.cat([mean, top], -1))


def elmo_at_output(model, words, mask, layers):
    h = torch.cat([_states(model, words, mask), model.elmo("output", layers, mask)], -1)
    return _pool_and_score(model, h, mask)


def padding_in_the_pools(model, words, mask, layers):
    h = torch.cat([_states(model, words, mask), model.elmo("output", layers, mask)], -1)
    return _pool_and_score(model, h, torch.ones_like(mask))


def test_elmo_at_output_accepts_the_right_model_and_refuses_padding_in_the_pools(capsys):
    checks.check_elmo_at_output(elmo_at_output)
    assert capsys.readouterr().out.startswith("✓")
    with pytest.raises(checks.CheckFailed, match="pool the mean and the max over real tokens"):
        checks.check_elmo_at_output(padding_in_the_pools)


@pytest.mark.parametrize("delegating", [
    lambda model, words, mask, layers: model(words, mask, layers),
    lambda model, words, mask, layers: model.forward(words, mask, layers),
    lambda model, words, mask, layers: TaskModel.forward(model, words, mask, layers),
], ids=["model()", "model.forward()", "TaskModel.forward()"])
def test_elmo_at_output_refuses_the_models_own_forward(delegating):
    with pytest.raises(checks.Delegated, match=r"TaskModel\.forward.*from the model's parts"):
        checks.check_elmo_at_output(delegating)
    assert TaskModel.forward.__name__ == "forward", "the forward is given back"


def test_elmo_at_output_fails_on_a_stub_and_on_nothing():
    def my_elmo_at_output(model, words, mask, layers):
        raise NotImplementedError("Exercise 2: ELMo at the output. " + STUB_ADVICE)

    with pytest.raises(checks.NotWrittenYet, match=r"^Exercise 2 \(ELMo at the output\) is "
                                                    "not written yet: `my_elmo_at_output`"):
        checks.check_elmo_at_output(my_elmo_at_output)
    with pytest.raises(checks.CheckFailed, match="returned None"):
        checks.check_elmo_at_output(lambda model, words, mask, layers: None)
    with pytest.raises(checks.CheckFailed, match=r"shape \(0,\), expected \(2, 3\)"):
        checks.check_elmo_at_output(lambda model, words, mask, layers: torch.empty(0))


def test_error_reduction_accepts_the_formula_and_refuses_the_absolute_gain():
    checks.check_error_reduction(lambda b, e: 100 * (e - b) / (100 - b))
    with pytest.raises(checks.CheckFailed, match="error before"):
        checks.check_error_reduction(lambda b, e: e - b)


def _with_layers(split, layers):
    from elmo_tutorial.tasks.training import TaskSplit

    return TaskSplit(split.words, layers, split.targets, split.classes, split.chars)


def test_top_layer_only_accepts_the_top_layer_and_explains_the_usual_mistakes(capsys):
    from elmo_tutorial.tasks.training import TaskSplit

    checks.check_top_layer_only(lambda s: _with_layers(s, [x[:, -1:] for x in s.layers]))
    assert capsys.readouterr().out.startswith("✓")
    with pytest.raises(checks.CheckFailed, match="not the top one"):
        checks.check_top_layer_only(lambda s: _with_layers(s, [x[:, :1] for x in s.layers]))
    with pytest.raises(checks.CheckFailed, match="keep the layer axis"):
        checks.check_top_layer_only(lambda s: _with_layers(s, [x[:, -1] for x in s.layers]))
    with pytest.raises(checks.CheckFailed, match="return a TaskSplit"):
        checks.check_top_layer_only(lambda s: [x[:, -1:] for x in s.layers])
    with pytest.raises(checks.CheckFailed, match="characters were lost"):
        checks.check_top_layer_only(lambda s: TaskSplit(s.words, [x[:, -1:] for x in s.layers],
                                                        s.targets, s.classes))


def test_error_reduction_refuses_a_table_of_the_cases_the_prompt_prints():
    """The notebook prints SST-5's and NER's reductions; a lookup of the known cases (and 0
    otherwise) must not pass: the check draws fresh cases on every run."""
    known = {(51.4, 54.7): 6.8, (90.15, 92.22): 21.0, (80.0, 80.0): 0.0, (60.0, 50.0): -25.0}
    with pytest.raises(checks.CheckFailed, match="error before"):
        checks.check_error_reduction(lambda b, e: known.get((b, e), 0.0))


_TASKS = {"chunk": {"arms": {"baseline": {"runs": [90.0, 90.5, 89.8, 90.2, 90.1]},
                             "elmo": {"runs": [92.1, 93.0, 92.4, 92.9, 92.6]}}},
          "ner": {"arms": {"baseline": {"runs": [80.0, 81.0, 79.5, 80.2, 80.9]},
                           "elmo": {"runs": [85.0, 85.5, 87.1, 86.0, 86.6]}}}}
SEED_COUNTS = [2, 3, 5]


def _by_n(first=True, baseline_first=True):
    """Notebook 12's Exercise 3 on two tasks; the flags make the usual slips."""
    from elmo_tutorial.analyses.paired import paired_difference

    by_n = {}
    for task, entry in _TASKS.items():
        a, b = (entry["arms"][arm]["runs"] for arm in ("baseline", "elmo"))
        a, b = (a, b) if baseline_first else (b, a)
        for n in SEED_COUNTS:
            by_n[task, n] = paired_difference(a[:n], b[:n]) if first else paired_difference(
                a[-n:], b[-n:])
    return by_n


def test_seed_counts_pass_when_every_entry_is_right(capsys):
    checks.check_seed_counts(_by_n(), _TASKS, SEED_COUNTS)
    assert "2 tasks from their first 2, 3, 5 seeds" in capsys.readouterr().out


@pytest.mark.parametrize(("by_n", "says"), [
    ({**_by_n(), ("ner", 2): _by_n()["ner", 3]}, r"by_n\['ner', 2\]"),  # any point, not only 5
    (_by_n(first=False), "the last n seeds"),
    (_by_n(baseline_first=False), "pass the baseline's runs first"),
    ({k: v for k, v in _by_n().items() if k != ("chunk", 3)}, r"no entry for \('chunk', 3\)"),
    ({**_by_n(), ("chunk", 2): 1.5}, "not what paired_difference returns"),
    ({}, "by_n is empty"),
])
def test_seed_counts_fail_on_a_wrong_entry(by_n, says):
    with pytest.raises(checks.CheckFailed, match=says):
        checks.check_seed_counts(by_n, _TASKS, SEED_COUNTS)
