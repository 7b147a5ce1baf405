"""Weights and checkpoints written whole, and read back without unpickling code.

A checkpoint is a folder ``checkpoints/step_NNNNNN/``: the model's safetensors and
``state.pt`` (optimiser, scheduler, random states, data position) of plain tensors, numbers,
lists and dicts, which loads with ``torch.load(weights_only=True)``. It is filled under a
temporary name and renamed into place (:func:`~elmo_tutorial.files.safe_files.staged_folder`):
a crash or ``kill -9`` mid-way leaves the previous checkpoint as it was.
"""

from __future__ import annotations

import random
import re
import shutil
import sys
from pathlib import Path

import numpy as np
import torch
from safetensors.torch import load as load_safetensors
from safetensors.torch import save as save_safetensors

from elmo_tutorial.files.safe_files import DamagedFile, atomic_write, staged_folder

__all__ = ["check_fits", "check_weights", "checkpoints", "latest_checkpoint", "load_checkpoint",
           "load_latest_checkpoint", "load_weights", "rng_state", "save_checkpoint",
           "save_weights", "set_rng_state"]


# -- weights ---------------------------------------------------------------------------------

def save_weights(path: str | Path, state_dict: dict[str, torch.Tensor]) -> None:
    """Write a state dict as safetensors (contiguous CPU copies; no shared storage)."""
    tensors = {k: v.detach().to("cpu").contiguous().clone() for k, v in state_dict.items()}
    atomic_write(path, lambda tmp: Path(tmp).write_bytes(save_safetensors(tensors)))


def load_weights(path: str | Path, dtype: torch.dtype | None = torch.float32) -> dict:
    """Read safetensors weights, floating tensors cast to ``dtype`` (float16 files → float32);
    ``DamagedFile`` if ``path`` is not a complete safetensors file."""
    data = Path(path).read_bytes()  # a missing file: FileNotFoundError, naming it
    try:
        tensors = load_safetensors(data)
    except Exception as error:  # SafetensorError and whatever a damaged file makes it raise
        raise DamagedFile.of(path, error) from None
    if dtype is not None:
        tensors = {k: v.to(dtype) if v.is_floating_point() else v for k, v in tensors.items()}
    return tensors


def check_weights(path: str | Path, state: dict[str, torch.Tensor],
                  expected: dict[str, torch.Tensor] | None = None) -> None:
    """Check that tensors read from ``path`` are weights: floating point and finite, and with
    ``expected`` (the model's own state dict) of its shapes; else one ``ValueError`` line.
    Names in only one of the two are left to the caller."""
    for name, tensor in state.items():
        want = tensor if expected is None else expected.get(name)
        if want is None:
            continue
        if not tensor.is_floating_point():
            raise ValueError(f"{path}: the tensor {name} is {str(tensor.dtype)[6:]}, but weights "
                             "are floating point; the file is damaged or not a model's weights")
        if tensor.shape != want.shape:
            hint = (" (transposed?)" if tuple(tensor.shape) == tuple(want.shape)[::-1]
                    else " (the weights of another model?)")
            raise ValueError(f"{path}: the tensor {name} has shape {tuple(tensor.shape)}, but the "
                             f"config describes {tuple(want.shape)}{hint}")
        if not bool(torch.isfinite(tensor).all()):
            bad = int((~torch.isfinite(tensor)).sum())
            raise ValueError(f"{path}: the tensor {name} holds {bad} NaN or infinite values; "
                             "these weights are damaged (or come from a diverged training)")


def check_fits(path: str | Path, state: dict[str, torch.Tensor],
               expected: dict[str, torch.Tensor]) -> None:
    """:func:`check_weights`, and the same tensor names as ``expected``: weights a run's model
    can load, or one line saying why not (``ValueError``)."""
    if state.keys() != expected.keys():
        raise ValueError(f"{path}: its tensors are not those of the model that config.json "
                         "describes")
    check_weights(path, state, expected)


# -- checkpoints -----------------------------------------------------------------------------

def rng_state() -> dict:
    """Python, NumPy and PyTorch (CPU and every CUDA device) generator states, as plain
    lists and tensors (``weights_only``-loadable)."""
    version, py_state, gauss = random.getstate()
    name, keys, pos, has_gauss, cached = np.random.get_state()
    state = {"python": [version, list(py_state), gauss],
             "numpy": [name, torch.from_numpy(keys.astype(np.int64)), pos, has_gauss, cached],
             "torch": torch.get_rng_state()}
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


def _write_state(path: str, state: dict) -> None:
    """The slow part of a checkpoint, separate so tests can simulate a crash inside it."""
    torch.save(state, path)


def checkpoints(run_dir: str | Path) -> list[Path]:
    """The checkpoint folders of a run, newest (highest step) first."""
    found = [(int(m.group(1)), p) for p in (Path(run_dir) / "checkpoints").glob("step_*")
             if (m := re.fullmatch(r"step_(\d+)", p.name)) and p.is_dir()]
    return [p for _, p in sorted(found, reverse=True)]  # by number: step_1000000 > step_999999


def latest_checkpoint(run_dir: str | Path) -> Path | None:
    """The newest checkpoint folder that holds both its files, or None."""
    return next((p for p in checkpoints(run_dir)
                 if (p / "model.safetensors").exists() and (p / "state.pt").exists()), None)


def save_checkpoint(run_dir: str | Path, step: int, model_state: dict, state: dict,
                    keep: int = 2) -> Path:
    """Write ``checkpoints/step_NNNNNN/`` whole and keep only the ``keep`` newest; ``state``
    is everything but the weights, as plain data (``weights_only``-loadable)."""
    final = Path(run_dir) / "checkpoints" / f"step_{step:06d}"
    if not final.exists():  # the same step always holds the same state: never rewrite it
        with staged_folder(final) as stage:
            save_weights(stage / "model.safetensors", model_state)
            atomic_write(stage / "state.pt", lambda p: _write_state(p, state))
    for old in checkpoints(run_dir)[keep:]:
        shutil.rmtree(old, ignore_errors=True)
    return final


def load_checkpoint(path: str | Path) -> tuple[dict, dict]:
    """``(model_state, state)`` of a checkpoint folder; nothing is unpickled but data."""
    path = Path(path)
    model_state = load_weights(path / "model.safetensors", dtype=None)
    if not (path / "state.pt").exists():
        raise FileNotFoundError(f"{path / 'state.pt'} not found")
    try:
        state = torch.load(path / "state.pt", map_location="cpu", weights_only=True)
    except Exception as error:  # EOFError, UnpicklingError, RuntimeError, ...
        raise DamagedFile.of(path / "state.pt", error) from None
    return model_state, state


def load_latest_checkpoint(run_dir: str | Path, expected: dict, clean: bool = True,
                           ) -> tuple[Path, dict, dict]:
    """``(path, model_state, state)`` of the newest checkpoint that loads and fits the model
    whose ``state_dict()`` is ``expected``; ``ValueError`` naming each problem if none does.

    With ``clean`` (the main process), newer ones are named in a warning and moved out of the
    way, so that the resumed run writes their steps again: one that does not load (a
    half-written file of this run) is deleted; one that loads but does not fit (another
    model's weights, a diverged step) is renamed ``unfit-step_N``: it may be somebody's work.
    """
    problems = []  # (folder, what is wrong, whether it loaded)
    for path in checkpoints(run_dir):
        loaded = False
        try:
            model_state, state = load_checkpoint(path)
            loaded = True
            check_fits(path / "model.safetensors", model_state, expected)
        except (ValueError, FileNotFoundError) as error:  # DamagedFile is a ValueError
            problems.append((path, str(error), loaded))
            continue
        for newer, problem, kept in problems if clean else ():
            if kept:
                aside = newer.with_name(f"unfit-{newer.name}")
                while aside.exists():
                    aside = aside.with_name(aside.name + "+")
                newer.rename(aside)
                done = f"moving {newer.name} to {aside.name}"
            else:
                shutil.rmtree(newer, ignore_errors=True)
                done = f"deleting {newer.name}"
            print(f"warning: {problem}; resuming from {path} instead, and {done}",
                  file=sys.stderr)
        return path, model_state, state
    raise ValueError(f"{run_dir} has no intact checkpoint to resume from: "
                     f"{'; '.join(problem for _, problem, _ in problems)}. If its config.json "
                     "was edited or replaced, restore it; otherwise train it afresh with --force")
