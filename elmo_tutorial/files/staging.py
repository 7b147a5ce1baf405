"""Folders published whole: built under a hidden name beside their place, then renamed into it.

A checkpoint (``checkpoints/step_000200``) and an export (``OUT_DIR``) are folders of several
files that only make sense together: new ``SHA256SUMS`` beside old weights would not load, and
half a checkpoint would be resumed from. Both are built the same way, here:

1. :func:`staged_folder` makes a fresh folder beside the target, named after it and the
   writing process: ``.NAME.WORD-<pid>-XXXX`` (``WORD`` says who writes it: ``export``,
   ``tmp``);
2. the caller writes its files into it (each one whole and on disk);
3. the folder is flushed and takes the target's name by one rename. A folder that already
   has the name (``replace=True``) is swapped out by renames: the new one ``.NAME.ready-<pid>``,
   the old one aside to ``.NAME.aside-<pid>``, the new one in, the old one deleted.

A crash, ``kill -9`` or a full disk at any point leaves the target as it was, or already the
new folder; never a mix. What a killed writer left is finished or undone by the next writer
(:func:`recover_staged`): a staging folder is removed, a swap cut between its renames is
completed (the ready folder, else the old one, takes the empty place) and an old folder set
aside is deleted. Only the folders of processes that no longer run are touched: a live
writer's are in use.

Example:
    >>> import tempfile, pathlib
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "out"
    >>> with staged_folder(target, "export") as stage:
    ...     _ = (stage / "a.txt").write_text("new")
    >>> (target / "a.txt").read_text()
    'new'
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from elmo_tutorial.files.safe_files import fsync_dir, process_alive
from elmo_tutorial.runtime import stop_signals_held

__all__ = ["publish_staged", "recover_staged", "staged_folder"]

READY, ASIDE = "ready", "aside"


def _sibling(target: Path, state: str, pid: int) -> Path:
    """``.NAME.ready-<pid>`` (complete, not yet published) or ``.NAME.aside-<pid>`` (the old
    folder, moved aside for the swap)."""
    return target.parent / f".{target.name}.{state}-{pid}"


@contextmanager
def staged_folder(target: str | Path, word: str, replace: bool = False) -> Iterator[Path]:
    """A fresh staging folder beside ``target`` (with the usual permissions); when the block
    ends without an error it becomes ``target`` (:func:`publish_staged`), else it is removed
    and the error goes on. What killed writers left beside ``target`` is cleared first.

    Args:
        word: names the writer in the staging folder's name (``.NAME.WORD-<pid>-XXXX``).
        replace: swap out a ``target`` that exists (else the rename fails on a full one).
    """
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    recover_staged(target.parent, word, target.name)
    stage = Path(tempfile.mkdtemp(prefix=f".{target.name}.{word}-{os.getpid()}-",
                                  dir=target.parent))
    try:
        stage.chmod(0o777 & ~_umask())  # mkdtemp makes 0700: the published folder gets the usual
        yield stage
        publish_staged(stage, target, replace)
    finally:
        shutil.rmtree(stage, ignore_errors=True)  # gone already once published


def publish_staged(stage: Path, target: Path, replace: bool = False) -> None:
    """Give the complete folder ``stage`` the name ``target``, durably: its entries are
    flushed first, so that a power cut cannot publish a folder whose files are not on disk.
    With ``replace``, an existing ``target`` is swapped out (ready, old aside, new in, old
    deleted); a stop signal (Ctrl-C, SIGTERM, SIGHUP) waits until the swap is done
    (:func:`~elmo_tutorial.runtime.stop_signals_held`), and a ``kill -9`` between two
    renames is finished by :func:`recover_staged`."""
    fsync_dir(stage)
    if not replace or not (target.exists() or target.is_symlink()):
        os.rename(stage, target)
        fsync_dir(target.parent)
        return
    pid = os.getpid()
    ready, aside = _sibling(target, READY, pid), _sibling(target, ASIDE, pid)
    with stop_signals_held():  # Ctrl-C between two renames would leave no folder at all
        os.rename(stage, ready)
        fsync_dir(target.parent)
        try:
            os.rename(target, aside)
            os.rename(ready, target)
        except OSError:
            if aside.exists() and not target.exists():
                os.rename(aside, target)  # put the previous folder back
            shutil.rmtree(ready, ignore_errors=True)
            raise
        fsync_dir(target.parent)
        shutil.rmtree(aside, ignore_errors=True)


def recover_staged(folder: str | Path, word: str, name: str | None = None) -> list[Path]:
    """Finish or undo what killed writers left in ``folder`` (for the target ``name``, or
    every target): a staging folder (``.NAME.WORD-<pid>-…``) is removed; a complete one whose
    swap had begun (``NAME`` moved aside) is put in place, else dropped; an old folder set
    aside is deleted, or put back if nothing took its place. Folders of processes that still
    run are left alone. Returns the folders removed or moved."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    names = re.escape(name) if name is not None else r".+"
    pattern = re.compile(rf"\.(?P<name>{names})\.(?P<state>{re.escape(word)}|{READY}|{ASIDE})"
                         r"-(?P<pid>\d+)(-[^.]*)?")
    left = [(m.group("state"), folder / m.group("name"), path) for path in folder.iterdir()
            if (m := pattern.fullmatch(path.name)) and not process_alive(int(m.group("pid")))]
    order = {word: 0, READY: 1, ASIDE: 2}  # the newest state first: it fills an empty place
    for state, target, path in sorted(left, key=lambda item: order[item[0]]):
        if state == word or target.exists() or target.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:  # the target is missing: the swap was cut; the ready one, else the old one, fills it
            os.rename(path, target)
    if left:
        fsync_dir(folder)
    return [path for _, _, path in left]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
