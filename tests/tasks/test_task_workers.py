"""The task report's pool (``elmo_tutorial.tasks.report._run``): no more workers than cores,
whatever is asked (``task_report(workers=200)`` from Python, where no option checks it), and
workers that leave stop signals to the report and end with it."""

import os

from elmo_tutorial.tasks import report
from elmo_tutorial.tasks.runs import Job, RunStore
from elmo_tutorial.training.workers import pool_worker_start


class PoolSpy:
    """A pool that records how it was made and runs the jobs here, one after the other."""

    made: list = []

    def __init__(self, processes, initializer=None, initargs=()):
        PoolSpy.made.append((processes, initializer, initargs))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def imap_unordered(self, function, jobs):
        return map(function, jobs)


def test_a_pool_never_has_more_workers_than_cores_or_jobs(monkeypatch):
    class Context:
        Pool = PoolSpy

    monkeypatch.setattr(report.multiprocessing, "get_context", lambda method: Context)
    monkeypatch.setattr(report, "_job", lambda job: (job, {"score": 1.0}))
    monkeypatch.setattr(report, "available_cores", lambda: 3)
    PoolSpy.made = []
    store = RunStore(None)
    report._run([Job("sst5", "baseline", seed) for seed in range(10)], store, 200, False)
    assert len(store) == 10
    assert PoolSpy.made == [(3, pool_worker_start, (os.getpid(),))]
    PoolSpy.made = []
    report._run([Job("ner", "elmo", seed) for seed in range(2)], RunStore(None), 200, False)
    assert PoolSpy.made[0][0] == 2  # two jobs: two workers, not three
    PoolSpy.made = []
    report._run([Job("ner", "elmo", 9)], RunStore(None), 200, False)
    assert PoolSpy.made == []  # one job runs here, without a pool
