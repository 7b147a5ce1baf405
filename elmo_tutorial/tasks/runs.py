"""The task report's runs, one line each, kept as they finish: an interrupted report resumes.

A :class:`Job` names one training run: task, variant, seed, training fraction, where ELMo goes,
the training sample and the biLM. A :class:`RunStore` keeps ``job → result`` and, given a path,
appends each result to a JSON-lines file as soon as it exists (synced: a run killed a moment
later loses nothing). Opening the file again reads its runs back, so ``elmo-tutorial tasks``
started again trains only what is missing; a last line cut short by a kill is trained again.

The file's first line says what the runs belong to (the report's ``run_store_key``: the biLM, the
protocol, the static vectors' recipe, the task data); a store opened with another header
refuses the file rather than mix runs of two setups, naming what differs.

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
from pathlib import Path
from typing import NamedTuple

__all__ = ["Job", "RunStore", "StoreMismatch", "task_data_checksum"]


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


class StoreMismatch(ValueError):
    """The runs file belongs to another biLM, protocol, corpus or task data."""


class RunStore:
    """``Job → result``, appended to ``path`` (JSON lines) as each run finishes."""

    def __init__(self, path: str | Path | None, header: dict | None = None) -> None:
        self.path, self.header, self._runs = (Path(path) if path else None), header or {}, {}
        self._cut_short = False
        if self.path is None:
            return
        text = self.path.read_text(encoding="utf-8") if self.path.exists() else ""
        if not text:  # new, or left empty by a full disk
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.write_text(json.dumps({"header": self.header}) + "\n", encoding="utf-8")
            return
        first, *lines = text.splitlines()
        self._check_header(first)
        for line in lines:
            try:
                entry = json.loads(line)
            except ValueError:  # a line cut short by a kill: its run is trained again
                continue
            self._runs[Job.from_dict(entry["job"])] = entry["result"]
        self._cut_short = not text.endswith("\n")

    def _check_header(self, line: str) -> None:
        """Refuse a file whose first line is not this setup's header, saying what differs."""
        try:
            stored = json.loads(line)["header"]
            differ = sorted(k for k in {*stored, *self.header}
                            if stored.get(k) != json.loads(json.dumps(self.header)).get(k))
        except (ValueError, KeyError, TypeError, AttributeError):
            raise StoreMismatch(
                f"{self.path} is not a runs file of `elmo-tutorial tasks` (its first line is "
                "not the header that says what its runs belong to); it was left as it is: "
                "give another --runs path, or move the file away") from None
        if differ:
            raise StoreMismatch(
                f"{self.path} holds runs of another setup (its {', '.join(differ)} "
                f"{'differs' if len(differ) == 1 else 'differ'} from this one's); give "
                "another --runs path or remove the file to train them again")

    def add(self, job: Job, result: dict) -> None:
        self._runs[job] = result
        if self.path is None:
            return
        with open(self.path, "a", encoding="utf-8") as f:
            if self._cut_short:  # end the broken line first: the new run gets its own line
                f.write("\n")
                self._cut_short = False
            f.write(json.dumps({"job": job.to_dict(), "result": result}) + "\n")
            f.flush()
            os.fsync(f.fileno())

    def __contains__(self, job: Job) -> bool:
        return job in self._runs

    def __getitem__(self, job: Job) -> dict:
        return self._runs[job]

    def __len__(self) -> int:
        return len(self._runs)

    def items(self):
        return self._runs.items()


def task_data_checksum(data: dict) -> str:
    """sha256 of a task's splits (``{split: [(tokens, target), ...]}``) as JSON writes them:
    every token and target in order, so an edit of one label gives another checksum."""
    text = json.dumps(data, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest()
