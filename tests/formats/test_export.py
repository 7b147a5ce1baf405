"""Exports: arguments checked before a file is written, each file written whole."""

from __future__ import annotations

from dataclasses import replace

import pytest

from elmo_tutorial.commands.cli import main as cli
from elmo_tutorial.model.config import MODEL_PRESETS


@pytest.fixture
def run(tmp_path):
    from elmo_tutorial.model.lm import BidirectionalLM
    from elmo_tutorial.training.checkpoints import save_weights
    from elmo_tutorial.training.run_folder import write_run_config

    config = replace(MODEL_PRESETS["tiny"], vocab_size=0)
    folder = tmp_path / "run"
    save_weights(folder / "model.safetensors", BidirectionalLM(config).state_dict())
    write_run_config(folder, config, {})
    return folder


def test_one_format_per_export(run, tmp_path, capsys):
    out = tmp_path / "out"
    with pytest.raises(SystemExit):
        cli(["export", str(run), "--encoder", str(out), "--copy", str(tmp_path / "copy")])
    assert "not allowed with argument" in capsys.readouterr().err
    assert not out.exists()


def test_an_output_that_holds_the_run_is_refused(run, tmp_path, capsys):
    assert cli(["export", str(run), "--copy", str(tmp_path), "--force"]) == 2
    assert "holds the run" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]


def test_a_float16_copy_loads_as_the_run_and_its_checksums_hold(run, tmp_path):
    import torch

    from elmo_tutorial.files.safe_files import check_sha256sums
    from elmo_tutorial.training.run_folder import load_run

    out = tmp_path / "out"
    assert cli(["export", str(run), "--copy", str(out), "--float16"]) == 0
    check_sha256sums(out, ["config.json", "model.safetensors"])
    original, copy = load_run(run).state, load_run(out).state
    assert original.keys() == copy.keys()
    for name, tensor in original.items():
        torch.testing.assert_close(copy[name], tensor, atol=1e-2, rtol=1e-2)


def test_an_export_that_fails_mid_write_leaves_the_previous_file_whole(run, tmp_path,
                                                                       monkeypatch):
    from elmo_tutorial.formats import allennlp_format

    out = tmp_path / "out"
    assert cli(["export", str(run), "--allennlp", str(out)]) == 0
    before = (out / "weights.hdf5").read_bytes()

    def full_disk(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(allennlp_format, "write_bilm_weights", full_disk)
    assert cli(["export", str(run), "--allennlp", str(out), "--force"]) != 0
    assert (out / "weights.hdf5").read_bytes() == before
