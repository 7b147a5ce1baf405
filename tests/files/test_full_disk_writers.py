"""Every writer speaks one full-disk language and keeps the previous file (issue 27, class 3).

Each writer of the package is run once to leave a previous file, then again on a "full disk":
its lowest write (``Path.write_text``/``write_bytes``, ``os.fsync``, safetensors' writer,
``torch.save``) is made to fail as the real one does on a full disk, with ``ENOSPC`` or the
library's own words. Every one must raise :class:`DiskFull` (or, from a command, print its one
line) and leave the previous file byte for byte as it was. The disk is never really filled.
"""

from __future__ import annotations

import errno
import json
import os
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch

from elmo_tutorial.files.safe_files import DiskFull
from elmo_tutorial.model.config import MODEL_PRESETS

TINY = replace(MODEL_PRESETS["tiny"], vocab_size=0)
NO_SPACE = OSError(errno.ENOSPC, "No space left on device")
# What safetensors' Rust writer and torch.save's C++ writer raise on a full disk.
SAFETENSORS_FULL = ('Error while serializing: IoError(Os { code: 28, kind: StorageFull, '
                    'message: "No space left on device" })')
TORCH_FULL = "[enforce fail at inline_container.cc:595] . unexpected pos 64 vs 0"


def _fail(error):
    def fail(*args, **kwargs):
        raise error
    return fail


def full_disk(monkeypatch, how: str) -> None:
    """Make the lowest write of the kind ``how`` fail as on a full disk."""
    if how == "write_text":
        monkeypatch.setattr(Path, "write_text", _fail(NO_SPACE))
    elif how == "write_bytes":
        monkeypatch.setattr(Path, "write_bytes", _fail(NO_SPACE))
    elif how == "fsync":  # what a file system with delayed allocation answers
        monkeypatch.setattr(os, "fsync", _fail(NO_SPACE))
    elif how == "safetensors":
        from safetensors import SafetensorError

        import elmo_tutorial.model.checkpoint as checkpoint
        monkeypatch.setattr(checkpoint, "save_file", _fail(SafetensorError(SAFETENSORS_FULL)))
    elif how == "torch.save":
        monkeypatch.setattr(torch, "save", _fail(RuntimeError(TORCH_FULL)))


def _weights(tmp):
    from elmo_tutorial.model.checkpoint import save_weights
    from elmo_tutorial.model.lm import BidirectionalLM

    state = BidirectionalLM(TINY).state_dict()
    return tmp / "model.safetensors", lambda: save_weights(tmp / "model.safetensors", state)


def _checkpoint(tmp):
    from elmo_tutorial.model.checkpoint import save_checkpoint

    state = {"step": 1, "epoch": 0, "batch_in_epoch": 0, "optimizer": {}, "scheduler": {},
             "rng": {}}
    model = {"w": torch.zeros(2)}
    save_checkpoint(tmp, 2, model, state)
    return tmp / "checkpoints" / "step_000002" / "state.pt", \
        lambda: save_checkpoint(tmp, 4, model, state)


def _allennlp(tmp):
    from elmo_tutorial import ELMo, save_allennlp

    model = ELMo(MODEL_PRESETS["tiny"])
    return tmp / "weights.hdf5", lambda: save_allennlp(model, tmp / "options.json",
                                                       tmp / "weights.hdf5")


def _simple(path_name, write):
    def setup(tmp):
        return tmp / path_name, lambda: write(tmp / path_name)
    return setup


def _run_config(path):
    from elmo_tutorial.model.run_dir import write_run_config
    write_run_config(path.parent, TINY, {})


def _vocab(path):
    from elmo_tutorial.model.vocab import Vocabulary
    Vocabulary.from_counts({"the": 3, "a": 2}).save(path)


def _sums(path):
    from elmo_tutorial.files.safe_files import write_sha256sums
    (path.parent / "a.txt").write_bytes(b"a") if not (path.parent / "a.txt").exists() else None
    write_sha256sums(path.parent, ["a.txt"])


def _cache_record(path):
    from elmo_tutorial.files.cache_record import write_record
    data = path.with_suffix(".npz")
    if not data.exists():
        data.write_bytes(b"vectors")
    write_record(data, format=1)


def _download_record(path):
    from elmo_tutorial.data.verified import write_record
    write_record(path.parent, "toy")


def _static_vectors(path):
    from elmo_tutorial.analyses.static_vectors import StaticVectors
    from elmo_tutorial.tasks.corpus_vectors import _write
    _write(path, StaticVectors(["a", "b"], np.eye(2, dtype=np.float32)), {"corpus": "t"}, "d")


def _report(path):
    from elmo_tutorial.files.overwrite import write_new_texts
    write_new_texts({path: "| a | b |\n"}, force=True)


def _task_runs(tmp):
    from elmo_tutorial.tasks.runs import Job, RunStore

    store = RunStore(tmp / "runs.jsonl", {"model": "m"})
    return tmp / "runs.jsonl", lambda: store.add(Job("pos", "elmo", 0), {"accuracy": 0.5})


APPENDERS = {"task runs (append)"}  # their previous content must stay, a line may be added
WRITERS = [  # (name, setup, the full disk's form)
    ("save_weights (safetensors)", _weights, "safetensors"),
    ("save_checkpoint (torch.save)", _checkpoint, "torch.save"),
    ("save_checkpoint (safetensors)", _checkpoint, "safetensors"),
    ("save_allennlp (hdf5)", _allennlp, "write_bytes"),
    ("run config.json", _simple("config.json", _run_config), "write_text"),
    ("vocab.txt", _simple("vocab.txt", _vocab), "write_text"),
    ("SHA256SUMS", _simple("SHA256SUMS", _sums), "write_text"),
    ("cache record", _simple("entry.json", _cache_record), "write_text"),
    ("download record", _simple(".verified.json", _download_record), "write_text"),
    ("static vectors", _simple("t-0.npz", _static_vectors), "write_bytes"),
    ("report --markdown", _simple("report.md", _report), "write_text"),
    ("any writer, full at fsync", _simple("config.json", _run_config), "fsync"),
    ("task runs (append)", _task_runs, "fsync"),
]


@pytest.mark.parametrize(("name", "setup", "how"),
                         [pytest.param(n, s, h, id=n) for n, s, h in WRITERS])
def test_a_full_disk_is_disk_full_and_the_previous_file_stays(name, setup, how, tmp_path,
                                                              monkeypatch):
    previous, write = setup(tmp_path)
    if not previous.exists():
        write()
    before = previous.read_bytes()
    with monkeypatch.context() as patched:
        full_disk(patched, how)
        with pytest.raises(DiskFull, match=r"^no space left on .* while writing .*; "):
            write()
    after = previous.read_bytes()
    assert after.startswith(before) if name in APPENDERS else after == before
    leftovers = [p.name for p in previous.parent.rglob(".*.tmp")]
    assert not leftovers


def _notebooks(tmp: Path) -> Path:
    folder = tmp / "notebooks"
    folder.mkdir()
    for n, text in ((1, "one"), (2, "two"), (3, "three")):
        (folder / f"0{n}_part.ipynb").write_text(json.dumps(
            {"cells": [{"cell_type": "markdown", "id": f"c{n}", "metadata": {}, "source": text}],
             "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    return folder


def test_make_student_on_a_full_disk_changes_nothing_and_says_so_in_one_line(
        tmp_path, monkeypatch, capsys):
    from elmo_tutorial.course.material import main

    notebooks, out = _notebooks(tmp_path), tmp_path / "student"
    assert main(["student", str(out), "--notebooks", str(notebooks)]) == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    (notebooks / "01_part.ipynb").write_text((notebooks / "01_part.ipynb").read_text()
                                             .replace("one", "ONE"))
    (notebooks / "03_part.ipynb").write_text((notebooks / "03_part.ipynb").read_text()
                                             .replace("three", "THREE"))
    real_fsync, calls = os.fsync, []

    def fills_up(fd):  # the second file finds the disk full
        calls.append(fd)
        if len(calls) >= 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fills_up)
    assert main(["student", str(out), "--notebooks", str(notebooks)]) == 1
    monkeypatch.undo()
    err = capsys.readouterr().err
    assert err.startswith("error: no space left on ") and err.count("\n") == 1
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_make_student_cleans_what_a_killed_run_left(tmp_path, capsys):
    from elmo_tutorial.course.material import main

    notebooks, out = _notebooks(tmp_path), tmp_path / "student"
    assert main(["student", str(out), "--notebooks", str(notebooks)]) == 0
    ours = (out / "02_part.ipynb").read_bytes()
    (out / ".01_part.ipynb.x1y2z3.tmp").write_bytes(b"half")  # killed while staging
    os.replace(out / "02_part.ipynb", out / ".02_part.ipynb.aside-999999999")  # mid-replace
    assert main(["student", str(out), "--notebooks", str(notebooks)]) == 0
    assert sorted(p.name for p in out.iterdir() if p.name != ".elmo-tutorial-generated.json") \
        == ["01_part.ipynb", "02_part.ipynb", "03_part.ipynb"]
    assert (out / "02_part.ipynb").read_bytes() == ours


def test_make_student_into_a_dangling_link_says_what_it_is(tmp_path, capsys):
    from elmo_tutorial.course.material import main

    (tmp_path / "student").symlink_to(tmp_path / "gone")
    assert main(["student", str(tmp_path / "student"), "--notebooks",
                 str(_notebooks(tmp_path))]) == 1
    err = capsys.readouterr().err
    assert "symbolic link" in err and "does not exist" in err and err.count("\n") == 1


def test_a_notebook_that_is_not_json_is_named(tmp_path, capsys):
    from elmo_tutorial.course.material import main

    notebooks = _notebooks(tmp_path)
    (notebooks / "02_part.ipynb").write_text('{"cells": [')
    assert main(["student", str(tmp_path / "student"), "--notebooks", str(notebooks)]) == 1
    err = capsys.readouterr().err
    assert "02_part.ipynb" in err and err.count("\n") == 1
    assert not (tmp_path / "student" / "01_part.ipynb").exists()
