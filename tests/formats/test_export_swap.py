"""Exports published whole, arguments checked first, archives and caches that say what is wrong
(issue 27, classes 3 and 8)."""

from __future__ import annotations

import os
import zipfile
from dataclasses import replace

import pytest

from elmo_tutorial.commands.cli import main as cli
from elmo_tutorial.model.config import MODEL_PRESETS


@pytest.fixture
def run(tmp_path):
    from elmo_tutorial.model.checkpoint import save_weights
    from elmo_tutorial.model.lm import BidirectionalLM
    from elmo_tutorial.model.run_dir import write_run_config

    config = replace(MODEL_PRESETS["tiny"], vocab_size=0)
    folder = tmp_path / "run"
    save_weights(folder / "model.safetensors", BidirectionalLM(config).state_dict())
    write_run_config(folder, config, {})
    return folder


DEAD = 999_999_999  # no process has this id


def test_a_swap_cut_after_the_old_folder_went_aside_is_finished_by_the_next_export(
        run, tmp_path):
    from elmo_tutorial.model.run_dir import load_run

    out = tmp_path / "out"
    assert cli(["export", str(run), "--copy", str(out)]) == 0
    (out / "MODEL_CARD.md").write_text("kept\n")
    assert cli(["export", str(run), "--copy", str(out), "--float16", "--force"]) == 0
    assert (out / "MODEL_CARD.md").read_text() == "kept\n"  # the swap loses nothing
    # killed between "old aside" and "new in": OUT_DIR is missing, both folders are beside it
    os.rename(out, tmp_path / f".out.aside-{DEAD}")
    (tmp_path / f".out.ready-{DEAD}").mkdir()
    (tmp_path / f".out.export-{DEAD}-abc").mkdir()
    assert cli(["export", str(run), "--copy", str(out), "--force"]) == 0
    assert load_run(out).config.lstm_dim == MODEL_PRESETS["tiny"].lstm_dim
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "run"]


def test_a_swap_cut_before_anything_moved_keeps_the_old_folder(run, tmp_path):
    from elmo_tutorial.formats.export import recover_export

    out = tmp_path / "out"
    assert cli(["export", str(run), "--copy", str(out)]) == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    (tmp_path / f".out.ready-{DEAD}").mkdir()
    recover_export(out)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "run"]


def test_a_dead_staging_folder_inside_the_output_is_not_its_content(run, tmp_path):
    out = tmp_path / "out"
    (out / f".export-{DEAD}-xyz").mkdir(parents=True)  # left by an export before this version
    assert cli(["export", str(run), "--encoder", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["SHA256SUMS", "config.json",
                                                     "model.safetensors"]


@pytest.mark.parametrize("second", ["--allennlp", "--copy"])
def test_one_folder_for_two_formats_is_refused_before_anything_is_written(
        run, tmp_path, capsys, second):
    out = tmp_path / "out"
    assert cli(["export", str(run), "--encoder", str(out), second, str(out)]) == 2
    assert "same folder" in capsys.readouterr().err
    assert not out.exists()


def test_an_output_that_holds_the_run_is_refused(run, tmp_path, capsys):
    assert cli(["export", str(run), "--copy", str(tmp_path), "--force"]) == 2
    assert "holds the run" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]


def _zip(path, members):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def test_a_colon_in_a_member_name_is_not_a_drive(tmp_path):
    from elmo_tutorial.files.archives import UnsafeArchive, safe_extract

    safe_extract(_zip(tmp_path / "a.zip", {"notes:v1.txt": "x"}), tmp_path / "out")
    assert (tmp_path / "out" / "notes:v1.txt").read_text() == "x"
    with pytest.raises(UnsafeArchive, match="absolute"):
        safe_extract(_zip(tmp_path / "b.zip", {"C:evil.txt": "x"}), tmp_path / "out2")


def test_a_zip_bomb_is_refused_by_its_declared_sizes(tmp_path):
    from elmo_tutorial.files.archives import UnsafeArchive, safe_extract

    bomb = _zip(tmp_path / "bomb.zip", {"zeros.bin": b"\0" * 5_000_000})
    with pytest.raises(UnsafeArchive, match="unpack to .* GB"):
        safe_extract(bomb, tmp_path / "out", max_bytes=1_000_000)
    assert list((tmp_path / "out").iterdir()) == []


def test_a_member_larger_than_it_declares_stops_and_leaves_nothing(tmp_path, monkeypatch):
    from elmo_tutorial.files import archives as archives
    from elmo_tutorial.files.archives import UnsafeArchive, safe_extract

    archive = _zip(tmp_path / "lies.zip", {"a.txt": "small", "b/c.txt": b"x" * 100_000})
    real = archives._extract_zip_member

    def declares_less(zf, info, target):  # what a forged central directory says
        info.file_size = min(info.file_size, 10)
        real(zf, info, target)

    monkeypatch.setattr(archives, "_extract_zip_member", declares_less)
    with pytest.raises(UnsafeArchive, match="more than the 10 bytes it declares|CRC"):
        safe_extract(archive, tmp_path / "out")
    assert list((tmp_path / "out").iterdir()) == []


def test_a_cache_folder_that_takes_no_files_says_so(tmp_path, monkeypatch):
    from elmo_tutorial.data.downloads import CacheNotWritable, download_file

    monkeypatch.setenv("ELMO_TUTORIAL_CACHE", "/proc")
    source = tmp_path / "f.txt"
    source.write_text("x")
    with pytest.raises(CacheNotWritable, match="^cannot write into /proc/.*ELMO_TUTORIAL_CACHE"):
        download_file(source.as_uri(), "/proc/elmo_tutorial/f.txt", sha256="0" * 64,
                      progress=False)
