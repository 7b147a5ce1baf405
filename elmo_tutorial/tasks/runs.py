"""The task report's runs, one line each, kept as they finish: an interrupted report resumes.

A :class:`Job` names one training run: task, variant, seed, training fraction, where ELMo goes,
the training sample and the biLM. A :class:`RunStore` keeps ``job → result`` in memory and,
given a path, appends each result to a JSON-lines file as soon as it exists (flushed and
synced: a run killed a moment later loses nothing). Opening the file again reads every
complete line back, so ``elmo-tutorial tasks`` started again trains only what is missing.
A last line cut short by a kill is skipped (its run is done again, on a line of its own), and
so is a line that no longer matches the sha256 written on it (a flipped digit would otherwise
be a wrong score, read as right), with a warning.

The file's first line says what the runs belong to (``{"header": ...}``: the biLM's checksum,
the protocol, the static vectors' corpus and recipe (the sha256 of its text and the settings:
computed again, the vectors differ in float rounding, so their bytes cannot name them), the
task data's); a store opened with another header refuses the file rather than mix runs of two
setups, naming what differs. The header is written whole or not at all (a full disk leaves no
empty file behind), and a file that holds no complete line yet (empty, or its header cut
short) holds no run either: it is started afresh. A first line that is not a header is refused
with the file's name; nothing in the file is changed.

Example:
    >>> store = RunStore(None, header={"model": "abc"})
    >>> job = Job("ner", "elmo", seed=0)
    >>> store.add(job, {"score": 30.0})
    >>> job in store, store[job]["score"], len(store)
    (True, 30.0, 1)
"""

from __future__ import annotations

import hashlib
import json
import os
import warnings
from pathlib import Path
from typing import NamedTuple

from elmo_tutorial.files.json_input import NotJSON, parse_json
from elmo_tutorial.files.safe_files import DiskFull, atomic_create, is_disk_full, read_regular_file

__all__ = ["Job", "RunStore", "StoreMismatch", "task_data_checksum"]

MAX_BYTES = 256 * 2**20  # a full report's runs take about 1 MB


class Job(NamedTuple):
    """One training run of the task report."""

    task: str
    variant: str
    seed: int
    fraction: float = 1.0
    places: tuple[str, ...] = ("input",)
    sample: int | None = None  # a fixed random sample of this many training sentences
    bilm: str = "main"  # "main", or the name of a quality-figure biLM

    def to_dict(self) -> dict:
        return {**self._asdict(), "places": list(self.places)}

    @classmethod
    def from_dict(cls, data: dict) -> Job:
        return cls(**{**data, "places": tuple(data["places"])})


def task_data_checksum(data: dict) -> str:
    """sha256 of a task's splits (``{split: [(tokens, target), ...]}``) as JSON writes them:
    every token and target in order, so an edit of one label gives another checksum."""
    text = json.dumps(data, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest()


def _digest(run: dict) -> str:
    """sha256 of a run's line as JSON writes it back (keys sorted: the same on reading)."""
    return hashlib.sha256(json.dumps(run, sort_keys=True).encode()).hexdigest()


class StoreMismatch(ValueError):
    """The runs file belongs to another biLM, protocol or corpus."""


class RunStore:
    """``Job → result``, appended to ``path`` (JSON lines) as each run finishes."""

    def __init__(self, path: str | Path | None, header: dict | None = None) -> None:
        self.path, self.header, self._runs = (Path(path) if path else None), header or {}, {}
        self._cut_short = False
        if self.path is not None and (self.path.exists() or self.path.is_symlink()):
            self._read()
        elif self.path is not None:
            self._start(replace=False)

    def _start(self, replace: bool) -> None:
        """Write the header line whole (a full disk leaves no file, or the one before)."""
        line = json.dumps({"header": self.header}) + "\n"
        try:
            atomic_create(self.path, lambda tmp: Path(tmp).write_text(line, encoding="utf-8"),
                          replace=replace)
        except FileExistsError:  # another process started the file a moment ago: use it
            self._read()
        except DiskFull as error:
            raise DiskFull(self.path, error.cause, kept="no runs file was started: free "
                           "some space and run the command again") from None

    def _read(self) -> None:
        data = read_regular_file(self.path, MAX_BYTES)  # no FIFO, device or giant file
        if b"\n" not in data:  # empty, or a header cut short by a full disk: no run in it
            self._start(replace=True)
            return
        self._cut_short = not data.endswith(b"\n")  # killed mid-line
        lines = data.decode("utf-8", errors="replace").splitlines()
        self._check_header(lines[0])
        damaged = 0
        for line in lines[1:]:
            try:
                entry = parse_json(line, self.path)
            except NotJSON:  # a line cut short by a kill: its run is redone
                continue
            try:
                run = {"job": entry["job"], "result": entry["result"]}
                if entry["sha256"] != _digest(run):
                    raise ValueError("changed since it was written")
                self._runs[Job.from_dict(entry["job"])] = entry["result"]
            except (KeyError, TypeError, ValueError):
                damaged += 1
        if damaged:
            warnings.warn(f"{damaged} run(s) in {self.path} are damaged (not as they were "
                          "written); they are trained again", stacklevel=3)

    def _check_header(self, line: str) -> None:
        """Refuse a file whose first line is not this setup's header, saying what differs."""
        try:
            stored = parse_json(line, self.path)["header"]
            if not isinstance(stored, dict):
                raise TypeError("not an object")
        except (NotJSON, KeyError, TypeError):
            raise StoreMismatch(
                f"{self.path} is not a runs file of `elmo-tutorial tasks` (its first line is "
                "not the header that says what its runs belong to: damaged, or another "
                "file?); it was left as it is: give another --runs path, or move the file "
                "away to train its runs again") from None
        expected = json.loads(json.dumps(self.header))  # as JSON gives it back
        differ = sorted(k for k in {*stored, *expected} if stored.get(k) != expected.get(k))
        if differ:
            raise StoreMismatch(
                f"{self.path} holds runs of another setup (its {', '.join(differ)} "
                f"{'differs' if len(differ) == 1 else 'differ'} from this one's); give "
                "another --runs path or remove the file to train them again")

    def _append(self, entry: dict) -> None:
        try:
            with open(self.path, "a", encoding="utf-8") as f:
                if self._cut_short:  # end the broken line first: the new run gets its own line
                    f.write("\n")
                    self._cut_short = False
                f.write(json.dumps(entry) + "\n")
                f.flush()
                os.fsync(f.fileno())
        except OSError as error:
            if not is_disk_full(error):
                raise
            self._cut_short = True  # a line may be half written: the next one starts afresh
            raise DiskFull(self.path, error, kept="the runs written before are kept (a line "
                           "cut short is trained again): free some space and run again") \
                from None

    def add(self, job: Job, result: dict) -> None:
        self._runs[job] = result
        if self.path is not None:
            run = {"job": job.to_dict(), "result": result}
            self._append({**run, "sha256": _digest(run)})

    def __contains__(self, job: Job) -> bool:
        return job in self._runs

    def __getitem__(self, job: Job) -> dict:
        return self._runs[job]

    def __len__(self) -> int:
        return len(self._runs)

    def items(self):
        return self._runs.items()
