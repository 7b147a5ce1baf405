"""``elmo-tutorial doctor`` and ``elmo-tutorial data``: they run and say the right things."""

from __future__ import annotations

import torch

from elmo_tutorial.commands.cli import main
from elmo_tutorial.data import registry


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


def test_data_list_names_every_dataset_with_its_licence(capsys):
    assert main(["data", "list"]) == 0
    out = capsys.readouterr().out
    for name, ds in registry.REGISTRY.items():
        line = next(ln for ln in out.splitlines() if ln.startswith(name + " "))
        assert ds.licence in line


def test_data_download_fetches_the_dataset_and_says_where(capsys, monkeypatch, tmp_path):
    fetched = []
    monkeypatch.setattr(registry, "fetch", lambda name, force, progress: (
        fetched.append((name, force, progress)) or tmp_path / name))
    assert main(["data", "download", "wikitext_2", "--quiet", "--force"]) == 0
    assert fetched == [("wikitext-2", True, False)]
    assert f"wikitext-2: available at {tmp_path / 'wikitext-2'}" in capsys.readouterr().out


def test_data_download_unknown_name_fails_with_suggestion(capsys):
    assert main(["data", "download", "wikitex-2"]) == 2
    assert "wikitext-2" in capsys.readouterr().err


def test_data_download_without_checksum_fails_and_explains(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("ELMO_TUTORIAL_DATA", str(tmp_path / "empty"))
    monkeypatch.setenv("ELMO_TUTORIAL_CACHE", str(tmp_path / "cache"))
    assert main(["data", "download", "wsd-framework"]) == 1
    assert "checksum" in capsys.readouterr().err


def test_doctor_says_when_a_data_variable_names_a_folder_that_does_not_exist(capsys,
                                                                            monkeypatch,
                                                                            tmp_path):
    typo = tmp_path / "sahred" / "data"
    monkeypatch.setenv("ELMO_TUTORIAL_DATA", str(typo))
    monkeypatch.setenv("ELMO_TUTORIAL_CACHE", str(tmp_path / "cache"))
    assert main(["doctor"]) == 0
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if ln.strip().startswith("ELMO_TUTORIAL_DATA"))
    assert f"no such folder: {typo}" in line
    assert f"first: ELMO_TUTORIAL_DATA names {typo}, which does not exist" in out


def test_a_mistyped_command_gets_a_suggestion_not_the_whole_help(capsys):
    assert main(["evalute", "runs/tiny"]) == 2
    err = capsys.readouterr().err
    assert "unknown command 'evalute'; did you mean 'evaluate'?" in err
    assert len(err.splitlines()) <= 3, "one usage line and the suggestion, not the whole help"
    assert main(["zzz"]) == 2
    assert "the commands are doctor, data, train" in capsys.readouterr().err
