"""Training configuration: ``TrainConfig``, its presets, overrides from TOML or the command line.

A run is fully described by ``ModelConfig`` (the architecture, mirrors ``options.json``) and
``TrainConfig`` (how it is trained), which names a model preset and may override any of its
fields, so one file says it all::

    cfg = TrainConfig.preset("tiny")                       # a named starting point
    cfg = apply_overrides(cfg, {"lr": 0.01, "model.lstm_dim": 128})
    cfg = apply_overrides(cfg, load_toml("my.toml"))       # [model] table = ModelConfig fields

The presets, ``TRAIN_PRESETS``, say beside each why it is set so.
"""

from __future__ import annotations

import copy
import dataclasses
import math
import tomllib
import typing
from dataclasses import asdict, dataclass, replace

from elmo_tutorial.data.corpora import LM_CORPORA
from elmo_tutorial.model.config import (
    MODEL_PRESETS,
    SIZE_LIMITS,
    ModelConfig,
    fits_type,
    type_name,
)

# Reasons that several settings give for refusing a change on --resume (fixed=).
_VOCABULARY = "the vocabulary is the run's vocab.txt, and the softmax has its size"
_DATA_POSITION = "the batches that the checkpoint's position in the epoch counts would change"
ARCHITECTURE_REASON = "the checkpoint's weights belong to the old architecture"


def setting(default=dataclasses.MISSING, help: str = "", *, default_factory=dataclasses.MISSING,
            minimum=None, above=None, below=None, maximum=None, choices=None,
            fixed: str | None = None) -> dataclasses.Field:
    """A ``TrainConfig`` field: its default, the line ``train --help`` prints, its range
    (checked whenever a ``TrainConfig`` is made) and, for a setting that ``--resume`` may not
    change, why (``fixed``)."""
    metadata = {"help": help, "minimum": minimum, "above": above, "below": below,
                "maximum": maximum, "choices": None if choices is None else tuple(choices),
                "fixed": fixed}
    return dataclasses.field(default=default, default_factory=default_factory,
                             metadata=metadata)


# -- reading settings: TOML files, types and ranges --------------------------------------------

def load_toml(path) -> dict:
    """Read settings from a TOML file (top-level TrainConfig keys, a [model] table)."""
    with open(path, "rb") as f:
        try:
            return tomllib.load(f)
        except ValueError as err:  # TOMLDecodeError, or UnicodeDecodeError: not UTF-8 text
            raise ValueError(f"{path} is not valid TOML: {err}") from None


def typed_fields(cls, values: dict, where: str, source: str | None = None) -> dict:
    """``values`` checked against the fields of the dataclass ``cls``: every key one of them,
    every value of its annotated type (an int where a float goes becomes a float)."""
    if not isinstance(values, dict):  # a hand-edited "model_overrides"
        raise ValueError(f"{where} settings must be a table of key = value, got {values!r}"
                         + (f"; fix it in {source}" if source else ""))
    hints = typing.get_type_hints(cls)
    checked = {}
    for key, value in values.items():
        if key not in hints:
            known = ", ".join(f.name for f in dataclasses.fields(cls))
            raise ValueError(f"unknown {where} key {key!r}; known keys: {known}")
        if not fits_type(value, hints[key]):
            raise ValueError(f"{where} key {key!r} expects {type_name(cls, key)}, got {value!r} "
                             f"({type(value).__name__}); fix the value in "
                             + (source or f"your TOML or --{key}="))
        checked[key] = float(value) if hints[key] is float and isinstance(value, int) else value
    return checked


def _out_of_range(config) -> list[str]:
    """Every value of a ``TrainConfig`` outside the range its :func:`setting` declares."""
    problems = []
    for field in dataclasses.fields(config):
        name, value, meta = field.name, getattr(config, field.name), field.metadata
        low = -math.inf if meta.get("minimum") is None else meta["minimum"]
        if meta.get("choices") is not None:
            if value not in meta["choices"]:
                problems.append(f"{name} must be one of {list(meta['choices'])}, got {value!r}")
        elif meta.get("above") is not None and not meta["above"] < value < math.inf:
            problems.append(f"{name} must be a number > {meta['above']}, got {value}")
        elif meta.get("below") is not None and not low <= value < meta["below"]:
            problems.append(f"{name} must be in [{low}, {meta['below']}), got {value}")
        elif meta.get("minimum") is not None and not meta["minimum"] <= value < math.inf:
            finite = " and finite" if isinstance(value, float) else ""  # "not ≤" catches nan
            problems.append(f"{name} must be ≥ {meta['minimum']}{finite}, got {value}")
        elif meta.get("maximum") is not None and value > meta["maximum"]:
            problems.append(f"{name} is {value:,}, more than any run can use "
                            f"(at most {meta['maximum']:,})")
    return problems


@dataclass
class TrainConfig:
    """How a biLM is trained. Every field can be overridden (``apply_overrides``); each is a
    :func:`setting`: default, help line, range, and whether ``--resume`` may change it."""

    # --- model ---
    model: str = setting(
        "tiny", "architecture preset in model.config.MODEL_PRESETS", choices=MODEL_PRESETS)
    model_overrides: dict = setting(
        help="ModelConfig fields to change (--model.FIELD=value)", default_factory=dict)
    # --- data ---
    corpus: str = setting(
        "embedded", "the training text; auto is wikitext2 if it can be had, else english_mix",
        choices=LM_CORPORA, fixed="the vocabulary and the batches belong to the old corpus")
    train_sentences: int = setting(
        0, "train on the corpus's first this many sentences (0 = all of them); english_mix's "
           "first ones come from all six of its corpora in turn", minimum=0,
        fixed="the vocabulary and the batches come from the old sentences")
    max_sentence_words: int = setting(
        50, "longer training sentences are cut: rare outliers cost padding", minimum=1,
        fixed=_DATA_POSITION)
    vocab_min_count: int = setting(
        1, "words seen fewer times in training become <UNK>", minimum=0, fixed=_VOCABULARY)
    vocab_max_size: int = setting(
        0, "keep only the most frequent words (0 = no limit)", minimum=0, fixed=_VOCABULARY)
    batch_size: int = setting(
        32, "sentences per optimiser step, summed over all processes",
        minimum=1, maximum=1 << 16,  # 512 GPUs of the paper's 128: far beyond any ELMo run
        fixed=_DATA_POSITION)
    # --- optimiser ---
    optimizer: str = setting(
        "adam", "the optimiser; adagrad is bilm-tf's", choices=("adam", "adagrad"),
        fixed="the checkpoint holds the old optimiser's state")
    lr: float = setting(
        3e-3, "peak learning rate", above=0)
    adagrad_initial_accumulator: float = setting(
        1.0, "bilm-tf's initial_accumulator_value", minimum=0,
        fixed="it sets the starting accumulator, which the checkpoint already holds")
    weight_decay: float = setting(
        0.0, "L2 penalty inside the optimiser", minimum=0)
    schedule: str = setting(
        "constant", "the learning rate after warm-up: constant, or decaying to 0",
        choices=("constant", "linear", "cosine"))
    warmup_steps: int = setting(
        0, "linear warm-up from 0 to lr over this many steps", minimum=0)
    grad_clip: float = setting(
        10.0, "clip the global gradient norm to this (0 = no clipping)", minimum=0)
    loss_multiplier: float = setting(
        1.0, "scale of the loss before backward (bilm-tf: 20 unroll steps)", above=0)
    dropout: float = setting(
        0.1, "dropout in the biLM; replaces the model preset's value", minimum=0, below=1)
    sampled_softmax: int = setting(
        0, "negatives of the sampled softmax (0 = full softmax)",
        minimum=0, maximum=SIZE_LIMITS["vocab_size"])  # no vocabulary has more words
    # --- length, evaluation, checkpoints ---
    epochs: int = setting(
        1, "passes over the training sentences (if max_steps is 0)", minimum=1)
    max_steps: int = setting(
        0, "optimiser steps in all (0 = epochs decide)", minimum=0)
    eval_interval: int = setting(
        100, "steps between held-out perplexity evaluations (0 = only at end)", minimum=0)
    eval_sentences: int = setting(
        0, "held-out sentences per evaluation (0 = the whole split)", minimum=0)
    checkpoint_interval: int = setting(
        100, "steps between checkpoints (0 = only at end)", minimum=0)
    keep_checkpoints: int = setting(
        2, "most recent checkpoints kept on disk", minimum=1)
    log_interval: int = setting(
        10, "steps between lines in log.jsonl", minimum=1)
    # --- runtime ---
    seed: int = setting(
        0, "seeds Python, NumPy and PyTorch (data order uses seed + epoch)",
        minimum=0, maximum=(1 << 32) - 1,  # NumPy's generator takes seeds below 2**32
        fixed="the order of the epoch in progress comes from the seed")
    device: str = setting(
        "auto", "where to train; auto is cuda if available", choices=("auto", "cpu", "cuda"))
    amp: bool = setting(
        True, "bfloat16 autocast on CUDA (ignored on the CPU)")
    threads: int = setting(
        0, "CPU threads per process (0 = one per core); kept by --resume: another count "
           "gives other bits",
        minimum=0, maximum=4096)  # more than any machine has cores
    progress: bool = setting(
        True, "show a tqdm progress bar")
    out_dir: str = setting(
        "runs/tiny", "the run directory (config, vocab, weights, logs, checkpoints)")

    def __post_init__(self) -> None:
        if problems := _out_of_range(self):
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


# ModelConfig fields that model_config() sets itself: --model.FIELD= refuses them.
SET_BY_TRAINING = {"vocab_size": "it is the size of the run's vocabulary (limit that with "
                                 "--vocab_max_size= or --vocab_min_count=)",
                   "dropout": "the training setting --dropout= sets it"}
FIXED_ON_RESUME = {
    **{f"model.{f.name}": ARCHITECTURE_REASON for f in dataclasses.fields(ModelConfig)
       if f.name not in SET_BY_TRAINING},
    **{f.name: f.metadata["fixed"] for f in dataclasses.fields(TrainConfig)
       if f.metadata["fixed"]}}
CHANGEABLE_ON_RESUME = tuple(f.name for f in dataclasses.fields(TrainConfig)
                             if not f.metadata["fixed"] and f.name not in ("model",
                                                                           "model_overrides"))
# Changes that --resume takes without a notice (the trainer warns about threads itself).
SILENT_ON_RESUME = ("threads", "progress", "out_dir")

TRAIN_PRESETS: dict[str, TrainConfig] = {
    # The embedded corpus on a CPU in under a minute; beats a Kneser-Ney trigram on held-out
    # sentences (tests/training/test_train.py); shipped trained as data/models/tiny.
    # Adam learns a small model much faster than Adagrad; the full softmax is cheap at V ≈ 600.
    # No dropout: 600 steps are under 1 epoch, too few to overfit, and dropout slows learning.
    # Batches of 32: 600 steps of 32 at lr 0.01 beat 600 of 64 at 0.02 in about two thirds of
    # the time (benchmarks/RESULTS.md); fewer steps were unsafe across seeds. Two threads, one
    # per LM direction (fast/directions.py): the same bits as one thread, and faster.
    "tiny": TrainConfig(
        model="tiny", corpus="embedded", batch_size=32, optimizer="adam", lr=0.01,
        schedule="cosine", warmup_steps=20, dropout=0.0, max_steps=600, eval_interval=200,
        eval_sentences=500, checkpoint_interval=200, threads=2, out_dir="runs/tiny",
    ),
    # Notebook 14: the tiny architecture on the first 120,000 sentences of english_mix, each
    # seen once, about 17 minutes on two quiet CPU cores. The 10,000 most frequent words (94 %
    # of the tokens) keep the full softmax cheap; no dropout, as tiny's. A checkpoint every 100
    # steps: an interruption loses < 1 min. One thread: the student's own class runs the two
    # directions one after the other, and a second thread inside each product costs more.
    "capstone": TrainConfig(
        model="tiny", corpus="english_mix", train_sentences=120_000, vocab_max_size=10_000,
        batch_size=64, optimizer="adam", lr=0.01, schedule="cosine", warmup_steps=20,
        dropout=0.0, max_steps=1875, eval_interval=375, eval_sentences=500,
        checkpoint_interval=100, threads=1, out_dir="runs/capstone",
    ),
    # WikiText-2 when it can be downloaded, else english_mix; one GPU in minutes, a CPU in
    # about half an hour. The course ships the encoder of a model trained with it.
    "small": TrainConfig(
        model="small", corpus="auto", vocab_min_count=3, batch_size=64, optimizer="adam",
        lr=2e-3, schedule="cosine", warmup_steps=100, dropout=0.1, epochs=3,
        sampled_softmax=1024, eval_interval=500, eval_sentences=2000, checkpoint_interval=500,
        out_dir="runs/small",
    ),
    # Peters et al. (2018) with the optimiser of bilm-tf's train_elmo.py: Adagrad, lr 0.2,
    # initial accumulator 1.0, gradients clipped to global norm 10, dropout 0.1, a sampled
    # softmax of 8192 negatives, 10 epochs of the 1B Word Benchmark (800 M tokens), 128
    # sequences per GPU. bilm-tf multiplied the per-token loss by its 20 unroll steps before
    # taking gradients (loss_multiplier), which matters for Adagrad with an accumulator of 1.0.
    "paper": TrainConfig(
        model="paper", corpus="one_billion_words", vocab_min_count=3, batch_size=128,
        optimizer="adagrad", lr=0.2, adagrad_initial_accumulator=1.0, grad_clip=10.0,
        loss_multiplier=20.0, dropout=0.1, sampled_softmax=8192, epochs=10, eval_interval=10_000,
        eval_sentences=10_000, checkpoint_interval=5_000, out_dir="runs/paper",
    ),
}


# -- overrides: {"lr": 0.1, "model.lstm_dim": 128}, {"model": "small", "model_overrides": {...}}

def apply_overrides(config: TrainConfig, overrides: dict, source: str | None = None,
                    ) -> TrainConfig:
    """Return a copy of ``config`` with ``overrides`` applied, checking names and types.

    Keys are TrainConfig fields, ``model.FIELD`` for a ModelConfig field, or a ``model`` TOML
    table given as a dict (which then holds ModelConfig fields, and optionally ``preset``).
    Changing ``model`` to another preset name keeps the ``model_overrides`` already made.
    ``source`` (a run's ``config.json``) is named in the errors.
    """
    train_values, model_values = {}, dict(config.model_overrides)
    for key, value in overrides.items():  # a dict: TOML, the command line, read_run_config
        if key == "model" and isinstance(value, dict):  # a [model] table in TOML
            value = dict(value)
            if "preset" in value:
                train_values["model"] = value.pop("preset")
            model_values.update(typed_fields(ModelConfig, value, "model", source))
        elif key.startswith("model."):
            model_values.update(typed_fields(ModelConfig, {key[6:]: value}, "model", source))
        elif key == "model_overrides":
            model_values.update(typed_fields(ModelConfig, value, "model", source))
        else:
            train_values.update(typed_fields(TrainConfig, {key: value}, "training", source))
    for key, why in SET_BY_TRAINING.items():  # model_config() would drop them without a word
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


def show_value(value) -> str:
    return "none" if value is None else str(list(map(list, value)) if isinstance(value, tuple)
                                             else value)


def _as_resume_compares(config: TrainConfig) -> dict:
    """Every setting of ``config``, the architecture as ``model.FIELD`` after the preset and its
    overrides are applied."""
    model = config.model_config(vocab_size=1).to_dict()
    return {**{k: v for k, v in config.to_dict().items() if k not in ("model", "model_overrides")},
            **{f"model.{k}": v for k, v in model.items() if k not in SET_BY_TRAINING}}


def check_resume(saved: TrainConfig, new: TrainConfig, run_dir: str = "the run") -> list[str]:
    """Check that a run trained with ``saved`` can go on under ``new``: one notice per change
    taken (``"lr: 0.02 → 0.01"``), or one ``ValueError`` line naming every change refused
    (``FIXED_ON_RESUME``) and why."""
    old, now = _as_resume_compares(saved), _as_resume_compares(new)
    changes = [(key, old[key], now[key]) for key in now if old[key] != now[key]]
    refused = [f"{key}: {show_value(a)} → {show_value(b)} ({FIXED_ON_RESUME[key]})"
               for key, a, b in changes if key in FIXED_ON_RESUME]
    if refused:
        raise ValueError(f"--resume: {run_dir} cannot continue with changed settings: "
                         + "; ".join(refused) + ". Resume with the run's own settings, or "
                         "train a new run into another --out")
    return [f"{key}: {show_value(a)} → {show_value(b)}" for key, a, b in changes
            if key not in SILENT_ON_RESUME]


__all__ = ["TrainConfig", "TRAIN_PRESETS", "apply_overrides", "load_toml",
           "FIXED_ON_RESUME", "CHANGEABLE_ON_RESUME", "SILENT_ON_RESUME", "check_resume",
           "setting"]
