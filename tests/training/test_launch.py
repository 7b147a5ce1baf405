"""``train --nproc N`` (``elmo_tutorial.training.launch``): no more processes than the machine
can run, refused before any starts; the processes stop with their launcher, however it stops,
saving the run where they stopped."""

import os
import signal
import time
from pathlib import Path

import pytest
from _train_helpers import MICRO_CLI, start_endless_training

from elmo_tutorial.commands.cli import main as cli
from elmo_tutorial.training import checkpoints as ckpt
from elmo_tutorial.training import launch
from elmo_tutorial.training.launch import check_process_count
from elmo_tutorial.training.train_log import read_log


@pytest.fixture
def two_cores(monkeypatch):
    monkeypatch.setattr(launch, "available_cores", lambda: 2)


def test_more_cpu_processes_than_cores_are_refused_naming_the_largest_count(two_cores):
    check_process_count(2, "cpu", batch_size=8)
    with pytest.raises(ValueError, match=r"--nproc 200 .* may use 2 cores: give --nproc 2 or"):
        check_process_count(200, "cpu", batch_size=8)


def test_a_batch_without_a_sentence_for_each_process_is_refused(two_cores):
    """Every batch would be skipped: epochs without a step, repeated for ever."""
    with pytest.raises(ValueError, match=r"--batch_size=1 .* each of the 2 needs one"):
        check_process_count(2, "cpu", batch_size=1)


def test_a_gpu_count_beyond_the_machines_is_refused(monkeypatch):
    import torch

    monkeypatch.setattr(launch, "resolve_device", lambda name: torch.device("cuda", 0))
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    with pytest.raises(ValueError, match=r"one process per GPU, but this machine has 1: give "):
        check_process_count(2, "cuda", batch_size=8)


@pytest.mark.parametrize("flags", [["--nproc", "200"], ["--nproc", "2", "--batch_size=1"]])
def test_the_command_refuses_before_starting_any_process(tmp_path, monkeypatch, capsys, flags):
    monkeypatch.setattr(launch, "available_cores", lambda: 2)
    monkeypatch.setattr(launch.os, "execv", lambda *a: pytest.fail("torchrun was started"))
    run = tmp_path / "run"
    assert cli(["train", "--out", str(run), *MICRO_CLI, *flags]) == 2
    err = capsys.readouterr().err
    assert err.startswith("elmo-tutorial train: --") and err.count("\n") == 1, err
    assert not run.exists()


# -- stopping together -------------------------------------------------------------------------

def _default_handlers():  # whatever the tests run under (nohup, `&`) ignores
    for name in ("SIGINT", "SIGTERM", "SIGHUP"):
        signal.signal(getattr(signal, name), signal.SIG_DFL)


def _descendants(pid: int) -> set[int]:
    """The processes started by ``pid``, and theirs (from /proc)."""
    children = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(parent, set()).add(int(entry.name))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), ()):
            found.add(child)
            todo.append(child)
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.slow  # two training processes under torchrun, started and stopped
@pytest.mark.skipif(not Path("/proc").is_dir() or os.cpu_count() < 2, reason="Linux, 2 cores")
@pytest.mark.parametrize("how", ["SIGTERM to the launcher", "SIGKILL to the launcher"])
def test_the_processes_stop_with_their_launcher_and_save_where_they_stopped(tmp_path, how):
    run = tmp_path / "run"
    launcher = start_endless_training(run, "--nproc", "2", preexec_fn=_default_handlers,
                                      start_new_session=True)
    started = []
    try:
        waited = 0.0
        while not [e for e in read_log(run) if e["kind"] == "train"]:  # training has begun
            assert launcher.poll() is None, launcher.communicate()[1]
            assert waited < 180, "training did not start"
            time.sleep(0.2)
            waited += 0.2
        started = _descendants(launcher.pid)
        assert len(started) >= 2, started  # the launcher became torchrun: its two processes
        if how == "SIGKILL to the launcher":
            os.killpg(launcher.pid, signal.SIGKILL)  # the launcher's whole process group
        else:
            launcher.send_signal(signal.SIGTERM)
        _, err = launcher.communicate(timeout=120)
        waited = 0.0
        while [p for p in started if _alive(p)] and waited < 60:
            time.sleep(0.2)
            waited += 0.2
        assert not [p for p in started if _alive(p)], f"left running: {err}"
    finally:
        for pid in [launcher.pid, *started]:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
    saved = ckpt.latest_checkpoint(run)
    assert saved is not None, f"no checkpoint was saved on stopping: {err}"
    step = ckpt.load_checkpoint(saved)[1]["step"]
    assert step >= max(e["step"] for e in read_log(run)), "steps after the checkpoint are lost"
    if how == "SIGTERM to the launcher":
        assert launcher.returncode == 130 and "Traceback" not in err, err
        assert f"stopped by SIGTERM at step {step} of" in err and str(saved) in err
        assert err.strip().endswith("to continue, run the same command with --resume"), err
        assert err.count("elmo-tutorial train: stopped by SIGTERM at step") == 1, err
