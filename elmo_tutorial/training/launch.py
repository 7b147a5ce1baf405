"""``elmo-tutorial train --nproc N``: start ``torchrun`` with N training processes, as many
as the machine can run, that stop when the launcher stops.

What each of the N processes does is :mod:`~elmo_tutorial.training.distributed`'s.

How many (:func:`check_process_count`): data parallelism runs one process per GPU (nccl) or,
on the CPU, one per core (gloo; a second process on a core only waits for it).

Stopping together (:func:`launch_torchrun`): torchrun starts each worker in a session of its
own, so a kill of the launcher's process group does not reach them, and a launcher that dies
of SIGTERM leaves them training. So the launcher passes the stop signals it receives to
torchrun, which passes them to its workers, which stop as ``train`` does (at the end of a
step, with a checkpoint there: :class:`~elmo_tutorial.training.train.TrainingInterrupted`);
and torchrun and every worker receive SIGTERM when their parent dies, ``kill -9`` included
(:func:`~elmo_tutorial.training.workers.die_with_parent`).
"""

from __future__ import annotations

import os
import subprocess
import sys

import torch

from elmo_tutorial.runtime import available_cores, resolve_device
from elmo_tutorial.training.workers import die_with_parent, passing_stop_signals

__all__ = ["LaunchStopped", "check_process_count", "launch_torchrun",
           "stop_with_launcher"]

# The pid of the process that started this one: the launcher for torchrun, torchrun for a
# worker (from the environment, which they inherit: a parent that died before the child
# asked for its pid would otherwise be missed)
LAUNCHER_VARIABLE = "ELMO_TUTORIAL_LAUNCHER_PID"


class LaunchStopped(Exception):
    """A stop signal came to the launcher; it was passed on to the training processes."""

    def __init__(self, signal_name: str) -> None:
        super().__init__(f"stopped by {signal_name}: the training processes were asked to stop "
                         "at the end of their step and to save the run there (the message "
                         "above names the step); to continue, run the same command with "
                         "--resume")
        self.signal_name = signal_name


def check_process_count(nproc: int, device: str, batch_size: int) -> None:
    """Refuse ``nproc`` training processes that ``device`` (a ``TrainConfig.device``) cannot
    run side by side, or that a batch of ``batch_size`` sentences (summed over the processes)
    cannot give a sentence each.

    Raises:
        ValueError: one line: what there is, and the largest ``--nproc`` that fits.
    """
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


def launch_torchrun(nproc: int, arguments: list[str]) -> int:
    """Run ``torchrun --standalone --nproc_per_node=nproc -m elmo_tutorial train
    *arguments`` and return its exit code.

    Raises:
        LaunchStopped: a stop signal (Ctrl-C, SIGTERM, SIGHUP) came meanwhile; it was passed
            on to torchrun, which has ended.
    """
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone",
               f"--nproc_per_node={nproc}", "-m", "elmo_tutorial", "train", *arguments]
    print("running:", " ".join(command), file=sys.stderr)
    command[2] = __name__  # the same, through _torchrun below
    # A process group of its own: a terminal's Ctrl-C reaches it once, passed on below, not
    # twice (from the terminal too), which would stop its workers without a checkpoint.
    child = subprocess.Popen(command, process_group=0,
                             env={**os.environ, LAUNCHER_VARIABLE: str(os.getpid())})
    try:
        with passing_stop_signals(child) as received:
            code = child.wait()
    finally:
        if child.poll() is None:  # something else ended the wait: leave no training behind
            child.terminate()
            child.wait()
    if received():
        raise LaunchStopped(received())
    return 128 - code if code < 0 else code  # killed by signal N: exit 128 + N, as a shell says


def stop_with_launcher() -> None:
    """Receive SIGTERM (stop, and save where stopped) when the process that started this one
    ends, however it ends: for torchrun, the launcher; for a worker, torchrun."""
    parent = os.environ.get(LAUNCHER_VARIABLE, "")
    die_with_parent(parent=int(parent) if parent.isdigit() else None)


def _torchrun(arguments: list[str]) -> int:
    """torchrun with ``arguments``, stopped with its launcher; stopped by a signal, which it
    passed on to its workers, it exits with 128 + the signal's number, where torchrun itself
    would print a traceback under the workers' own message."""
    from torch.distributed.elastic.multiprocessing.api import SignalException
    from torch.distributed.run import main

    stop_with_launcher()
    os.environ[LAUNCHER_VARIABLE] = str(os.getpid())  # the workers' parent
    try:
        main(arguments)
    except SignalException as stopped:
        return 128 + int(stopped.sigval)
    return 0


if __name__ == "__main__":
    sys.exit(_torchrun(sys.argv[1:]))
