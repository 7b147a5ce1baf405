"""``elmo-tutorial train --nproc N``: become ``torchrun`` with N training processes
(:mod:`~elmo_tutorial.training.distributed`), as many as the machine can run, that stop when
it stops.

The command replaces itself with torchrun (one process, so a terminal's Ctrl-C reaches it
once), which passes a stop signal on to its workers; they stop at the end of a step, with a
checkpoint there (:class:`~elmo_tutorial.training.train.TrainingInterrupted`). torchrun starts
each worker in a session of its own, so every worker also receives SIGTERM when torchrun dies,
``kill -9`` included (:func:`~elmo_tutorial.training.workers.die_with_parent`).
"""

from __future__ import annotations

import os
import signal
import sys

import torch

from elmo_tutorial.runtime import available_cores, resolve_device
from elmo_tutorial.training.workers import die_with_parent

__all__ = ["check_process_count", "launch_torchrun", "stop_with_launcher"]

# torchrun's pid, for its workers: one that died before a worker asked would be missed
LAUNCHER_VARIABLE = "ELMO_TUTORIAL_LAUNCHER_PID"


def check_process_count(nproc: int, device: str, batch_size: int) -> None:
    """Refuse (``ValueError``) more processes than ``device`` runs side by side (one per GPU,
    or per CPU core: a second on a core only waits), or than ``batch_size`` sentences."""
    where = resolve_device(device)  # "auto": a GPU if there is one
    if where.type == "cuda":
        gpus = torch.cuda.device_count()
        if nproc > gpus:
            raise ValueError(f"--nproc {nproc} asks for one process per GPU, but this machine "
                             f"has {gpus}: give --nproc {gpus} or fewer")
    else:
        cores = available_cores()
        if nproc > cores:
            raise ValueError(f"--nproc {nproc} would start {nproc} training processes on the "
                             f"CPU, one core each, but this process may use {cores} "
                             f"core{'s' * (cores != 1)}: give --nproc {cores} or fewer")
    if batch_size < nproc:  # every batch would be skipped: epochs without a step, for ever
        raise ValueError(f"--batch_size={batch_size} is the sentences of a step summed over "
                         f"the processes: each of the {nproc} needs one; give --nproc "
                         f"{batch_size} or fewer, or --batch_size={nproc} or more")


def launch_torchrun(nproc: int, arguments: list[str]) -> None:
    """Replace this process with ``torchrun --standalone --nproc_per_node=nproc -m
    elmo_tutorial train *arguments`` (through :func:`_torchrun`); it does not return."""
    command = ["--standalone", f"--nproc_per_node={nproc}", "-m", "elmo_tutorial", "train",
               *arguments]
    print("running: torchrun", " ".join(command), file=sys.stderr, flush=True)
    sys.stdout.flush()
    os.execv(sys.executable, [sys.executable, "-m", __name__, *command])


def stop_with_launcher() -> None:
    """Receive SIGTERM (stop, and save where stopped) when torchrun, which started this
    worker, ends, however it ends."""
    parent = os.environ.get(LAUNCHER_VARIABLE, "")
    die_with_parent(parent=int(parent) if parent.isdigit() else None)


def _torchrun(arguments: list[str]) -> int:
    """torchrun with ``arguments``; stopped by a signal (passed on to its workers), one line
    and exit 130, where torchrun would print a traceback under the workers' own message."""
    from torch.distributed.elastic.multiprocessing.api import SignalException
    from torch.distributed.run import main

    os.environ[LAUNCHER_VARIABLE] = str(os.getpid())  # the workers' parent
    try:
        main(arguments)
    except SignalException as stopped:
        print(f"elmo-tutorial train: stopped by {signal.Signals(stopped.sigval).name}: the "
              "training processes stopped at the end of their step and saved the run there "
              "(the message above names the step); to continue, run the same command with "
              "--resume", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(_torchrun(sys.argv[1:]))
