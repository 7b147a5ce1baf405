"""Where and how the course runs: the repository, seeds, devices, threads, print precision,
stop signals and progress bars.

:func:`setup_notebook` does it all in one call for a notebook; :func:`resolve_device` is the one
place a device name (``--device``, ``ELMO_TUTORIAL_DEVICE``) becomes a ``torch.device``.
"""

from __future__ import annotations

import os
import random
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import torch

# The clone of the course this package was imported from: notebooks/, data/embedded and
# data/models/ are found from here (they are not part of a wheel).
REPOSITORY = Path(__file__).resolve().parent.parent


def seed_everything(seed: int = 0) -> None:
    """Seed Python's, NumPy's and PyTorch's generators (all devices)."""
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def setup_notebook(seed: int = 0, threads: int | None = 2, precision: int = 4) -> torch.device:
    """Make a notebook deterministic and readable; return the device it should use.

    Seeds every generator, fixes the CPU threads (a float reduction's result depends on how it
    is split across threads) and prints tensors with ``precision`` decimals. The device is the
    CPU unless ``ELMO_TUTORIAL_DEVICE`` names another (``cuda``, ``cuda:1``, ``mps``); then
    notebooks 04-07 run faster, with numbers that differ in the last digits (a device PyTorch
    cannot use here is a ``RuntimeError``).
    """
    seed_everything(seed)
    if threads is not None:
        torch.set_num_threads(max(1, min(threads, os.cpu_count() or 1)))
    torch.set_printoptions(precision=precision, sci_mode=False, linewidth=100)
    np.set_printoptions(precision=precision, suppress=True, linewidth=100)
    show_stubs_in_one_line()
    name = os.environ.get("ELMO_TUTORIAL_DEVICE", "cpu").strip() or "cpu"
    try:
        return resolve_device(name)
    except ValueError as err:
        raise RuntimeError(f"ELMO_TUTORIAL_DEVICE={name!r}: {err}; unset the variable to run on "
                           "the CPU") from None


def show_stubs_in_one_line() -> None:
    """In a Jupyter kernel, show a student copy's stub (``raise NotImplementedError("Exercise
    N: ...")``) as its one-line message; any other error keeps its full traceback."""
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is None:
        return

    def show(shell, kind, error, traceback, tb_offset=None):
        if str(error).startswith("Exercise "):
            shell._showtraceback(kind, error, [f"\x1b[0;31m{kind.__name__}\x1b[0m: {error}"])
        else:
            shell.showtraceback((kind, error, traceback), tb_offset=tb_offset)

    shell.set_custom_exc((NotImplementedError,), show)


def resolve_device(name: str, local_rank: int = 0) -> torch.device:
    """The device ``name`` asks for, or a one-line ``ValueError`` if PyTorch cannot use it here
    (the CPU instead of a GPU would only be noticed as slowness, hours later).

    ``auto`` is this process's GPU if there is one, else the CPU; ``cuda`` is GPU
    ``local_rank`` (the process's own under ``torchrun``).

    Example:
        >>> resolve_device("cpu")
        device(type='cpu')
    """
    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "cpu"
    try:
        device = torch.device(name)
    except RuntimeError:
        raise ValueError(f"{name!r} is not a device name: use cpu, cuda, cuda:N or mps "
                         "(`elmo-tutorial doctor` shows what this machine has)") from None
    if device.type == "cuda" and device.index is None:
        device = torch.device("cuda", local_rank)
    usable = {
        "cpu": True,
        "cuda": torch.cuda.is_available() and device.index < torch.cuda.device_count(),
        "mps": torch.backends.mps.is_available(),
    }.get(device.type, False)
    if not usable:
        raise ValueError(f"device {name!r} was asked for, but PyTorch cannot use that device "
                         "here; use --device=cpu, or see `elmo-tutorial doctor` for what it sees")
    return device


def available_cores() -> int:
    """CPU cores this process may run on (its affinity mask where the OS has one)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def default_threads() -> int:
    """CPU threads per training process when none are asked for: PyTorch's one per core,
    shared among this machine's training processes (``$LOCAL_WORLD_SIZE``, as torchrun sets it).

    Example:
        >>> 1 <= default_threads() <= available_cores()
        True
    """
    return max(1, available_cores() // int(os.environ.get("LOCAL_WORLD_SIZE", "1")))


@contextmanager
def one_thread() -> Iterator[None]:
    """Run torch on one CPU thread inside the block: small models (a tagger's LSTM, a probe)
    gain nothing from more, and the result no longer depends on the machine's core count."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


# The signals that ask a program to stop: Ctrl-C (SIGINT); SIGTERM, which schedulers and
# `kill` send before they kill; SIGHUP, which a closed terminal sends (not on Windows).
STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP")
                     if hasattr(signal, name))


@contextmanager
def _handling(signals, handler) -> Iterator[list]:
    """``handler`` for each of ``signals`` inside the block; yields the signals it took.

    Only the main thread may install handlers. An ignored signal (``nohup``'s SIGHUP, SIGINT
    in a job started with ``&``) stays ignored; one not handled from Python is left alone.
    """
    taken = {}
    if threading.current_thread() is threading.main_thread():
        for signum in signals:
            previous = signal.getsignal(signum)
            if previous is not None and previous != signal.SIG_IGN:
                taken[signum] = signal.signal(signum, handler)
    try:
        yield list(taken)
    finally:
        for signum, previous in taken.items():
            signal.signal(signum, previous)


@contextmanager
def stop_signals_interrupt() -> Iterator[None]:
    """Inside the block, SIGTERM and SIGHUP raise ``KeyboardInterrupt``, as Ctrl-C does: a
    command stopped by a scheduler or a closed terminal then cleans up as on Ctrl-C."""
    with _handling([s for s in STOP_SIGNALS if s != signal.SIGINT], signal.default_int_handler):
        yield


@contextmanager
def interrupt_requests() -> Iterator[Callable[[], str]]:
    """Inside the block, the first stop signal (``STOP_SIGNALS``) is a request, not an error.

    Yields a function giving the name of the signal that asked to stop (``"SIGTERM"``), or
    ``""``: a loop checks it where stopping is safe (between two training steps), saves and
    stops. A second stop signal raises ``KeyboardInterrupt`` at once.
    """
    requested: list[str] = []

    def request(signum, frame) -> None:
        requested.append(signal.Signals(signum).name)
        for taken_signal in taken:  # the next one is immediate
            signal.signal(taken_signal, signal.default_int_handler)

    with _handling(STOP_SIGNALS, request) as taken:
        yield lambda: requested[0] if requested else ""


PROJECT_AFTER = 10  # updates: past the first (slower) ones, the pace is the job's


def projected_finish(done: int, total: int, seconds: float, unit: str = "step",
                     notebook: bool = False) -> str | None:
    """When a job ``done`` of ``total`` units into it after ``seconds`` ends at this pace, in
    one line; ``None`` within two minutes. Hours away, a ``notebook`` is told of quick mode.

    >>> projected_finish(10, 1875, 3.5)[:46]
    'at 0.35 s a step: about 11 min to go, finished'
    """
    left = seconds / done * (total - done)
    if left < 120:
        return None
    hours, minutes = divmod(round(left / 60), 60)
    finish = time.strftime("%H:%M", time.localtime(time.time() + left))
    line = (f"at {seconds / done:.2f} s a {unit}: about {f'{hours} h ' if hours else ''}"
            f"{minutes} min to go, finished near {finish}")
    if hours and unit == "step" and notebook:
        line += (" (a busy or shared machine is that slow; for a one-minute look at notebook "
                 "14, start JupyterLab with ELMO_TUTORIAL_CAPSTONE=quick)")
    return line


def progress_bar(enabled: bool = True, **options):
    """A ``tqdm`` progress bar (``options``: ``total``, ``desc``...), shown only in a notebook
    or on a terminal: in a log, its redraws would be hundreds of lines. After
    :data:`PROJECT_AFTER` steps, a training bar prints its :func:`projected_finish` once (on a
    loaded machine a step can take 30 times as long: a silent bar looks hung)."""
    from tqdm.auto import tqdm

    class ProjectingBar(tqdm):
        def update(self, n: float = 1) -> bool | None:
            shown = super().update(n)
            if self.disable or not self.total or self.unit != "step":
                return shown
            done = self.n - self.initial
            if done - n < PROJECT_AFTER <= done:
                line = projected_finish(done, self.total - self.initial,
                                        self.format_dict["elapsed"], self.unit, in_notebook)
                if line:
                    self.write(line, file=sys.stderr)
            return shown

    in_notebook = "ipykernel" in sys.modules
    on_terminal = sys.stderr is not None and sys.stderr.isatty()
    return ProjectingBar(disable=not (enabled and (in_notebook or on_terminal)), **options)
