"""Worker processes that stop with the process that started them (a pool's training runs in
``tasks``, torchrun's in ``train --nproc``): a stop signal or a kill of the parent must not
leave workers training for nobody."""

from __future__ import annotations

import os
import signal
import threading
import time

__all__ = ["die_with_parent", "pool_worker_start"]


def die_with_parent(signum: int = signal.SIGTERM, parent: int | None = None,
                    interval: float = 0.5) -> threading.Thread:
    """Send this process ``signum``, once, when its parent process (``parent``, default the
    parent now) ends, however it ends: a daemon thread looks every ``interval`` seconds.

    Not Linux's ``PR_SET_PDEATHSIG``: that sends the signal again each time one of the dying
    parent's threads exits, and a second stop signal means "stop at once", without the
    checkpoint the first one asks for.
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
    """The ``initializer`` of a pool's worker forked by ``parent``: Ctrl-C and SIGHUP (which a
    terminal sends to every process of its group) are left to the parent, which ends the pool
    (``Pool.terminate`` sends SIGTERM: it must kill); the worker ends with the parent."""
    for name in ("SIGINT", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the parent's handler came with the fork
    die_with_parent(signal.SIGTERM, parent)
