"""Writing generated files (student copies, slides) into a folder without losing anybody's work.

The folder keeps a manifest, ``.elmo-tutorial-generated.json``, of the files written there and
their sha256. A file whose content is neither what was written before nor what is about to be
written is somebody's work (a student's answers, an instructor's edits) and is never silently
overwritten. The writer is safe against:

* **crashes and full disks**: every file and the manifest are written to a temporary name and
  renamed into place; the manifest is written *first*, listing for each file both its old and
  its new content, so a run cut short between two files leaves a folder that the next run
  recognises as its own (it is rewritten with only the new contents at the end);
* **a damaged manifest** (cut short by hand or by a disk): a one-line error that says what to
  do, and ``force`` works without it;
* **saves during the run** (a notebook saved in Jupyter while ``make student`` runs): each file
  is moved aside before its replacement is linked in, then the moved file is checked; if it
  was changed in the meantime it goes to ``backup-<time>/`` instead of being deleted;
* **two runs at once**: the folder is locked (POSIX ``flock``) while it is written.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from .exercises import CourseError
from .safe_files import atomic_write_text, fsync_dir

try:
    import fcntl
except ImportError:  # Windows: no folder lock, the checks below still hold
    fcntl = None

MANIFEST = ".elmo-tutorial-generated.json"


def _digest(path: Path) -> str | None:
    """sha256 of a regular file; None for anything else (a link, a folder, a FIFO)."""
    if path.is_symlink() or not path.is_file():
        return None
    return hashlib.sha256(path.read_bytes()).hexdigest()


@contextlib.contextmanager
def _locked(out: Path, kind: str) -> Iterator[None]:
    if fcntl is None:
        yield
        return
    fd = os.open(out, os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise CourseError(f"another `make {kind}` is writing into {out}; wait for it to "
                              f"finish, then run again") from None
        yield
    finally:
        os.close(fd)  # releases the lock


def _read_manifest(out: Path, kind: str, force: bool) -> dict[str, set[str]] | None:
    """name → the sha256 of the contents written there; None if there is no manifest."""
    path = out / MANIFEST
    if not path.exists():
        return None
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
        files = manifest["files"]
        ours = {name: {digests} if isinstance(digests, str) else set(digests)
                for name, digests in files.items()}
        if not all(isinstance(d, str) for digests in ours.values() for d in digests):
            raise TypeError("a digest is not a string")
        found = manifest["kind"]
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        if force:
            return {}
        raise CourseError(f"{path} is damaged ({type(error).__name__}; cut short by a crash or "
                          f"a full disk?): run `make {kind} FORCE=1` (--force) to write fresh "
                          f"files; any that differ from them move to {out}/backup-<time>/ "
                          f"first") from None
    if found != kind:
        raise CourseError(f"{out} holds generated {found}, not {kind}: choose another folder")
    return ours


def _write_manifest(out: Path, kind: str, files: dict[str, set[str]]) -> None:
    listing = {name: sorted(digests) for name, digests in sorted(files.items())}
    atomic_write_text(out / MANIFEST, json.dumps({"kind": kind, "files": listing}, indent=1)
                      + "\n")


class _Backup:
    """``out/backup-<time>/``, made when the first file has to go there."""

    def __init__(self, out: Path) -> None:
        self.out, self.folder, self.moved = out, None, []

    def keep(self, path: Path, name: str) -> None:
        if self.folder is None:
            self.folder = self.out / time.strftime("backup-%Y%m%d-%H%M%S")
            while self.folder.exists():  # two runs within a second
                self.folder = self.folder.with_name(self.folder.name + "+")
            self.folder.mkdir()
        os.replace(path, self.folder / name)
        self.moved.append(name)


def _replace(out: Path, name: str, data: bytes, ours: set[str], backup: _Backup) -> bool:
    """Put ``data`` at ``out/name`` unless somebody's work is there; False if it was left."""
    target = out / name
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=out)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        aside = None
        if target.exists() or target.is_symlink():
            # Take whatever is there at this instant, then check it: a save that lands after
            # the check cannot be lost, because the replacement is only linked in if free.
            aside = out / f".{name}.aside-{os.getpid()}"
            os.replace(target, aside)
        try:
            os.link(tmp, target)  # fails if a file appeared at ``target`` in the meantime
            written = True
        except FileExistsError:
            written = False
        except OSError:  # a file system without hard links
            written = not (target.exists() or target.is_symlink())
            if written:
                os.replace(tmp, target)
        if aside is not None:
            if _digest(aside) in ours:
                aside.unlink()
            else:
                backup.keep(aside, name)
        return written
    finally:
        Path(tmp).unlink(missing_ok=True)


def write_generated(out: Path, files: dict[str, bytes], kind: str, force: bool = False) -> None:
    """Write generated ``files`` (name → content) into ``out`` without losing anybody's work.

    ``out`` may be new, empty, or a folder this function wrote before for the same ``kind``.
    A file there that differs both from what was written before and from what is about to be
    written (edited, executed, saved) is never silently overwritten: without ``force`` the
    call refuses and writes nothing; with ``force`` such files move to ``out/backup-<time>/``.
    Other files in ``out`` are left alone.

    Raises:
        CourseError: saying what is in the way and how to proceed.
    """
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise CourseError(f"{out} is a file, not a folder: choose a folder to write into")
    out.mkdir(parents=True, exist_ok=True)
    with _locked(out, kind):
        ours = _read_manifest(out, kind, force)
        if ours is None and any(not p.name.startswith(".") for p in out.iterdir()) and not force:
            raise CourseError(f"{out} already exists and was not made by `make {kind}`; nothing "
                              f"was written. Choose a new or empty folder, or pass --force "
                              f"(FORCE=1) to write into it (files in the way move to a backup "
                              f"folder first)")
        ours = ours or {}
        new = {name: hashlib.sha256(data).hexdigest() for name, data in files.items()}
        changed = [name for name in files if (out / name).exists() or (out / name).is_symlink()
                   if _digest(out / name) not in ours.get(name, set()) | {new[name]}]
        if changed and not force:
            listing = ", ".join(str(out / name) for name in changed)
            raise CourseError(f"changed since `make {kind}` wrote them (your work?): {listing}. "
                              f"Nothing was written. Move them away, write to another folder, "
                              f"or pass --force (FORCE=1) to move them to {out}/backup-<time>/ "
                              f"and write fresh copies")
        backup = _Backup(out)
        for name in changed:
            backup.keep(out / name, name)
        # Before any file: what is ours afterwards, whichever files a crash leaves unwritten.
        _write_manifest(out, kind, {**ours, **{n: ours.get(n, set()) | {new[n]} for n in new}})
        left = [name for name, data in files.items()
                if not _replace(out, name, data, ours.get(name, set()) | {new[name]}, backup)]
        _write_manifest(out, kind, {**ours, **{n: {new[n]} for n in new if n not in left},
                                    **{n: ours.get(n, set()) for n in left}})
        fsync_dir(out)
    if backup.moved:
        print(f"moved {len(backup.moved)} changed file(s) to {backup.folder}", file=sys.stderr)
    if left:
        raise CourseError(f"saved while `make {kind}` ran, so left as they are: "
                          f"{', '.join(str(out / n) for n in left)}; the other files were "
                          f"written. Run again (with FORCE=1 to back them up and replace them)")
