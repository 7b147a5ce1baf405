"""The resume policy: which training settings a run may change when it resumes from a
checkpoint, and why each of the others may not.

``--resume`` with a changed setting either goes on (the change is announced with what it does
from here on) or stops with the reason. Each ``TrainConfig`` field declares its rule and reason
where it is defined (``on_resume=`` and ``why=`` of
:func:`~elmo_tutorial.training.setting.setting`); :func:`resume_tables` gathers them into the
tables a reader looks up, which ``train_config`` keeps as ``FIXED_ON_RESUME``,
``CHANGEABLE_ON_RESUME`` and ``SILENT_ON_RESUME``, and :func:`check_resume` applies them to two
configurations.

A checkpoint holds weights of one architecture, an optimiser state, and a position in an epoch
whose batches come from (corpus, max_sentence_words, batch_size, seed). A change to any of
those would load into the wrong shapes or silently skip or repeat data: refused, with why.
Every architecture field (``model.FIELD``) is fixed, except the two that training sets itself
(:data:`SET_BY_TRAINING`).

Example:
    >>> from elmo_tutorial.training.train_config import TrainConfig
    >>> fixed, changeable, silent = resume_tables(TrainConfig)
    >>> fixed["batch_size"]
    "the checkpoint's position in the epoch counts batches of the old size"
    >>> fixed["model.lstm_dim"] == ARCHITECTURE_REASON, changeable["lr"]
    (True, "the schedule goes on from the checkpoint's step with the new peak")
    >>> check_resume(TrainConfig(lr=0.02), TrainConfig(lr=0.01))
    ["lr: 0.02 → 0.01 (the schedule goes on from the checkpoint's step with the new peak)"]
"""

from __future__ import annotations

import json
from dataclasses import fields

from elmo_tutorial.model.config import ModelConfig

__all__ = ["ARCHITECTURE_REASON", "SET_BY_TRAINING", "resume_tables", "resume_changes",
           "check_resume"]

ARCHITECTURE_REASON = "the checkpoint's weights belong to the old architecture"
# ModelConfig fields that TrainConfig.model_config sets itself: --model.FIELD= refuses them
# (train_config.apply_overrides says why), and a resume compares them as training settings.
SET_BY_TRAINING = {"vocab_size": "it is the size of the run's vocabulary (limit that with "
                                 "--vocab_max_size= or --vocab_min_count=)",
                   "dropout": "the training setting --dropout= sets it"}


def resume_tables(config_class) -> tuple[dict[str, str], dict[str, str], tuple[str, ...]]:
    """``(fixed, changeable, silent)``: the reason of every setting that ``--resume`` refuses
    to change (architecture fields as ``model.FIELD``), of every one it takes, and the names of
    those it takes without a notice (also in ``changeable``), from ``config_class``'s fields."""
    undeclared = [f.name for f in fields(config_class) if "on_resume" not in f.metadata]
    if undeclared:
        raise TypeError(f"{config_class.__name__} fields {undeclared} have no resume rule: "
                        "declare them with training.setting.setting(..., on_resume=, why=)")
    rules = {f.name: (f.metadata["on_resume"], f.metadata["why"]) for f in fields(config_class)}
    fixed = {f"model.{f.name}": ARCHITECTURE_REASON for f in fields(ModelConfig)
             if f.name not in SET_BY_TRAINING}
    fixed.update({name: why for name, (rule, why) in rules.items() if rule == "fixed"})
    changeable = {name: why for name, (rule, why) in rules.items()
                  if rule in ("changeable", "silent")}
    silent = tuple(name for name, (rule, _) in rules.items() if rule == "silent")
    return fixed, changeable, silent


def _show(value) -> str:
    if isinstance(value, tuple):  # filters: ((1, 8), (2, 8)) → [[1, 8], [2, 8]]
        return json.dumps(value)
    return "none" if value is None else str(value)


def resume_changes(saved, new) -> list[tuple[str, object, object]]:
    """``(key, old, new)`` for every setting of two ``TrainConfig`` that differs, architecture
    fields as ``model.FIELD`` (compared after the preset and its overrides are applied)."""
    changes = [(f.name, getattr(saved, f.name), getattr(new, f.name)) for f in fields(saved)
               if f.metadata["on_resume"] != "architecture"
               and getattr(saved, f.name) != getattr(new, f.name)]
    old, now = saved.model_config(vocab_size=1), new.model_config(vocab_size=1)
    changes += [(f"model.{f.name}", getattr(old, f.name), getattr(now, f.name))
                for f in fields(ModelConfig) if f.name not in SET_BY_TRAINING
                and getattr(old, f.name) != getattr(now, f.name)]
    return changes


def check_resume(saved, new, run_dir: str = "the run",
                 recorded: ModelConfig | None = None, written=None,
                 checkpoint: str = "its checkpoint") -> list[str]:
    """Check that a run trained with ``saved`` (a ``TrainConfig``: what its ``checkpoint``
    records, else its config.json) can resume under ``new``, and that its ``config.json``
    still describes it: the architecture it records (``recorded``) and its training settings
    (``written``, when ``saved`` comes from the checkpoint).

    Returns:
        One notice per accepted change, ``"lr: 0.02 → 0.01 (the schedule goes on ...)"``.

    Raises:
        ValueError: one line naming every change a checkpoint cannot continue under, and why;
            or an edit of config.json that the run's checkpoint contradicts.
    """
    fixed, changeable, silent = resume_tables(type(saved))
    if written is not None:  # the checkpoint is the authority: an edited config.json is wrong
        edits = [(key, a, b) for key, a, b in resume_changes(saved, written) if key in fixed]
        if edits:
            listing = "; ".join(f"{key} is {_show(b)} there, but {_show(a)} in {checkpoint}"
                                f" ({fixed[key]})" for key, a, b in edits)
            restore = ", ".join(f"{key} to {_show(a)}" for key, a, _ in edits)
            raise ValueError(
                f"--resume: {run_dir}/config.json does not describe the run its checkpoint "
                f"holds: {listing}. Restore {restore} in config.json to resume, or train with "
                "the new settings afresh into another --out")
    if recorded is not None:  # an edit there would be overwritten by the run's own
        trained = saved.model_config(vocab_size=recorded.vocab_size)
        edits = [(f.name, getattr(recorded, f.name), getattr(trained, f.name))
                 for f in fields(ModelConfig) if f"model.{f.name}" in fixed
                 and getattr(recorded, f.name) != getattr(trained, f.name)]
        if edits:
            name, edited, was = edits[0]
            raise ValueError(
                f"--resume: {run_dir}/config.json says model.{name} is {_show(edited)}, but the "
                f"run was trained with {_show(was)} ({ARCHITECTURE_REASON}); restore "
                f"model.{name} to {_show(was)} in config.json to resume, or train the new "
                f"architecture afresh "
                f"into another --out with --model.{name}={_show(edited).replace(' ', '')}")
    changes = resume_changes(saved, new)
    refused = [f"{key}: {_show(a)} → {_show(b)} ({fixed[key]})"
               for key, a, b in changes if key in fixed]
    if refused:
        raise ValueError(f"--resume: {run_dir} cannot continue with changed settings: "
                         + "; ".join(refused) + ". Resume with the run's own settings, or "
                         "train a new run into another --out")
    return [f"{key}: {_show(a)} → {_show(b)} ({changeable[key]})"
            for key, a, b in changes if key not in silent]
