"""Which checkpoint of a run is loaded, said aloud: the newest complete one, and every newer
one passed over, with why.

``checkpoints/latest`` names the newest checkpoint (:mod:`elmo_tutorial.model.checkpoint`), but
a run folder is a folder anyone may change: the checkpoint it names can be gone, or a newer
``step_NNNNNN`` can be an empty folder, or a FIFO or a file planted under its name. Scoring or
embedding with an older checkpoint without a word gives numbers that belong to another step
(a perplexity of 127.68 instead of 70.61, with no step named). So what loads a checkpoint by
"the newest" takes it from :func:`chosen_checkpoint`, which names every newer one it passes
over and the step it takes instead, and refuses what is not a checkpoint folder at all.

Example (``step_000070`` deleted, ``latest`` still naming it):
    >>> chosen_checkpoint("runs/tiny", "scoring").name              # doctest: +SKIP
    'step_000050'

and on stderr: ``warning: runs/tiny/checkpoints/step_000070 is missing (checkpoints/latest
names it); scoring step_000050, the newest complete checkpoint, instead``.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from elmo_tutorial.model.checkpoint import CHECKPOINTS, LATEST

__all__ = ["CHECKPOINT_FILES", "chosen_checkpoint", "named_in_latest", "newest_complete"]

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
