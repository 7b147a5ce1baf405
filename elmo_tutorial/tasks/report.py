"""What ELMo adds to a task model, for any biLM: the paper's Tables 1-3 and Figures 1-2, and more.

:func:`task_report` **plans** the runs (:func:`plan`), **runs** those the runs file lacks
(:func:`run`: ``workers`` at a time, one thread each, each kept as it finishes, so that an
interrupted report resumes) and **summarises** them (:func:`summarise`) into a
:class:`~elmo_tutorial.tasks.results.TaskReport`. Every arm trains under one protocol
(:data:`~elmo_tutorial.tasks.training.PROTOCOL`), on the same seeds. In order:

1. **Where ELMo goes in a tagger** (Table 3, on the layer-study task's sample): the place with
   the best mean *dev* score is every tagger's from then on; a sentence classifier gets ELMo at
   its input (the reference SST-5 setup).
2. **Table 1**, on the full training sets: the baseline, + the biLM's layer 0 alone (its
   context-free half), + ELMo; beside SST-5 a bag-of-words regression and the majority class.
3. **Table 2** (the same sample): the top layer alone, λ = 1, layer 0 alone.
4. **Figure 1**: the three arms on 1 % and 10 % of the ``figure1`` tasks' training sets.
5. **The biLM's quality**: the gain of + ELMo against each ``quality`` biLM's perplexity.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import time
from collections.abc import Sequence

import numpy as np

from elmo_tutorial.analyses.embedder import Embedder
from elmo_tutorial.analyses.paired import PairedDifference, paired_runs
from elmo_tutorial.runtime import available_cores, progress_bar
from elmo_tutorial.tasks import results
from elmo_tutorial.tasks.bag_of_words import bag_of_words_baseline, majority_rate
from elmo_tutorial.tasks.registry import PAPER, TASKS, read_task
from elmo_tutorial.tasks.runs import FULL, QUICK, Job, RunStore, quality_id
from elmo_tutorial.tasks.training import (
    CHAR_FILTERS,
    PROTOCOL,
    VARIANTS,
    prepare_task,
    run_variant,
    training_subset,
)
from elmo_tutorial.tasks.vectors import word_vectors
from elmo_tutorial.training.workers import pool_worker_start

__all__ = ["paired", "plan", "run", "summarise", "task_report", "train_arms"]

PLACES = ("input", "input_output", "output")  # Table 3's variants: where ELMo goes
TAGGER_PLACES = ("input", "input_output")  # the candidates of step 1 ("output" is shown too)


def _where(variant: str, places: Sequence[str]) -> tuple[str, ...]:
    """A run's places: none for the baseline (so that its runs do not depend on them)."""
    return () if variant == "baseline" else tuple(places)


def _study(tasks: Sequence[str]) -> str | None:
    """The task of Tables 2-3 among ``tasks`` (None: those tables are not run)."""
    return next((t for t in tasks if TASKS[t].layer_study), None)


def place_jobs(study: str, setting: dict) -> list[Job]:
    """Step 1: ELMo at each place of Table 3, on the layer-study task's sample."""
    return [Job(study, v, s, places=VARIANTS[v][0], sample=setting["sample"])
            for v in PLACES for s in setting["seeds"]]


def plan(tasks: Sequence[str], setting: dict, places: dict[str, tuple[str, ...]],
         bilms: Sequence[str] = ()) -> list[Job]:
    """Every run of steps 2-5 (module docstring), the longest first (the full sets, the
    registry's costliest tasks), so that the workers finish together."""
    seeds, sample, study = setting["seeds"], setting["sample"], _study(tasks)
    jobs = [Job(t, v, s, places=_where(v, places[t]))
            for t in tasks for v in TASKS[t].arms for s in seeds]
    if study:  # Table 2; its "elmo" arm is Table 3's run at the chosen place
        jobs += [Job(study, "baseline", s, places=(), sample=sample) for s in seeds]
        jobs += [Job(study, v, s, places=tuple(places[study]), sample=sample)
                 for v in setting["table2_variants"] for s in setting["table2_seeds"]]
    jobs += [Job(t, "elmo", s, places=places[t], sample=sample if t == study else None, bilm=b)
             for b in bilms for t in tasks if TASKS[t].quality for s in seeds]
    jobs += [Job(t, v, s, fraction=f, places=_where(v, places[t]))
             for t in tasks if TASKS[t].figure1 for f in setting["fractions"]
             for v in setting["fraction_variants"] for s in setting["fraction_seeds"]]
    return sorted(jobs, key=lambda j: (j.fraction < 1, j.sample is not None,
                                       -TASKS[j.task].minutes))


def _train(job: Job, splits: dict, vectors, protocol: dict) -> tuple[Job, dict]:
    """One run: ``splits[(biLM, task, sample)]`` are its data."""
    import torch

    torch.set_num_threads(1)  # small matrices: one thread per run, runs side by side
    started = time.perf_counter()
    result = run_variant(splits[(job.bilm, job.task, job.sample)], vectors, job.variant,
                         job.seed, job.fraction, places=job.places, protocol=protocol)
    result["seconds"] = time.perf_counter() - started
    return job, result


def _worker(parent: int, state: tuple, jobs, results) -> None:
    """A forked worker: trains each job it is handed on ``state`` (an argument: the fork
    shares it without copying) until it is handed None; an error goes back as the result."""
    pool_worker_start(parent)  # Ctrl-C is the parent's; the worker ends with it
    for job in iter(jobs.get, None):
        try:
            results.put(_train(job, *state))
        except Exception as error:  # raised again in the parent
            results.put((job, error))


def run(jobs: Sequence[Job], store: RunStore, state: tuple, workers: int,
        progress: bool = False) -> None:
    """Train the jobs ``store`` does not hold yet, ``workers`` at a time, storing each result
    as it finishes. Forked workers get ``state`` (``(splits, vectors, protocol)``) as their
    arguments, without copying it."""
    todo = [job for job in dict.fromkeys(jobs) if job not in store]
    bar = progress_bar(progress, total=len(todo), desc="training task models", unit="run")
    workers = min(workers, available_cores(), len(todo))  # a run more than cores only waits
    if workers > 1 and "fork" in multiprocessing.get_all_start_methods():
        fork = multiprocessing.get_context("fork")
        queue, results = fork.SimpleQueue(), fork.SimpleQueue()
        pool = [fork.Process(target=_worker, args=(os.getpid(), state, queue, results))
                for _ in range(workers)]
        for worker in pool:
            worker.start()
        try:
            for job in [*todo, *[None] * workers]:
                queue.put(job)
            for _ in todo:
                job, result = results.get()
                if isinstance(result, Exception):
                    raise result
                store.add(job, result)
                bar.update()
        finally:  # also on Ctrl-C or an error: no worker outlives the report
            for worker in pool:
                worker.terminate()
                worker.join()
    else:
        for job in todo:
            store.add(*_train(job, *state))
            bar.update()
    bar.close()


def train_arms(splits: dict, vectors, arms: Sequence[str], seeds: Sequence[int],
               places: Sequence[str] = ("input",), protocol: dict | None = None,
               workers: int = 2) -> dict[str, list[dict]]:
    """Train each variant in ``arms`` on each seed of one task's ``splits``, ``workers`` runs at
    a time on one thread each, as the report does: ``{arm: [run_variant's result per seed]}``.
    (Every run seeds its own weights, dropout and batch order: no worker changes a result.)"""
    jobs = {(arm, seed): Job("task", arm, seed, places=_where(arm, places))
            for arm in arms for seed in seeds}
    store = RunStore(None)
    run(list(jobs.values()), store, ({("main", "task", None): splits}, vectors,
                                     {**PROTOCOL, **(protocol or {})}), workers)
    return {arm: [store[jobs[(arm, seed)]] for seed in seeds] for arm in arms}


def task_report(model, *, corpus: str = "english_mix", tasks: Sequence[str] = tuple(TASKS),
                quick: bool = False, workers: int = 2, progress: bool = True, name: str = "",
                store: RunStore | None = None, quality: dict | None = None,
                perplexity: float | None = None) -> results.TaskReport:
    """Train and score every experiment on ``model`` (an ``ELMo``; see the module docstring).

    Args:
        corpus: the biLM's training text, for the baseline's static vectors.
        tasks: the registry's tasks; Tables 2-3 need the layer-study task.
        quick: the subsets of :data:`QUICK` (a smoke test; marked in the result).
        store: where finished runs are kept (default: in memory only;
            :func:`~elmo_tutorial.tasks.runs.open_run_store` opens a file to resume from).
        quality: ``{name: (ELMo, held-out perplexity)}``: more biLMs for the quality figure.
        perplexity: ``model``'s own held-out perplexity, measured as the quality biLMs' are.
    """
    started = time.perf_counter()
    setting = QUICK if quick else FULL
    store = store if store is not None else RunStore(None)
    resumed = len(store)  # runs an earlier, interrupted invocation kept
    ids = {b: quality_id(b, m) for b, (m, _) in (quality or {}).items()}
    quality = {ids[b]: entry for b, entry in (quality or {}).items()}
    study = _study(tasks)
    models = {"main": model, **{b: m for b, (m, _) in quality.items()}}
    splits, vectors = {}, None  # (biLM, task, sample) → {split: TaskSplit}; (table, index)

    def prepared(jobs: list[Job]) -> tuple:
        """The state of :func:`run`: only the data of runs the store lacks is embedded."""
        nonlocal vectors
        todo = dict.fromkeys((j.bilm, j.task, j.sample) for j in jobs if j not in store)
        if not todo:
            return ()
        vectors = vectors or word_vectors(corpus)
        for bilm, t, sample in todo:
            if (bilm, t, sample) not in splits:
                splits[(bilm, t, sample)] = prepare_task(
                    t, Embedder(models[bilm]), vectors[1], setting["max_sentences"],
                    {"train": sample} if sample else None, progress)
        return splits, vectors[0], setting["protocol"]

    places = {t: ("input",) for t in tasks}  # a classifier's ELMo goes at its input
    dev = {}
    if study:  # step 1, beside every run that does not depend on its answer
        step1 = place_jobs(study, setting)
        jobs = [j for j in plan(tasks, setting, places, list(quality))
                if j.variant == "baseline" or not TASKS[j.task].tagging] + step1
        run(jobs, store, prepared(jobs), workers, progress)
        dev = {v: sum(store[j]["valid"] for j in step1 if j.variant == v) / len(setting["seeds"])
               for v in TAGGER_PLACES}
        best = max(TAGGER_PLACES, key=lambda v: dev[v])
        places.update({t: VARIANTS[best][0] for t in tasks if TASKS[t].tagging})
    jobs = plan(tasks, setting, places, list(quality))
    run(jobs, store, prepared(jobs), workers, progress)
    facts = {"places": places, "place_dev": dev, "sizes": {}, "majority": {}, "bag_of_words": {},
             "perplexity": {"main": perplexity, **{b: p for b, (_, p) in quality.items()}},
             "names": {i: b for b, i in ids.items()}}
    for t in tasks:
        data = {k: v[:setting["max_sentences"]] for k, v in read_task(t).items()}
        facts["sizes"][t] = {k: len(v) for k, v in data.items()}
        if TASKS[t].floors:
            facts["majority"][t] = majority_rate([label for _, label in data["test"]])
            facts["bag_of_words"][t] = bag_of_words_baseline(data["train"], data["valid"],
                                                             data["test"])
    return summarise(store, tasks, setting, facts, model=name, quick=quick, corpus=corpus,
                     resumed_runs=resumed, wall_seconds=time.perf_counter() - started)


def paired(runs_a: Sequence[dict], runs_b: Sequence[dict]) -> PairedDifference:
    """:func:`~elmo_tutorial.analyses.paired.paired_runs` of two arms' stored runs (same seeds,
    same order), ``b − a``: with the test sample's share of chance when every run kept its
    sentences' counts, over the seeds alone otherwise."""
    counted = all("test_counts" in r for r in (*runs_a, *runs_b))
    counts = [[r["test_counts"] for r in runs] if counted else None for runs in (runs_a, runs_b)]
    return paired_runs([r["score"] for r in runs_a], [r["score"] for r in runs_b], *counts)


def _spreads(found: dict[str, list[dict]]) -> dict[str, results.Spread]:
    """Each arm's test scores over seeds."""
    return {v: results.Spread.of([r["score"] for r in runs]) for v, runs in found.items()}


def _comparisons(found: dict[str, list[dict]]) -> tuple:
    """+ ELMo − baseline, + layer 0 − baseline, + ELMo − (+ layer 0) (None: no layer 0)."""
    if "layer0" not in found:
        return paired(found["baseline"], found["elmo"]), None, None
    return (paired(found["baseline"], found["elmo"]), paired(found["baseline"], found["layer0"]),
            paired(found["layer0"], found["elmo"]))


def _fraction_point(fraction: float, sentences: int, found: dict[str, list[dict]]
                    ) -> results.FractionPoint:
    table, (elmo, layer0, context) = _spreads(found), _comparisons(found)
    return results.FractionPoint(fraction, sentences, table["baseline"], table["elmo"], elmo,
                         layer0=table.get("layer0"), layer0_difference=layer0,
                         context_difference=context)


def summarise(store: RunStore, tasks: Sequence[str], setting: dict, facts: dict,
              **about) -> results.TaskReport:
    """The report from ``store``, every run of :func:`plan` in ``setting`` (:data:`FULL` or
    :data:`QUICK`): each arm a :class:`~elmo_tutorial.tasks.results.Spread` over seeds, each
    comparison a paired difference of two arms over the same seeds, in points.

    ``facts`` are what the runs do not hold: ``places`` and ``place_dev`` (step 1's choice),
    ``sizes`` of each task's splits, ``perplexity`` and ``names`` of the quality biLMs, the
    ``majority`` rate and ``bag_of_words`` result of the tasks with floors; ``about``: the
    TaskReport's ``model``, ``quick``, ``corpus``, ... fields.
    """
    places, sample, seeds = facts["places"], setting["sample"], setting["seeds"]
    study = _study(tasks)

    def runs(task, variant, fraction=1.0, sample=None, bilm="main", where=None, on=seeds):
        where = () if variant == "baseline" else tuple(where or places[task])
        if sample is not None and variant == "elmo" and bilm == "main":  # Table 3's run
            variant = next(v for v in PLACES if VARIANTS[v][0] == where)
        return [store[Job(task, variant, s, fraction, where, sample, bilm)] for s in on]

    def arms(task, names, **kw) -> dict[str, list[dict]]:
        return {v: runs(task, v, **kw) for v in names}

    rows, sample_efficiency, weights, best_vs_test = {}, {}, {}, {}
    for t in tasks:
        found = arms(t, TASKS[t].arms)
        table = _spreads(found)
        base, elmo = table["baseline"].mean, table["elmo"].mean
        rows[t] = row = results.TaskRow(
            metric=TASKS[t].metric, sizes=facts["sizes"][t], arms=table,
            error_reduction=100.0 * (elmo - base) / (100.0 - base),
            differences=results.Table1Differences(*_comparisons(found)),
            curves={v: [r["curve"] for r in found[v]] for v in table},
            epochs_per_round=found["elmo"][0]["epochs_per_round"],
            bag_of_words=results.BagOfWords.from_dict(facts["bag_of_words"][t])
            if t in facts["bag_of_words"] else None,
            majority=facts["majority"].get(t))
        weights[t] = {p: np.mean([r["weights"][p] for r in found["elmo"]], axis=0).tolist()
                      for p in places[t]}
        for v, found_v in found.items():  # does an early stop predict a lower test score?
            epochs = [r["best_epoch"] * r["epochs_per_round"] for r in found_v]
            scores = [r["score"] for r in found_v]
            if len(set(epochs)) > 1 and len(set(scores)) > 1:
                best_vs_test.setdefault(t, {})[v] = float(np.corrcoef(epochs, scores)[0, 1])
        if TASKS[t].figure1:
            n_train = row.sizes["train"]
            sample_efficiency[t] = [
                *(_fraction_point(f, len(training_subset(n_train, f, 0)),
                                  arms(t, setting["fraction_variants"], fraction=f,
                                       on=setting["fraction_seeds"]))
                  for f in setting["fractions"]),
                _fraction_point(1.0, n_train, found)]
    table2 = table3 = None
    if study:
        variants, on = setting["table2_variants"], setting["table2_seeds"]
        t2 = arms(study, ("baseline", "elmo", *variants), on=on, sample=sample)
        table2 = results.VariantTable(study, sample, list(on), _spreads(t2),
                              {v: paired(t2["elmo"], t2[v]) for v in variants})
        t3 = {v: runs(study, v, where=VARIANTS[v][0], sample=sample) for v in PLACES}
        table3 = results.VariantTable(study, sample, list(seeds), _spreads(t3),
                              {v: paired(t3["input"], t3[v]) for v in PLACES[1:]})
    quality = []
    for bilm, perplexity in {"main": None, **facts["perplexity"]}.items():  # "main" first
        gains = {}
        for t in (t for t in tasks if TASKS[t].quality):
            on_sample = sample if t == study else None
            if bilm == "main" or all(Job(t, "elmo", s, 1.0, tuple(places[t]), on_sample, bilm)
                                     in store for s in seeds):
                gains[t] = paired(runs(t, "baseline", sample=on_sample),
                                  runs(t, "elmo", sample=on_sample, bilm=bilm))
        if gains:
            name = facts.get("names", {}).get(bilm, bilm)
            quality.append(results.QualityPoint(name, perplexity, gains))
    everything = list(store.items())
    convergence = results.Convergence(
        runs=len(everything),
        at_cap=sum(r["stopped"] == "cap" for _, r in everything),
        extended=sum(r["cap"] > setting["protocol"]["max_epochs"] for _, r in everything),
        # passes begun: a phrase run's epoch is half a pass (PROTOCOL's max_round_updates)
        longest=max(math.ceil(r["last_epoch"] * r["epochs_per_round"]) for _, r in everything),
        best_epoch_vs_test=best_vs_test)
    kept = [results.RunRecord(j, results.RunResult.from_dict(  # the counts stay in the file
        {k: v for k, v in r.items() if k != "test_counts"}, f"runs[{i}].result"))
        for i, (j, r) in enumerate(everything)]
    return results.TaskReport(
        seeds=list(seeds), fraction_seeds=list(setting["fraction_seeds"]),
        protocol=results.Protocol.from_dict(setting["protocol"], "protocol"), sample=sample,
        fractions=list(setting["fractions"]), char_filters=CHAR_FILTERS,
        places={t: list(p) for t, p in places.items()}, place_dev=facts["place_dev"],
        tasks=rows, sample_efficiency=sample_efficiency, weights=weights,
        paper=PAPER, table2=table2, table3=table3,
        quality=quality, convergence=convergence, runs=kept, **about)
