"""The run folder: what ``elmo-tutorial train`` writes, and what reads it back.

A run folder::

    runs/tiny/
      config.json            {"model": ModelConfig fields, "train": TrainConfig fields,
                              "vocab_sha256": digest of vocab.txt, checked on loading}
      vocab.txt              one word per line (bilm-tf format); line i = word id i
      model.safetensors      final weights (encoder + softmax), float32
      log.jsonl, loss.png    the training log and its plot (:mod:`~.train_log`)
      checkpoints/
        step_000200/         the newest ``keep_checkpoints`` steps (:mod:`~.checkpoints`):
          model.safetensors    the model's weights
          state.pt             optimiser, scheduler, random states, data position
      SHA256SUMS             only in exports (and the shipped models): checked on loading

Every file is written whole (:func:`~elmo_tutorial.files.safe_files.atomic_write`); reading a
run never runs code. The models that ship with the course are run folders too
(:func:`shipped_model`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

import torch

from elmo_tutorial.files.overwrite import WRITTEN_BY
from elmo_tutorial.files.safe_files import DamagedFile, atomic_write_text, check_sha256sums
from elmo_tutorial.model.config import ModelConfig
from elmo_tutorial.model.elmo import ELMo
from elmo_tutorial.model.vocab import Vocabulary
from elmo_tutorial.runtime import REPOSITORY
from elmo_tutorial.training.checkpoints import check_weights, latest_checkpoint, load_weights

__all__ = ["SHIPPED_MODELS", "Run", "load_elmo", "load_run", "load_run_vocabulary",
           "read_run_config", "shipped_model", "weights_file", "write_run_config"]

SHIPPED_MODELS = ("tiny", "small")  # run folders in the repository's data/models/

# -- config.json and vocab.txt ---------------------------------------------------------------

def write_run_config(run_dir: str | Path, model_config: ModelConfig, train_config: dict,
                     vocab: Vocabulary | None = None) -> None:
    """Write ``config.json``; with ``vocab``, also its digest (the softmax's rows are its
    ids: another order is another model)."""
    payload = {"written_by": WRITTEN_BY, "model": model_config.to_dict(), "train": train_config}
    if vocab is not None:
        payload["vocab_sha256"] = vocab.digest()
    atomic_write_text(Path(run_dir) / "config.json", json.dumps(payload, indent=2) + "\n")


def _read_payload(run_dir: Path) -> dict:
    """``config.json`` of a run folder, parsed; a wrong path is said in one line."""
    path = run_dir / "config.json"
    if not run_dir.is_dir():  # a wrong path, most often relative to another folder
        what = ("is a file, not a run directory" if run_dir.exists()
                else f"does not exist (looked for it from {Path.cwd()})")
        raise FileNotFoundError(
            f"{run_dir} {what}: check the path; the course's own models are "
            f"{REPOSITORY / 'data' / 'models'}/small and /tiny (in Python, from any folder: "
            "shipped_model('small'))")
    if not path.exists():
        official = " (it holds options.json: load it with load_allennlp)" if (
            run_dir / "options.json").exists() else ""
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
    """``(ModelConfig, training settings)`` from a run's ``config.json``; the architecture is
    checked (``ModelConfig.from_dict``) before anything is allocated, the training settings
    where they are used (``TrainConfig.from_dict``)."""
    payload = _read_payload(Path(run_dir))
    train = payload.get("train", {})
    try:
        if not isinstance(train, dict):
            raise ValueError(f"\"train\" must be a table of settings, got {train!r}")
        return ModelConfig.from_dict(payload["model"]), train
    except (TypeError, ValueError) as error:
        raise ValueError(f"{Path(run_dir) / 'config.json'}: {error}") from None


def load_run_vocabulary(run_dir: str | Path) -> Vocabulary | None:
    """The run's ``vocab.txt`` (``None`` if it has none), checked against its digest in
    ``config.json``: two lines swapped would double the perplexity without a word."""
    path = Path(run_dir) / "vocab.txt"
    if not path.exists():
        return None
    vocab = Vocabulary.load(path)
    expected = _read_payload(Path(run_dir)).get("vocab_sha256")
    if expected is not None and vocab.digest() != expected:
        raise ValueError(f"{path} is not the vocabulary this run was trained with (its digest "
                         f"differs from vocab_sha256 in {Path(run_dir) / 'config.json'}): the "
                         "model's word ids would be wrong. Restore the run's own vocab.txt")
    return vocab


# -- loading a run ---------------------------------------------------------------------------

class Run(NamedTuple):
    """What :func:`load_run` read from a run folder."""

    config: ModelConfig  # the architecture
    state: dict[str, torch.Tensor]  # the weights, float32 (a BidirectionalLM's state_dict)
    vocab: Vocabulary | None  # the words the softmax predicts (None for an encoder only)
    train: dict  # the training settings (TrainConfig fields; {} for an exported encoder)


def weights_file(run_dir: str | Path, checkpoint: bool | str | Path = False) -> Path:
    """The weights :func:`load_run` reads: the final ``model.safetensors``; with
    ``checkpoint=True``, or while the run has no final weights yet, its newest checkpoint's;
    with a checkpoint folder, that one's."""
    run_dir = Path(run_dir)
    if isinstance(checkpoint, str | Path):
        return Path(checkpoint) / "model.safetensors"
    final = run_dir / "model.safetensors"
    if final.exists() and not checkpoint:
        return final
    newest = latest_checkpoint(run_dir)
    if newest is None:
        lacks = "complete checkpoint" if checkpoint else "model.safetensors nor a checkpoint"
        raise FileNotFoundError(f"{run_dir} has no {lacks}; train it (or resume it with "
                                "--resume) to write one")
    return newest / "model.safetensors"


def load_run(run_dir: str | Path, checkpoint: bool | str | Path = False) -> Run:
    """Load a trained run: its config, weights (:func:`weights_file`), vocabulary and training
    settings. A shipped model (encoder only, float16 storage) loads the same way: its config
    has ``vocab_size`` 0 and it has no softmax weights; tensors come back as float32. Where
    the folder has a ``SHA256SUMS`` (exports, the shipped models), the files are checked
    against it first.

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
    path = weights_file(run_dir, checkpoint)
    state = load_weights(path)
    check_weights(path, state)  # floating point and finite; shapes: where the model is built
    return Run(config, state, load_run_vocabulary(run_dir), train)


def load_elmo(run_dir: str | Path, checkpoint: bool | str | Path = False,
              **elmo_kwargs) -> ELMo:
    """An ``ELMo`` (in eval mode) of a biLM trained by this package, without its softmax.

    Args:
        run_dir: the run folder (``elmo-tutorial train --out RUN_DIR``, ``shipped_model(...)``).
        checkpoint: take the newest checkpoint's weights (or this checkpoint folder's).
        **elmo_kwargs: passed to ``ELMo`` (``do_layer_norm``, ``dropout``, ...).

    Example:
        >>> elmo = load_elmo(shipped_model("small"))                 # doctest: +SKIP
    """
    config, state, _, _ = load_run(run_dir, checkpoint=checkpoint)
    model = ELMo(config, **elmo_kwargs)
    encoder = {k: v for k, v in state.items() if not k.startswith("softmax.")}
    check_weights(f"{run_dir} (its weights)", encoder, model.bilm.state_dict())
    missing, unexpected = model.bilm.load_state_dict(encoder, strict=False)
    if missing or unexpected:
        raise ValueError(f"{run_dir}: its weights do not fit the biLM its config.json describes:"
                         f" missing {sorted(missing)[:5]}, unexpected {sorted(unexpected)[:5]}")
    return model.eval()


def shipped_model(name: str) -> Path:
    """The run folder of a model that ships with the course, for ``load_elmo``/``load_run``.

    ``"tiny"``: the ``tiny`` preset trained to the end (softmax included; notebooks 06-07).
    ``"small"``: the ``small`` preset's encoder (no softmax; notebooks 08-10). Each has a
    ``MODEL_CARD.md`` saying how it was trained, and a ``SHA256SUMS`` that loading checks.
    They come with a clone of the repository, not with a wheel of the package.
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
