"""Typed records: the JSON is their serialisation, and a wrong file is refused naming the field."""

import json
from dataclasses import dataclass
from typing import NamedTuple

import pytest

from elmo_tutorial.files.records import Record, RecordFormatError, optional


class Job(NamedTuple):  # as the task report's runs name theirs
    task: str
    seed: int
    places: tuple[str, ...] = ("input",)


@dataclass(frozen=True)
class Arm(Record):
    mean: float  # percent
    runs: list[float]  # one per seed


@dataclass(frozen=True, kw_only=True)
class Report(Record):
    seeds: list[int]
    sample: int | None  # written as null when None
    arms: dict[str, Arm]
    note: str | None = optional()  # left out when None
    job: Job  # a NamedTuple
    quick: bool


DATA = {"seeds": [0, 1], "sample": None,
        "arms": {"elmo": {"mean": 51, "runs": [50.5, 51.5]}, "baseline": {"mean": 49.25,
                                                                         "runs": [49, 49.5]}},
        "job": {"task": "ner", "seed": 0, "places": ["input", "output"]},
        "quick": False}


def test_a_record_written_back_is_its_json_byte_for_byte():
    text = json.dumps(DATA, indent=2) + "\n"
    report = Report.from_dict(json.loads(text))
    assert report.to_json() == text  # ints stay ints, keys keep their order, null stays null
    assert list(report.arms) == ["elmo", "baseline"] and report.arms["elmo"].runs == [50.5, 51.5]
    assert report.job.places == ("input", "output") and report.note is None
    assert "note" not in report.to_dict()
    assert Report.from_dict({**DATA, "note": "kept"}).to_dict()["note"] == "kept"


@pytest.mark.parametrize(("change", "message"), [
    ({"seeds": [0, "1"]}, "field seeds[1]: expected a whole number, got '1' (str)"),
    ({"seeds": [0, True]}, "field seeds[1]: expected a whole number, got True (bool)"),
    ({"quick": 0}, "field quick: expected true or false, got 0 (int)"),
    ({"arms": {"elmo": {"mean": "high", "runs": []}}},
     "field arms.elmo.mean: expected a number, got 'high' (str)"),
    ({"arms": {"elmo": {"mean": 1.0}}}, "field arms.elmo.runs: missing from Arm"),
    ({"arms": {"elmo": {"mean": 1.0, "runs": [], "colour": "red"}}},
     "field arms.elmo.colour: not a field of Arm (its fields: mean, runs)"),
    ({"arms": [1.0]}, "field arms: expected an object, got [1.0] (list)"),
    ({"job": {"task": "ner", "seed": "zero"}},
     "field job.seed: expected a whole number, got 'zero' (str)"),
    ({"job": {"task": "ner"}}, "field job.seed: missing from Job"),
])
def test_a_wrong_value_is_refused_naming_its_field(change, message):
    with pytest.raises(RecordFormatError) as refused:
        Report.from_dict({**DATA, **change})
    assert str(refused.value) == message


def test_a_missing_field_is_refused_unless_the_json_may_leave_it_out():
    data = {k: v for k, v in DATA.items() if k != "sample"}
    with pytest.raises(RecordFormatError, match="field sample: missing from Report"):
        Report.from_dict(data)
    assert Report.from_dict(DATA).note is None  # optional: absent means None
    job = Report.from_dict({**DATA, "job": {"task": "ner", "seed": 1}}).job
    assert job.places == ("input",)  # a NamedTuple's default


def test_reading_a_file_names_the_file_and_says_what_to_do(tmp_path):
    path = tmp_path / "report.json"
    path.write_text(json.dumps({**DATA, "seeds": "0, 1"}))
    with pytest.raises(RecordFormatError) as refused:
        Report.read(path)
    assert str(refused.value).startswith(f"{path} does not hold a valid Report: field seeds: ")
    assert "write it again with the command that made it" in str(refused.value)
    path.write_text('{"seeds": [0,')
    with pytest.raises(RecordFormatError, match="does not hold a valid Report: Expecting"):
        Report.read(path)
    path.write_text(json.dumps(DATA))
    assert Report.read(path) == Report.from_dict(DATA)
