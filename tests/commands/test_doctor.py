"""``elmo-tutorial doctor``: versions, device, threads, and how to get each missing dataset."""

from __future__ import annotations

import torch

from elmo_tutorial.commands.cli import main


def test_doctor_prints_torch_version_device_and_threads(capsys):
    assert main(["doctor"]) == 0
    out = capsys.readouterr().out
    assert torch.__version__ in out
    assert f"torch threads         {torch.get_num_threads()}" in out
    assert "device" in out and "Datasets" in out


def test_doctor_says_how_to_get_a_missing_dataset(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("ELMO_TUTORIAL_DATA", str(tmp_path / "empty"))
    monkeypatch.setenv("ELMO_TUTORIAL_CACHE", str(tmp_path / "cache"))
    assert main(["doctor"]) == 0
    out = capsys.readouterr().out
    assert "wnut17: Run `elmo-tutorial data download wnut17`" in out

