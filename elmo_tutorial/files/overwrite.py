"""No lost work: refuse to delete or overwrite a user's files unless told to (``--force``).

Training afresh into a run directory deletes its checkpoints; exporting into a folder replaces
its files. Both are what a typo in ``--out`` does too, so the commands first ask these
functions, which raise :class:`WouldOverwrite` naming what would be lost.

Example:
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "weights.hdf5").write_text("mine")
    >>> check_output_folder(folder, force=False)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    elmo_tutorial.files.overwrite.WouldOverwrite: ... is not empty (weights.hdf5): ...
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from elmo_tutorial.files.safe_files import atomic_write

# config.json of every run says it was written by this package: a user's own config.json,
# even one with the same tables, is then never taken for a run (and overwritten).
WRITTEN_BY = "elmo-tutorial"

# What a run directory holds (see elmo_tutorial.training.run_folder), newest work first.
RUN_FILES = ("model.safetensors", "checkpoints", "log.jsonl", "loss.png", "config.json",
             "vocab.txt")


class WouldOverwrite(FileExistsError):
    """Raised instead of deleting or overwriting files the user did not say could go."""


def _names(paths: list[Path], limit: int = 6) -> str:
    names = [p.name + ("/" if p.is_dir() else "") for p in paths]
    return ", ".join(names[:limit]) + (f" and {len(names) - limit} more" if len(names) > limit
                                       else "")


def check_not_a_file(path: str | Path, what: str = "the output") -> None:
    """Raise ``NotADirectoryError`` if ``path``, or a folder above it, is an existing file."""
    path = Path(path)
    file = next((p for p in (path, *path.parents) if p.is_file()), None)
    if file is not None:
        raise NotADirectoryError(f"{file} is a file, not a folder: {what} cannot be {path}; "
                                 "choose another path")


def describe_run(run_dir: str | Path) -> str:
    """What a run directory holds, in words (``"4 steps trained, 2 checkpoints,
    model.safetensors, log.jsonl, ..."``)."""
    run_dir = Path(run_dir)
    present = [name for name in RUN_FILES if (run_dir / name).exists()]
    steps = [int(m.group(1)) for p in (run_dir / "checkpoints").glob("step_*")
             if (m := re.fullmatch(r"step_(\d+)", p.name))]
    parts = [f"{max(steps)} steps trained, {len(steps)} checkpoint{'s' * (len(steps) != 1)}"
             if steps else "no checkpoint"]
    return ", ".join(parts + [name for name in present if name != "checkpoints"])


def check_fresh_run_dir(run_dir: str | Path, force: bool, resumable: bool = True,
                        doing: str = "training afresh") -> str | None:
    """Make sure that training afresh into ``run_dir`` loses nothing the user did not give up.

    ``--force`` replaces a run of this package, and only that: one whose ``config.json`` says
    ``"written_by": "elmo-tutorial"`` beside its ``"model"`` and ``"train"`` tables. Files
    under a run's names without it (another tool's model, a user's notes) are never deleted.
    ``doing`` names what would delete the run; ``resumable``: whether ``--resume`` is offered.

    Returns ``None`` when ``run_dir`` holds no trained weights (a run stopped before its first
    checkpoint is simply started again), else (with ``force``) the description of the run that
    :func:`remove_run` will delete. Raises :class:`WouldOverwrite` for files that are not a
    run's, or for a run without ``force``.
    """
    check_not_a_file(run_dir, "a run directory (--out)")
    run_dir = Path(run_dir)
    present = [run_dir / name for name in RUN_FILES if (run_dir / name).is_dir()
               or (run_dir / name).is_file() and (run_dir / name).stat().st_size > 0]
    if present and not _is_run_config(run_dir / "config.json"):
        raise WouldOverwrite(
            f"{run_dir} holds {_names(present)}, not a run's (there is no config.json of a run "
            f"of this package that they belong to): {doing} would overwrite them, and --force "
            "replaces only a run of this package. Move them away, or choose another --out")
    if not ((run_dir / "model.safetensors").exists() or any(run_dir.glob("checkpoints/step_*"))):
        return None
    held = describe_run(run_dir)
    if not force:
        instead = "Continue it with --resume, choose" if resumable else "Choose"
        raise WouldOverwrite(
            f"{run_dir} already holds a run ({held}): {doing} would delete it. "
            f"{instead} another --out, or pass --force to replace it")
    return held


def _is_run_config(path: Path) -> bool:
    """Whether ``path`` is the ``config.json`` of a run of this package."""
    try:
        payload = json.loads(path.read_bytes())
    except (OSError, ValueError):  # missing, or not JSON: not a run's
        return False
    return (isinstance(payload, dict) and payload.get("written_by") == WRITTEN_BY
            and all(isinstance(payload.get(key), dict) for key in ("model", "train")))


def remove_run(run_dir: str | Path) -> None:
    """Delete a run's files from ``run_dir`` (other files in the folder stay)."""
    for name in RUN_FILES:
        path = Path(run_dir) / name
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink(missing_ok=True)


def check_output_folder(folder: str | Path, force: bool) -> None:
    """Refuse to write into ``folder`` if it is a file (``NotADirectoryError``), or a folder
    that is not empty while ``force`` is False (:class:`WouldOverwrite`, naming its files)."""
    folder = Path(folder)
    check_not_a_file(folder)
    if force or not folder.is_dir():
        return
    entries = sorted(folder.iterdir())
    if entries:
        raise WouldOverwrite(
            f"{folder} is not empty ({_names(entries)}): writing there could overwrite these "
            "files. Choose an empty or new folder, or pass --force to write into it anyway")


def check_new_files(paths, force: bool) -> None:
    """Refuse (:class:`WouldOverwrite`) output files (``None`` is skipped) that exist already,
    unless ``force``: before a long computation, to fail in a second rather than after an hour
    (:func:`write_new_file` checks again)."""
    existing = [str(p) for p in paths if p and Path(p).exists()]
    if existing and not force:
        raise WouldOverwrite(f"{', '.join(existing)} already exists; choose another path or "
                             "pass --force to overwrite it")


def write_new_file(path: str | Path, write, force: bool) -> Path:
    """Write an output file atomically (``write(tmp_path)`` fills it); unless ``force``, refuse
    (:class:`WouldOverwrite`) if ``path`` exists, even if made by another process meanwhile."""
    try:
        atomic_write(path, write, replace=force)
    except FileExistsError:
        raise WouldOverwrite(f"{path} already exists (written meanwhile by another run?); "
                             "choose another path or pass --force to overwrite it") from None
    return Path(path)


__all__ = ["RUN_FILES", "WouldOverwrite", "check_fresh_run_dir", "check_new_files",
           "check_not_a_file", "check_output_folder", "describe_run", "remove_run",
           "write_new_file"]
