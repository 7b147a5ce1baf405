"""Every JSON file a user can hand the package, nested deeper than Python's stack.

The issue's case: an ``options.json`` of ``[[[[...`` ended in a ``RecursionError`` traceback,
where only ``config.json`` was guarded. Each reader below (a door) is given such a file where
its JSON belongs; each must answer in one line that names the file (or, for a cache, warn and
compute again; for a log or a runs file, skip the line), never with a traceback.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest
import torch

from elmo_tutorial.files.json_input import NotJSON, parse_json

DEEP = "[" * 100_000


@pytest.mark.parametrize(("data", "says"), [(DEEP, "nested thousands of levels deep"),
                                             (b"\xff{}", "byte 0 is not UTF-8 text"),
                                             ('{"a": ', "Expecting value")])
def test_parse_json_refuses_in_one_line_naming_the_file(data, says):
    with pytest.raises(NotJSON) as refused:
        parse_json(data, "where/options.json")
    message = str(refused.value)
    assert message.startswith("where/options.json is not valid JSON (") and says in message
    assert "\n" not in message


def _options_json(tmp: Path):
    from elmo_tutorial import ELMo, load_allennlp, save_allennlp
    from elmo_tutorial.model.config import MODEL_PRESETS

    options, weights = tmp / "options.json", tmp / "weights.hdf5"
    save_allennlp(ELMo(MODEL_PRESETS["tiny"]), options, weights)
    return options, lambda: load_allennlp(options, weights)


def _cache_record(tmp: Path):
    from elmo_tutorial.files.cache_record import check_record, write_record

    data = tmp / "entry.npz"
    data.write_bytes(b"vectors")
    write_record(data, format=1)
    return tmp / "entry.json", lambda: check_record(data, format=1)


def _embedding_cache_record(tmp: Path):
    from elmo_tutorial.analyses.embedder import Embedder
    from elmo_tutorial.analyses.embedding_cache import embed_corpus
    from elmo_tutorial.model.config import MODEL_PRESETS
    from elmo_tutorial.model.elmo import ELMo

    embedder = Embedder(ELMo(MODEL_PRESETS["tiny"]))
    first = embed_corpus(embedder, [["a", "b"]], name="toy", progress=False, directory=tmp)
    return first.path.with_suffix(".json"), lambda: embed_corpus(
        embedder, [["a", "b"]], name="toy", progress=False, directory=tmp)


def _static_vectors(part: str):
    def setup(tmp: Path):
        from elmo_tutorial.tasks import corpus_vectors as cv

        def vectors():
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(cv, "load_sentences", lambda name, split: [["a", "b"], ["b", "a"]])
                patch.setattr(cv, "_fingerprint", lambda corpus: "sources")
                return cv.corpus_vectors("toy", dim=1, min_count=1, directory=tmp)

        vectors()
        planted = tmp / "toy.text.json" if part == "memo" else next(tmp.glob("toy-*.json"))
        return planted, vectors
    return setup


def _task_report_record(tmp: Path):
    from elmo_tutorial.tasks.results import TaskReport

    path = tmp / "tasks.json"
    path.write_text("{}")
    return path, lambda: TaskReport.read(path)


def _training_log(tmp: Path):
    from elmo_tutorial.training.train_log import read_log

    path = tmp / "log.jsonl"
    path.write_text(json.dumps({"step": 1}) + "\n")
    return path, lambda: read_log(path)


def _download_record(tmp: Path):
    from elmo_tutorial.data import verified

    (tmp / "wiki.train.tokens").write_text("a b c\n")
    verified.write_record(tmp, "toy")
    return tmp / verified.RECORD, lambda: verified.check_record(tmp, "toy")


def _course_manifest(tmp: Path):
    from elmo_tutorial.course.generated import MANIFEST, write_generated

    out = tmp / "slides"
    write_generated(out, {"a.html": b"<p>a</p>"}, "slides")
    return out / MANIFEST, lambda: write_generated(out, {"a.html": b"<p>b</p>"}, "slides")


def _course_notebook(tmp: Path):
    from elmo_tutorial.course.material import read_notebook

    path = tmp / "01_lesson.ipynb"
    path.write_text("{}")
    return path, lambda: read_notebook(path)


def _baseline_vectors(tmp: Path):
    from safetensors.torch import save

    from elmo_tutorial.tasks.vectors import VECTORS_FILE, task_word_vectors

    path = tmp / VECTORS_FILE
    path.write_bytes(save({"vectors": torch.zeros(2, 3)},
                          metadata={"format": "1", "corpus": "embedded", "words": DEEP}))
    return None, lambda: task_word_vectors(tmp, "embedded", tasks=())


DOORS = {  # name: (setup(tmp) → (the file its JSON is in, or None if planted, the reader),
    #        what the reader does: "refuses" in one line, "warns" and computes again, "skips"
    #        the line, or "reads again" the text behind a memo without a word)
    "options.json (load_allennlp)": (_options_json, "refuses"),
    "cache record (check_record)": (_cache_record, "refuses"),
    "embedding cache record": (_embedding_cache_record, "warns"),
    "static vectors record": (_static_vectors("record"), "warns"),
    "static vectors text memo": (_static_vectors("memo"), "reads again"),
    "report record (TaskReport.read)": (_task_report_record, "refuses"),
    "training log line (read_log)": (_training_log, "skips"),
    "download record (.verified.json)": (_download_record, "refuses"),
    "course manifest": (_course_manifest, "refuses"),
    "course notebook (read_notebook)": (_course_notebook, "refuses"),
    "baseline vectors' word list": (_baseline_vectors, "refuses"),
}


@pytest.mark.parametrize("door", sorted(DOORS))
def test_json_nested_too_deep_is_one_line_or_recomputed_never_a_traceback(door, tmp_path):
    setup, expected = DOORS[door]
    planted, read = setup(tmp_path)
    if planted is not None:
        planted.write_text(DEEP)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result, refused = read(), None
        except RecursionError:
            pytest.fail(f"{door}: a RecursionError traceback")
        except Exception as error:  # noqa: BLE001 - each door has its own error class
            result, refused = None, str(error)
    warned = " ".join(str(w.message) for w in caught)
    if expected == "refuses":
        assert refused is not None and "\n" not in refused, refused
        # the reason itself, or its kind where a reader names only that ("... : NotJSON")
        assert "nested thousands of levels deep" in refused or "NotJSON" in refused, refused
        assert planted is None or planted.name in refused, refused
        return
    assert refused is None, refused
    if expected == "warns":
        assert "nested thousands of levels deep" in warned and "\n" not in warned, warned
    else:
        assert warned == ""
    if expected == "skips":
        assert result == []  # the line is skipped, as one cut short by a crash
    if "vectors" in door:  # computed again from the text: whole vectors
        assert isinstance(result.vectors, np.ndarray) and result.vectors.shape[0] == 2
    if "embedding" in door:
        assert len(result) == 1 and result[0].shape[1] == 2


@pytest.mark.parametrize("command", ["tasks", "layers"])
def test_a_command_given_a_deeply_nested_options_json_says_so_in_one_line(command, tmp_path,
                                                                         capsys):
    from elmo_tutorial.commands.cli import main as cli

    options, _ = _options_json(tmp_path)
    options.write_text(DEEP)
    assert cli([command, str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"elmo-tutorial {command}: {options} is not valid JSON (nested "
                          "thousands of levels deep") and err.count("\n") == 1
