"""Training configuration: ``TrainConfig``, its presets, overrides from TOML or the command line.

A run is fully described by two dataclasses: ``ModelConfig`` (the architecture, mirrors
``options.json``) and ``TrainConfig`` (everything about *how* it is trained). ``TrainConfig``
names a model preset and may override any of its fields, so one file says it all::

    cfg = TrainConfig.preset("tiny")                       # a named starting point
    cfg = apply_overrides(cfg, {"lr": 0.01, "model.lstm_dim": 128})
    cfg = apply_overrides(cfg, load_toml("my.toml"))       # [model] table = ModelConfig fields

Presets:

- ``tiny``: the embedded corpus on a CPU, 600 steps of 32 sentences (0.9 epochs) in under a
  minute on two cores; beats a Kneser-Ney trigram on held-out sentences
  (``tests/training/test_train.py``). The course ships it trained in ``data/models/tiny``
  (``run_dir.shipped_model("tiny")``).
- ``small``: WikiText-2 when it can be downloaded, otherwise the offline nltk English mix;
  one GPU in minutes, a CPU in about half an hour. The course ships a model trained with it.
- ``paper``: Peters et al. (2018) with the optimiser of bilm-tf's ``train_elmo.py``: Adagrad,
  lr 0.2, initial accumulator 1.0, gradients clipped to global norm 10, dropout 0.1, sampled
  softmax with 8192 negatives, 10 epochs (of the 1B Word Benchmark, 800 M tokens), 128
  sequences per GPU. bilm-tf multiplied the per-token loss by its 20 unroll steps before taking
  gradients (``loss_multiplier``), which matters for Adagrad with an accumulator of 1.0.
"""

from __future__ import annotations

import copy
import json
import typing
from dataclasses import asdict, dataclass, field, fields, replace

from elmo_tutorial.model.config import MODEL_PRESETS, ModelConfig
from elmo_tutorial.training.resume_policy import (
    ARCHITECTURE_REASON,
    CHANGEABLE_ON_RESUME,
    FIXED_ON_RESUME,
    SILENT_ON_RESUME,
)
from elmo_tutorial.training.train_bounds import load_toml, parse_cli_overrides, train_config_problems


@dataclass
class TrainConfig:
    """How a biLM is trained. Every field can be overridden (``apply_overrides``)."""

    # --- model ---
    model: str = "tiny"  # architecture preset in config.MODEL_PRESETS: tiny, small or paper
    model_overrides: dict = field(default_factory=dict)  # ModelConfig fields to change
    # --- data ---
    corpus: str = "embedded"  # one of corpora.LM_CORPORA: embedded | english_mix | wikitext2 |
    #                   wikitext103 | one_billion_words | auto (wikitext2 if it can be had)
    max_sentence_words: int = 50  # longer training sentences are cut: rare outliers cost padding
    vocab_min_count: int = 1  # words seen fewer times in training become <UNK>
    vocab_max_size: int = 0  # keep only the most frequent words (0 = no limit)
    batch_size: int = 32  # sentences per optimiser step, summed over all processes
    # --- optimiser ---
    optimizer: str = "adam"  # adam, or adagrad (bilm-tf)
    lr: float = 3e-3  # peak learning rate
    adagrad_initial_accumulator: float = 1.0  # bilm-tf's initial_accumulator_value
    weight_decay: float = 0.0  # L2 penalty inside the optimiser
    schedule: str = "constant"  # constant | linear | cosine (decay to 0 after warm-up)
    warmup_steps: int = 0  # linear warm-up from 0 to lr over this many steps
    grad_clip: float = 10.0  # clip the global gradient norm to this (0 = no clipping)
    loss_multiplier: float = 1.0  # scale of the loss before backward (bilm-tf: 20 unroll steps)
    dropout: float = 0.1  # dropout in the biLM; replaces the model preset's value
    sampled_softmax: int = 0  # negatives of the sampled softmax (0 = full softmax)
    # --- length, evaluation, checkpoints ---
    epochs: int = 1  # passes over the training sentences (if max_steps is 0)
    max_steps: int = 0  # optimiser steps in all (0 = epochs decide)
    eval_interval: int = 100  # steps between held-out perplexity evaluations (0 = only at end)
    eval_sentences: int = 0  # held-out sentences per evaluation (0 = the whole split)
    checkpoint_interval: int = 100  # steps between checkpoints (0 = only at end)
    keep_checkpoints: int = 2  # most recent checkpoints kept on disk
    log_interval: int = 10  # steps between lines in log.jsonl
    # --- runtime ---
    seed: int = 0  # seeds Python, NumPy and PyTorch (data order uses seed + epoch)
    device: str = "auto"  # auto (cuda if available), cpu or cuda
    amp: bool = True  # bfloat16 autocast on CUDA (ignored on the CPU)
    threads: int = 0  # CPU threads per process (0 = one per core free at the start); kept
    #                   by --resume: another count gives other bits (run_threads)
    progress: bool = True  # show a tqdm progress bar
    out_dir: str = "runs/tiny"  # the run directory (config, vocab, weights, logs, checkpoints)

    def __post_init__(self) -> None:
        problems = train_config_problems(self)  # every field's range (train_bounds)
        if problems:
            raise ValueError("invalid TrainConfig: " + "; ".join(problems))

    def model_config(self, vocab_size: int) -> ModelConfig:
        """The architecture: the preset, then ``model_overrides``, then dropout and vocab size."""
        base = MODEL_PRESETS[self.model]
        return replace(base, **{**self.model_overrides, "dropout": self.dropout,
                                "vocab_size": vocab_size})

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, values: dict, source: str | None = None) -> TrainConfig:
        """The configuration ``values`` describe (``source``, e.g. a file, is named in errors)."""
        return apply_overrides(cls(), values, source)

    @classmethod
    def preset(cls, name: str) -> TrainConfig:
        if name not in TRAIN_PRESETS:
            raise ValueError(
                f"unknown training preset {name!r}; choose one of {sorted(TRAIN_PRESETS)}")
        return copy.deepcopy(TRAIN_PRESETS[name])


TRAIN_PRESETS: dict[str, TrainConfig] = {
    # Adam learns a small model much faster than Adagrad; the full softmax is cheap at V ≈ 600.
    # No dropout: 600 steps are under 1 epoch, too few to overfit, and dropout slows learning.
    # Batches of 32: at these shapes an LSTM step costs nearly as much for 32 sentences as for
    # 64, and learning is counted in steps; 600 steps of 32 at lr 0.01 beat 600 of 64 at 0.02
    # in about two thirds of the time (benchmarks/RESULTS.md). Fewer steps were unsafe across
    # seeds.
    # Two threads, one per LM direction (direction_threads: same numbers as one thread); the
    # matrices are small, so a second thread inside each product costs more than it brings.
    "tiny": TrainConfig(
        model="tiny", corpus="embedded", batch_size=32, optimizer="adam", lr=0.01,
        schedule="cosine", warmup_steps=20, dropout=0.0, max_steps=600, eval_interval=200,
        eval_sentences=500, checkpoint_interval=200, threads=2, out_dir="runs/tiny",
    ),
    "small": TrainConfig(
        model="small", corpus="auto", vocab_min_count=3, batch_size=64, optimizer="adam",
        lr=2e-3, schedule="cosine", warmup_steps=100, dropout=0.1, epochs=3,
        sampled_softmax=1024, eval_interval=500, eval_sentences=2000, checkpoint_interval=500,
        out_dir="runs/small",
    ),
    # Peters et al. 2018 / bilm-tf train_elmo.py (see the module docstring).
    "paper": TrainConfig(
        model="paper", corpus="one_billion_words", vocab_min_count=3, batch_size=128,
        optimizer="adagrad",
        lr=0.2, adagrad_initial_accumulator=1.0, grad_clip=10.0, loss_multiplier=20.0,
        dropout=0.1, sampled_softmax=8192, epochs=10, eval_interval=10_000,
        eval_sentences=10_000, checkpoint_interval=5_000, out_dir="runs/paper",
    ),
}


# ----------------------------------------------------------------------------------------------
# Overrides: {"lr": 0.1, "model.lstm_dim": 128} or {"model": "small", "model_overrides": {...}}
# ----------------------------------------------------------------------------------------------

def _type_ok(value, hint) -> bool:
    """True when ``value`` (as parsed from TOML) fits the annotation ``hint``."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        return any(_type_ok(value, a) for a in args)
    if hint is type(None):
        return value is None
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if origin in (tuple, list):
        return isinstance(value, (list, tuple)) and all(
            _type_ok(v, args[0]) for v in value) if args else isinstance(value, (list, tuple))
    if origin is dict or hint is dict:
        return isinstance(value, dict)
    return isinstance(value, hint)


def _require_table(values, where: str, source: str | None) -> dict:
    if not isinstance(values, dict):
        raise ValueError(f"{where} settings must be a table of key = value, got {values!r}"
                         + (f"; fix it in {source}" if source else ""))
    return values


def _check_fields(cls, values: dict, where: str, source: str | None = None) -> dict:
    _require_table(values, where, source)
    hints = typing.get_type_hints(cls)
    known = [f.name for f in fields(cls)]
    checked = {}
    for key, value in values.items():
        if key not in hints:
            raise ValueError(f"unknown {where} key {key!r}; known keys: {', '.join(known)}")
        if not _type_ok(value, hints[key]):
            expected = getattr(hints[key], "__name__", str(hints[key]))  # "float", not "<class…>"
            raise ValueError(f"{where} key {key!r} expects {expected}, got {value!r} "
                             f"({type(value).__name__}); fix the value in "
                             + (source or f"your TOML or --{key}="))
        if hints[key] is float and isinstance(value, int):
            value = float(value)
        checked[key] = value
    return checked


_SET_BY_TRAINING = {"vocab_size": "it is the size of the run's vocabulary (limit that with "
                                  "--vocab_max_size= or --vocab_min_count=)",
                    "dropout": "the training setting --dropout= sets it"}


def apply_overrides(config: TrainConfig, overrides: dict, source: str | None = None,
                    ) -> TrainConfig:
    """Return a copy of ``config`` with ``overrides`` applied, checking names and types.

    Keys are TrainConfig fields, ``model.FIELD`` for a ModelConfig field, or a ``model`` TOML
    table given as a dict (which then holds ModelConfig fields, and optionally ``preset``).
    Changing ``model`` to another preset name keeps the ``model_overrides`` already made.

    ``source`` names where the overrides come from (a run's ``config.json``) in the errors.

    Raises:
        ValueError: for an unknown key or a value of the wrong type, naming both.
    """
    train_values, model_values = {}, dict(config.model_overrides)
    for key, value in _require_table(overrides, "training", source).items():
        if key == "model" and isinstance(value, dict):  # a [model] table in TOML
            value = dict(value)
            if "preset" in value:
                train_values["model"] = value.pop("preset")
            model_values.update(_check_fields(ModelConfig, value, "model", source))
        elif key.startswith("model."):
            model_values.update(_check_fields(ModelConfig, {key[6:]: value}, "model", source))
        elif key == "model_overrides":
            model_values.update(_check_fields(ModelConfig, value, "model", source))
        else:
            train_values.update(_check_fields(TrainConfig, {key: value}, "training", source))
    for key, why in _SET_BY_TRAINING.items():  # model_config() would drop them without a word
        if key in model_values:
            raise ValueError(f"model.{key} cannot be set: {why}"
                             + (f"; remove it from {source}" if source else ""))
    if "filters" in model_values:  # TOML gives lists of lists
        model_values["filters"] = tuple(tuple(f) for f in model_values["filters"])
    try:
        new = replace(config, **train_values, model_overrides=model_values)
        new.model_config(vocab_size=1)  # validate the architecture now, not after loading data
    except ValueError as error:
        raise ValueError(f"{source}: {error}" if source else str(error)) from None
    return new


# ----------------------------------------------------------------------------------------------
# Resuming with changed settings: which changes a checkpoint can continue under, and why (the
# reasons are the tables of resume_policy)
# ----------------------------------------------------------------------------------------------


def _show(value) -> str:
    if isinstance(value, tuple):  # filters: ((1, 8), (2, 8)) → [[1, 8], [2, 8]]
        return json.dumps(value)
    return "none" if value is None else str(value)


def resume_changes(saved: TrainConfig, new: TrainConfig) -> list[tuple[str, object, object]]:
    """``(key, old, new)`` for every setting that differs, architecture fields as
    ``model.FIELD`` (compared after the preset and its overrides are applied)."""
    changes = [(f.name, getattr(saved, f.name), getattr(new, f.name)) for f in fields(TrainConfig)
               if f.name not in ("model", "model_overrides")
               and getattr(saved, f.name) != getattr(new, f.name)]
    old, now = saved.model_config(vocab_size=1), new.model_config(vocab_size=1)
    changes += [(f"model.{f.name}", getattr(old, f.name), getattr(now, f.name))
                for f in fields(ModelConfig) if f.name not in ("vocab_size", "dropout")
                and getattr(old, f.name) != getattr(now, f.name)]
    return changes


def check_resume(saved: TrainConfig, new: TrainConfig, run_dir: str = "the run",
                 recorded: ModelConfig | None = None) -> list[str]:
    """Check that a run trained with ``saved`` can resume under ``new``, and that the
    architecture its ``config.json`` records (``recorded``) is still the one ``saved`` trained.

    Returns:
        One notice per accepted change, ``"lr: 0.02 → 0.01 (the schedule goes on ...)"``.

    Raises:
        ValueError: one line naming every change a checkpoint cannot continue under, and why.
    """
    if recorded is not None:  # an edit there would be overwritten by the run's own
        trained = saved.model_config(vocab_size=recorded.vocab_size)
        edits = [(f.name, getattr(recorded, f.name), getattr(trained, f.name))
                 for f in fields(ModelConfig) if f"model.{f.name}" in FIXED_ON_RESUME
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
    refused = [f"{key}: {_show(a)} → {_show(b)} ({FIXED_ON_RESUME[key]})"
               for key, a, b in changes if key in FIXED_ON_RESUME]
    if refused:
        raise ValueError(f"--resume: {run_dir} cannot continue with changed settings: "
                         + "; ".join(refused) + ". Resume with the run's own settings, or "
                         "train a new run into another --out")
    return [f"{key}: {_show(a)} → {_show(b)} ({CHANGEABLE_ON_RESUME[key]})"
            for key, a, b in changes if key not in SILENT_ON_RESUME]


__all__ = ["TrainConfig", "TRAIN_PRESETS", "apply_overrides", "load_toml", "parse_cli_overrides",
           "FIXED_ON_RESUME", "CHANGEABLE_ON_RESUME", "resume_changes", "check_resume"]
