"""The fine-tuning report's result, typed: what ``finetune.json`` holds, field by field.

:func:`~elmo_tutorial.tasks.finetune_report.finetune_report` makes a :class:`FinetuneReport`;
its ``to_markdown`` reads it; ``finetune.json`` is its ``to_json()``
(:mod:`elmo_tutorial.files.records`) and ``FinetuneReport.read(path)`` gives it back, every
field checked::

    FinetuneReport
      finetune: FineTuning        the biLM's fine-tuning, perplexity before and after
      accuracy: SST2Accuracy      the SST-2 task model without ELMo, with each biLM's
      seconds: ReportSeconds

Example:
    >>> from elmo_tutorial.model.run_dir import shipped_model
    >>> report = FinetuneReport.read(shipped_model("small") / "finetune.json")
    >>> report.finetune.after.avg_ppl < report.finetune.before.avg_ppl, report.seeds
    (True, [0, 1, 2, 3, 4])
"""

from __future__ import annotations

from dataclasses import dataclass

from elmo_tutorial.analyses.paired import PairedDifference
from elmo_tutorial.files.records import Record, optional
from elmo_tutorial.tasks.results import Spread

__all__ = ["FineTuning", "FinetuneReport", "Perplexity", "ReportSeconds", "SST2Accuracy"]


@dataclass(frozen=True)
class Perplexity(Record):
    """Held-out perplexity of a biLM (``training.evaluation.evaluate_perplexity``)."""

    fwd_ppl: float  # the forward LM's perplexity
    bwd_ppl: float  # the backward LM's
    avg_ppl: float  # exp of the mean of the two NLLs
    fwd_nll: float  # mean negative log-likelihood per prediction, forward
    bwd_nll: float  # ... backward
    n_tokens: int  # predictions per direction


@dataclass(frozen=True)
class FineTuning(Record):
    """What ``training.finetune.finetune`` did (also its run's own ``finetune.json``)."""

    source: str  # the run fine-tuned (only read)
    out_dir: str  # the new run
    steps: int  # optimiser steps of the whole biLM (the softmax alone with freeze_encoder)
    head_steps: int  # steps of a new softmax on the frozen encoder first
    freeze_encoder: bool  # the control: the softmax alone trains for the steps
    vocab_size: int  # words of the new softmax
    vocab_min_count: int  # ... each seen at least this often in the fine-tuning text
    lr: float  # Adam's learning rate
    batch_size: int  # sentences per step
    train_sentences: int  # SST training sentences fine-tuned on
    valid_sentences: int  # SST dev sentences held out for the perplexity
    before: Perplexity  # after the head steps, before the steps
    after: Perplexity  # at the end
    seconds: float  # wall time of the fine-tuning


@dataclass(frozen=True)
class SST2Accuracy(Record):
    """SST-2 test accuracy (percent) of notebook 12's task model over the same seeds."""

    baseline: Spread  # no biLM
    original: Spread  # + ELMo from the source biLM
    finetuned: Spread  # + ELMo from the fine-tuned biLM


@dataclass(frozen=True)
class ReportSeconds(Record):
    """Where the report's wall time went."""

    finetune: float  # fine-tuning the biLM
    tasks: float  # embedding the SST-2 samples with both biLMs and training the task models


@dataclass(frozen=True)
class FinetuneReport(Record):
    """The whole fine-tuning report (see the module docstring); fields in the JSON's order."""

    source: str  # the run fine-tuned
    out_dir: str  # the fine-tuned run
    finetune: FineTuning
    seeds: list[int]  # the task models' seeds, shared by the three arms
    sizes: dict[str, int]  # SST-2 sentences per split ("train", "valid", "test")
    accuracy: SST2Accuracy
    seconds: ReportSeconds
    # the same steps with the encoder frozen (the softmax alone trains): the fall in
    # perplexity that is not the encoder's (None: not run, or the report is that control)
    control: FineTuning | None = optional()
    # fine-tuned − original biLM, paired by seed, its interval covering the test sentences
    # too (None in a report written before it was kept)
    difference: PairedDifference | None = optional()
