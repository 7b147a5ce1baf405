"""The task report's pool (``elmo_tutorial.tasks.report.run``): no more workers than cores,
whatever is asked (``task_report(workers=200)`` from Python, where no option checks it), and
workers that get their state when they start and leave stop signals to the report."""

import os

from elmo_tutorial.tasks import report
from elmo_tutorial.tasks.runs import Job, RunStore


class PoolSpy:
    """A pool that records how it was made and runs the jobs here, one after the other."""

    made: list = []

    def __init__(self, processes, initializer=None, initargs=()):
        PoolSpy.made.append((processes, initializer, initargs))
        initializer(*initargs)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def imap_unordered(self, function, jobs):
        return map(function, jobs)


def test_a_pool_never_has_more_workers_than_cores_or_jobs(monkeypatch):
    class Context:
        Pool = PoolSpy

    seen = []
    monkeypatch.setattr(report.multiprocessing, "get_context", lambda method: Context)
    monkeypatch.setattr(report, "pool_worker_start", lambda parent: None)
    monkeypatch.setattr(report, "_train", lambda job, *state: (seen.append(state), (job, {}))[1])
    monkeypatch.setattr(report, "available_cores", lambda: 3)
    state = ("splits", "vectors", "protocol")
    PoolSpy.made = []
    store = RunStore(None)
    report.run([Job("sst5", "baseline", seed) for seed in range(10)], store, state, 200)
    assert len(store) == 10 and seen == [state] * 10  # each run read the state it was given
    assert PoolSpy.made == [(3, report._start_worker, (os.getpid(), state))]
    PoolSpy.made = []
    report.run([Job("ner", "elmo", seed) for seed in range(2)], RunStore(None), state, 200)
    assert PoolSpy.made[0][0] == 2  # two jobs: two workers, not three
    PoolSpy.made = []
    report.run([Job("ner", "elmo", 9)], RunStore(None), state, 200)
    assert PoolSpy.made == []  # one job runs here, without a pool
