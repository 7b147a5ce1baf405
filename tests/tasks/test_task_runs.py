"""The task report's runs file: each run kept as it finishes, read back to resume, refused
when it belongs to another setup or is not a regular file."""

import os

import pytest

from elmo_tutorial.files.safe_files import NotARegularFile
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


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_fifo_in_place_of_the_runs_file_is_refused_at_once(tmp_path):
    path = tmp_path / "r.jsonl"
    os.mkfifo(path)
    with pytest.raises(NotARegularFile, match="not a regular file"):
        RunStore(path, HEADER)


def test_a_run_whose_line_changed_is_trained_again_with_a_warning(tmp_path):
    path = tmp_path / "r.jsonl"
    store = RunStore(path, HEADER)
    store.add(Job("ner", "elmo", 0), {"score": 31.25})
    store.add(Job("ner", "elmo", 1), {"score": 32.5})
    path.write_text(path.read_text().replace("31.25", "81.25"))  # one flipped digit
    with pytest.warns(UserWarning, match="1 run.* are damaged .* trained again"):
        again = RunStore(path, HEADER)
    assert Job("ner", "elmo", 0) not in again and again[Job("ner", "elmo", 1)]["score"] == 32.5


def _no_space(*args, **kwargs):
    import errno

    raise OSError(errno.ENOSPC, "No space left on device")


def test_a_full_disk_when_the_file_starts_leaves_no_file_and_the_retry_works(tmp_path,
                                                                               monkeypatch):
    """The issue's case: a 0-byte runs file was left, and the same command was refused
    afterwards ("holds runs of another setup (None)")."""
    from elmo_tutorial.files.safe_files import DiskFull

    path = tmp_path / "r.jsonl"
    with monkeypatch.context() as full:
        full.setattr(os, "fsync", _no_space)
        with pytest.raises(DiskFull, match=r"^no space left on .* while writing .*r\.jsonl; no "
                                           r"runs file was started: free some space"):
            RunStore(path, HEADER)
    assert not path.exists() and not list(tmp_path.glob(".*.tmp"))
    RunStore(path, HEADER).add(Job("ner", "elmo", 0), {"score": 1.0})  # space freed
    assert len(RunStore(path, HEADER)) == 1


@pytest.mark.parametrize("left", [b"", b'{"header": {"mod'])
def test_a_file_with_no_complete_line_holds_no_run_and_is_started_afresh(tmp_path, left):
    """What an older version left on a full disk: an empty file, or its header cut short."""
    path = tmp_path / "r.jsonl"
    path.write_bytes(left)
    RunStore(path, HEADER).add(Job("ner", "elmo", 0), {"score": 1.0})
    assert RunStore(path, HEADER)[Job("ner", "elmo", 0)] == {"score": 1.0}


@pytest.mark.parametrize("first", ['{"header": {"model": "abc", "proto', "[1, 2]", '"header"',
                                   '{"header": [1]}', "[" * 100_000, "\udcff"])
def test_a_damaged_header_is_refused_naming_the_file_and_the_file_is_kept(tmp_path, first):
    path = tmp_path / "r.jsonl"
    RunStore(path, HEADER).add(Job("ner", "elmo", 0), {"score": 1.0})
    runs = path.read_bytes().split(b"\n", 1)[1]
    damaged = first.encode("utf-8", errors="surrogateescape") + b"\n" + runs
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
