"""Every numeric setting of ``train`` has a range, and a run that would not fit in memory is
refused before it allocates, saying what fits (elmo_tutorial.training.train_config, training.cost).

The settings are enumerated from the dataclasses, so a field added later without a range, or
without a reason here why it needs none, fails these tests.
"""

import dataclasses
import math
import os
import subprocess
import sys
import textwrap
import typing

import pytest
from _train_helpers import MICRO_CLI

from elmo_tutorial.commands.cli import main as cli
from elmo_tutorial.model.config import MODEL_PRESETS, ModelConfig
from elmo_tutorial.training import cost
from elmo_tutorial.training.cost import parameter_counts, step_memory
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
    "max_sentence_words": "a cap on each sentence: the memory estimate counts the longest kept",
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


# -- memory: estimated before anything is allocated ----------------------------------------------

def _available(monkeypatch, size: int) -> None:
    monkeypatch.setattr(cost, "available_memory", lambda device: (size, "this machine"))


def test_a_batch_that_does_not_fit_is_refused_with_the_largest_that_fits(tmp_path, capsys,
                                                                         monkeypatch):
    _available(monkeypatch, 2 * 10**9)
    out = tmp_path / "run"
    assert cli(["train", "--out", str(out), "--batch_size=60000", "--threads=1"]) == 2
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and "one training step needs about" in error
    assert "this machine has 2.0 GB free" in error and not out.exists()
    fits = int(error.rsplit("--batch_size=", 1)[1])
    # the advice is the largest that fits: the next one does not (tiny preset, embedded corpus)
    model = TrainConfig.preset("tiny").model_config(vocab_size=599)
    need = lambda batch: sum(step_memory(model, "adam", 0, batch, 32))  # noqa: E731
    assert 100 < fits < 60000 and need(fits) <= 2 * 10**9 < need(fits + 1)


def test_a_model_that_alone_does_not_fit_says_so(tmp_path, capsys, monkeypatch):
    _available(monkeypatch, 10**5)
    assert cli(["train", "--out", str(tmp_path / "run"), *MICRO_CLI]) == 2
    assert "the model alone does not fit" in capsys.readouterr().err


def test_what_fits_is_trained(tmp_path, monkeypatch):
    _available(monkeypatch, 10**9)
    assert cli(["train", "--out", str(tmp_path / "run"), *MICRO_CLI, "--max_steps=1"]) == 0


def test_available_memory_counts_a_ulimit_on_the_address_space():
    child = textwrap.dedent("""
        import resource, torch
        from elmo_tutorial.runtime import available_memory
        used = int(open("/proc/self/statm").read().split()[0]) * resource.getpagesize()
        resource.setrlimit(resource.RLIMIT_AS, (used + 10**9, resource.RLIM_INFINITY))
        print(available_memory(torch.device("cpu"))[0])
    """)
    free = int(subprocess.run([sys.executable, "-c", child], capture_output=True, text=True,
                              check=True).stdout)
    assert 0.9e9 < free <= 1e9


def test_running_out_of_memory_all_the_same_is_one_line(tmp_path, capsys, monkeypatch):
    def spent(*args, **kwargs):
        raise RuntimeError("DefaultCPUAllocator: can't allocate memory: you tried to allocate "
                           "23800000000 bytes. Error code 12 (Cannot allocate memory)")

    monkeypatch.setattr("elmo_tutorial.training.train.run", spent)
    assert cli(["train", "--out", str(tmp_path / "run"), *MICRO_CLI]) == 1
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and "out of memory" in error and "--batch-size" in error


# The estimate is an upper bound of the measured peak, and not far above it: within this factor.
ESTIMATE_AT_MOST = 2.0
_MEASURE = textwrap.dedent("""
    import sys, tempfile, torch
    from elmo_tutorial.training.train import Trainer
    from elmo_tutorial.training.cost import step_memory
    from elmo_tutorial.training.train_config import TrainConfig, apply_overrides

    def status(key):
        return next(int(line.split()[1]) * 1024 for line in open("/proc/self/status")
                    if line.startswith(key))

    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as out:
        config = apply_overrides(TrainConfig.preset("tiny"), {
            "batch_size": 256, "out_dir": out, "progress": False, "device": "cpu",
            "threads": 1})
        trainer = Trainer(config)
        batch = max(trainer._batches(0), key=lambda b: sum(len(trainer.train_sents[i]) for i in b))
        tokens = max(len(trainer.train_sents[i]) for i in batch) + 2
        open("/proc/self/clear_refs", "w").write("5")  # the peak (VmHWM) starts from now
        before = status("VmRSS")
        trainer.train_step(batch)
        estimate = sum(step_memory(trainer.model_config, "adam", 0, len(batch), tokens))
        print(status("VmHWM") - before, estimate)
""")


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists("/proc/self/clear_refs"), reason="Linux's peak RSS")
def test_the_estimate_bounds_the_measured_peak_of_a_tiny_step():
    measured, estimate = map(int, subprocess.run(
        [sys.executable, "-c", _MEASURE], capture_output=True, text=True, check=True,
        env={**os.environ, "PYTHONHASHSEED": "0"}).stdout.split())
    assert measured <= estimate <= ESTIMATE_AT_MOST * measured, (measured, estimate)


def test_the_estimate_grows_with_what_a_step_keeps():
    tiny = dataclasses.replace(MODEL_PRESETS["tiny"], vocab_size=600)
    fixed, batch = step_memory(tiny, "adam", 0, 32, 32)
    assert fixed == 16 * sum(parameter_counts(tiny).values())  # weights, gradients, Adam
    assert step_memory(tiny, "adagrad", 0, 32, 32)[0] == fixed * 3 // 4
    assert step_memory(tiny, "adam", 0, 64, 32)[1] > 1.5 * batch  # twice the sentences
    assert step_memory(tiny, "adam", 100, 32, 32)[1] < batch  # fewer candidates than words
    assert math.isclose(step_memory(tiny, "adam", 0, 0, 32)[1], 0)
