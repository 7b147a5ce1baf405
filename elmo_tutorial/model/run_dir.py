"""The run directory: what ``elmo-tutorial train`` writes, and :func:`load_run`, which reads it.

A run directory::

    runs/tiny/
      config.json            {"model": ModelConfig fields, "train": TrainConfig fields,
                              "vocab_sha256": digest of vocab.txt, checked on loading}
      vocab.txt              one word per line (bilm-tf format); line i = word id i
      model.safetensors      final weights (encoder + softmax), float32
      log.jsonl              one JSON object per logged step / evaluation
      loss.png               training loss and held-out perplexity
      checkpoints/           see :mod:`elmo_tutorial.model.checkpoint`
      SHA256SUMS             only in exported copies (and the shipped models): checked on load

Every file is written whole (:mod:`elmo_tutorial.files.safe_files`). The models that ship with the
course, ``data/models/tiny`` and ``data/models/small``, are run directories too
(:func:`shipped_model`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

import torch

from elmo_tutorial.files.safe_files import DamagedFile, atomic_write_text, check_sha256sums
from elmo_tutorial.model.checkpoint import (
    chosen_checkpoint,
    latest_checkpoint,
    load_weights,
    newest_complete,
)
from elmo_tutorial.model.config import ModelConfig
from elmo_tutorial.model.vocab import Vocabulary
from elmo_tutorial.model.weight_checks import check_weights
from elmo_tutorial.runtime import REPOSITORY

__all__ = ["Run", "SHIPPED_MODELS", "load_run", "load_run_vocabulary", "read_run_config",
           "shipped_model", "write_run_config"]

SHIPPED_MODELS = ("tiny", "small")  # run directories in the repository's data/models/


class Run(NamedTuple):
    """What :func:`load_run` read from a run directory."""

    config: ModelConfig  # the architecture
    state: dict[str, torch.Tensor]  # the weights, float32 (a BidirectionalLM's state_dict)
    vocab: Vocabulary | None  # the words the softmax predicts (None for an encoder only)
    train: dict  # the training settings (TrainConfig fields; {} for an exported encoder)




def write_run_config(run_dir: str | Path, model_config: ModelConfig, train_config: dict,
                     vocab: Vocabulary | None = None) -> None:
    """Write ``config.json``; with ``vocab``, also its digest, which loading checks against
    ``vocab.txt`` (the softmax's rows are the vocabulary's ids: another order is another
    model)."""
    payload = {"model": model_config.to_dict(), "train": train_config}
    if vocab is not None:
        payload["vocab_sha256"] = vocab.digest()
    atomic_write_text(Path(run_dir) / "config.json", json.dumps(payload, indent=2) + "\n")


def _read_payload(run_dir: str | Path) -> dict:
    """``config.json`` of a run, parsed and checked to be a run's (see read_run_config)."""
    path = Path(run_dir) / "config.json"
    if Path(run_dir).is_file():
        raise ValueError(f"{run_dir} is a file, not a run directory: give the folder that holds "
                         "config.json and model.safetensors")
    if not Path(run_dir).exists():  # a wrong path, most often relative to another folder
        raise FileNotFoundError(
            f"{run_dir} does not exist (looked for it from {Path.cwd()}): check the path; "
            "the course's own models are elmo_tutorial.model.run_dir.shipped_model('small') and "
            "shipped_model('tiny'), from any folder")
    if not path.exists():
        official = " (it holds options.json: load it with load_allennlp)" if (
            Path(run_dir) / "options.json").exists() else ""
        raise FileNotFoundError(
            f"{path} not found: {run_dir} is not a run directory{official}. Train one with "
            "`elmo-tutorial train --config tiny --out RUN_DIR`.")
    try:
        payload = json.loads(path.read_bytes())
    except ValueError as error:  # not UTF-8, or not JSON
        raise DamagedFile.of(path, error) from None
    if not isinstance(payload, dict) or not isinstance(payload.get("model"), dict):
        raise ValueError(f"{path} is not the config.json of a run of this package (it has no "
                         "\"model\" table); for options.json + weights.hdf5 use load_allennlp")
    return payload


def read_run_config(run_dir: str | Path) -> tuple[ModelConfig, dict]:
    """``(ModelConfig, training settings)`` from a run's ``config.json``, checked.

    Every architecture value must have its field's type and a sane size (``lstm_dim`` 256,
    not ``"256"``, ``256.5`` or ``10000000``: ``ModelConfig`` checks), here, before anything
    is allocated. The training settings must be a table; their values are checked where they
    are used (``TrainConfig.from_dict(train, source=...)`` names the file).

    Raises:
        FileNotFoundError: ``run_dir`` is not a run directory (says what to do instead).
        ValueError: ``config.json`` is damaged (:class:`DamagedFile`), not a run's, or a
            value is wrong: the message names the file and the field.
    """
    path = Path(run_dir) / "config.json"
    payload = _read_payload(run_dir)
    train = payload.get("train", {})
    try:
        if not isinstance(train, dict):
            raise ValueError(f"\"train\" must be a table of settings, got {train!r}")
        return ModelConfig.from_dict(payload["model"]), train
    except (TypeError, ValueError) as error:
        raise ValueError(f"{path}: {error}") from None


def load_run_vocabulary(run_dir: str | Path) -> Vocabulary | None:
    """The run's ``vocab.txt`` (``None`` if it has none), checked against the digest that
    ``config.json`` keeps of it.

    Raises:
        ValueError: ``vocab.txt`` is not the vocabulary the run was trained with (two lines
            swapped give a perplexity twice too high, without a word).
    """
    path = Path(run_dir) / "vocab.txt"
    if not path.exists():
        return None
    vocab = Vocabulary.load(path)
    expected = _read_payload(run_dir).get("vocab_sha256")
    if expected is not None and vocab.digest() != expected:
        raise ValueError(f"{path} is not the vocabulary this run was trained with (its digest "
                         f"differs from vocab_sha256 in {Path(run_dir) / 'config.json'}): the "
                         "model's word ids would be wrong. Restore the run's own vocab.txt")
    return vocab


def load_run(run_dir: str | Path, checkpoint: bool | str | Path = False) -> Run:
    """Load a trained run: its config, weights, vocabulary and training settings.

    The weights are ``model.safetensors`` of the run (its final weights); with
    ``checkpoint=True``, or while a run has no final weights yet, those of its newest
    complete checkpoint (:func:`~elmo_tutorial.model.checkpoint.chosen_checkpoint`,
    which names on stderr every newer one it passes over); with a checkpoint folder of the run
    (``checkpoint=run_dir / "checkpoints/step_000200"``), that one's. A shipped model (encoder
    only, float16 storage) loads the same way: its config has ``vocab_size`` 0 and it has no
    softmax weights; tensors come back as float32. Where the folder has a ``SHA256SUMS``
    (exports and the shipped models), the files read are checked against it first.

    Raises:
        FileNotFoundError: not a run directory, or one with no weights yet.
        DamagedFile: a file does not load or does not match ``SHA256SUMS``.

    Example:
        >>> config, state, vocab, train = load_run("runs/tiny")      # doctest: +SKIP
        >>> lm = BidirectionalLM(config); lm.load_state_dict(state)  # doctest: +SKIP
    """
    run_dir = Path(run_dir)
    shipped = run_dir.resolve().parent == REPOSITORY / "data" / "models"
    hint = (f"restore it with `git checkout -- {run_dir.resolve().relative_to(REPOSITORY)}` "
            "in the repository (or clone it again)") if shipped else None
    check_sha256sums(run_dir, ["config.json", "model.safetensors", "vocab.txt"], hint)
    config, train = read_run_config(run_dir)
    final = run_dir / "model.safetensors"
    if isinstance(checkpoint, str | Path):
        final = Path(checkpoint) / "model.safetensors"
    elif checkpoint or not final.exists():
        if not checkpoint and newest_complete(run_dir) == (None, []):
            raise FileNotFoundError(f"{run_dir} has neither model.safetensors nor a checkpoint; "
                                    "train it first (or resume it with --resume)")
        final = chosen_checkpoint(run_dir, "loading") / "model.safetensors"
    try:
        state = load_weights(final)
    except DamagedFile as error:
        if final.parent == run_dir and latest_checkpoint(run_dir):
            raise ValueError(f"{error}; or load the run's newest checkpoint instead "
                             "(from_run(..., checkpoint=True), evaluate --checkpoint)") from None
        raise
    check_weights(final, state)  # floating point and finite; shapes: where the model is built
    return Run(config, state, load_run_vocabulary(run_dir), train)


def shipped_model(name: str) -> Path:
    """The run directory of a model that ships with the course, for ``ELMo.from_run``/``load_run``.

    ``"tiny"``: the ``tiny`` preset trained to the end (softmax included; notebooks 06-07).
    ``"small"``: the ``small`` preset's encoder (no softmax; notebooks 08-10). Each has a
    ``MODEL_CARD.md`` saying how it was trained, and a ``SHA256SUMS`` that loading checks.

    Raises:
        ValueError: an unknown name.
        FileNotFoundError: the models are not there (they come with a clone of the repository,
            not with a wheel of the package).
    """
    if name not in SHIPPED_MODELS:
        raise ValueError(f"no shipped model called {name!r}; the course ships {SHIPPED_MODELS}")
    path = REPOSITORY / "data" / "models" / name
    if not (path / "config.json").exists():
        raise FileNotFoundError(
            f"the shipped model {name!r} is not at {path}: it comes with a clone of the course "
            f"repository (data/models/{name}). Clone it, or train your own with "
            f"`elmo-tutorial train --config {name} --out runs/{name}` and load runs/{name}.")
    return path
