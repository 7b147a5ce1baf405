"""The one way to read a file that a user or another process could have planted.

Every file the package reads from a run folder, a cache, a download or a path on the command
line goes through one of two guards, checked before a single byte is read:

* :func:`read_regular_file` returns the bytes (``config.json``, ``options.json``, records);
* :func:`check_regular_file` checks a file that a library then opens by its path
  (safetensors, h5py, numpy), and :func:`open_regular_file` hands Python a checked handle.

Both refuse what would hang, fill the memory or read somebody else's data, with one line that
says what the path really is: a FIFO (opened without blocking, never read), a device such as
``/dev/zero``, a folder, a file larger than such a file can be, and, given the ``folder`` it
belongs to, a symbolic link anywhere on the way that leads out of that folder.

Example:
    >>> import os, tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> os.mkfifo(folder / "config.json")
    >>> read_regular_file(folder / "config.json", 1 << 20)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    elmo_tutorial.files.guarded_read.NotARegularFile: ... (it is a named pipe (FIFO)): ...
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO

__all__ = ["NO_LIMIT", "NotARegularFile", "check_inside", "check_regular_file",
           "open_regular_file", "read_regular_file"]

NO_LIMIT = 1 << 62  # for files whose size the caller cannot bound (a dataset's archive)


class NotARegularFile(ValueError):
    """A file the package was about to read or replace is a symbolic link leading out of its
    folder, a device (``/dev/zero``), a FIFO, a folder, or far larger than such a file can be:
    reading it could hang, fill the memory or read someone else's data."""


def check_inside(path: str | Path, folder: str | Path) -> None:
    """Refuse ``path`` if a symbolic link (the file itself or a folder on the way, such as
    ``checkpoints/step_000100``) leads it out of ``folder``.

    A run folder's files are read and replaced where they are; a link planted in their place
    (``vocab.txt → ~/.bashrc``, ``model.safetensors → ../other_run/model.safetensors``) must
    not make the package read or write elsewhere. ``folder`` itself may be a link.

    Raises:
        NotARegularFile: the link and where it points, and what to do.
    """
    path, folder = Path(path), Path(folder)
    target = path.resolve()
    if not target.is_relative_to(folder.resolve()):
        link = next((p for p in (path, *path.parents) if p.is_symlink()), path)
        raise NotARegularFile(f"{link} is a symbolic link to {link.resolve()}, outside {folder}: "
                              "the package reads and writes only files inside the folder; "
                              "replace the link by a copy of the file")


def open_regular_file(path: str | Path, max_bytes: int = NO_LIMIT,
                      folder: str | Path | None = None) -> BinaryIO:
    """``path`` opened for reading (binary) once it is a regular file of at most ``max_bytes``
    bytes (and, with ``folder``, inside it): the checks are made on the open file, so the file
    checked is the file read.

    Raises:
        FileNotFoundError: ``path`` does not exist (also a link to nothing).
        NotARegularFile: a device, FIFO, folder, socket, a link out of ``folder``, too large.
    """
    path = Path(path)
    if folder is not None:
        check_inside(path, folder)
    try:  # O_NONBLOCK: opening a FIFO with no writer returns at once instead of waiting
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise FileNotFoundError(f"{path} not found") from None
    except IsADirectoryError:  # Windows cannot open folders; POSIX can, and fstat says so
        raise NotARegularFile(_not_regular(path, stat.S_IFDIR)) from None
    try:  # checked on the descriptor: Python refuses to wrap a folder's in a file object
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotARegularFile(_not_regular(path, info.st_mode))
        if info.st_size > max_bytes:
            raise NotARegularFile(f"{path} is {_size(info.st_size)}, more than such a file can "
                                  f"be (at most {_size(max_bytes)}): is it the right file?")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)  # a regular file: ordinary reads from here
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def check_regular_file(path: str | Path, max_bytes: int = NO_LIMIT,
                       folder: str | Path | None = None) -> int:
    """Check, without reading it, that a library may open ``path`` by name (safetensors'
    ``load_file``, ``h5py.File``, ``np.load``): the checks of :func:`open_regular_file`.
    Returns its size in bytes.

    Raises:
        FileNotFoundError, NotARegularFile: as :func:`open_regular_file`.
    """
    with open_regular_file(path, max_bytes, folder) as file:
        return os.fstat(file.fileno()).st_size


def read_regular_file(path: str | Path, max_bytes: int, folder: str | Path | None = None) -> bytes:
    """The bytes of ``path`` if it is a regular file of at most ``max_bytes`` bytes.

    A FIFO is opened without blocking and a device is never read, so a ``config.json`` that is
    ``/dev/zero`` or a named pipe is refused at once instead of filling the memory or hanging.
    With ``folder``, a symbolic link out of that folder is refused too (:func:`check_inside`).

    Raises:
        FileNotFoundError: ``path`` does not exist.
        NotARegularFile: a device, FIFO, folder, a link out of ``folder``, or too large.
    """
    with open_regular_file(path, max_bytes, folder) as file:
        data = file.read(max_bytes + 1)
    if len(data) > max_bytes:  # it grew while being read
        raise NotARegularFile(f"{path} is larger than {_size(max_bytes)}: is it the right file?")
    return data


def _not_regular(path: Path, mode: int) -> str:
    return (f"{path} is not a regular file (it is a {_kind(mode)}): replace it by the real "
            "file")


def _kind(mode: int) -> str:
    kinds = {stat.S_ISDIR: "folder", stat.S_ISFIFO: "named pipe (FIFO)",
             stat.S_ISCHR: "character device", stat.S_ISBLK: "block device",
             stat.S_ISSOCK: "socket"}
    return next((name for test, name in kinds.items() if test(mode)), "special file")


def _size(n: int) -> str:
    """Bytes in words: ``"7.0 GB"``, with the exact count for small files."""
    return f"{n:,} bytes" if n < 10_000_000 else f"{n / 1e9:.1f} GB ({n:,} bytes)"
