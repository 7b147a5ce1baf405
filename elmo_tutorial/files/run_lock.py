"""One writer per run folder: a lock that the operating system releases when its process ends.

Two ``train`` commands writing into the same folder would leave a run that is neither: the
config of one, the checkpoints of the other, or a ``--force`` that deletes the files of a run
that is still training under it. So whatever writes into a run folder first takes its lock,
an exclusive ``flock`` on the file ``.lock`` inside it; a second writer is refused at once,
before it reads or changes anything, with a message that names the folder and the process
holding it. The lock belongs to the open file, so it is released when the process exits, is
killed (``kill -9``) or crashes: nothing stale is left to clean up by hand.

The lock itself is :func:`folder_lock`, which the writers of generated folders (student copies,
slides) take on the folder; a run folder's lock is the same ``flock``, on a file inside it that
also names its holder.

Within one process the run lock is taken once per folder and kept until :meth:`RunLock.release`
(which also removes the lock file) or the process's end: a script or a test may build one
``Trainer`` after another on the same folder.

The same function checks that the run's own entries (``config.json``, ``vocab.txt``,
``checkpoints/``, ...) are real files and folders: a symbolic link among them would make
training write, or ``--force`` delete, outside the run folder.

Example:
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp()) / "run"
    >>> lock = lock_run_dir(folder)
    >>> lock.release()
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from elmo_tutorial.files.overwrite import RUN_FILES
from elmo_tutorial.files.safe_files import NotARegularFile

try:
    import fcntl
except ImportError:  # Windows: no flock; a folder there is not protected against a second writer
    fcntl = None

__all__ = ["HAS_FLOCK", "LOCK_FILE", "FolderInUse", "RunInUse", "RunLock", "check_run_entries",
           "folder_lock", "lock_run_dir"]

HAS_FLOCK = fcntl is not None  # False: every lock below is taken at once and protects nothing

LOCK_FILE = ".lock"
_HELD: dict[str, RunLock] = {}  # folder (resolved) → this process's lock on it


class FolderInUse(FileExistsError):
    """Another process holds the lock of a folder (see :func:`folder_lock`)."""


class RunInUse(FolderInUse):
    """Another process is writing into the run folder (it holds the folder's lock)."""


def _flock_now(fd: int) -> bool:
    """Take the exclusive ``flock`` of the open file ``fd`` without waiting: False if another
    process holds it. Waiting would hang a second writer silently; refusing says why."""
    if fcntl is None:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


@contextlib.contextmanager
def folder_lock(folder: str | Path) -> Iterator[None]:
    """Hold the lock of ``folder`` (an existing folder) while the ``with`` block writes into it.

    Raises:
        FolderInUse: another process holds it; nothing has been changed.
    """
    fd = os.open(folder, os.O_RDONLY)
    try:
        if not _flock_now(fd):
            raise FolderInUse(f"another process is writing into {folder}")
        yield
    finally:
        os.close(fd)  # releases the lock


class RunLock:
    """This process's lock on a run folder (see :func:`lock_run_dir`)."""

    def __init__(self, folder: Path, fd: int, created: bool) -> None:
        self.folder, self._fd, self.created = folder, fd, created

    def release(self) -> None:
        """Let other processes write into the folder. The lock file goes (a process waiting
        on it notices and takes the new one), and so does the folder if this lock created it
        and nothing was written into it (a refused start changes nothing)."""
        if self._fd is None:
            return
        _HELD.pop(str(self.folder.resolve()), None)
        (self.folder / LOCK_FILE).unlink(missing_ok=True)  # still locked: nobody can take it
        if self.created and not any(self.folder.iterdir()):
            self.folder.rmdir()
        os.close(self._fd)  # closing the file releases the flock
        self._fd = None


def check_run_entries(run_dir: str | Path) -> None:
    """Refuse a run folder whose own entries are symbolic links or special files.

    Raises:
        NotARegularFile: names the first such entry and what to do.
    """
    run_dir = Path(run_dir)
    for name in (*RUN_FILES, LOCK_FILE):
        path = run_dir / name
        if path.is_symlink():
            raise NotARegularFile(
                f"{path} is a symbolic link (to {os.readlink(path)}): training would write "
                "or delete through it, outside the run folder. Replace it by a real file or "
                "folder, or choose another --out")
        if path.exists() and not (path.is_dir() if name == "checkpoints" else path.is_file()):
            kind = "folder" if name == "checkpoints" else "file"
            raise NotARegularFile(f"{path} is not a regular {kind}: move it away, or choose "
                                  "another --out")


def lock_run_dir(run_dir: str | Path) -> RunLock:
    """Take the write lock of ``run_dir`` (created if missing), or refuse.

    Raises:
        RunInUse: another process holds the lock; the message names the folder and that
            process, and nothing in the folder has been changed.
        NotADirectoryError: ``run_dir`` is a file.
        NotARegularFile: an entry of the run is a symbolic link or a special file.
    """
    folder = Path(run_dir)
    if folder.is_file():
        raise NotADirectoryError(f"{folder} is a file, but a run directory (--out) must be a "
                                 "folder: choose another path")
    held = _HELD.get(str(folder.resolve()))
    if held is not None:
        check_run_entries(folder)
        return held
    created = not folder.exists()
    folder.mkdir(parents=True, exist_ok=True)
    try:
        check_run_entries(folder)
        while True:
            fd = os.open(folder / LOCK_FILE, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0),
                         0o666)
            if not HAS_FLOCK:
                break
            if not _flock_now(fd):
                holder = os.read(fd, 100).decode("ascii", "replace").strip()
                os.close(fd)
                raise RunInUse(
                    f"{folder} is being written by another process"
                    f"{f' (pid {holder})' if holder.isdigit() else ''}: one run folder takes "
                    "one writer at a time. Wait for it to finish (or stop it), or choose "
                    "another --out")
            # The holder before us may have removed the file after we opened it (a refused
            # start cleaning up): then our lock is on a file nobody else sees. Try again.
            try:
                same = os.path.samestat(os.fstat(fd), os.stat(folder / LOCK_FILE))
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)
    except BaseException:
        if created and folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()
        raise
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()}\n".encode())  # for the message of a refused second writer
    lock = RunLock(folder, fd, created)
    _HELD[str(folder.resolve())] = lock
    return lock
