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
