"""What ELMo adds to a task model, for any biLM: the paper's Tables 1-3 and Figures 1-2.

:func:`task_report` trains the baseline and the ELMo variants of
:mod:`elmo_tutorial.task_experiments` on several seeds (one CPU thread per run, ``workers``
runs at a time) and collects::

    {"model": str, "quick": bool, "corpus": the static vectors' text, "seeds": [...],
     "epochs", "max_train", "char_filters": the width of the taggers' character features,
     "tasks": {TASK: {"metric", "sizes": {"train", "dev", "test"} (sentences),
                      "baseline": {"mean", "std", "runs"}, "elmo": {...},
                      "error_reduction": percent of the baseline's error removed,
                      "still_learning": {"baseline", "elmo": runs whose best dev epoch was
                                         the last allowed}}},
     "table2": {"task", "top", "lambda1", "elmo": {"mean", "std", "runs"}},
     "table3": {"task", "input", "elmo", "output": {...}},
     "sample_efficiency": {TASK: [{"fraction", "baseline", "elmo", "baseline_std",
                                   "elmo_std"}, ...]},
     "weights": {TASK: {"input": softmax(w) averaged over seeds, "output": ...}},
     "paper": PAPER}

:mod:`elmo_tutorial.task_markdown` writes it as markdown and figures.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Sequence

import numpy as np

from .task_experiments import (
    CHAR_FILTERS,
    METRICS,
    TASKS,
    prepare_task,
    run_variant,
    spread,
    word_vectors,
)

__all__ = ["FULL", "PAPER", "QUICK", "task_report"]

# Peters et al. (2018) Table 1 (SST-5 accuracy, CoNLL-2003 NER F1), Table 2 and Table 3 (SQuAD
# F1, SNLI accuracy, SRL F1); chunking: TagLM (Peters et al. 2017) on CoNLL-2000, F1.
PAPER = {
    "table1": {"sst5": {"baseline": 51.4, "elmo": 54.7}, "ner": {"baseline": 90.15, "elmo": 92.22},
               "chunking": {"baseline": 95.00, "elmo": 96.37}},
    "table2": {"squad": {"baseline": 80.8, "top": 84.7, "lambda1": 85.0, "elmo": 85.2},
               "snli": {"baseline": 88.1, "top": 89.1, "lambda1": 89.3, "elmo": 89.5},
               "srl": {"baseline": 81.6, "top": 84.1, "lambda1": 84.6, "elmo": 84.8}},
    "table3": {"squad": {"input": 85.1, "elmo": 85.6, "output": 84.8},
               "snli": {"input": 88.9, "elmo": 89.5, "output": 88.7},
               "srl": {"input": 84.7, "elmo": 84.3, "output": 80.9}},
}
# The full report: 2,000 training sentences per task (a fixed random sample: the whole report
# then fits in under 20 minutes on a 2-core CPU), whole dev and test sets, five epochs at most
# (the best dev epoch is kept). The paper's Figure 1 shows that ELMo's gain is largest with
# little training data, so this sample makes gains easier to see than the full sets would.
FULL = {"max_sentences": None, "max_train": 2000, "epochs": 5, "seeds": (0, 1, 2),
        "fractions": (0.01, 0.1)}
# A smoke test: 300 sentences per split, two epochs; not comparable with anything.
QUICK = {"max_sentences": 300, "max_train": None, "epochs": 2, "seeds": (0, 1, 2),
         "fractions": (0.1,)}

_STATE: dict = {}  # what the worker processes read (set before they fork)


def _job(job: tuple) -> tuple:
    import torch

    torch.set_num_threads(1)  # small matrices: one thread per run, runs side by side
    task, variant, seed, fraction = job
    result = run_variant(_STATE["splits"][task], _STATE["vectors"], variant, seed, fraction,
                         epochs=_STATE["epochs"])
    return job, result


def _run_all(jobs: Sequence[tuple], workers: int, progress: bool) -> dict:
    from tqdm.auto import tqdm

    bar = tqdm(total=len(jobs), desc="training task models", unit="run", disable=not progress)
    results = {}
    if workers > 1 and "fork" in multiprocessing.get_all_start_methods():
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            for job, result in pool.imap_unordered(_job, jobs):
                results[job] = result
                bar.update()
    else:
        for job in jobs:
            results[job] = _job(job)[1]
            bar.update()
    bar.close()
    return results


def task_report(model, *, corpus: str = "english_mix", tasks: Sequence[str] = TASKS,
                table_task: str | None = None, quick: bool = False, workers: int = 2,
                progress: bool = True, name: str = "") -> dict:
    """Train and score every experiment on ``model`` (see the module docstring).

    Args:
        model: an ``ELMo`` (:func:`~elmo_tutorial.layer_report.load_model`).
        corpus: the biLM's training text, for the baseline's static vectors.
        tasks: a subset of ``("sst5", "chunking", "ner")``.
        table_task: the task of Tables 2 and 3 (default: chunking if run, else the first).
        quick: the subsets of :data:`QUICK` (a smoke test; marked in the result).
        workers: training runs at a time, one CPU thread each.
    """
    from .embedder import Embedder

    unknown = [t for t in tasks if t not in TASKS]
    if unknown or not tasks:
        raise ValueError(f"unknown task(s) {unknown}; choose from {', '.join(TASKS)}")
    table_task = table_task or ("chunking" if "chunking" in tasks else tasks[0])
    if table_task not in tasks:
        raise ValueError(f"the task of Tables 2-3 ({table_task}) must be one of {list(tasks)}")
    setting = QUICK if quick else FULL
    vectors, index = word_vectors(corpus)
    embedder = Embedder(model)
    splits = {t: prepare_task(t, embedder, index, setting["max_sentences"],
                              setting["max_train"], progress) for t in tasks}
    _STATE.update(splits=splits, vectors=vectors, epochs=setting["epochs"])
    seeds = setting["seeds"]
    jobs = [(t, v, s, 1.0) for t in tasks for v in ("baseline", "elmo") for s in seeds]
    jobs += [(table_task, v, s, 1.0) for v in ("top", "lambda1", "input", "output")
             for s in seeds]
    jobs += [(t, v, s, f) for t in tasks for f in setting["fractions"]
             for v in ("baseline", "elmo") for s in seeds]
    runs = _run_all(jobs, workers, progress)

    def scores(task, variant, fraction=1.0):
        return spread([runs[(task, variant, s, fraction)]["score"] for s in seeds])

    result = {"model": name, "quick": quick, "corpus": corpus, "seeds": list(seeds),
              "epochs": setting["epochs"], "max_train": setting["max_train"],
              "char_filters": CHAR_FILTERS, "tasks": {},
              "sample_efficiency": {}, "weights": {}}
    for t in tasks:
        base, elmo = scores(t, "baseline"), scores(t, "elmo")
        result["tasks"][t] = {
            "metric": METRICS[t], "sizes": {"train": len(splits[t]["train"]),
                                            "dev": len(splits[t]["valid"]),
                                            "test": len(splits[t]["test"])},
            "baseline": base, "elmo": elmo,
            "error_reduction": 100.0 * (elmo["mean"] - base["mean"]) / (100.0 - base["mean"]),
            # A run whose best dev epoch is its last might have improved with more epochs.
            "still_learning": {v: sum(runs[(t, v, s, 1.0)]["best_epoch"]
                                      == runs[(t, v, s, 1.0)]["last_epoch"] for s in seeds)
                               for v in ("baseline", "elmo")}}
        curve = []
        for f in (*setting["fractions"], 1.0):
            b, e = scores(t, "baseline", f), scores(t, "elmo", f)
            curve.append({"fraction": f, "baseline": b["mean"], "elmo": e["mean"],
                          "baseline_std": b["std"], "elmo_std": e["std"]})
        result["sample_efficiency"][t] = curve
        result["weights"][t] = {
            place: np.mean([runs[(t, "elmo", s, 1.0)]["weights"][place] for s in seeds],
                           axis=0).tolist() for place in ("input", "output")}
    result["table2"] = {"task": table_task, **{v: scores(table_task, v)
                                               for v in ("top", "lambda1", "elmo")}}
    result["table3"] = {"task": table_task, **{v: scores(table_task, v)
                                               for v in ("input", "elmo", "output")}}
    result["paper"] = PAPER
    return result
