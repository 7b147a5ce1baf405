"""The task report's result, typed: what ``tasks.json`` holds, field by field.

``tasks.json`` is a :class:`TaskReport`'s ``to_json()``; ``TaskReport.read(path)`` gives it back,
every field checked (:mod:`elmo_tutorial.files.records`). Scores are percent (accuracy or F1);
a difference of two arms is a :class:`~elmo_tutorial.analyses.paired.PairedDifference`, in points.

Example:
    >>> from elmo_tutorial.analyses.paired import verdict
    >>> from elmo_tutorial.training.run_folder import shipped_model
    >>> report = TaskReport.read(shipped_model("small") / "tasks.json")
    >>> row = report.tasks[report.table2.task]                # chunking
    >>> row.metric, len(row.arms["elmo"].runs), verdict(row.differences.elmo_vs_baseline)
    ('F1', 5, 'gain')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from elmo_tutorial.analyses.paired import PairedDifference
from elmo_tutorial.files.records import Record, optional
from elmo_tutorial.tasks.runs import Job

__all__ = ["BagOfWords", "Convergence", "FractionPoint", "Protocol",
           "QualityPoint", "RunRecord", "RunResult", "Spread", "Table1Differences",
           "TaskReport", "TaskRow", "VariantTable"]


@dataclass(frozen=True)
class Spread(Record):
    """One arm's test score over seeds."""

    mean: float  # mean over seeds
    std: float  # sample standard deviation (0 for one run)
    runs: list[float]  # one score per seed, in seed order

    @classmethod
    def of(cls, scores: Sequence[float]) -> Spread:
        """The spread of ``scores`` (one per seed).

        >>> Spread.of([50, 52])
        Spread(mean=51.0, std=1.4142135623730951, runs=[50.0, 52.0])
        """
        runs = [float(s) for s in scores]
        std = float(np.std(runs, ddof=1)) if len(runs) > 1 else 0.0
        return cls(float(np.mean(runs)), std, runs)


@dataclass(frozen=True)
class Protocol(Record):
    """How every arm trains (:data:`~elmo_tutorial.tasks.training.PROTOCOL`)."""

    max_epochs: int  # the planned cap; it grows by `patience` while patience has not acted
    patience: int  # stop after this many epochs without a better dev score
    min_updates: int  # at least this many updates on a training set below 100 %
    round_updates: int  # there, dev is scored after at least this many updates
    hard_cap: int  # no run scores dev more often than this
    batch_size: int  # sentences per batch (8 below 100 %)
    lr: float  # Adam's learning rate
    dropout: float  # on the BiLSTM's whole input and its whole output
    hidden_size: int  # BiLSTM cells per direction
    lr_patience: int  # the learning rate halves after this many epochs without a better dev
    wait_while_zero: bool  # epochs before the first dev score above 0 count towards neither
    max_round_updates: int  # dev is scored at least this often: a longer pass is several epochs


@dataclass(frozen=True)
class Table1Differences(Record):
    """Table 1's three comparisons of one task, paired by seed."""

    elmo_vs_baseline: PairedDifference  # + ELMo − baseline: the paper's gain
    layer0_vs_baseline: PairedDifference | None = optional()  # None: no + layer 0 arm
    elmo_vs_layer0: PairedDifference | None = optional()  # what context adds beyond layer 0


@dataclass(frozen=True)
class BagOfWords(Record):
    """SST-5's bag-of-words logistic regression (:mod:`~elmo_tutorial.tasks.bag_of_words`)."""

    test: float  # test accuracy
    valid: float  # dev accuracy at the chosen L2 strength
    alpha: float  # the L2 strength chosen on dev
    features: int  # words in its vocabulary
    dev_by_alpha: dict[str, float]  # dev accuracy of each strength tried


@dataclass(frozen=True)
class TaskRow(Record):
    """One task of Table 1: each arm over the same seeds, the gains, the learning curves."""

    metric: str  # "accuracy" (SST-5) or "F1" (chunking, NER)
    sizes: dict[str, int]  # sentences per split
    arms: dict[str, Spread]  # "baseline", "layer0" (not on every task), "elmo": over seeds
    error_reduction: float  # the share of the baseline's errors + ELMo removes (percent)
    differences: Table1Differences
    curves: dict[str, list[list[float]]]  # arm → per seed, the dev score after every epoch
    epochs_per_round: float  # passes per dev score (a fraction: SST-5's phrases)
    bag_of_words: BagOfWords | None = optional()  # SST-5 only
    majority: float | None = optional()  # SST-5 only: always the commonest class


@dataclass(frozen=True)
class FractionPoint(Record):
    """Figure 1: both arms trained on a share of one task's training set."""

    fraction: float  # the share (1.0: Table 1's runs)
    train_sentences: int  # how many sentences that is
    baseline: Spread
    elmo: Spread
    difference: PairedDifference  # + ELMo − baseline
    layer0: Spread | None = optional()  # + layer 0 (the biLM's context-free layer alone)
    layer0_difference: PairedDifference | None = optional()  # + layer 0 − baseline
    context_difference: PairedDifference | None = optional()  # + ELMo − (+ layer 0)


@dataclass(frozen=True)
class VariantTable(Record):
    """Table 2 (which layers, λ) or Table 3 (where ELMo goes), on the layer-study task's sample."""

    task: str  # the layer-study task of the registry
    sample: int | None  # training sentences of the fixed sample (None: the whole set)
    seeds: list[int]
    arms: dict[str, Spread]  # variant → test F1 over seeds
    differences: dict[str, PairedDifference]  # variant − the table's reference variant


@dataclass(frozen=True)
class QualityPoint(Record):
    """One biLM of the quality figure: the gain it gives against its perplexity."""

    bilm: str  # "main" (the report's biLM) or a quality run's name
    perplexity: float | None  # held-out perplexity (None for "main": not measured)
    gains: dict[str, PairedDifference]  # task → + ELMo − baseline


@dataclass(frozen=True)
class Convergence(Record):
    """How the report's runs ended."""

    runs: int  # every run of the report
    at_cap: int  # runs stopped by a cap, not by patience (0: every run converged)
    extended: int  # runs that needed more epochs than the planned cap
    longest: int  # the most passes over a training set any run made
    # task → Table 1 arm → correlation over seeds of the best epoch and the test score
    best_epoch_vs_test: dict[str, dict[str, float]] | None = optional()


@dataclass(frozen=True)
class RunResult(Record):
    """One trained task model (:func:`~elmo_tutorial.tasks.training.run_variant`)."""

    score: float  # test score of the best epoch
    valid: float  # its dev score
    best_epoch: int  # the round with the best dev score (from 1)
    last_epoch: int  # the round training stopped after
    cap: int  # the cap in the end
    stopped: str  # "patience" or "cap"
    updates: int  # optimiser steps made
    epochs_per_round: float  # passes per dev score (a fraction: SST-5's phrases)
    curve: list[float]  # dev score after every round
    places: list[str]  # where ELMo went ([] for the baseline)
    weights: dict[str, list[float]]  # place → softmax(w) of the mix
    gamma: dict[str, float]  # place → γ of the mix
    seconds: float | None = optional()  # wall time of the run


@dataclass(frozen=True)
class RunRecord(Record):
    """A run as the report keeps it: what was trained, and what came of it."""

    job: Job  # task, variant, seed, fraction, places, sample, biLM
    result: RunResult


@dataclass(frozen=True, kw_only=True)
class TaskReport(Record):
    """The whole task report, fields in the JSON's order."""

    JSON_INDENT: ClassVar[int] = 1  # tasks.json keeps every run (200 kB): one space per level

    seeds: list[int]  # Table 1's seeds, shared by every arm
    fraction_seeds: list[int]  # Figure 1's seeds below 100 %
    protocol: Protocol
    sample: int | None  # the fixed training sample of Tables 2-3 (None: the whole set)
    fractions: list[float]  # Figure 1's shares below 100 %
    char_filters: int  # the baseline character CNN's filters
    places: dict[str, list[str]]  # task → where ELMo goes ("input", "output")
    place_dev: dict[str, float]  # Table 3's candidates → mean dev F1 ({}: no layer study)
    tasks: dict[str, TaskRow]  # Table 1
    sample_efficiency: dict[str, list[FractionPoint]]  # Figure 1, the fractions then 100 %
    weights: dict[str, dict[str, list[float]]]  # Figure 2: task → place → softmax(w)
    paper: dict[str, dict[str, dict[str, float]]]  # the registry's PAPER: table → task → arm
    table2: VariantTable | None = optional()  # with the layer-study task only
    table3: VariantTable | None = optional()  # with the layer-study task only
    quality: list[QualityPoint]
    convergence: Convergence
    runs: list[RunRecord]  # every run, as the runs file kept it
    model: str | None = optional()  # how the report names the biLM
    quick: bool | None = optional()  # a smoke test on subsets
    corpus: str | None = optional()  # the static vectors' corpus
    resumed_runs: int | None = optional()  # runs read back from an earlier invocation's file
    wall_seconds: float | None = optional()  # the invocation that finished the report
    machine: str | None = optional()  # where it ran
