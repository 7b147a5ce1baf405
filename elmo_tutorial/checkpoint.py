"""Run directories and checkpoints that survive a crash, and load without unpickling code.

A run directory::

    runs/tiny/
      config.json            {"model": ModelConfig fields, "train": TrainConfig fields}
      vocab.txt              one word per line (bilm-tf format); line i = word id i
      model.safetensors      final weights (encoder + softmax), float32
      log.jsonl              one JSON object per logged step / evaluation
      loss.png               training loss and held-out perplexity
      checkpoints/
        latest               the name of the newest complete checkpoint, e.g. "step_000200"
        step_000200/
          model.safetensors  the model's weights
          state.pt           optimiser, scheduler, RNG states, data position (plain tensors,
                             numbers, lists and dicts: loads with torch.load(weights_only=True))

Every file is written to a temporary name and then renamed with ``os.replace``, which is atomic
on POSIX and Windows: a crash (or ``kill -9``) mid-write leaves the previous file intact, never
half a file. A checkpoint is a directory, completed under a temporary name, renamed into place,
and only then named in ``latest``.

What a crash cannot do, a full disk, a bad copy or a cut download can: a file that no longer
loads raises :class:`DamagedFile`, naming it, and ``load_latest_checkpoint`` then falls back to
the newest checkpoint that still loads.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import tempfile
from pathlib import Path

import numpy as np
import torch
from safetensors.torch import load_file, save_file

from .config import ModelConfig

CHECKPOINTS = "checkpoints"
LATEST = "latest"


class DamagedFile(ValueError):
    """A weights, checkpoint or config file that exists but does not load (cut short, empty,
    overwritten): the message names it and says how to check or replace it.

    Attributes:
        path: the damaged file.
        reason: what reading it raised, e.g. ``"EOFError"``.
    """

    def __init__(self, path: Path, reason: str) -> None:
        sums = path.parent / "SHA256SUMS"
        if sums.exists():
            hint = (f"check the folder with `sha256sum -c SHA256SUMS` in {path.parent} and "
                    "download or copy what fails again")
        else:
            hint = "it was cut short or overwritten (by a full disk, an interrupted copy?)"
        super().__init__(f"{path} is damaged and cannot be read ({reason}); {hint}")
        self.path, self.reason = path, reason


def _damaged(path: Path, error: BaseException) -> DamagedFile:
    detail = str(error).strip().splitlines()[0][:100] if str(error).strip() else ""
    return DamagedFile(path, type(error).__name__ + (f": {detail}" if detail else ""))


def _fsync_dir(path: Path) -> None:
    if os.name == "posix":  # make the rename itself durable
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def atomic_write(path: str | Path, write) -> None:
    """Call ``write(tmp_path)`` then rename the finished file onto ``path`` atomically."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    umask = os.umask(0)
    os.umask(umask)
    try:
        write(tmp)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp (and some writers) make 0600: the usual ones
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def atomic_write_text(path: str | Path, text: str) -> None:
    atomic_write(path, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))


def save_weights(path: str | Path, state_dict: dict[str, torch.Tensor]) -> None:
    """Write a state dict as safetensors (contiguous CPU copies; no shared storage)."""
    tensors = {k: v.detach().to("cpu").contiguous().clone() for k, v in state_dict.items()}
    atomic_write(path, lambda tmp: save_file(tensors, tmp))


def load_weights(path: str | Path, dtype: torch.dtype | None = torch.float32) -> dict:
    """Read safetensors weights, cast floating tensors to ``dtype`` (float16 files → float32).

    Raises:
        FileNotFoundError: ``path`` does not exist.
        DamagedFile: ``path`` is not a complete safetensors file.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path} not found")
    try:
        tensors = load_file(str(path))
    except Exception as error:  # SafetensorError and whatever a damaged file makes it raise
        raise _damaged(path, error) from None
    if dtype is not None:
        tensors = {k: v.to(dtype) if v.is_floating_point() else v for k, v in tensors.items()}
    return tensors


# ---------------------------------------------------------------------------------------------
# RNG state as plain tensors and lists (weights_only-loadable)
# ---------------------------------------------------------------------------------------------

def rng_state() -> dict:
    """Python, NumPy, PyTorch (CPU and every CUDA device) generator states."""
    version, py_state, gauss = random.getstate()
    name, keys, pos, has_gauss, cached = np.random.get_state()
    state = {
        "python": [version, list(py_state), gauss],
        "numpy": [name, torch.from_numpy(keys.astype(np.int64)), pos, has_gauss, cached],
        "torch": torch.get_rng_state(),
    }
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def set_rng_state(state: dict) -> None:
    version, py_state, gauss = state["python"]
    random.setstate((version, tuple(py_state), gauss))
    name, keys, pos, has_gauss, cached = state["numpy"]
    np.random.set_state((name, keys.numpy().astype(np.uint32), pos, has_gauss, cached))
    torch.set_rng_state(state["torch"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


# ---------------------------------------------------------------------------------------------
# Checkpoints
# ---------------------------------------------------------------------------------------------

def _write_state(path: str, state: dict) -> None:
    """The slow part of a checkpoint, separate so tests can simulate a crash inside it."""
    torch.save(state, path)


def save_checkpoint(run_dir: str | Path, step: int, model_state: dict, state: dict,
                    keep: int = 2) -> Path:
    """Write ``checkpoints/step_NNNNNN/`` atomically, point ``latest`` at it, prune old ones.

    Args:
        model_state: the model's ``state_dict()``.
        state: everything else (optimiser, scheduler, RNG, data position), as plain tensors,
            numbers, strings, lists and dicts so that it loads with ``weights_only=True``.
        keep: how many of the newest checkpoints to keep.
    """
    root = Path(run_dir) / CHECKPOINTS
    root.mkdir(parents=True, exist_ok=True)
    final = root / f"step_{step:06d}"
    if not final.exists():  # the same step always holds the same state: never rewrite it
        for stale in root.glob(".tmp-*"):  # left by a crash during an earlier write
            shutil.rmtree(stale, ignore_errors=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".tmp-{final.name}-", dir=root))
        try:
            save_weights(tmp / "model.safetensors", model_state)
            atomic_write(tmp / "state.pt", lambda p: _write_state(p, state))
            os.replace(tmp, final)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        _fsync_dir(root)
    atomic_write_text(root / LATEST, final.name + "\n")
    for old in checkpoints(run_dir)[keep:]:
        shutil.rmtree(old, ignore_errors=True)
    return final


def checkpoints(run_dir: str | Path) -> list[Path]:
    """The checkpoint directories of a run, newest (highest step) first."""
    found = [(int(m.group(1)), p) for p in (Path(run_dir) / CHECKPOINTS).glob("step_*")
             if p.is_dir() and (m := re.fullmatch(r"step_(\d+)", p.name))]
    return [p for _, p in sorted(found, reverse=True)]  # by number: step_1000000 > step_999999


def latest_checkpoint(run_dir: str | Path) -> Path | None:
    """The newest complete checkpoint of a run, or None if it has none."""
    root = Path(run_dir) / CHECKPOINTS
    pointer = root / LATEST
    if pointer.is_file():
        name = pointer.read_bytes().decode("utf-8", errors="replace").strip()
        if re.fullmatch(r"step_\d+", name) and (root / name / "state.pt").exists():
            return root / name
    complete = [p for p in checkpoints(run_dir) if (p / "state.pt").exists()]
    return complete[0] if complete else None


STATE_KEYS = ("step", "epoch", "batch_in_epoch", "optimizer", "scheduler", "rng")


def load_checkpoint(path: str | Path) -> tuple[dict, dict]:
    """``(model_state, state)`` of a checkpoint directory; nothing is unpickled but data.

    Raises:
        FileNotFoundError: a file of the checkpoint is missing.
        DamagedFile: a file of the checkpoint does not load.
    """
    path = Path(path)
    model_state = load_weights(path / "model.safetensors", dtype=None)
    state_file = path / "state.pt"
    if not state_file.is_file():
        raise FileNotFoundError(f"{state_file} not found")
    try:
        state = torch.load(state_file, map_location="cpu", weights_only=True)
    except Exception as error:  # EOFError, UnpicklingError, RuntimeError, OSError, ...
        raise _damaged(state_file, error) from None
    if not isinstance(state, dict) or not all(key in state for key in STATE_KEYS):
        raise _damaged(state_file, ValueError(f"it lacks some of {list(STATE_KEYS)}"))
    return model_state, state


def load_latest_checkpoint(run_dir: str | Path) -> tuple[Path, dict, dict, list[str]]:
    """The newest checkpoint of a run that loads: ``(path, model_state, state, skipped)``.

    ``skipped`` says, one line each, which newer checkpoints were damaged and passed over.

    Raises:
        FileNotFoundError: the run has no checkpoint.
        DamagedFile: no checkpoint of the run loads; names every damaged file.
    """
    found = checkpoints(run_dir)
    if not found:
        raise FileNotFoundError(f"--resume: {run_dir} has no checkpoint to resume from; start "
                                "without --resume (or point --out at the run)")
    skipped, damaged = [], []
    for path in found:
        try:
            return (path, *load_checkpoint(path), skipped)
        except (DamagedFile, FileNotFoundError) as error:
            skipped.append(str(error))
            damaged.append(f"{getattr(error, 'path', path).relative_to(path.parent)} "
                           f"({getattr(error, 'reason', 'a file is missing')})")
    raise ValueError(f"{run_dir} has no intact checkpoint to resume from: "
                     f"{'; '.join(damaged)} are damaged. Train it afresh with --force")


# ---------------------------------------------------------------------------------------------
# Run directories
# ---------------------------------------------------------------------------------------------

def write_run_config(run_dir: str | Path, model_config: ModelConfig, train_config: dict) -> None:
    payload = {"model": model_config.to_dict(), "train": train_config}
    atomic_write_text(Path(run_dir) / "config.json", json.dumps(payload, indent=2) + "\n")


def read_run_config(run_dir: str | Path) -> tuple[ModelConfig, dict]:
    path = Path(run_dir) / "config.json"
    if Path(run_dir).is_file():
        raise ValueError(f"{run_dir} is a file, not a run directory: give the folder that holds "
                         "config.json and model.safetensors")
    if not path.exists():
        official = " (it holds options.json: load it with load_allennlp)" if (
            Path(run_dir) / "options.json").exists() else ""
        raise FileNotFoundError(
            f"{path} not found: {run_dir} is not a run directory{official}. Train one with "
            "`elmo-tutorial train --config tiny --out RUN_DIR`.")
    try:
        payload = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise _damaged(path, error) from None
    if not isinstance(payload, dict) or not isinstance(payload.get("model"), dict):
        raise ValueError(f"{path} is not the config.json of a run of this package (it has no "
                         "\"model\" table); for options.json + weights.hdf5 use load_allennlp")
    try:
        return ModelConfig.from_dict(payload["model"]), payload.get("train", {})
    except (TypeError, ValueError) as error:
        raise ValueError(f"{path}: {error}") from None


def load_run(run_dir: str | Path, checkpoint: bool = False):
    """Load a trained run: ``(ModelConfig, state_dict, Vocabulary)``.

    The weights are ``model.safetensors`` of the run (its final weights); with
    ``checkpoint=True``, or while a run has no final weights yet, those of its newest
    checkpoint. A shipped model (encoder only, float16 storage) loads the same way: its config
    has ``vocab_size`` 0 and it has no softmax weights; tensors come back as float32.

    Example:
        >>> config, state, vocab = load_run("runs/tiny")            # doctest: +SKIP
        >>> lm = BidirectionalLM(config); lm.load_state_dict(state)  # doctest: +SKIP
    """
    from .vocab import Vocabulary

    run_dir = Path(run_dir)
    config, _ = read_run_config(run_dir)
    final = run_dir / "model.safetensors"
    if checkpoint or not final.exists():
        ckpt = latest_checkpoint(run_dir)
        if ckpt is None:
            raise FileNotFoundError(f"{run_dir} has neither model.safetensors nor a checkpoint; "
                                    "train it first (or resume it with --resume)")
        final = ckpt / "model.safetensors"
    try:
        state = load_weights(final)
    except DamagedFile as error:
        if final.parent == run_dir and latest_checkpoint(run_dir):
            raise ValueError(f"{error}; or load the run's newest checkpoint instead "
                             "(from_run(..., checkpoint=True), evaluate --checkpoint)") from None
        raise
    vocab_path = run_dir / "vocab.txt"
    vocab = Vocabulary.load(vocab_path) if vocab_path.exists() else None
    return config, state, vocab




# ---------------------------------------------------------------------------------------------
# Models that ship with the course
# ---------------------------------------------------------------------------------------------

SHIPPED_MODELS = ("tiny", "small")  # run directories in the repository's data/models/


def shipped_model(name: str) -> Path:
    """The run directory of a model that ships with the course, for ``ELMo.from_run``/``load_run``.

    ``"tiny"``: the ``tiny`` preset trained to the end (softmax included; notebooks 06-07).
    ``"small"``: the ``small`` preset's encoder (no softmax; notebooks 08-10). Each has a
    ``MODEL_CARD.md`` saying how it was trained.

    Raises:
        ValueError: an unknown name.
        FileNotFoundError: the models are not there (they come with a clone of the repository,
            not with a wheel of the package).
    """
    if name not in SHIPPED_MODELS:
        raise ValueError(f"no shipped model called {name!r}; the course ships {SHIPPED_MODELS}")
    path = Path(__file__).resolve().parent.parent / "data" / "models" / name
    if not (path / "config.json").exists():
        raise FileNotFoundError(
            f"the shipped model {name!r} is not at {path}: it comes with a clone of the course "
            f"repository (data/models/{name}). Clone it, or train your own with "
            f"`elmo-tutorial train --config {name} --out runs/{name}` and load runs/{name}.")
    return path


__all__ = [
    "DamagedFile", "atomic_write", "atomic_write_text", "save_weights", "load_weights",
    "rng_state", "set_rng_state", "save_checkpoint", "checkpoints", "latest_checkpoint",
    "load_checkpoint", "load_latest_checkpoint", "write_run_config", "read_run_config",
    "load_run", "SHIPPED_MODELS", "shipped_model",
]
