"""Worker processes that stop with the process that started them: a pool's training runs
(``tasks``), torchrun and its training processes (``train --nproc``).

A stop signal (:data:`~elmo_tutorial.runtime.STOP_SIGNALS`: Ctrl-C, SIGTERM, SIGHUP) or a
kill of the starting process must not leave workers training for nobody:

- :func:`die_with_parent` sends a process a signal, once, when its parent ends, however it
  ends (``kill -9`` included): torchrun starts each worker in a session of its own, out of
  reach of a kill of the launcher's process group, and a pool's worker goes on with its run
  for a parent that is gone;
- :func:`pool_worker_start` (a pool's ``initializer``) leaves the stop signals to the parent:
  a terminal sends Ctrl-C to every process of the foreground group, and each worker would
  print a traceback of its own; the parent stops, and ends its pool.
"""

from __future__ import annotations

import os
import signal
import threading
import time

__all__ = ["die_with_parent", "pool_worker_start"]


def die_with_parent(signum: int = signal.SIGTERM, parent: int | None = None,
                    interval: float = 0.5) -> threading.Thread:
    """Send this process ``signum``, once, when its parent process ends.

    A daemon thread looks every ``interval`` seconds whether the parent is still ``parent``
    (default: the parent now): an ended parent's children are handed to another process.
    Not Linux's ``PR_SET_PDEATHSIG``: that sends the signal again each time one of the dying
    parent's threads exits, and a second stop signal means "stop at once", without the
    checkpoint the first one asks for. Returns the thread.
    """
    parent = os.getppid() if parent is None else parent

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(interval)
        os.kill(os.getpid(), signum)

    watcher = threading.Thread(target=watch, name="die-with-parent", daemon=True)
    watcher.start()
    return watcher


def pool_worker_start(parent: int) -> None:
    """The ``initializer`` of a pool's worker forked by ``parent``: Ctrl-C and SIGHUP are
    left to the parent, which ends the pool (``Pool.terminate`` sends SIGTERM: it must kill),
    and the worker ends with the parent, if that is killed outright."""
    for name in ("SIGINT", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the parent's handler came with the fork
    die_with_parent(signal.SIGTERM, parent)
