"""Every numeric setting of ``train`` has a range, and a run that runs out of memory ends in one
line (elmo_tutorial.training.train_config).

The settings are enumerated from the dataclasses, so a field added later without a range, or
without a reason here why it needs none, fails these tests.
"""

import dataclasses
import typing

import pytest
from _train_helpers import MICRO_CLI

from elmo_tutorial.commands.cli import main as cli
from elmo_tutorial.model.config import ModelConfig
from elmo_tutorial.training.train_config import TrainConfig


def _numeric_settings() -> list[tuple[str, type]]:
    """``(--key, int or float)`` for every numeric field of TrainConfig and ModelConfig."""
    found = []
    for cls, prefix in ((TrainConfig, ""), (ModelConfig, "model.")):
        hints = typing.get_type_hints(cls)
        for field in dataclasses.fields(cls):
            kinds = {hints[field.name], *typing.get_args(hints[field.name])} & {int, float}
            if kinds and hints[field.name] is not bool:
                found.append((prefix + field.name, float if float in kinds else int))
    return found


SETTINGS = _numeric_settings()

# The settings that take 0, and what 0 means; every other one must refuse it.
ZERO_MEANS = {
    "vocab_min_count": "every word is kept, as with 1",
    "vocab_max_size": "no limit", "adagrad_initial_accumulator": "Adagrad starts from 0",
    "weight_decay": "no decay", "warmup_steps": "no warm-up", "grad_clip": "no clipping",
    "dropout": "no dropout", "sampled_softmax": "the full softmax",
    "max_steps": "epochs decide", "eval_interval": "only at the end",
    "eval_sentences": "the whole split", "train_sentences": "all of them",
    "checkpoint_interval": "only at the end",
    "seed": "a seed like any other", "threads": "one per free core",
    "model.n_highway": "no highway layer",
}
# The settings without an upper bound, and why a huge value costs neither memory nor processes.
# Every other one must refuse a huge value, naming itself and its bound.
UNBOUNDED = {
    "max_sentence_words": "a cap on each sentence: a larger one only keeps more words",
    "vocab_min_count": "a threshold: words seen that often; the vocabulary only shrinks",
    "vocab_max_size": "a cap on the words counted: more than there are is all of them",
    "lr": "a rate, not a size; a loss it makes infinite stops with advice",
    "adagrad_initial_accumulator": "a starting value, not a size",
    "weight_decay": "a rate, not a size",
    "warmup_steps": "time: the learning rate grows more slowly",
    "grad_clip": "a threshold: above every norm it clips nothing",
    "loss_multiplier": "a factor, not a size; a loss it makes infinite stops with advice",
    "epochs": "time, which the progress bar shows; Ctrl-C stops it with a checkpoint",
    "max_steps": "time, which the progress bar shows; Ctrl-C stops it with a checkpoint",
    "eval_interval": "an interval: longer than the run means only at the end",
    "eval_sentences": "a cap on the held-out sentences read",
    "train_sentences": "a cap on the training sentences read",
    "checkpoint_interval": "an interval: longer than the run means only at the end",
    "keep_checkpoints": "a cap: each checkpoint is written at checkpoint_interval only",
    "log_interval": "an interval: longer than the run means only the last step",
    "model.cell_clip": "a threshold: above every value it clips nothing",
    "model.proj_clip": "a threshold: above every value it clips nothing",
}
HUGE = {int: "1000000000000", float: "1e300"}


def _refusal(setting: str, value: str, capsys) -> str:
    """The one-line error ``train --KEY=VALUE`` gives ("" if it takes the value)."""
    code = cli(["train", "--print-config", f"--{setting}={value}"])
    captured = capsys.readouterr()
    if code == 0:
        return ""
    lines = captured.err.strip().splitlines()
    assert code == 2 and len(lines) == 1, f"--{setting}={value}: exit {code}, {captured.err}"
    return lines[0]


def test_the_lists_name_only_settings_that_exist():
    names = {name for name, _ in SETTINGS}
    assert set(ZERO_MEANS) <= names and set(UNBOUNDED) <= names
    assert "batch_size" in names and "model.n_characters" in names


@pytest.mark.parametrize("setting, kind", SETTINGS)
def test_every_numeric_setting_refuses_a_negative_value_by_name(setting, kind, capsys):
    error = _refusal(setting, "-1", capsys)
    assert setting.removeprefix("model.") in error, error or f"{setting}=-1 is taken"
    assert "must" in error or f"{setting} cannot be set" in error


@pytest.mark.parametrize("setting, kind", SETTINGS)
def test_every_numeric_setting_refuses_zero_unless_zero_means_something(setting, kind, capsys):
    error = _refusal(setting, "0", capsys)
    if setting in ZERO_MEANS:
        assert error == "", f"{setting}=0 ({ZERO_MEANS[setting]}) is refused: {error}"
    else:
        assert setting.removeprefix("model.") in error, error or f"{setting}=0 is taken"


@pytest.mark.parametrize("setting, kind", SETTINGS)
def test_every_numeric_setting_refuses_a_huge_value_unless_it_costs_no_memory(setting, kind,
                                                                              capsys):
    error = _refusal(setting, HUGE[kind], capsys)
    if setting in UNBOUNDED:
        assert error == "", f"{setting}: {error}"
    else:
        assert setting.removeprefix("model.") in error and (
            "at most" in error or "more than" in error or "must be" in error
            or "cannot be set" in error), \
            error or f"{setting}={HUGE[kind]} is taken: give it a bound, or a reason in UNBOUNDED"


@pytest.mark.parametrize("setting", [name for name, kind in SETTINGS if kind is float])
@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
def test_every_float_setting_refuses_nan_and_infinity_but_clipping_thresholds(setting, value,
                                                                             capsys):
    error = _refusal(setting, value, capsys)
    if value == "inf" and setting in ("model.cell_clip", "model.proj_clip"):
        assert error == ""  # a threshold above every value: no clipping, as none is
    else:
        assert setting.removeprefix("model.") in error, error or f"{setting}={value} is taken"


@pytest.mark.parametrize("setting", ["model.vocab_size", "model.dropout"])
def test_model_settings_that_training_sets_are_refused_instead_of_dropped(setting, capsys):
    error = _refusal(setting, "5" if "vocab" in setting else "0.5", capsys)
    assert f"{setting} cannot be set" in error


def test_n_characters_must_hold_every_character_id(capsys):
    assert "n_characters must be ≥ 262" in _refusal("model.n_characters", "1", capsys)
    assert _refusal("model.n_characters", "262", capsys) == ""


# -- memory: a step that does not fit is one line

def test_running_out_of_memory_all_the_same_is_one_line(tmp_path, capsys, monkeypatch):
    def spent(*args, **kwargs):
        raise RuntimeError("DefaultCPUAllocator: can't allocate memory: you tried to allocate "
                           "23800000000 bytes. Error code 12 (Cannot allocate memory)")

    monkeypatch.setattr("elmo_tutorial.training.train.run", spent)
    assert cli(["train", "--out", str(tmp_path / "run"), *MICRO_CLI]) == 1
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and "out of memory" in error and "--batch-size" in error
