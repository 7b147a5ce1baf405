"""The task report's runs file: each run kept as it finishes, read back to resume, refused
when it belongs to another setup."""

import pytest

from elmo_tutorial.tasks.runs import Job, RunStore, StoreMismatch

HEADER = {"model": "abc", "protocol": {"patience": 5}}


def test_runs_are_written_as_they_finish_and_read_back(tmp_path):
    path = tmp_path / "runs" / "r.jsonl"
    store = RunStore(path, HEADER)
    jobs = [Job("ner", "elmo", 0), Job("chunking", "input_output", 1, 0.1, ("input", "output"),
                                       2000, "tiny-60")]
    for i, job in enumerate(jobs):
        store.add(job, {"score": float(i)})
    again = RunStore(path, HEADER)
    assert len(again) == 2 and again[jobs[1]] == {"score": 1.0}
    assert jobs[1] in again and Job("ner", "elmo", 2) not in again


def test_a_line_cut_short_by_a_kill_is_ignored_and_its_run_redone(tmp_path):
    path = tmp_path / "r.jsonl"
    store = RunStore(path, HEADER)
    store.add(Job("ner", "elmo", 0), {"score": 1.0})
    with open(path, "a", encoding="utf-8") as f:
        f.write('{"job": {"task": "ner", "variant": "elmo", "se')  # killed mid-line
    again = RunStore(path, HEADER)
    assert len(again) == 1
    again.add(Job("ner", "elmo", 1), {"score": 2.0})  # on a line of its own, not glued on
    third = RunStore(path, HEADER)
    assert len(third) == 2 and third[Job("ner", "elmo", 1)] == {"score": 2.0}


def test_runs_of_another_setup_are_refused_with_what_to_do(tmp_path):
    path = tmp_path / "r.jsonl"
    RunStore(path, HEADER).add(Job("ner", "elmo", 0), {"score": 1.0})
    with pytest.raises(StoreMismatch, match="another --runs path or remove the file"):
        RunStore(path, {**HEADER, "model": "other"})


def test_an_empty_file_holds_no_run_and_is_started_afresh(tmp_path):
    """What a full disk may leave."""
    path = tmp_path / "r.jsonl"
    path.write_bytes(b"")
    RunStore(path, HEADER).add(Job("ner", "elmo", 0), {"score": 1.0})
    assert RunStore(path, HEADER)[Job("ner", "elmo", 0)] == {"score": 1.0}


@pytest.mark.parametrize("first", ['{"header": {"model": "abc", "proto', "[1, 2]", '"header"',
                                   '{"header": [1]}'])
def test_a_damaged_header_is_refused_naming_the_file_and_the_file_is_kept(tmp_path, first):
    path = tmp_path / "r.jsonl"
    RunStore(path, HEADER).add(Job("ner", "elmo", 0), {"score": 1.0})
    runs = path.read_bytes().split(b"\n", 1)[1]
    damaged = first.encode() + b"\n" + runs
    path.write_bytes(damaged)
    with pytest.raises(StoreMismatch) as refused:
        RunStore(path, HEADER)
    message = str(refused.value)
    assert message.startswith(f"{path} is not a runs file of `elmo-tutorial tasks` (its first "
                              "line is not the header") and "\n" not in message
    assert "another --runs path" in message
    assert path.read_bytes() == damaged  # nothing lost


def test_another_setup_is_refused_naming_what_differs(tmp_path):
    path = tmp_path / "r.jsonl"
    RunStore(path, HEADER).add(Job("ner", "elmo", 0), {"score": 1.0})
    other = {**HEADER, "protocol": {"patience": 3}, "task_data": {"ner": "123"}}
    with pytest.raises(StoreMismatch, match=r"holds runs of another setup \(its protocol, "
                                            r"task_data differ from this one's\)"):
        RunStore(path, other)
