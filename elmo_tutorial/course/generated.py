"""Writing generated files (student copies, slides) into a folder without losing anybody's work.

The folder keeps a manifest, ``.elmo-tutorial-generated.json``, of every content written to each
of its files (by sha256). A file holding any other content is somebody's work (a student's
answers, an instructor's edits): without ``force`` the call refuses and writes nothing; with
``force`` such files first move to ``backup-<time>/`` beside them. The manifest is written
before the files, and each file whole (a temporary file renamed into place), so a run cut short
leaves a folder the next run still recognises as its own.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from pathlib import Path

from elmo_tutorial.course.exercises import CourseError

MANIFEST = ".elmo-tutorial-generated.json"


def _write_whole(path: Path, data: bytes) -> None:
    """``data`` at ``path``, or, if the write is cut short, the file as it was."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def write_generated(out: Path, files: dict[str, bytes], kind: str, force: bool = False) -> None:
    """Write generated ``files`` (name → content) into ``out`` without losing anybody's work.

    ``out`` may be new, empty, or a folder this function wrote before for the same ``kind``;
    other files in it are left alone.

    Raises:
        CourseError: saying what is in the way and how to proceed; nothing was written.
    """
    out = Path(out)
    manifest = out / MANIFEST
    if manifest.is_file():
        ours = json.loads(manifest.read_text(encoding="utf-8"))
        if ours["kind"] != kind:
            raise CourseError(f"{out} holds generated {ours['kind']}, not {kind}: choose "
                              f"another folder")
    elif out.is_dir() and any(not p.name.startswith(".") for p in out.iterdir()) and not force:
        raise CourseError(f"{out} already exists and was not made by `make {kind}`; nothing "
                          f"was written. Choose a new or empty folder, or pass --force "
                          f"(FORCE=1) to write into it (files in the way move to a backup "
                          f"folder first)")
    else:
        ours = {"kind": kind, "files": {}}
    new = {name: hashlib.sha256(data).hexdigest() for name, data in files.items()}
    changed = [name for name in files if (out / name).is_file()
               and hashlib.sha256((out / name).read_bytes()).hexdigest()
               not in {*ours["files"].get(name, []), new[name]}]
    if changed and not force:
        raise CourseError(f"changed since `make {kind}` wrote them (your work?): "
                          f"{', '.join(str(out / name) for name in changed)}. Nothing was "
                          f"written. Move them away, write to another folder, or pass --force "
                          f"(FORCE=1) to move them to {out}/backup-<time>/ and write fresh copies")
    out.mkdir(parents=True, exist_ok=True)
    if changed:
        backup = out / time.strftime("backup-%Y%m%d-%H%M%S")
        backup.mkdir()
        for name in changed:
            os.replace(out / name, backup / name)
        print(f"moved {len(changed)} changed file(s) to {backup}", file=sys.stderr)
    for name, digest in new.items():
        ours["files"][name] = sorted({*ours["files"].get(name, []), digest})
    _write_whole(manifest, (json.dumps(ours, indent=1, sort_keys=True) + "\n").encode())
    for name, data in files.items():
        _write_whole(out / name, data)
