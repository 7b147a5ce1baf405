"""Writing generated files (student copies, slides, pages) into a folder without losing anybody's
work.

The folder keeps a manifest, ``.elmo-tutorial-generated.json``, of the files written there and
their sha256. A file whose content is neither what was written before nor what is about to be
written is somebody's work (a student's answers, an instructor's edits): without ``force`` the
whole call refuses and writes nothing; with ``force`` such files first move to
``backup-<time>/`` beside them. Each file is written whole (a temporary file renamed into
place), and the manifest lists a file's old and new content while the files are replaced, so
a run cut short leaves a folder the next run still recognises as its own.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from elmo_tutorial.course.exercises import CourseError

MANIFEST = ".elmo-tutorial-generated.json"


def _sha256(path: Path) -> str | None:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None


def _write_whole(path: Path, data: bytes) -> None:
    """``data`` at ``path``, or, if the write is cut short, the file as it was."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _read_manifest(out: Path, kind: str) -> dict[str, set[str]] | None:
    """name → the sha256 of the contents written there; None if there is no manifest."""
    if not (out / MANIFEST).is_file():
        return None
    manifest = json.loads((out / MANIFEST).read_text(encoding="utf-8"))  # ours, written whole
    if manifest["kind"] != kind:
        raise CourseError(f"{out} holds generated {manifest['kind']}, not {kind}: choose another "
                          "folder")
    return {name: set(digests) for name, digests in manifest["files"].items()}


def _write_manifest(out: Path, kind: str, files: dict[str, set[str]]) -> None:
    listing = {name: sorted(digests) for name, digests in sorted(files.items())}
    _write_whole(out / MANIFEST, (json.dumps({"kind": kind, "files": listing}, indent=1)
                                  + "\n").encode())


def write_generated(out: Path, files: dict[str, bytes], kind: str, force: bool = False) -> None:
    """Write generated ``files`` (name → content) into ``out`` without losing anybody's work.

    ``out`` may be new, empty, or a folder this function wrote before for the same ``kind``;
    other files in it are left alone.

    Raises:
        CourseError: saying what is in the way and how to proceed; nothing was written.
    """
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise CourseError(f"{out} is a file, not a folder: choose a folder to write into")
    out.mkdir(parents=True, exist_ok=True)
    ours = _read_manifest(out, kind)
    if ours is None and any(not p.name.startswith(".") for p in out.iterdir()) and not force:
        raise CourseError(f"{out} already exists and was not made by `make {kind}`; nothing "
                          f"was written. Choose a new or empty folder, or pass --force "
                          f"(FORCE=1) to write into it (files in the way move to a backup "
                          f"folder first)")
    ours = ours or {}
    new = {name: hashlib.sha256(data).hexdigest() for name, data in files.items()}
    changed = [name for name in files if (out / name).exists()
               and _sha256(out / name) not in ours.get(name, set()) | {new[name]}]
    if changed and not force:
        listing = ", ".join(str(out / name) for name in changed)
        raise CourseError(f"changed since `make {kind}` wrote them (your work?): {listing}. "
                          f"Nothing was written. Move them away, write to another folder, "
                          f"or pass --force (FORCE=1) to move them to {out}/backup-<time>/ "
                          f"and write fresh copies")
    if changed:
        backup = out / time.strftime("backup-%Y%m%d-%H%M%S")
        backup.mkdir()
        for name in changed:
            os.replace(out / name, backup / name)
        print(f"moved {len(changed)} changed file(s) to {backup}", file=sys.stderr)
    # Until every file is replaced, both its old and its new content are ours.
    _write_manifest(out, kind, {**ours, **{n: ours.get(n, set()) | {new[n]} for n in new}})
    for name, data in files.items():
        _write_whole(out / name, data)
    _write_manifest(out, kind, {**ours, **{n: {new[n]} for n in new}})
