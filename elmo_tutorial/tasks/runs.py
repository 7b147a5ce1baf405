"""The task report's runs: its settings (:data:`FULL`, :data:`QUICK`), each run's name
(:class:`Job`), and the runs file that keeps them (:class:`RunStore`).

A :class:`RunStore` appends each result to a JSON-lines file as soon as it exists (synced), and
reads the file back when opened again, so that ``elmo-tutorial tasks`` started again trains
only what is missing. The file's first line says what its runs belong to
(:func:`run_store_key`); a store of another setup refuses the file, naming what differs.

Example:
    >>> store = RunStore(None, header={"model": "abc"})
    >>> job = Job("a_task", "elmo", seed=0)
    >>> store.add(job, {"score": 30.0})
    >>> job in store, store[job]["score"], len(store)
    (True, 30.0, 1)
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from elmo_tutorial.analyses.embedding_cache import model_checksum
from elmo_tutorial.data.downloads import cache_dir
from elmo_tutorial.tasks.registry import TASKS, read_task
from elmo_tutorial.tasks.training import PROTOCOL
from elmo_tutorial.tasks.vectors import word_vectors_recipe

__all__ = ["FULL", "QUICK", "Job", "RunStore", "StoreMismatch", "open_run_store", "quality_id",
           "run_store_key", "task_data_checksum"]

# The full report, five seeds wherever it gives a verdict: Table 1 on the full training sets;
# Tables 2 and 3 and the quality figure's layer-study task on a fixed random sample of 500
# training sentences (the same for every arm and seed); Figure 1 with 1 % and 10 % of each
# training set (another part per seed), its three arms as Table 1's.
FULL = {"quick": False, "max_sentences": None, "sample": 500, "seeds": (0, 1, 2, 3, 4),
        "fraction_seeds": (0, 1, 2, 3, 4), "fractions": (0.01, 0.1),
        "fraction_variants": ("baseline", "layer0", "elmo"), "table2_seeds": (0, 1, 2, 3, 4),
        "table2_variants": ("top", "lambda1", "layer0"), "protocol": PROTOCOL}
# A smoke test: 200 sentences per split, two seeds, three epochs at most (runs end at the cap:
# not converged, not comparable with anything).
QUICK = {**FULL, "quick": True, "max_sentences": 200, "sample": None, "seeds": (0, 1),
         "fraction_seeds": (0, 1), "fractions": (0.1,), "table2_seeds": (0, 1),
         "protocol": {**PROTOCOL, "max_epochs": 3, "hard_cap": 3, "min_updates": 0}}


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
        ours = json.loads(json.dumps(self.header))  # as the file holds it: tuples are lists
        try:
            stored = json.loads(line)["header"]
            differ = sorted(k for k in {*stored, *ours} if stored.get(k) != ours.get(k))
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


def quality_id(name: str, elmo) -> str:
    """How a quality biLM's runs are named: ``name@`` the first 12 hex digits of the sha256 of
    its architecture and weights (a name alone could be reused by another training)."""
    return f"{name}@{model_checksum(elmo)[:12]}"


def run_store_key(model, corpus: str, quick: bool,
                  tasks: Sequence[str] = tuple(TASKS)) -> tuple[dict, str]:
    """What a runs file belongs to: its header (everything a run's result depends on: the
    biLM's architecture and weights, the static vectors' recipe, each task's data, the
    protocol, the subsets), and its file name in the cache,
    ``{biLM's sha256[:16]}-{the header's sha256[:12]}-{quick|full}.jsonl``."""
    setting = QUICK if quick else FULL
    header = {"model": model_checksum(model), "corpus": corpus,
              "static_vectors": word_vectors_recipe(corpus), "quick": quick,
              "protocol": setting["protocol"], "sample": setting["sample"],
              "max_sentences": setting["max_sentences"],
              "task_data": {t: task_data_checksum(read_task(t)) for t in sorted(set(tasks))}}
    setup = hashlib.sha256(json.dumps(header, sort_keys=True).encode()).hexdigest()[:12]
    return header, f"{header['model'][:16]}-{setup}-{'quick' if quick else 'full'}.jsonl"


def open_run_store(model, corpus: str, quick: bool, path: str | Path | None = None,
                   tasks: Sequence[str] = tuple(TASKS)) -> RunStore:
    """The runs file of ``model`` in the full or ``quick`` setting (``path``, or the cache's
    file named by :func:`run_store_key`), its runs read back; a file of another setup is
    refused (:class:`StoreMismatch`)."""
    header, name = run_store_key(model, corpus, quick, tasks)
    return RunStore(path or cache_dir() / "task_runs" / name, header)
