"""setup_notebook returns the device ELMO_TUTORIAL_DEVICE names, and refuses unusable ones."""

import pytest
import torch

from elmo_tutorial.runtime import notebook_device, setup_notebook


def test_default_device_is_the_cpu(monkeypatch):
    monkeypatch.delenv("ELMO_TUTORIAL_DEVICE", raising=False)
    threads = torch.get_num_threads()
    try:
        assert setup_notebook(seed=0) == torch.device("cpu")
    finally:
        torch.set_num_threads(threads)


def test_named_device_is_returned(monkeypatch):
    monkeypatch.setenv("ELMO_TUTORIAL_DEVICE", "cpu")
    assert notebook_device() == torch.device("cpu")


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU")
def test_unusable_device_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("ELMO_TUTORIAL_DEVICE", "cuda")
    with pytest.raises(RuntimeError, match="cannot use that device"):
        notebook_device()
    monkeypatch.setenv("ELMO_TUTORIAL_DEVICE", "gpu please")
    with pytest.raises(RuntimeError, match="not a device name"):
        notebook_device()


@pytest.mark.parametrize("cores, busy, processes, expected", [
    (8, 0.2, 1, 8),   # a quiet machine: every core
    (2, 0.6, 1, 1),   # a core more than half busy is not free
    (2, 9.0, 1, 1),   # a shared machine: one thread, never zero
    (8, 1.0, 2, 4),   # the run's other process is not "other programs": 4 cores each
])
def test_default_threads_uses_the_free_cores(monkeypatch, cores, busy, processes, expected):
    from elmo_tutorial import runtime

    monkeypatch.setattr(runtime, "available_cores", lambda: cores)
    monkeypatch.setattr(runtime, "busy_cores", lambda: busy)
    assert runtime.default_threads(processes) == expected


def test_a_training_run_without_threads_takes_the_default(tmp_path, monkeypatch):
    from _train_helpers import micro_config

    from elmo_tutorial import runtime
    from elmo_tutorial.train import Trainer

    monkeypatch.setattr(runtime, "busy_cores", lambda: 99.0)
    threads = torch.get_num_threads()
    try:
        Trainer(micro_config(tmp_path, threads=0))
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(threads)
