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
import re
from collections.abc import Iterator
from pathlib import Path

from elmo_tutorial.files.overwrite import RUN_FILES, check_not_a_file
from elmo_tutorial.files.safe_files import DiskFull, NotARegularFile, is_disk_full

try:
    import fcntl
except ImportError:  # Windows: no flock; a folder there is not protected against a second writer
    fcntl = None

__all__ = ["HAS_FLOCK", "LOCK_FILE", "FolderInUse", "NotWritable", "RunInUse", "RunLock",
           "check_run_entries", "folder_lock", "lock_run_dir", "remove_leftovers"]

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

    def __init__(self, folder: Path, fd: int, created: list[Path]) -> None:
        self.folder, self._fd, self.created = folder, fd, created

    def release(self) -> None:
        """Let other processes write into the folder. The lock file goes (a process waiting
        on it notices and takes the new one), and so do the folders this lock created, if
        nothing was written into them (a refused start changes nothing)."""
        if self._fd is None:
            return
        _HELD.pop(str(self.folder.resolve()), None)
        (self.folder / LOCK_FILE).unlink(missing_ok=True)  # still locked: nobody can take it
        _remove_if_empty(self.created)
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
    _check_checkpoint_entries(run_dir / "checkpoints")


def _check_checkpoint_entries(root: Path) -> None:
    """Refuse a ``checkpoints/latest`` that is not a file, and a ``step_NNNNNN`` that is not a
    folder: training would fail on writing the pointer after its first checkpoint, and take a
    step's name held by a FIFO or a file for a checkpoint already written (it never rewrites
    one), so that the checkpoint of that step would never be saved."""
    if not root.is_dir() or root.is_symlink():
        return
    for path in root.iterdir():
        if path.name == "latest":
            wanted = "file"
        elif re.fullmatch(r"step_\d+", path.name):
            wanted = "folder"
        else:
            continue
        real = not path.is_symlink() and (path.is_file() if wanted == "file" else path.is_dir())
        if not real:
            raise NotARegularFile(
                f"{path} is not a regular {wanted} (a run writes a {wanted} there): move it "
                "away, or choose another --out")


def remove_leftovers(run_dir: str | Path) -> list[Path]:
    """Delete the temporary files that writers killed mid-write (``kill -9``, a power cut) left
    in a run folder: ``.config.json.XXXX.tmp``, ``.model.safetensors.XXXX.tmp`` (a whole copy of
    the weights), ``checkpoints/.latest.XXXX.tmp``, ... Called with the folder's lock held, so
    no other process is writing them. Returns the removed files."""
    run_dir, removed = Path(run_dir), []
    names = (*RUN_FILES, "latest")
    for folder in (run_dir, run_dir / "checkpoints"):
        if not folder.is_dir() or folder.is_symlink():
            continue
        for path in folder.glob(".*.tmp"):
            left_by_a_writer = any(path.name.startswith(f".{name}.") for name in names)
            if left_by_a_writer and path.is_file() and not path.is_symlink():
                path.unlink(missing_ok=True)
                removed.append(path)
    return removed


def lock_run_dir(run_dir: str | Path) -> RunLock:
    """Take the write lock of ``run_dir`` (created if missing), or refuse.

    Raises:
        RunInUse: another process holds the lock; the message names the folder and that
            process, and nothing in the folder has been changed.
        NotADirectoryError: ``run_dir`` is a file.
        NotARegularFile: an entry of the run is a symbolic link or a special file.
    """
    folder = Path(run_dir)
    check_not_a_file(folder, "a run directory (--out)")  # or a folder above it
    held = _HELD.get(str(folder.resolve()))
    if held is not None:
        check_run_entries(folder)
        return held
    created = _missing_folders(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise _start_failed(folder, error) from None
    fd, locked = None, False
    try:
        check_run_entries(folder)
        while True:
            fd = os.open(folder / LOCK_FILE, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0),
                         0o666)
            if not HAS_FLOCK:
                break
            if not _flock_now(fd):
                holder = os.read(fd, 100).decode("ascii", "replace").strip()
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
            fd = None
        locked = True
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())  # for the message of a refused second writer
        remove_leftovers(folder)  # ours alone now
    except BaseException as error:
        if locked:  # a full disk after the lock was taken: the lock file goes with it
            (folder / LOCK_FILE).unlink(missing_ok=True)
        if fd is not None:
            os.close(fd)  # releases the lock, if taken
        _remove_if_empty(created)
        if isinstance(error, OSError) and not isinstance(error, FileExistsError):
            raise _start_failed(folder, error) from None
        raise
    lock = RunLock(folder, fd, created)
    _HELD[str(folder.resolve())] = lock
    return lock


def _missing_folders(folder: Path) -> list[Path]:
    """``folder`` and those above it that do not exist yet, innermost first: what making it
    creates, and a refused start removes again."""
    missing = []
    while not folder.exists() and not folder.is_symlink() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    return missing


def _remove_if_empty(folders: list[Path]) -> None:
    """Remove ``folders`` (innermost first) while they are empty folders."""
    for folder in folders:
        if not folder.is_dir() or any(folder.iterdir()):
            return
        folder.rmdir()


def _start_failed(folder: Path, error: OSError) -> OSError:
    """What taking the lock of ``folder`` raised, in words: a full disk
    (:class:`~elmo_tutorial.files.safe_files.DiskFull`) or a folder this user may not write
    (``PermissionError``, said in one line); other errors as they are."""
    if is_disk_full(error):
        return DiskFull(folder / LOCK_FILE, error,
                        kept="nothing in the run folder was changed: free some space and run "
                             "again")
    if isinstance(error, PermissionError):
        return NotWritable(error.filename or folder)
    return error


class NotWritable(PermissionError):
    """This user may not write into a folder (read-only, another user's): said in one line."""

    def __init__(self, path: str | Path) -> None:
        super().__init__(13, f"cannot write into {path}: permission denied (a read-only "
                             "folder, or another user's); nothing was changed. Choose a folder "
                             "you may write to, or make this one writable", str(path))

    def __str__(self) -> str:  # the message alone, without OSError's "[Errno 13]"
        return self.strerror
