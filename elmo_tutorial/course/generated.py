"""Writing generated files (student copies, slides) into a folder without losing anybody's work.

The folder keeps a manifest, ``.elmo-tutorial-generated.json``, of the files written there and
their sha256. A file whose content is neither what was written before nor what is about to be
written is somebody's work (a student's answers, an instructor's edits) and is never silently
overwritten. The writer is safe against:

* **crashes and full disks**: every file is first written whole to a temporary name, all of
  them before the first is put in place, so a full disk changes nothing and says so in one
  line (:class:`~elmo_tutorial.files.safe_files.DiskFull`); the manifest is written next, listing
  for each file both its old and its new content, so a run cut short between two files leaves
  a folder that the next run recognises as its own (it is rewritten with only the new
  contents at the end), and the next run also removes the temporary files of a killed one
  and puts back a file it had moved aside;
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
from pathlib import Path

from elmo_tutorial.course.exercises import CourseError
from elmo_tutorial.data.downloads import glob_escape
from elmo_tutorial.files.guarded_read import NotARegularFile, read_regular_file
from elmo_tutorial.files.json_input import parse_json
from elmo_tutorial.files.run_lock import HAS_FLOCK, FolderInUse, folder_lock
from elmo_tutorial.files.safe_files import (
    DiskFull,
    atomic_create,
    atomic_write_text,
    file_digest,
    fsync_dir,
    is_disk_full,
    process_alive,
)

MANIFEST = ".elmo-tutorial-generated.json"
MAX_MANIFEST_BYTES = 1 << 20  # a digest per notebook


def _digest(path: Path) -> str | None:
    """sha256 of a regular file; None for anything else (a link, a folder, a FIFO), which is
    nobody's notebook and is never read."""
    if path.is_symlink() or not path.is_file():
        return None
    return file_digest(path)


def _read_manifest(out: Path, kind: str, force: bool) -> dict[str, set[str]] | None:
    """name → the sha256 of the contents written there; None if there is no manifest."""
    path = out / MANIFEST
    if not path.exists() and not path.is_symlink():
        return None
    try:  # NotARegularFile (a ValueError): a FIFO or /dev/zero planted there is not read
        manifest = parse_json(read_regular_file(path, MAX_MANIFEST_BYTES, out), path)
        files = manifest["files"]
        ours = {name: {digests} if isinstance(digests, str) else set(digests)
                for name, digests in files.items()}
        if not all(isinstance(d, str) for digests in ours.values() for d in digests):
            raise TypeError("a digest is not a string")
        found = manifest["kind"]
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        if force:
            return {}
        if isinstance(error, NotARegularFile):
            raise CourseError(f"{error}; or run `make {kind} FORCE=1` (--force)") from None
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


def _stage(out: Path, files: dict[str, bytes]) -> dict[str, str]:
    """Write every file's content to a temporary name in ``out`` first: a full disk is met
    here, before any file is replaced, and leaves the folder as it was.

    Raises:
        DiskFull: one line naming the file and the disk; every temporary file is removed.
    """
    staged: dict[str, str] = {}
    try:
        for name, data in files.items():
            fd, staged[name] = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=out)
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
    except BaseException as error:
        for tmp in staged.values():
            Path(tmp).unlink(missing_ok=True)
        if is_disk_full(error):
            raise DiskFull(out / name, error, kept=f"nothing in {out} was changed: free some "
                           "space and run again") from None
        raise
    return staged


def _clean_leftovers(out: Path, names: list[str], ours: dict[str, set[str]],
                     backup: _Backup) -> None:
    """What a writer killed in ``out`` left (the folder is locked: no writer runs now): its
    temporary files are deleted; a file it had moved aside goes back where it was, or, if a
    new one took its place, is deleted when it was ours and backed up when it was not."""
    for name in [*names, MANIFEST]:
        for tmp in out.glob(f".{glob_escape(name)}.*.tmp"):
            if HAS_FLOCK and tmp.is_file() and not tmp.is_symlink():
                tmp.unlink(missing_ok=True)
        for aside in out.glob(f".{glob_escape(name)}.aside-*"):
            pid = aside.name.rsplit("-", 1)[-1]
            if not pid.isdigit() or process_alive(int(pid)):
                continue
            target = out / name
            if not (target.exists() or target.is_symlink()):
                os.replace(aside, target)
            elif _digest(aside) in ours.get(name, set()):
                aside.unlink()
            else:
                backup.keep(aside, name)


def _replace(out: Path, name: str, tmp: str, ours: set[str], backup: _Backup) -> bool:
    """Put the staged ``tmp`` at ``out/name`` unless somebody's work is there; False if it
    was left."""
    target = out / name
    try:
        aside = None
        if target.exists() or target.is_symlink():
            # Take whatever is there at this instant, then check it: a save that lands after
            # the move cannot be lost, because the replacement is only published if the name
            # is still free (atomic_create checks and publishes in one step).
            aside = out / f".{name}.aside-{os.getpid()}"
            os.replace(target, aside)
        try:  # the bytes were staged before any file was replaced: only rename them here
            atomic_create(target, lambda publishing: os.replace(tmp, publishing))
            written = True
        except FileExistsError:
            written = False
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
    if out.is_symlink() and not out.exists():
        raise CourseError(f"{out} is a symbolic link to {os.readlink(out)}, which does not "
                          "exist: create that folder, or choose another folder to write into")
    if out.exists() and not out.is_dir():
        raise CourseError(f"{out} is a file, not a folder: choose a folder to write into")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise CourseError(f"cannot make the folder {out} ({error.strerror or error}): choose "
                          "another folder to write into") from None
    with contextlib.ExitStack() as locked:
        try:
            locked.enter_context(folder_lock(out))
        except FolderInUse:
            raise CourseError(f"another `make {kind}` is writing into {out}; wait for it to "
                              f"finish, then run again") from None
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
        _clean_leftovers(out, list(files), ours, backup)
        staged = _stage(out, files)  # every file's bytes on the disk before one is replaced
        try:
            for name in changed:
                backup.keep(out / name, name)
            # Before any file: what is ours afterwards, whichever files a crash leaves unwritten.
            _write_manifest(out, kind, {**ours, **{n: ours.get(n, set()) | {new[n]}
                                                   for n in new}})
        except BaseException:
            for tmp in staged.values():
                Path(tmp).unlink(missing_ok=True)
            raise
        left = [name for name in files
                if not _replace(out, name, staged[name], ours.get(name, set()) | {new[name]},
                                backup)]
        _write_manifest(out, kind, {**ours, **{n: {new[n]} for n in new if n not in left},
                                    **{n: ours.get(n, set()) for n in left}})
        fsync_dir(out)
    if backup.moved:
        print(f"moved {len(backup.moved)} changed file(s) to {backup.folder}", file=sys.stderr)
    if left:
        raise CourseError(f"saved while `make {kind}` ran, so left as they are: "
                          f"{', '.join(str(out / n) for n in left)}; the other files were "
                          f"written. Run again (with FORCE=1 to back them up and replace them)")
