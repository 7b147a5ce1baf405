"""Files written whole and read back checked: write-then-rename, digests, ``SHA256SUMS``.

Every file the package writes (weights, checkpoints, run configs, logs, plots, the embedding
cache, exports, student copies) goes through :func:`atomic_write`: the content is written to a
temporary name in the same folder, flushed to the disk, and renamed onto the final name with
``os.replace``, which is atomic on POSIX and Windows. A crash, ``kill -9`` or Ctrl-C mid-write
leaves the previous file intact (or no file), never half a file; the temporary one is removed
when the writer fails.

What a crash cannot do, a full disk, a bad copy or a cut download can: a file that no longer
loads, or no longer matches the digest in the ``SHA256SUMS`` beside it, raises
:class:`DamagedFile`, which names it and says how to replace it.

Example:
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> atomic_write_text(folder / "notes.txt", "kept whole\\n")
    >>> (folder / "notes.txt").read_text()
    'kept whole\\n'
"""

from __future__ import annotations

import errno
import hashlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

# The reading guards live in their own module; their names stay importable from here.
from elmo_tutorial.files.guarded_read import (
    NotARegularFile,
    check_inside,
    check_regular_file,
    open_regular_file,
    read_regular_file,
)

__all__ = ["DamagedFile", "DiskFull", "NotARegularFile", "atomic_write", "atomic_write_bytes",
           "atomic_write_text", "check_inside", "check_regular_file", "check_sha256sums",
           "file_digest", "fsync_dir", "is_disk_full", "native_path", "open_regular_file",
           "process_alive", "read_regular_file", "read_sha256sums",
           "remove_stale_temporaries", "atomic_create", "write_sha256sums"]

CHUNK = 1 << 20  # bytes read per step while hashing
SUMS = "SHA256SUMS"  # ``sha256sum`` format: "<hex digest>  <file name>" per line
MAX_SUMS_BYTES = 1 << 20  # a few lines


class DamagedFile(ValueError):
    """A weights, checkpoint or config file that exists but does not load (cut short, empty,
    overwritten) or does not match its ``SHA256SUMS``: the message names it and the fix.

    Attributes:
        path: the damaged file.
        reason: what reading it raised, e.g. ``"EOFError"``.
    """

    def __init__(self, path: Path, reason: str, hint: str | None = None) -> None:
        if hint is None and (path.parent / SUMS).exists():
            hint = (f"check the folder with `sha256sum -c {SUMS}` in {path.parent} and "
                    "download or copy what fails again")
        elif hint is None:
            hint = "it was cut short or overwritten (by a full disk, an interrupted copy?)"
        super().__init__(f"{path} is damaged and cannot be read ({reason}); {hint}")
        self.path, self.reason = path, reason

    @classmethod
    def of(cls, path: Path, error: BaseException) -> DamagedFile:
        """The error for ``path``, whose reading raised ``error`` (its type and first line)."""
        detail = str(error).strip().splitlines()[0][:100] if str(error).strip() else ""
        return cls(path, type(error).__name__ + (f": {detail}" if detail else ""))


def fsync_dir(path: str | Path) -> None:
    """Flush a folder's entries, so that a rename into it survives a power cut (POSIX only)."""
    if os.name == "posix":
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def atomic_write(path: str | Path, write: Callable[[str], object]) -> None:
    """Call ``write(tmp_path)``, then rename the finished file onto ``path`` atomically.

    ``write`` receives the temporary file's name (a ``str``, as ``torch.save``, safetensors,
    h5py and matplotlib expect) and must write the whole content there. Parent folders are
    created. If ``write`` raises (or is interrupted), ``path`` is untouched and the temporary
    file is removed; if it failed for want of space, :class:`DiskFull` says so and names
    ``path``.
    """
    _write_then_publish(Path(path), write, os.replace)


def _write_then_publish(path: Path, write: Callable[[str], object],
                        publish: Callable[[str, Path], None]) -> None:
    """Write a temporary file beside ``path`` with ``write``, make it durable, then give it its
    name with ``publish(tmp, path)``; the temporary file never outlives the call."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    umask = os.umask(0)
    os.umask(umask)
    try:
        write(tmp)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp (and some writers) make 0600: the usual ones
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
        publish(tmp, path)
    except BaseException as error:
        if is_disk_full(error):
            raise DiskFull(path, error) from error
        if isinstance(error, IsADirectoryError):  # a folder made (or planted) at the name
            raise IsADirectoryError(errno.EISDIR, f"{path} is a folder, where the file belongs: "
                                                  "move it away and run again") from None
        raise
    finally:
        Path(tmp).unlink(missing_ok=True)  # after a link or a failure; gone after a replace
    fsync_dir(path.parent)


def atomic_write_text(path: str | Path, text: str) -> None:
    """Write ``text`` (UTF-8, ``\\n`` line ends on every system) to ``path`` atomically."""
    atomic_write(path, lambda tmp: Path(tmp).write_text(text, encoding="utf-8", newline="\n"))


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically."""
    atomic_write(path, lambda tmp: Path(tmp).write_bytes(data))


def file_digest(path: str | Path, algorithm: str = "sha256") -> str:
    """Hex digest of a file, read in chunks (works for multi-GB archives).

    Raises:
        NotARegularFile: ``path`` is a FIFO, a device or a folder, which would hang or never
            end (a cached archive replaced by ``/dev/zero``).
    """
    digest = hashlib.new(algorithm)
    with open_regular_file(path) as f:
        for chunk in iter(lambda: f.read(CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


def write_sha256sums(folder: str | Path, names: list[str]) -> None:
    """Write ``folder/SHA256SUMS`` for the files ``names`` of ``folder`` (``sha256sum -c``
    checks it; so does :func:`check_sha256sums` whenever the folder is loaded)."""
    folder = Path(folder)
    atomic_write_text(folder / SUMS, "".join(f"{file_digest(folder / n)}  {n}\n" for n in names))


def read_sha256sums(folder: str | Path) -> dict[str, str]:
    """``{file name: sha256}`` listed in ``folder/SHA256SUMS`` (read guarded); ``{}`` if none."""
    sums = Path(folder) / SUMS
    if not sums.exists() and not sums.is_symlink():
        return {}
    listing = read_regular_file(sums, MAX_SUMS_BYTES, folder=folder)
    expected = {}
    for line in listing.decode("utf-8", errors="replace").splitlines():
        digest, _, name = line.strip().partition("  ")
        if name:
            expected[name.lstrip("*")] = digest.lower()
    return expected


def check_sha256sums(folder: str | Path, names: list[str], hint: str | None = None) -> None:
    """If ``folder`` has a ``SHA256SUMS``, check the files ``names`` that it lists.

    Hashing costs milliseconds per megabyte; loading a flipped byte without a word costs a
    wrong result nobody can explain.

    Raises:
        DamagedFile: the first listed file whose digest differs, with ``hint`` as the fix.
    """
    expected = read_sha256sums(folder)
    for name in names:
        path = Path(folder) / name
        if name in expected and (path.exists() or path.is_symlink()):
            check_inside(path, folder)  # a listed file is hashed only where it belongs
            if file_digest(path) != expected[name]:
                raise DamagedFile(path, f"its sha256 is not the one in {SUMS}", hint)


def atomic_create(path: str | Path, write: Callable[[str], object], replace: bool = False) -> None:
    """Like :func:`atomic_write`, but never replace a file that exists when the new one is
    ready, unless ``replace``: the check and the publishing are one step.

    The finished temporary file is hard-linked onto ``path``, which the system refuses when
    the name is taken, even by a file another process created a moment earlier (checking with
    ``exists()`` first and writing later leaves that moment open).

    Raises:
        FileExistsError: ``path`` exists and ``replace`` is False; the temporary file is gone.
    """
    _write_then_publish(Path(path), write, os.replace if replace else _link_new)


def _link_new(tmp: str, path: Path) -> None:
    """Give the finished ``tmp`` the new name ``path``; ``FileExistsError`` if it is taken."""
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise
    except OSError:  # a file system without hard links: claim the name, then fill it
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
        os.replace(tmp, path)


def process_alive(pid: int) -> bool:
    """Whether process ``pid`` still runs (its temporary files or folders may be in use)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        return True
    return True


STALE_SECONDS = 24 * 3600  # a temporary file untouched this long was left by a killed writer


def remove_stale_temporaries(folder: str | Path, max_age: float = STALE_SECONDS) -> list[Path]:
    """Delete the temporary files of :func:`atomic_write` (``.NAME.XXXX.tmp``) in ``folder``
    untouched for ``max_age`` seconds: a writer killed mid-write (``kill -9``, a power cut)
    leaves them, and in a cache folder they would keep their megabytes forever. A file still
    being written is younger (every write updates its modification time). Returns the removed.
    """
    import time

    removed, now = [], time.time()
    for tmp in Path(folder).glob(".*.tmp"):
        try:
            if tmp.is_file() and not tmp.is_symlink() and now - tmp.stat().st_mtime > max_age:
                tmp.unlink()
                removed.append(tmp)
        except OSError:
            pass  # removed meanwhile by another process, or not ours to remove
    return removed


# ---------------------------------------------------------------------------------------------
# Reading only what a folder really holds; a full disk named as such
# ---------------------------------------------------------------------------------------------

class DiskFull(OSError):
    """Writing a file failed because its disk is full (or the user's quota is spent)."""

    def __init__(self, path: Path, error: BaseException | None = None,
                 kept: str | None = None) -> None:
        kept = kept or (f"the previous {path.name} (if any) is kept: free some space and run "
                        "again")
        super().__init__(errno.ENOSPC, f"no space left on {_mount_point(path.parent)} while "
                                       f"writing {path}; {kept}")
        self.path, self.cause = path, error

    def __str__(self) -> str:  # the message alone, without OSError's "[Errno 28]"
        return self.strerror


def _mount_point(folder: Path) -> str:
    """``folder``'s disk in words: "the disk mounted at /home", where it can tell."""
    try:
        mount = folder.resolve()
        while not os.path.ismount(mount) and mount != mount.parent:
            mount = mount.parent
        return f"the disk mounted at {mount}"
    except OSError:
        return f"the disk of {folder}"


# What a full disk raises: OSError ENOSPC/EDQUOT from Python; torch.save's C++ writer reports it
# as "unexpected pos" or "file write failed", h5py with the errno's text, and safetensors (a
# SafetensorError, no OSError) as "IoError(Os { code: 28, kind: StorageFull, ... })".
_FULL_DISK_TEXTS = ("unexpected pos", "file write failed", "no space left", "disk quota",
                    "storagefull", "quotaexceeded", "code: 28,", "os error 28")


def is_disk_full(error: BaseException) -> bool:
    """True when ``error`` is what writing to a full disk raises (Python's, torch's, h5py's,
    safetensors')."""
    if isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT):
        return True
    writer_error = isinstance(error, (OSError, RuntimeError)) or \
        type(error).__name__ == "SafetensorError"
    return writer_error and any(text in str(error).lower() for text in _FULL_DISK_TEXTS)


def native_path(path: str | Path) -> bool:
    """True when libraries that take a path as UTF-8 text (safetensors) find ``path``.

    On a folder named in another encoding (``café`` made under a Latin-1 locale), Python's
    name for the file and its UTF-8 spelling differ; such files must be opened by Python.
    """
    try:
        return os.fsencode(path) == str(path).encode("utf-8")
    except UnicodeEncodeError:  # undecodable bytes, kept by Python as surrogates
        return False
