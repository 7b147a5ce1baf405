"""Every reader of a file a user or another process could have planted, against every plant.

Issue 27's first class: the same attack (a FIFO, ``/dev/zero``, a link out of the folder, a
folder where a file belongs) through each door of the package. The table below lists the
doors, each as (what is planted, the call that reads it); every one must answer at once with
one line that says what the path is, never hang, read ``/dev/zero`` to the end or read
another folder's file without a word. A FIFO that is waited on fails the test by an alarm,
not by hanging the suite. The datasets' files (ELMO_TUTORIAL_DATA, the download cache, nltk's
folders) are tried the same way in tests/data/test_dataset_files.py.
"""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pytest
from _planted_files import ATTACKS, SAYS, plant
from conftest import Hung

from elmo_tutorial.model.checkpoint import save_weights
from elmo_tutorial.model.config import MODEL_PRESETS
from elmo_tutorial.model.lm import BidirectionalLM
from elmo_tutorial.model.run_dir import load_run, write_run_config


def tiny_run(folder: Path) -> Path:
    config = replace(MODEL_PRESETS["tiny"], vocab_size=0)
    save_weights(folder / "model.safetensors", BidirectionalLM(config).state_dict())
    write_run_config(folder, config, {})
    return folder


@dataclass
class Door:
    """A reader: ``setup(tmp)`` makes a valid folder and returns the file to plant and the
    call that reads it; ``folder_bound``: the file belongs to a folder (links out refused)."""

    name: str
    setup: object
    folder_bound: bool = True


def _run_file(name: str, checkpoint: bool = False):
    def setup(tmp: Path):
        run = tiny_run(tmp / "run")
        target = run / name
        if checkpoint:  # only a checkpoint, no final weights
            step = run / "checkpoints" / "step_000002"
            step.mkdir(parents=True)
            (run / "model.safetensors").rename(step / "model.safetensors")
            (step / "state.pt").write_bytes(b"")
            target = step / "model.safetensors"
        elif name == "SHA256SUMS":
            from elmo_tutorial.files.safe_files import write_sha256sums
            write_sha256sums(run, ["config.json", "model.safetensors"])
        return target, lambda: load_run(run, checkpoint=checkpoint)
    return setup


def _vocab(tmp: Path):
    run = tiny_run(tmp / "run")
    (run / "vocab.txt").write_text("<S>\n</S>\n<UNK>\nthe\n")
    return run / "vocab.txt", lambda: load_run(run)


def _allennlp(which: str, through_folder: bool):
    def setup(tmp: Path):
        from elmo_tutorial import ELMo, save_allennlp
        from elmo_tutorial.formats.allennlp_format import load_allennlp, load_model

        folder = tmp / "official"
        save_allennlp(ELMo(MODEL_PRESETS["tiny"]), folder / "options.json",
                      folder / "weights.hdf5")
        if through_folder:
            return folder / which, lambda: load_model([folder])
        return folder / which, lambda: load_allennlp(folder / "options.json",
                                                     folder / "weights.hdf5")
    return setup


def _embedding_cache(part: str):
    def setup(tmp: Path):
        from elmo_tutorial import ELMo
        from elmo_tutorial.analyses.embedder import Embedder
        from elmo_tutorial.analyses.embedding_cache import embed_corpus

        embedder = Embedder(ELMo(MODEL_PRESETS["tiny"]))
        folder = tmp / "embeddings"

        def embed():
            return embed_corpus(embedder, [["a", "b"]], name="toy", progress=False,
                                directory=folder)

        data = embed().path
        return (data if part == "data" else data.with_suffix(".json")), embed
    return setup


def _static_vectors(part: str):
    def setup(tmp: Path):
        from elmo_tutorial.analyses.static_vectors import StaticVectors
        from elmo_tutorial.tasks.corpus_vectors import _read, _write

        path = tmp / "static_vectors" / "toy-0.npz"
        settings = {"corpus": "toy", "dim": 2}
        _write(path, StaticVectors(["a", "b"], np.eye(2, dtype=np.float32)), settings, "d")
        return (path if part == "data" else path.with_suffix(".json")), \
            lambda: _read(path, settings, "d")
    return setup


def _download_record(part: str):
    def setup(tmp: Path):
        from elmo_tutorial.data.verified import RECORD, check_record, write_record

        folder = tmp / "cache" / "toy"
        folder.mkdir(parents=True)
        (folder / "train.txt").write_text("a b c\n")
        write_record(folder, "toy")
        return folder / (RECORD if part == "record" else "train.txt"), \
            lambda: check_record(folder, "toy")
    return setup


def _archive(kind: str):
    def setup(tmp: Path):
        import zipfile

        from elmo_tutorial.data.downloads import verify_file
        from elmo_tutorial.files.archives import safe_extract

        archive = tmp / "cache" / "toy.zip"
        archive.parent.mkdir(parents=True)
        with zipfile.ZipFile(archive, "w") as zf:
            zf.writestr("toy/train.txt", "a b c\n")
        if kind == "verify":
            return archive, lambda: verify_file(archive, sha256="0" * 64)
        return archive, lambda: safe_extract(archive, tmp / "out")
    return setup


def _task_runs(tmp: Path):
    from elmo_tutorial.tasks.runs import RunStore

    path = tmp / "runs.jsonl"
    RunStore(path, {"model": "m"})
    return path, lambda: RunStore(path, {"model": "m"})


def _notebook(tmp: Path):
    from elmo_tutorial.course.material import main

    folder = tmp / "notebooks"
    folder.mkdir()
    (folder / "01_intro.ipynb").write_text(json.dumps(
        {"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))

    def make_student():
        if main(["student", str(tmp / "student"), "--notebooks", str(folder)]) != 0:
            raise ValueError("make student refused")  # its one line is on stderr
    return folder / "01_intro.ipynb", make_student


def _checkpoint(name: str, through: str):
    """A run with one checkpoint (``latest`` names it); ``name`` is planted in it and read by
    ``through``: the checkpoint itself, the newest one (``train --resume``), or ``latest``."""
    def setup(tmp: Path):
        from elmo_tutorial.model.checkpoint import (
            latest_checkpoint,
            load_checkpoint,
            load_latest_checkpoint,
            save_checkpoint,
        )
        from elmo_tutorial.model.lm import BidirectionalLM

        run = tmp / "run"
        model = BidirectionalLM(replace(MODEL_PRESETS["tiny"], vocab_size=0)).state_dict()
        state = {"step": 2, "epoch": 0, "batch_in_epoch": 2, "optimizer": {}, "scheduler": {},
                 "rng": {}}
        step = save_checkpoint(run, 2, model, state)
        if name == "latest":
            return step.parent / "latest", lambda: latest_checkpoint(run)
        read = {"load_checkpoint": lambda: load_checkpoint(step),
                "resume": lambda: load_latest_checkpoint(run)}[through]
        return step / name, read
    return setup


def _load_weights(tmp: Path):
    from elmo_tutorial.model.checkpoint import load_weights

    run = tiny_run(tmp / "run")
    return run / "model.safetensors", lambda: load_weights(run / "model.safetensors",
                                                           folder=run)


def _train_log(tmp: Path):
    from elmo_tutorial.training.train_log import TrainLog, read_log

    run = tmp / "run"
    run.mkdir()
    TrainLog(run).train(10, 0, {"loss": 8.0, "grad_norm": 1.0}, 0.01, 1000.0)
    return run / "log.jsonl", lambda: read_log(run)


def _sense_corpus(name: str):
    def setup(tmp: Path):
        import elmo_tutorial.data.sense_corpus as corpus

        folder = tmp / "embedded"
        corpus.write_corpus(folder)
        def read():  # from this folder instead of the repository's data/embedded
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(corpus, "sense_corpus_dir", lambda: folder)
                return (corpus.sense_corpus if name.endswith(".txt")
                        else corpus.sense_examples)("valid")
        return folder / name, read
    return setup


def _manifest(tmp: Path):
    from elmo_tutorial.course.generated import MANIFEST, write_generated

    out = tmp / "student"
    write_generated(out, {"01.ipynb": b"{}"}, "student")
    return out / MANIFEST, lambda: write_generated(out, {"01.ipynb": b"{}"}, "student")


DOORS = [
    Door("run config.json", _run_file("config.json")),
    Door("run model.safetensors", _run_file("model.safetensors")),
    Door("run SHA256SUMS", _run_file("SHA256SUMS")),
    Door("run vocab.txt", _vocab),
    Door("checkpoint model.safetensors", _run_file("model.safetensors", checkpoint=True)),
    Door("load_weights", _load_weights),
    Door("checkpoint latest", _checkpoint("latest", "latest")),
    Door("load_checkpoint model.safetensors",
         _checkpoint("model.safetensors", "load_checkpoint")),
    Door("load_checkpoint state.pt", _checkpoint("state.pt", "load_checkpoint")),
    Door("train --resume state.pt", _checkpoint("state.pt", "resume")),
    Door("train log", _train_log),
    Door("sense corpus split", _sense_corpus("valid.txt")),
    Door("sense corpus senses", _sense_corpus("senses.valid.tsv")),
    Door("load_model options.json", _allennlp("options.json", True)),
    Door("load_model weights.hdf5", _allennlp("weights.hdf5", True)),
    Door("load_allennlp options.json", _allennlp("options.json", False), folder_bound=False),
    Door("load_allennlp weights.hdf5", _allennlp("weights.hdf5", False), folder_bound=False),
    Door("embedding cache data", _embedding_cache("data")),
    Door("embedding cache record", _embedding_cache("record")),
    Door("static vectors data", _static_vectors("data")),
    Door("static vectors record", _static_vectors("record")),
    Door("download record", _download_record("record")),
    Door("downloaded file", _download_record("data")),
    Door("archive verified", _archive("verify"), folder_bound=False),
    Door("archive extracted", _archive("extract"), folder_bound=False),
    Door("task runs", _task_runs, folder_bound=False),
    Door("notebook", _notebook, folder_bound=False),
    Door("generated manifest", _manifest),
]
CASES = [pytest.param(door, attack, id=f"{door.name}-{attack}") for door in DOORS
         for attack in ATTACKS if door.folder_bound or attack != "link_out"]


@pytest.mark.parametrize(("door", "attack"), CASES)
def test_a_planted_file_is_refused_at_once_with_what_it_is(door, attack, tmp_path, alarm,
                                                           capsys):
    import re

    target, read = door.setup(tmp_path)
    good = target.read_bytes() if target.is_file() else b""
    plant(target, attack, good, tmp_path / "elsewhere")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            read()
            said = " ".join(str(w.message) for w in caught)  # a cache: damaged, computed again
        except Hung:
            raise
        except Exception as error:  # noqa: BLE001 - each door has its own error class
            said = f"{error} {capsys.readouterr().err}"
    assert re.search(SAYS[attack], said), f"{door.name}: {said!r}"
    assert "not found" not in said and "\n" not in said.strip()
    if attack == "link_out":  # the other folder's file is neither read into use nor changed
        assert (tmp_path / "elsewhere" / target.name).read_bytes() == good


def test_a_config_nested_too_deep_for_python_is_damaged_not_a_crash(tmp_path):
    from elmo_tutorial.files.safe_files import DamagedFile

    run = tiny_run(tmp_path / "run")
    (run / "config.json").write_text("[" * 100_000)
    with pytest.raises(DamagedFile, match=r"config\.json is damaged .*nested"):
        load_run(run)


def test_evaluate_says_when_the_weights_are_another_runs(tmp_path, capsys):
    from elmo_tutorial.commands.cli import main as cli

    run, other = tiny_run(tmp_path / "run"), tiny_run(tmp_path / "other_run")
    (run / "model.safetensors").unlink()
    (run / "model.safetensors").symlink_to(Path("..") / "other_run" / "model.safetensors")
    assert cli(["evaluate", str(run), "--no-ngram"]) == 2
    err = capsys.readouterr().err
    assert "outside" in err and str(other.resolve()) in err
