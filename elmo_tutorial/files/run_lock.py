"""One writer per run folder: a file lock (``filelock``) that the system releases with its process.

Two ``train`` commands writing into one folder would leave a run that is neither, so whatever
writes into a run folder first locks its file ``.lock``; a second writer is refused at once,
before it changes anything. The lock goes with the process (exit, kill, crash): nothing stale
is left. Within one process it is taken once per folder (a script may build several Trainers).

Example:
    >>> import tempfile, pathlib
    >>> lock = lock_run_dir(pathlib.Path(tempfile.mkdtemp()) / "run")
    >>> lock.release()
"""

from __future__ import annotations

from pathlib import Path

from filelock import FileLock, Timeout

from elmo_tutorial.files.overwrite import check_not_a_file

__all__ = ["LOCK_FILE", "RunInUse", "RunLock", "lock_run_dir"]

LOCK_FILE = ".lock"
_HELD: dict[str, RunLock] = {}  # folder (resolved) → this process's lock on it


class RunInUse(FileExistsError):
    """Another process is writing into the run folder (it holds the folder's lock)."""


class RunLock:
    """This process's lock on a run folder (see :func:`lock_run_dir`)."""

    def __init__(self, folder: Path, lock: FileLock, created: list[Path]) -> None:
        self.folder, self._lock, self.created = folder, lock, created

    def release(self) -> None:
        """Let other processes write into the folder. The lock file goes while still held (a
        waiting process then takes a new one, as filelock >= 4.3 does), and so do the folders
        the lock made if they are empty."""
        if not self._lock.is_locked:
            return
        _HELD.pop(str(self.folder.resolve()), None)
        (self.folder / LOCK_FILE).unlink(missing_ok=True)
        self._lock.release()
        for folder in self.created:  # innermost first
            if not folder.is_dir() or any(folder.iterdir()):
                break
            folder.rmdir()


def lock_run_dir(run_dir: str | Path) -> RunLock:
    """Take the write lock of ``run_dir`` (created if missing), or refuse (:class:`RunInUse`)
    before anything in the folder has been changed."""
    folder = Path(run_dir)
    check_not_a_file(folder, "a run directory (--out)")
    held = _HELD.get(str(folder.resolve()))
    if held is not None:
        return held
    lock = FileLock(folder / LOCK_FILE, timeout=0)
    created = [p for p in (folder, *folder.parents) if not p.exists()]
    try:
        folder.mkdir(parents=True, exist_ok=True)
        lock.acquire()
    except Timeout:
        raise RunInUse(f"{folder} is being written by another process: one run folder takes "
                       "one writer at a time. Wait for it to finish (or stop it), or choose "
                       "another --out") from None
    _HELD[str(folder.resolve())] = RunLock(folder, lock, created)
    return _HELD[str(folder.resolve())]
