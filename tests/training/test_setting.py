"""Each training setting is declared once (``elmo_tutorial.training.setting``): its field holds
its default, help, range and resume rule, and ``--help``, the range checks and the resume
policy read that declaration. A field added without one of them fails here."""

import dataclasses
import typing

import pytest

from elmo_tutorial.commands.cli import main as cli
from elmo_tutorial.model.config import ModelConfig
from elmo_tutorial.training import resume_policy
from elmo_tutorial.training.setting import RESUME_RULES, setting
from elmo_tutorial.training.train_bounds import train_config_problems
from elmo_tutorial.training.train_config import (
    CHANGEABLE_ON_RESUME,
    FIXED_ON_RESUME,
    SILENT_ON_RESUME,
    TrainConfig,
    check_resume,
)

TRAIN_FIELDS = dataclasses.fields(TrainConfig)
# Strings that name no fixed set of things, and why they need no choices.
FREE_TEXT = {"out_dir": "a folder: any path"}


def _kind(cls, field) -> set:
    hint = typing.get_type_hints(cls)[field.name]
    return {hint, *typing.get_args(hint)}


@pytest.mark.parametrize("field", TRAIN_FIELDS, ids=lambda f: f.name)
def test_every_train_setting_declares_help_a_range_and_a_resume_rule(field):
    meta = field.metadata
    assert meta.get("help"), f"{field.name}: declare it with setting(default, help=...)"
    assert meta.get("on_resume") in RESUME_RULES and meta.get("why"), \
        f"{field.name}: give on_resume= (one of {list(RESUME_RULES)}) and why="
    kinds = _kind(TrainConfig, field)
    if kinds & {int, float} and bool not in kinds:
        assert meta["minimum"] is not None or meta["above"] is not None, \
            f"{field.name}: a number needs minimum= or above="
    if str in kinds and field.name not in FREE_TEXT:
        assert meta["choices"], f"{field.name}: a string needs choices= (or a reason in FREE_TEXT)"


@pytest.mark.parametrize("field", dataclasses.fields(ModelConfig), ids=lambda f: f.name)
def test_every_model_field_declares_its_help(field):
    assert field.metadata.get("help"), f"model.{field.name}: declare it with described()"


@pytest.mark.parametrize("declaration, complaint", [
    (dict(default=0.5, help="a rate", on_resume="changeable", why="next step"), "needs a range"),
    (dict(default=1, help="", minimum=0, on_resume="fixed", why="it is"), "help line"),
    (dict(default=1, help="steps", minimum=0, on_resume="maybe", why="it is"), "on_resume"),
    (dict(default=1, help="steps", minimum=0, on_resume="fixed", why=""), "why="),
])
def test_a_setting_missing_a_part_is_refused_where_it_is_declared(declaration, complaint):
    with pytest.raises(TypeError, match=complaint):
        setting(**declaration)


def test_help_lists_every_setting_with_its_declared_help_and_choices(capsys):
    with pytest.raises(SystemExit):
        cli(["train", "--help"])
    lines = capsys.readouterr().out.splitlines()
    for cls, prefix in ((TrainConfig, ""), (ModelConfig, "model.")):
        for field in dataclasses.fields(cls):
            if field.name == "model_overrides":  # that one is --model.FIELD=
                continue
            line = next((x for x in lines if x.strip().startswith(f"--{prefix}{field.name}=")),
                        None)
            assert line is not None, f"--help does not list --{prefix}{field.name}="
            assert field.metadata["help"] in line, line
            for choice in field.metadata.get("choices") or ():
                assert choice in line, f"--help does not name {choice!r}: {line}"


def _outside(meta: dict):
    """A value just outside a declared range (``None`` when the field declares none)."""
    if meta.get("choices"):
        return "not_one_of_them"
    if meta.get("maximum") is not None:
        return meta["maximum"] + 1
    if meta.get("below") is not None:
        return meta["below"]
    if meta.get("above") is not None:
        return meta["above"]
    if meta.get("minimum") is not None:
        return meta["minimum"] - 1
    return None


RANGED = [f for f in TRAIN_FIELDS if _outside(f.metadata) is not None]


@pytest.mark.parametrize("field", RANGED, ids=lambda f: f.name)
def test_a_value_outside_the_declared_range_is_one_clear_line(field, capsys):
    value = _outside(field.metadata)
    shown = value if isinstance(value, str) else f"{value}"
    assert cli(["train", "--print-config", f"--{field.name}={shown}"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    assert f"{field.name} must" in lines[0] or f"{field.name} is" in lines[0], lines[0]


def test_the_range_checks_read_the_declaration_of_any_class():
    @dataclasses.dataclass
    class Toy:
        steps: int = setting(3, "steps", minimum=1, maximum=10, on_resume="changeable",
                             why="training goes on")
        rate: float = setting(0.5, "a probability", minimum=0, below=1, on_resume="changeable",
                              why="from the next step")

    assert train_config_problems(Toy()) == []
    assert train_config_problems(Toy(steps=11)) == [
        "steps is 11, more than any run can use (at most 10)"]
    assert train_config_problems(Toy(steps=0, rate=1.0)) == [
        "steps must be ≥ 1, got 0", "rate must be in [0, 1), got 1.0"]


def test_the_resume_tables_are_the_declared_rules_and_reasons():
    for field in TRAIN_FIELDS:
        rule, why = field.metadata["on_resume"], field.metadata["why"]
        assert (FIXED_ON_RESUME.get(field.name) == why) == (rule == "fixed"), field.name
        assert (CHANGEABLE_ON_RESUME.get(field.name) == why) == (
            rule in ("changeable", "silent")), field.name
        assert (field.name in SILENT_ON_RESUME) == (rule == "silent"), field.name
    architecture = {f"model.{f.name}" for f in dataclasses.fields(ModelConfig)
                    if f.name not in resume_policy.SET_BY_TRAINING}
    assert {k for k in FIXED_ON_RESUME if k.startswith("model.")} == architecture


def test_a_resume_refusal_gives_the_declared_reason():
    why = next(f.metadata["why"] for f in TRAIN_FIELDS if f.name == "batch_size")
    with pytest.raises(ValueError, match="batch_size: 32 → 64") as refused:
        check_resume(TrainConfig(batch_size=32), TrainConfig(batch_size=64), "runs/x")
    assert why in str(refused.value)
    assert check_resume(TrainConfig(progress=True), TrainConfig(progress=False)) == []
