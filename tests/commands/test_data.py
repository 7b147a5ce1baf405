"""``elmo-tutorial data``: the registry's table, and a download that says where it went."""

from __future__ import annotations

from elmo_tutorial.commands.cli import main
from elmo_tutorial.data import registry


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
