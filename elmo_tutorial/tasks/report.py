"""What ELMo adds to a task model, for any biLM: the paper's Tables 1-3 and Figures 1-2, and more.

:func:`task_report` trains every arm of :mod:`elmo_tutorial.tasks.experiments` under one
protocol (:data:`~elmo_tutorial.tasks.experiments.PROTOCOL`: to convergence on dev, the same
seeds for every arm), one CPU thread per run, ``workers`` runs at a time, and keeps each
finished run in a :class:`~elmo_tutorial.tasks.runs.RunStore` so that an interrupted report
continues where it stopped. In order:

1. **Where ELMo goes in a tagger** (Table 3, on chunking's training sample): input only, input
   and output, output only; the place with the best mean *dev* score is used by both taggers
   from then on. A sentence classifier gets ELMo at its input (the reference SST-5 setup).
2. **Table 1**, on the full training sets: the baseline (static vectors and a character CNN),
   + the biLM's layer 0 alone (its context-free half), + ELMo; for SST-5 also a bag-of-words
   logistic regression and the majority class, and SST-5 trained on every labelled phrase
   (baseline and + ELMo).
3. **Table 2** (chunking's sample): the top layer alone, λ = 1, layer 0 alone.
4. **Figure 1**: the three arms on 1 % and 10 % of chunking's and NER's training sets (another
   part per seed).
5. **The biLM's quality** (optional ``quality`` biLMs of the same corpus, e.g. one
   architecture trained for more and fewer steps): the gain of + ELMo over the baseline,
   against each biLM's held-out perplexity (:mod:`elmo_tutorial.tasks.quality`).

Every run keeps, per test sentence, what its score is made of, so that each paired
difference's interval covers the test sample as well as the seeds
(:mod:`elmo_tutorial.analyses.bootstrap`).

:func:`~elmo_tutorial.tasks.summary.summarise` turns the runs into the
:class:`~elmo_tutorial.tasks.results.TaskReport` that
:mod:`elmo_tutorial.tasks.report_markdown` writes as markdown and figures.
:func:`open_run_store` opens the runs file of a biLM and setting (:func:`run_store_key`
names it), so that the ``tasks`` command started again resumes.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import multiprocessing
import os
import time
from collections.abc import Sequence
from pathlib import Path

from elmo_tutorial.analyses.embedder import Embedder
from elmo_tutorial.analyses.embedding_cache import model_checksum
from elmo_tutorial.data.downloads import cache_dir
from elmo_tutorial.runtime import available_cores, progress_bar
from elmo_tutorial.tasks.bag_of_words import bag_of_words_baseline
from elmo_tutorial.tasks.experiments import (
    ARMS,
    CLASSIFICATION,
    FRACTION_TASKS,
    PROTOCOL,
    TABLE1_ARMS,
    TASKS,
    majority_rate,
    prepare_task,
    read_task,
    run_variant,
    word_vectors,
    word_vectors_recipe,
)
from elmo_tutorial.tasks.results import TaskReport
from elmo_tutorial.tasks.runs import Job, RunStore, task_data_checksum
from elmo_tutorial.tasks.summary import PAPER, summarise
from elmo_tutorial.training.workers import pool_worker_start

__all__ = ["FULL", "PAPER", "QUICK", "jobs_for", "open_run_store", "quality_id", "run_store_key",
           "task_report", "train_arms"]

# The full report, five seeds wherever it gives a verdict: Table 1 on the full training sets;
# Tables 2 and 3 and the quality figure's chunking on a fixed random sample of 500 training
# sentences (the same for every arm and seed); Figure 1 with 1 % and 10 % of each training set
# (another part per seed), its three arms as Table 1's.
FULL = {"max_sentences": None, "sample": 500, "seeds": (0, 1, 2, 3, 4),
        "fraction_seeds": (0, 1, 2, 3, 4), "fractions": (0.01, 0.1),
        "fraction_variants": ("baseline", "layer0", "elmo"), "table2_seeds": (0, 1, 2, 3, 4),
        "table2_variants": ("top", "lambda1", "layer0"), "protocol": {}}
# A smoke test: 200 sentences per split, two seeds, three epochs at most (runs end at the cap:
# not converged, not comparable with anything).
QUICK = {"max_sentences": 200, "sample": None, "seeds": (0, 1), "fraction_seeds": (0, 1),
         "fractions": (0.1,), "fraction_variants": ("baseline", "layer0", "elmo"),
         "table2_seeds": (0, 1), "table2_variants": ("top", "lambda1", "layer0"),
         "protocol": {"max_epochs": 3, "hard_cap": 3, "min_updates": 0}}
TAGGER_PLACES = ("input", "input_output")  # the candidates of step 1 ("output" is shown too)
SAMPLED = "chunking"  # the task of Tables 2-3 and of the quality figure's sample

_STATE: dict = {}  # what the worker processes read (set before they fork)


def _job(job: Job) -> tuple[Job, dict]:
    import torch

    torch.set_num_threads(1)  # small matrices: one thread per run, runs side by side
    started = time.perf_counter()
    splits = _STATE["splits"][(job.bilm, job.task, job.sample)]
    result = run_variant(splits, _STATE["vectors"], job.variant, job.seed, job.fraction,
                         places=job.places, protocol=_STATE["protocol"])
    result["seconds"] = time.perf_counter() - started
    return job, result


def _run(jobs: Sequence[Job], store: RunStore, workers: int, progress: bool) -> None:
    """Run the jobs the store does not hold yet; each result is stored as it finishes."""
    todo = [job for job in dict.fromkeys(jobs) if job not in store]
    bar = progress_bar(progress, total=len(todo), desc="training task models", unit="run")
    workers = min(workers, available_cores(), len(todo))  # a run more than cores only waits
    if workers > 1 and "fork" in multiprocessing.get_all_start_methods():
        # The workers leave Ctrl-C to this process, whose pool's exit ends them, and end
        # with it if it is killed outright (training.workers.pool_worker_start)
        with multiprocessing.get_context("fork").Pool(
                workers, initializer=pool_worker_start, initargs=(os.getpid(),)) as pool:
            for job, result in pool.imap_unordered(_job, todo):
                store.add(job, result)
                bar.update()
    else:
        for job in todo:
            store.add(*_job(job))
            bar.update()
    bar.close()


def train_arms(splits: dict, vectors, arms: Sequence[str], seeds: Sequence[int],
               places: Sequence[str] = ("input",), protocol: dict | None = None,
               workers: int = 2) -> dict[str, list[dict]]:
    """Train each variant in ``arms`` on each seed of one task's ``splits``, ``workers`` runs at
    a time on one thread each (as the report does); ``{arm: [run_variant's result per seed]}``.

    A run's result does not depend on the worker that trained it: every run seeds its own
    weights, dropout and batch order.
    """
    _STATE.update(splits={("main", "task", None): splits}, vectors=vectors,
                  protocol={**PROTOCOL, **(protocol or {})})
    jobs = {(arm, seed): Job("task", arm, seed, places=_where(arm, places))
            for arm in arms for seed in seeds}
    store = RunStore(None)
    _run(list(jobs.values()), store, workers, progress=False)
    return {arm: [store[jobs[(arm, seed)]] for seed in seeds] for arm in arms}


def jobs_for(step: str, tasks: Sequence[str], seeds: Sequence[int], setting: dict,
             places: dict[str, tuple[str, ...]], quality: Sequence[str] = ()) -> list[Job]:
    """The runs of one step of the report (see the module docstring)."""
    sample = setting["sample"]
    if step == "places":
        return [Job(SAMPLED, v, s, places=tuple(VARIANT_PLACES[v]), sample=sample)
                for v in ("input", "input_output", "output") for s in seeds]
    if step == "table1":
        return [Job(t, v, s, places=_where(v, places[t])) for t in tasks
                for v in TABLE1_ARMS.get(t, ARMS) for s in seeds]
    if step in ("places", "table2") and SAMPLED not in tasks:
        return []  # Tables 2 and 3 are run on chunking's sample, and only with chunking
    if step == "table2":  # its "elmo" arm is Table 3's run at the chosen place
        return [Job(SAMPLED, "baseline", s, places=(), sample=sample) for s in seeds] + [
            Job(SAMPLED, v, s, places=tuple(places[SAMPLED]), sample=sample)
            for v in setting["table2_variants"] for s in setting["table2_seeds"]]
    if step == "fractions":
        return [Job(t, v, s, fraction=f, places=_where(v, places[t]))
                for t in tasks if t in FRACTION_TASKS for f in setting["fractions"]
                for v in setting["fraction_variants"] for s in setting["fraction_seeds"]]
    if step == "quality":
        return [Job(t, "elmo", s, places=places[t], sample=sample if t == SAMPLED else None,
                    bilm=b) for b in quality for t in ("chunking", "ner") if t in tasks
                for s in seeds]
    raise ValueError(f"unknown step {step!r}")


VARIANT_PLACES = {"input": ("input",), "input_output": ("input", "output"),
                  "output": ("output",)}


def _where(variant: str, places: tuple[str, ...]) -> tuple[str, ...]:
    """A run's places: none for the baseline (so that its runs do not depend on them)."""
    return () if variant == "baseline" else tuple(places)


def task_report(model, *, corpus: str = "english_mix", tasks: Sequence[str] = TASKS,
                quick: bool = False, workers: int = 2, progress: bool = True, name: str = "",
                store: RunStore | None = None, quality: dict | None = None,
                perplexity: float | None = None) -> TaskReport:
    """Train and score every experiment on ``model`` (see the module docstring).

    Args:
        model: an ``ELMo`` (:func:`~elmo_tutorial.formats.allennlp_format.load_model`).
        corpus: the biLM's training text, for the baseline's static vectors.
        tasks: a subset of ``("sst5", "chunking", "ner")``; Tables 2-3 need chunking.
        quick: the subsets of :data:`QUICK` (a smoke test; marked in the result).
        workers: training runs at a time, one CPU thread each.
        store: where finished runs are kept (default: in memory only, no resuming;
            :func:`open_run_store` opens the file the ``tasks`` command resumes from).
        quality: ``{name: (ELMo, held-out perplexity)}``: more biLMs for the quality figure.
        perplexity: ``model``'s own held-out perplexity, measured as the quality biLMs' are
            (:mod:`elmo_tutorial.tasks.quality`); None if unknown.

    Returns:
        The :class:`~elmo_tutorial.tasks.results.TaskReport`, its ``model`` (``name``),
        ``quick``, ``corpus``, ``resumed_runs`` and ``wall_seconds`` set.
    """
    unknown = [t for t in tasks if t not in TASKS]
    if unknown or not tasks:
        raise ValueError(f"unknown task(s) {unknown}; choose from {', '.join(TASKS)}")
    started = time.perf_counter()
    setting = QUICK if quick else FULL
    protocol = {**PROTOCOL, **setting["protocol"]}
    store = store if store is not None else RunStore(None)
    resumed = len(store)  # runs an earlier, interrupted invocation kept
    # A quality biLM's runs are named by its weights too (its name alone could be reused by
    # another training): adding a biLM to the figure later resumes every other run.
    ids = {b: quality_id(b, m) for b, (m, _) in (quality or {}).items()}
    quality = {ids[b]: entry for b, entry in (quality or {}).items()}
    vectors, index = word_vectors(corpus)
    models = {"main": model, **{b: m for b, (m, _) in quality.items()}}
    splits = {}
    for bilm, elmo in models.items():
        embedder = Embedder(elmo)
        for t in tasks:
            samples = {None, setting["sample"]} if t == SAMPLED else {None}
            if bilm != "main":  # the quality figure: chunking's sample, NER's whole set
                samples = {setting["sample"]} if t == SAMPLED else {None}
                if t in CLASSIFICATION:
                    continue
            for sample in samples:
                splits[(bilm, t, sample)] = prepare_task(t, embedder, index,
                                                         setting["max_sentences"], sample,
                                                         progress)
    _STATE.update(splits=splits, vectors=vectors, protocol=protocol)
    seeds = setting["seeds"]
    tagging = [t for t in tasks if t not in CLASSIFICATION]
    places = {t: ("input",) for t in tasks}  # a classifier's ELMo goes at its input

    def planned() -> list[Job]:
        jobs = [j for step in ("table1", "table2", "quality", "fractions")
                for j in jobs_for(step, tasks, seeds, setting, places, list(quality))]
        # The longest runs first (SST-5's phrases, the full chunking set, then SST-5 ...), the
        # short ones last: two workers then finish at about the same time.
        cost = {"sst5_phrases": 0, "chunking": 1, "sst5": 2, "ner": 3}
        return sorted(jobs, key=lambda j: (j.fraction < 1, j.sample is not None, cost[j.task]))

    if SAMPLED in tasks:  # step 1, beside every run that does not depend on its answer
        step1 = jobs_for("places", tasks, seeds, setting, places)
        free = [j for j in planned() if j.variant == "baseline" or j.task in CLASSIFICATION]
        _run(free + step1, store, workers, progress)
        dev = {v: sum(store[j]["valid"] for j in step1 if j.variant == v) / len(seeds)
               for v in TAGGER_PLACES}
        chosen = VARIANT_PLACES[max(TAGGER_PLACES, key=lambda v: dev[v])]
    else:  # no chunking, no Table 3: the paper's tagging setup, ELMo at the input
        dev, chosen = {}, ("input",)
    places.update({t: chosen for t in tagging})
    jobs = planned()
    _run(jobs, store, workers, progress)
    extras = {"majority": {t: majority_rate(splits[("main", t, None)]["test"])
                           for t in tasks if t == "sst5"},
              "sizes": {(b, t, s): {k: len(v) for k, v in sp.items()}
                        for (b, t, s), sp in splits.items()},
              "perplexity": {"main": perplexity, **{b: p for b, (_, p) in quality.items()}},
              "names": {i: b for b, i in ids.items()},
              "place_dev": dev, "places": places}
    if "sst5" in tasks:
        data = {k: v[:setting["max_sentences"]] for k, v in read_task("sst5").items()}
        extras["bag_of_words"] = bag_of_words_baseline(data["train"], data["valid"],
                                                       data["test"])
    result = summarise(store, tasks, seeds, setting, protocol, extras)
    return dataclasses.replace(result, model=name, quick=quick, corpus=corpus,
                               resumed_runs=resumed, wall_seconds=time.perf_counter() - started)


def quality_id(name: str, elmo) -> str:
    """How a quality biLM's runs are named: ``name@`` the first 12 hex digits of the sha256 of
    its architecture and weights."""
    return f"{name}@{model_checksum(elmo)[:12]}"


def run_store_key(model, corpus: str, quick: bool,
                  tasks: Sequence[str] = TASKS) -> tuple[dict, str]:
    """What a runs file belongs to: its header, and its file name in the cache.

    The header names everything a run's result depends on: the biLM (the sha256 of its
    architecture and weights), the corpus of the baseline's static vectors and their recipe
    (``word_vectors_recipe``: the sha256 of the text and the settings, so runs trained on the
    vectors of other text, e.g. other NLTK data, are not mixed with these; not the vectors'
    bytes, which differ in float rounding each time they are computed), the sha256 of each
    task's data (runs of data edited since are not read back as these), the protocol and the
    setting's subsets. The name is
    ``{biLM's sha256[:16]}-{the header's sha256[:12]}-{quick|full}.jsonl``.
    """
    setting = QUICK if quick else FULL
    header = {"model": model_checksum(model), "corpus": corpus,
              "static_vectors": word_vectors_recipe(corpus),
              "quick": quick, "protocol": {**PROTOCOL, **setting["protocol"]},
              "sample": setting["sample"], "max_sentences": setting["max_sentences"],
              "task_data": {t: task_data_checksum(read_task(t)) for t in sorted(set(tasks))}}
    setup = hashlib.sha256(json.dumps(header, sort_keys=True).encode()).hexdigest()[:12]
    return header, f"{header['model'][:16]}-{setup}-{'quick' if quick else 'full'}.jsonl"


def open_run_store(model, corpus: str, quick: bool, path: str | Path | None = None,
                   tasks: Sequence[str] = TASKS) -> RunStore:
    """The runs file of ``model`` under this setting: ``path``, or the cache's file named by
    :func:`run_store_key`; the runs it already holds are read back.

    Raises:
        StoreMismatch: ``path`` holds the runs of another biLM, protocol, corpus or task data.
    """
    header, name = run_store_key(model, corpus, quick, tasks)
    return RunStore(path or cache_dir() / "task_runs" / name, header)
