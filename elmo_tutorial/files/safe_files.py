"""Files and folders written whole, and read back checked: write-then-rename, ``SHA256SUMS``.

Every file the package writes goes through :func:`atomic_write` (a crash, ``kill -9`` or Ctrl-C
mid-write leaves the previous file, or none, never half a file); :func:`staged_folder` does
the same for a folder. A file that no longer loads, or no longer matches the ``SHA256SUMS``
beside it, raises :class:`DamagedFile`.

Example:
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> atomic_write_text(folder / "notes.txt", "kept whole\\n")
    >>> (folder / "notes.txt").read_text()
    'kept whole\\n'
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["SUMS", "DamagedFile", "atomic_write", "atomic_write_bytes",
           "atomic_write_text", "check_sha256sums", "file_digest", "read_sha256sums",
           "staged_folder", "write_sha256sums"]

SUMS = "SHA256SUMS"  # ``sha256sum`` format: "<hex digest>  <file name>" per line


class DamagedFile(ValueError):
    """A file that exists but does not load (cut short, overwritten) or does not match its
    ``SHA256SUMS``; ``path``: the file, ``reason``: what reading it raised (``"EOFError"``)."""

    def __init__(self, path: Path, reason: str, hint: str | None = None) -> None:
        if hint is None and (path.parent / SUMS).exists():
            hint = (f"check the folder with `sha256sum -c {SUMS}` in {path.parent} and "
                    "download or copy what fails again")
        elif hint is None:
            hint = "it was cut short or overwritten (by a full disk, an interrupted copy?)"
        super().__init__(f"{path} is damaged and cannot be read ({reason}); {hint}")
        self.path, self.reason = path, reason

    @classmethod
    def of(cls, path: Path, error: BaseException, hint: str | None = None) -> DamagedFile:
        """The error for ``path``, whose reading raised ``error`` (its type and first line)."""
        detail = str(error).strip().splitlines()[0][:100] if str(error).strip() else ""
        return cls(path, type(error).__name__ + (f": {detail}" if detail else ""), hint)


def atomic_write(path: str | Path, write: Callable[[str], object], replace: bool = True) -> None:
    """Call ``write(tmp_path)`` (a ``str`` in the same folder), then rename the finished file
    onto ``path`` atomically; parent folders are made. If ``write`` raises, ``path`` is
    untouched. With ``replace=False`` the file is hard-linked onto ``path`` instead, which the
    system refuses (``FileExistsError``) when the name is taken, even a moment ago."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        write(tmp)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600: the published file gets the usual
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())  # on the disk before it has the name
        (os.replace if replace else os.link)(tmp, path)
    finally:
        Path(tmp).unlink(missing_ok=True)  # after a link or a failure; gone after a replace


def atomic_write_text(path: str | Path, text: str) -> None:
    """Write ``text`` (UTF-8, ``\\n`` line ends on every system) to ``path`` atomically."""
    atomic_write(path, lambda tmp: Path(tmp).write_text(text, encoding="utf-8", newline="\n"))


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically."""
    atomic_write(path, lambda tmp: Path(tmp).write_bytes(data))


@contextmanager
def staged_folder(target: str | Path) -> Iterator[Path]:
    """A new folder beside ``target`` (which must not exist) for the ``with`` block to fill;
    it takes the name ``target`` when the block ends without an error, else it is removed."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent))
    try:
        os.chmod(stage, 0o777 & ~_umask())  # mkdtemp makes 0700: the published one the usual
        yield stage
        os.rename(stage, target)
    finally:
        shutil.rmtree(stage, ignore_errors=True)  # gone already once published


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def file_digest(path: str | Path) -> str:
    """The sha256 of a file (hex), read in chunks."""
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def write_sha256sums(folder: str | Path, names: list[str]) -> None:
    """Write ``folder/SHA256SUMS`` for its files ``names`` (``sha256sum -c`` checks it)."""
    folder = Path(folder)
    atomic_write_text(folder / SUMS, "".join(f"{file_digest(folder / n)}  {n}\n" for n in names))


def read_sha256sums(folder: str | Path) -> dict[str, str]:
    """``{file name: sha256}`` listed in ``folder/SHA256SUMS``; ``{}`` if there is none."""
    sums = Path(folder) / SUMS
    text = sums.read_text(encoding="utf-8", errors="replace") if sums.is_file() else ""
    pairs = (line.strip().partition("  ") for line in text.splitlines())
    return {name.lstrip("*"): digest.lower() for digest, _, name in pairs if name}


def check_sha256sums(folder: str | Path, names: list[str], hint: str | None = None) -> None:
    """If ``folder`` has a ``SHA256SUMS``, check the files ``names`` that it lists; raise
    :class:`DamagedFile` for the first that differs, with ``hint`` as the fix."""
    expected = read_sha256sums(folder)
    for name in names:
        path = Path(folder) / name
        if name in expected and path.exists() and file_digest(path) != expected[name]:
            raise DamagedFile(path, f"its sha256 is not the one in {SUMS}", hint)
