"""Weights and checkpoints that survive a crash, and load without unpickling code.

A run's checkpoints (the rest of a run directory: :mod:`elmo_tutorial.model.run_dir`)::

    checkpoints/
      latest               the name of the newest complete checkpoint, e.g. "step_000200"
      step_000200/
        model.safetensors  the model's weights
        state.pt           optimiser, scheduler, RNG states, data position (plain tensors,
                           numbers, lists and dicts: loads with torch.load(weights_only=True))

Every file is written whole (:func:`~elmo_tutorial.files.safe_files.atomic_write`). A
checkpoint is a directory, completed under a temporary name, renamed into place
(:func:`~elmo_tutorial.files.safe_files.staged_folder`), and only then named in ``latest``: a
crash mid-checkpoint leaves the previous one as it was.

A checkpoint file that no longer loads raises :class:`~elmo_tutorial.files.safe_files.DamagedFile`,
naming it, and ``load_latest_checkpoint`` then falls back to the newest checkpoint that still
loads.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import sys
from pathlib import Path

import numpy as np
import safetensors.torch
import torch
from safetensors.torch import load_file, save_file

from elmo_tutorial.files.safe_files import (
    DamagedFile,
    atomic_write,
    atomic_write_text,
    staged_folder,
)
from elmo_tutorial.model.weight_checks import check_weights

CHECKPOINTS = "checkpoints"
LATEST = "latest"


def save_weights(path: str | Path, state_dict: dict[str, torch.Tensor]) -> None:
    """Write a state dict as safetensors (contiguous CPU copies; no shared storage)."""
    tensors = {k: v.detach().to("cpu").contiguous().clone() for k, v in state_dict.items()}
    atomic_write(path, lambda tmp: save_file(tensors, tmp) if _utf8_name(tmp)
                 else Path(tmp).write_bytes(safetensors.torch.save(tensors)))


def _utf8_name(path: str | Path) -> bool:
    """Whether safetensors, which takes a path as UTF-8 text, finds ``path``: in a folder
    named in another encoding (``café`` made under a Latin-1 locale) Python opens the file."""
    try:
        return os.fsencode(path) == str(path).encode("utf-8")
    except UnicodeEncodeError:  # undecodable bytes, kept by Python as surrogates
        return False


def load_weights(path: str | Path, dtype: torch.dtype | None = torch.float32) -> dict:
    """Read safetensors weights, cast floating tensors to ``dtype`` (float16 files → float32).

    Raises:
        FileNotFoundError: ``path`` does not exist.
        DamagedFile: ``path`` is not a complete safetensors file.
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{path} not found")
    try:
        tensors = (load_file(str(path)) if _utf8_name(path)
                   else safetensors.torch.load(path.read_bytes()))
    except Exception as error:  # SafetensorError and whatever a damaged file makes it raise
        raise DamagedFile.of(path, error) from None
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
        with staged_folder(final) as stage:
            save_weights(stage / "model.safetensors", model_state)
            atomic_write(stage / "state.pt", lambda p: _write_state(p, state))
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
        name = pointer.read_text(encoding="utf-8", errors="replace").strip()
        if re.fullmatch(r"step_\d+", name) and (root / name / "state.pt").exists():
            return root / name
    complete = [p for p in checkpoints(run_dir) if (p / "state.pt").exists()]
    return complete[0] if complete else None


STATE_KEYS = ("step", "epoch", "batch_in_epoch", "optimizer", "scheduler", "rng")


def load_checkpoint(path: str | Path) -> tuple[dict, dict]:
    """``(model_state, state)`` of a checkpoint directory; nothing is unpickled but data
    (``weights_only=True``: tensors, numbers, strings, lists and dicts, never code).

    Raises:
        FileNotFoundError: a file of the checkpoint is missing.
        DamagedFile: a file of the checkpoint does not load.
    """
    path = Path(path)
    model_state = load_weights(path / "model.safetensors", dtype=None)
    state_file = path / "state.pt"
    if not state_file.exists():
        raise FileNotFoundError(f"{state_file} not found")
    try:
        state = torch.load(state_file, map_location="cpu", weights_only=True)
    except Exception as error:  # EOFError, UnpicklingError, RuntimeError, OSError, ...
        raise DamagedFile.of(state_file, error) from None
    if not isinstance(state, dict) or not all(key in state for key in STATE_KEYS):
        raise DamagedFile.of(state_file, ValueError(f"it lacks some of {list(STATE_KEYS)}"))
    return model_state, state


def check_fits_model(path: Path, weights: dict, expected: dict) -> None:
    """Refuse weights that load but do not fit the model: other names, shapes or dtypes, or
    values that are not finite. ``expected`` is the model's ``state_dict()``.

    A file can be complete and still wrong (written by another version, edited, replaced);
    loading int32 weights into a float model would convert them without a word.

    Raises:
        DamagedFile: names ``path`` and the first tensor that does not fit.
    """
    missing, extra = sorted(set(expected) - set(weights)), sorted(set(weights) - set(expected))
    if missing or extra:
        raise DamagedFile(path, f"it lacks {missing[:3]} or has {extra[:3]} that the model of "
                                "config.json does not", _NOT_THIS_MODEL)
    try:  # floating point, the model's shapes, finite values
        check_weights(path, weights, expected)
    except ValueError as error:
        raise DamagedFile(path, str(error).removeprefix(f"{path}: "), _NOT_THIS_MODEL) from None
    for name, want in expected.items():  # and exactly the model's precision
        if weights[name].dtype != want.dtype:
            raise DamagedFile(path, f"{name} is {str(weights[name].dtype)[6:]}, the model has "
                                    f"{str(want.dtype)[6:]}", _NOT_THIS_MODEL)


_NOT_THIS_MODEL = "it does not fit the model that config.json describes"


def load_latest_checkpoint(run_dir: str | Path, expected: dict | None = None,
                           ) -> tuple[Path, dict, dict, list[str]]:
    """The newest checkpoint of a run that loads: ``(path, model_state, state, skipped)``.

    With ``expected`` (the model's ``state_dict()``), a checkpoint must also fit it
    (:func:`check_fits_model`). ``skipped`` says, one line each, which newer checkpoints were
    damaged or did not fit and were passed over.

    Raises:
        FileNotFoundError: the run has no checkpoint.
        ValueError: no checkpoint of the run loads and fits; names every one.
    """
    found = checkpoints(run_dir)
    if not found:
        raise FileNotFoundError(f"--resume: {run_dir} has no checkpoint to resume from; start "
                                "without --resume (or point --out at the run)")
    skipped, damaged = [], []
    for path in found:
        try:
            model_state, state = load_checkpoint(path)
            if expected is not None:
                check_fits_model(path / "model.safetensors", model_state, expected)
            return path, model_state, state, skipped
        except (DamagedFile, FileNotFoundError) as error:
            skipped.append(str(error))
            damaged.append(f"{getattr(error, 'path', path).relative_to(path.parent)} "
                           f"({getattr(error, 'reason', 'a file is missing')})")
    edited = any(_NOT_THIS_MODEL in problem for problem in skipped)
    raise ValueError(f"{run_dir} has no intact checkpoint to resume from: "
                     f"{'; '.join(damaged)}. "
                     + ("If its config.json was edited or replaced, restore it; otherwise "
                        if edited else "")
                     + "train it afresh with --force")


def set_aside(run_dir: str | Path, resumed_from: Path, problems: list[str]) -> list[str]:
    """Rename every checkpoint newer than ``resumed_from`` (those ``load_latest_checkpoint``
    passed over, with ``problems``) to ``step_NNNNNN.damaged`` and point ``latest`` at
    ``resumed_from``; a warning for each, saying where it went.

    Left in place, a damaged checkpoint stays the newest: ``latest`` would name it, and the
    resumed run, reaching its step again, would keep it (a step's checkpoint is never
    rewritten), so that every later ``--resume`` went further back. Renamed, it is kept for a
    look but never loaded again.
    """
    root, warnings = Path(run_dir) / CHECKPOINTS, []
    found = checkpoints(run_dir)  # newest first
    newer = found[:found.index(resumed_from)] if resumed_from in found else []
    for index, path in enumerate(newer):
        problem = problems[index] if index < len(problems) else f"{path.name} was passed over"
        aside = path.with_name(path.name + ".damaged")
        number = 1
        while aside.exists():  # an earlier one of the same step, set aside before
            number += 1
            aside = path.with_name(f"{path.name}.damaged-{number}")
        os.replace(path, aside)
        warnings.append(f"{problem}; resuming from {resumed_from} instead, and {path.name} is "
                        f"renamed {aside.name} (delete it once you have no use for it)")
    if newer:
        atomic_write_text(root / LATEST, resumed_from.name + "\n")
    return warnings


# ---------------------------------------------------------------------------------------------
# Which checkpoint "the newest" is, said aloud
# ---------------------------------------------------------------------------------------------
# ``latest`` can name a checkpoint that is gone, and a newer ``step_NNNNNN`` can be empty:
# scoring an older checkpoint without a word gives numbers of another step (a perplexity of
# 127.68 instead of 70.61). What loads "the newest" takes it from chosen_checkpoint, which
# names every newer one it passes over and the step it takes instead.

CHECKPOINT_FILES = ("model.safetensors", "state.pt")  # what a complete checkpoint holds
_STEP = re.compile(r"step_(\d+)")


def step_of(path: Path) -> int:
    """The step of a checkpoint folder ``step_NNNNNN`` (-1 for any other name)."""
    match = _STEP.fullmatch(path.name)
    return int(match.group(1)) if match else -1


def named_in_latest(run_dir: str | Path) -> Path | None:
    """The checkpoint folder that ``checkpoints/latest`` names (which may be missing), or None
    if there is no pointer or it names no checkpoint (damaged: then the steps decide)."""
    pointer = Path(run_dir) / CHECKPOINTS / LATEST
    if not pointer.is_file():
        return None
    name = pointer.read_text(encoding="utf-8", errors="replace").strip()
    return pointer.parent / name if _STEP.fullmatch(name) else None


def newest_complete(run_dir: str | Path) -> tuple[Path | None, list[str]]:
    """``(the newest complete checkpoint or None, a line for each newer one passed over)``.

    The candidates are every ``step_NNNNNN`` in ``checkpoints/`` and the one ``latest``
    names, newest (highest step) first; the first folder that holds both of
    :data:`CHECKPOINT_FILES` is taken.
    """
    root = Path(run_dir) / CHECKPOINTS
    candidates = {p for p in root.iterdir() if _STEP.fullmatch(p.name)} if root.is_dir() else set()
    named = named_in_latest(run_dir)
    if named is not None:
        candidates.add(named)
    passed = []
    for path in sorted(candidates, key=step_of, reverse=True):
        if path.exists() and not path.is_dir():
            passed.append(f"{path} is not a checkpoint folder")
            continue
        if not path.exists():
            passed.append(f"{path} is missing (checkpoints/latest names it)")
            continue
        lacking = [name for name in CHECKPOINT_FILES if not (path / name).exists()]
        if not lacking:
            return path, passed
        passed.append(f"{path} is {'empty' if not any(path.iterdir()) else 'incomplete'} "
                      f"(it lacks {' and '.join(lacking)})")
    return None, passed


def chosen_checkpoint(run_dir: str | Path, doing: str = "using") -> Path:
    """The checkpoint to load when "the newest" is asked for (:func:`newest_complete`); every
    newer one passed over is named in a warning on stderr, with the step taken instead.

    Raises:
        FileNotFoundError: the run has no complete checkpoint (names those passed over).
    """
    path, passed = newest_complete(run_dir)
    if path is None:
        found = f" ({'; '.join(passed)})" if passed else ""
        raise FileNotFoundError(f"{run_dir} has no complete checkpoint{found}; train it (or "
                                "resume it with --resume) to write one")
    for problem in passed:
        print(f"warning: {problem}; {doing} {path.name}, the newest complete checkpoint, "
              "instead", file=sys.stderr)
    return path


__all__ = [
    "CHECKPOINT_FILES", "chosen_checkpoint", "named_in_latest", "newest_complete", "step_of",
    "save_weights", "load_weights", "rng_state", "set_rng_state", "save_checkpoint", "checkpoints",
    "latest_checkpoint", "load_checkpoint", "load_latest_checkpoint", "check_fits_model",
    "set_aside",
]
