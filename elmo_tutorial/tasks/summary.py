"""The task report's runs → its tables: means over seeds, paired differences, convergence.

:func:`summarise` reads a :class:`~elmo_tutorial.tasks.runs.RunStore` and returns the
:class:`~elmo_tutorial.tasks.results.TaskReport` of :func:`~elmo_tutorial.tasks.report.task_report`
(its schema, field by field, is in :mod:`elmo_tutorial.tasks.results`; ``tasks.json`` is its
JSON). Each arm is a :class:`~elmo_tutorial.tasks.results.Spread` over seeds (runs in seed
order); each comparison is a :class:`~elmo_tutorial.analyses.paired.PairedDifference` of two
arms over the same seeds, in points.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from elmo_tutorial.analyses.bootstrap import sentence_bootstrap_std
from elmo_tutorial.analyses.paired import PairedDifference
from elmo_tutorial.tasks.experiments import (
    ARMS,
    CHAR_FILTERS,
    FRACTION_TASKS,
    METRICS,
    TABLE1_ARMS,
    training_subset,
)
from elmo_tutorial.tasks.results import (
    BagOfWords,
    Convergence,
    FractionPoint,
    PaperNumbers,
    Protocol,
    QualityPoint,
    RunRecord,
    RunResult,
    Spread,
    Table1Differences,
    TaskReport,
    TaskRow,
    VariantTable,
)
from elmo_tutorial.tasks.runs import Job, RunStore

__all__ = ["PAPER", "paired", "spreads", "summarise"]

PLACE_VARIANTS = {("input",): "input", ("input", "output"): "input_output",
                  ("output",): "output"}  # Table 3's variant for each place

# Peters et al. (2018) Table 1 (SST-5 accuracy, CoNLL-2003 NER F1), Table 2 and Table 3 (SQuAD
# F1, SNLI accuracy, SRL F1); chunking: TagLM (Peters et al. 2017) on CoNLL-2000, F1.
PAPER = {
    "table1": {"sst5": {"baseline": 51.4, "elmo": 54.7}, "ner": {"baseline": 90.15, "elmo": 92.22},
               "chunking": {"baseline": 95.00, "elmo": 96.37}},
    "table2": {"squad": {"baseline": 80.8, "top": 84.7, "lambda1": 85.0, "elmo": 85.2},
               "snli": {"baseline": 88.1, "top": 89.1, "lambda1": 89.3, "elmo": 89.5},
               "srl": {"baseline": 81.6, "top": 84.1, "lambda1": 84.6, "elmo": 84.8}},
    "table3": {"squad": {"input": 85.1, "input_output": 85.6, "output": 84.8},
               "snli": {"input": 88.9, "input_output": 89.5, "output": 88.7},
               "srl": {"input": 84.7, "input_output": 84.3, "output": 80.9}},
}


def summarise(store: RunStore, tasks: Sequence[str], seeds: Sequence[int], setting: dict,
              protocol: dict, extras: dict) -> TaskReport:
    """The report's result from its runs (see the module docstring).

    Args:
        store: every run of the report (:func:`~elmo_tutorial.tasks.report.jobs_for`).
        tasks, seeds: Table 1's tasks and seeds.
        setting: :data:`~elmo_tutorial.tasks.report.FULL` or ``QUICK``.
        protocol: how every arm trained (:data:`~elmo_tutorial.tasks.experiments.PROTOCOL`).
        extras: what the runs do not hold: ``places`` and ``place_dev`` (step 1's choice),
            ``sizes`` of each prepared task, ``perplexity`` of each quality biLM, SST-5's
            ``majority`` rate and ``bag_of_words`` result.
    """
    places, sample = extras["places"], setting["sample"]

    def runs(task, variant, fraction=1.0, sample=None, bilm="main", where=None, on=seeds):
        where = () if variant == "baseline" else tuple(where or places[task])
        if sample is not None and variant == "elmo" and bilm == "main":  # Table 3's run
            variant = PLACE_VARIANTS[where]
        return [store[Job(task, variant, s, fraction, where, sample, bilm)] for s in on]

    def arms(task, names, **kw) -> dict[str, list[dict]]:
        return {v: runs(task, v, **kw) for v in names}

    rows, sample_efficiency, weights = {}, {}, {}
    for t in tasks:
        found = arms(t, TABLE1_ARMS.get(t, ARMS))
        table = spreads(found)
        layer0 = "layer0" in found
        base, elmo = table["baseline"].mean, table["elmo"].mean
        sst5 = t == "sst5"
        row = TaskRow(
            metric=METRICS[t], sizes=extras["sizes"][("main", t, None)], arms=table,
            error_reduction=100.0 * (elmo - base) / (100.0 - base),
            differences=Table1Differences(
                elmo_vs_baseline=paired(found["baseline"], found["elmo"]),
                layer0_vs_baseline=paired(found["baseline"], found["layer0"]) if layer0 else None,
                elmo_vs_layer0=paired(found["layer0"], found["elmo"]) if layer0 else None),
            curves={v: [r["curve"] for r in found[v]] for v in table},
            epochs_per_round=found["elmo"][0]["epochs_per_round"],
            bag_of_words=BagOfWords.from_dict(extras["bag_of_words"]) if sst5 else None,
            majority=extras["majority"]["sst5"] if sst5 else None)
        rows[t] = row
        weights[t] = {p: np.mean([r["weights"][p] for r in found["elmo"]], axis=0).tolist()
                      for p in places[t]}
        if t not in FRACTION_TASKS:
            continue
        n_train = row.sizes["train"]
        curve = []
        for f in setting["fractions"]:
            part = arms(t, setting["fraction_variants"], fraction=f,
                        on=setting["fraction_seeds"])
            curve.append(_fraction_point(f, len(training_subset(n_train, f, 0)), part))
        curve.append(_fraction_point(1.0, n_train, found))
        sample_efficiency[t] = curve
    table2 = table3 = None
    if "chunking" in tasks:
        kw = {"sample": sample}
        variants, on = setting["table2_variants"], setting["table2_seeds"]
        t2 = arms("chunking", ("baseline", "elmo", *variants), on=on, **kw)
        table2 = VariantTable("chunking", sample, list(on), spreads(t2),
                              {v: paired(t2["elmo"], t2[v]) for v in variants})
        t3 = {v: runs("chunking", v, where=w, **kw) for w, v in PLACE_VARIANTS.items()}
        table3 = VariantTable("chunking", sample, list(seeds), spreads(t3),
                              {v: paired(t3["input"], t3[v]) for v in ("input_output", "output")})
    everything = list(store.items())
    convergence = Convergence(
        runs=len(everything),
        at_cap=sum(r["stopped"] == "cap" for _, r in everything),
        extended=sum(r["cap"] > protocol["max_epochs"] for _, r in everything),
        # passes begun: a phrase run's epoch is half a pass (PROTOCOL's max_round_updates)
        longest=max(math.ceil(r["last_epoch"] * r["epochs_per_round"]) for _, r in everything),
        best_epoch_vs_test=_best_epoch_vs_test(store, tasks, seeds, places))
    return TaskReport(
        seeds=list(seeds), fraction_seeds=list(setting["fraction_seeds"]),
        protocol=Protocol.from_dict(protocol, "protocol"), sample=sample,
        fractions=list(setting["fractions"]), char_filters=CHAR_FILTERS,
        places={t: list(p) for t, p in places.items()}, place_dev=extras["place_dev"],
        tasks=rows, sample_efficiency=sample_efficiency, weights=weights,
        paper=PaperNumbers.from_dict(PAPER, "paper"), table2=table2, table3=table3,
        quality=_quality(runs, tasks, seeds, extras, store, places, sample),
        convergence=convergence,
        runs=[RunRecord(j, RunResult.from_dict(_kept(r), f"runs[{i}].result"))
              for i, (j, r) in enumerate(everything)])


def spreads(found: dict[str, list[dict]]) -> dict[str, Spread]:
    """Each arm's test scores over seeds."""
    return {v: Spread.of([r["score"] for r in runs]) for v, runs in found.items()}


def _kept(result: dict) -> dict:
    """A run as ``tasks.json`` keeps it: without its per-sentence counts (the runs file has
    them; the report keeps the intervals they gave)."""
    return {k: v for k, v in result.items() if k != "test_counts"}


def _fraction_point(fraction: float, sentences: int, found: dict[str, list[dict]]
                    ) -> FractionPoint:
    table = spreads(found)
    layer0 = "layer0" in found
    return FractionPoint(fraction, sentences, table["baseline"], table["elmo"],
                         paired(found["baseline"], found["elmo"]),
                         layer0=table["layer0"] if layer0 else None,
                         layer0_difference=paired(found["baseline"], found["layer0"])
                         if layer0 else None,
                         context_difference=paired(found["layer0"], found["elmo"])
                         if layer0 else None)


def _best_epoch_vs_test(store: RunStore, tasks: Sequence[str], seeds: Sequence[int],
                        places: dict) -> dict[str, dict[str, float]]:
    """Per task and Table 1 arm, the correlation over seeds of the best epoch and the test
    score: large if runs that stop early score lower (not converged), near 0 if not."""
    out = {}
    for t in tasks:
        for v in TABLE1_ARMS.get(t, ARMS):
            where = () if v == "baseline" else tuple(places[t])
            found = [store[Job(t, v, s, 1.0, where)] for s in seeds]
            epochs = [r["best_epoch"] * r["epochs_per_round"] for r in found]
            scores = [r["score"] for r in found]
            if len(set(epochs)) > 1 and len(set(scores)) > 1:
                out.setdefault(t, {})[v] = float(np.corrcoef(epochs, scores)[0, 1])
    return out


def paired(runs_a: Sequence[dict], runs_b: Sequence[dict]) -> PairedDifference:
    """The paired difference of two arms' runs (same seeds, same order), ``b − a`` in points:
    with the test sample's standard error when every run kept its sentences' counts
    (:mod:`elmo_tutorial.analyses.bootstrap`), over the seeds alone otherwise."""
    a, b = [r["score"] for r in runs_a], [r["score"] for r in runs_b]
    counted = all("test_counts" in r for r in (*runs_a, *runs_b))
    test_std = sentence_bootstrap_std([r["test_counts"] for r in runs_a],
                                      [r["test_counts"] for r in runs_b]) if counted else None
    return PairedDifference.between(a, b, test_std)


def _quality(runs, tasks, seeds, extras, store, places, sample) -> list[QualityPoint]:
    """The gain of + ELMo over the baseline for the main biLM and each quality biLM."""
    out = []
    for bilm, perplexity in [("main", extras["perplexity"].get("main")),
                             *((b, p) for b, p in extras["perplexity"].items() if b != "main")]:
        gains = {}
        for t in ("chunking", "ner"):
            if t not in tasks:
                continue
            where = {"sample": sample if t == "chunking" else None}
            if bilm != "main" and not all(
                    Job(t, "elmo", s, 1.0, tuple(places[t]), where["sample"], bilm) in store
                    for s in seeds):
                continue
            gains[t] = paired(runs(t, "baseline", **where), runs(t, "elmo", bilm=bilm, **where))
        if gains:
            out.append(QualityPoint(extras.get("names", {}).get(bilm, bilm), perplexity, gains))
    return out
