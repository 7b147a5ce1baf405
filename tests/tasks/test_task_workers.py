"""The task report's workers (``elmo_tutorial.tasks.report.run``): no more than cores or jobs,
whatever is asked (``task_report(workers=200)`` from Python, where no option checks it), each
given its state as an argument, and an error in a worker raised in the report."""

import os

import pytest

from elmo_tutorial.tasks import report
from elmo_tutorial.tasks.runs import Job, RunStore

STATE = ("splits", "vectors", "protocol")


def _fake_train(job, *state):
    if job.seed == 99:
        raise ValueError("a run failed")
    return job, {"state": list(state), "pid": os.getpid()}


def test_workers_get_their_state_and_never_outnumber_cores_or_jobs(monkeypatch):
    monkeypatch.setattr(report, "_train", _fake_train)  # the forked workers inherit it
    monkeypatch.setattr(report, "available_cores", lambda: 3)
    store = RunStore(None)
    report.run([Job("a_task", "baseline", seed) for seed in range(10)], store, STATE, 200)
    results = [result for _, result in store.items()]
    assert len(results) == 10 and all(r["state"] == list(STATE) for r in results)
    pids = {r["pid"] for r in results}
    assert os.getpid() not in pids and len(pids) <= 3
    one = RunStore(None)
    report.run([Job("a_task", "elmo", 9)], one, STATE, 200)  # one job runs here, no worker
    assert one[Job("a_task", "elmo", 9)]["pid"] == os.getpid()


def test_an_error_in_a_worker_is_raised_in_the_report(monkeypatch):
    monkeypatch.setattr(report, "_train", _fake_train)
    with pytest.raises(ValueError, match="a run failed"):
        report.run([Job("a_task", "elmo", s) for s in (0, 99)], RunStore(None), STATE, 2)
