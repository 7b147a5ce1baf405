"""A download cache entry that is not a file (a FIFO, a folder, a link to a device) is refused
in one line by `data download` and by every reader that fetches, never a traceback or a hang."""

import os

import pytest

from elmo_tutorial.commands import cli
from elmo_tutorial.data.dataset_files import BadDatasetFile
from elmo_tutorial.data.registry import fetch

PLANTS = {"fifo": lambda p: os.mkfifo(p), "folder": lambda p: p.mkdir(),
          "dev_zero": lambda p: p.symlink_to("/dev/zero")}


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("ELMO_TUTORIAL_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("ELMO_TUTORIAL_DATA", str(tmp_path / "offline"))  # empty: not found
    (tmp_path / "cache" / "archives").mkdir(parents=True)
    return tmp_path / "cache"


@pytest.mark.parametrize("plant", PLANTS)
def test_a_cached_archive_that_is_not_a_file_is_one_line(cache, plant, capsys):
    archive = cache / "archives" / "wikitext-2-v1.zip"
    PLANTS[plant](archive)
    with pytest.raises(BadDatasetFile, match="wikitext-2-v1.zip is not a regular file"):
        fetch("wikitext-2", progress=False)
    assert cli.main(["data", "download", "wikitext-2"]) != 0
    err = capsys.readouterr().err.strip()
    assert err.startswith("elmo-tutorial data: wikitext-2: ") and "\n" not in err, err
    assert "Traceback" not in err
    assert archive.is_symlink() or archive.exists()  # left where it was, for the user to see
