"""Does fine-tuning the biLM on a task's text help the task? (paper Appendix A.1, on SST-2)

:func:`finetune_report` fine-tunes a run on SST's training sentences (labels ignored, as in
A.1) into a new run (:func:`~elmo_tutorial.training.finetune.finetune`), measures the held-out
perplexity on SST dev sentences before and after, and trains notebook 12's SST-2 task model
(:func:`sst2_splits`) with ELMo from the original and from the fine-tuned biLM on several
seeds, beside the baseline without ELMo. The result, a :class:`FinetuneReport`, is
``finetune.json``; :func:`to_markdown` is the report ``elmo-tutorial finetune`` prints.
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from elmo_tutorial.analyses.embedder import Embedder
from elmo_tutorial.analyses.paired import PairedDifference, t_quantile
from elmo_tutorial.analyses.paired import verdict as paired_verdict
from elmo_tutorial.data.annotated import sst
from elmo_tutorial.files.records import Record, optional
from elmo_tutorial.files.report_files import markdown_table, write_report_files
from elmo_tutorial.tasks.report import paired
from elmo_tutorial.tasks.results import Spread
from elmo_tutorial.tasks.training import PROTOCOL, embed_split, run_variant, training_subset
from elmo_tutorial.tasks.vectors import trained_on, word_vectors
from elmo_tutorial.training.finetune import finetune
from elmo_tutorial.training.run_folder import load_elmo

__all__ = ["SST2_SIZES", "FineTuning", "FinetuneReport", "Perplexity", "ReportSeconds",
           "SST2Accuracy", "domain_text", "finetune_report", "sst2_splits", "to_markdown",
           "write_report"]

SST2_SIZES = {"train": 600, "valid": 200, "test": 500}  # notebook 12's random samples


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


def domain_text(lm_sentences: int, held_out: int = 300) -> tuple[list, list]:
    """Seeded random SST training sentences to fine-tune on, and dev sentences to measure
    perplexity on (tokens only: the labels are ignored, as in the paper's A.1)."""
    train, dev = [t for t, _ in sst("train")], [t for t, _ in sst("dev")]
    pick = training_subset(len(train), lm_sentences / len(train), seed=1)
    held = training_subset(len(dev), held_out / len(dev), seed=1)
    return [train[i] for i in pick], [dev[i] for i in held]


def sst2_splits(embedder, index: dict[str, int], name: str = "sst2-nb12") -> dict:
    """Notebook 12's SST-2 samples as ``TaskSplit``s with ``embedder``'s layers (cached)."""
    splits = {}
    for split, n in SST2_SIZES.items():
        pairs = sst("dev" if split == "valid" else split, classes=2)
        pairs = [pairs[i] for i in training_subset(len(pairs), n / len(pairs), seed=0)]
        splits[split] = embed_split(embedder, index, [tokens for tokens, _ in pairs],
                                    [y for _, y in pairs], ["negative", "positive"],
                                    f"{name}-{split}")
    return splits


def finetune_report(source: str | Path, out_dir: str | Path, steps: int = 60,
                    head_steps: int = 300, lm_sentences: int = 2000, seeds=(0, 1, 2, 3, 4),
                    force: bool = False, **overrides) -> FinetuneReport:
    """Fine-tune ``source`` into ``out_dir`` and compare the SST-2 task model with ELMo from
    each (see the module docstring); ``overrides`` go to ``finetune`` (``lr``, ...)."""
    started = time.perf_counter()
    train, held_out = domain_text(lm_sentences)
    tuned = finetune(source, train, held_out, out_dir, steps=steps, head_steps=head_steps,
                     force=force, **overrides)
    control = None
    if not overrides.get("freeze_encoder"):  # the same steps, the encoder frozen: a run of
        with tempfile.TemporaryDirectory() as scratch:  # its own, of which only the numbers stay
            control = finetune(source, train, held_out, Path(scratch) / "frozen", steps=steps,
                               head_steps=head_steps, **{**overrides, "freeze_encoder": True})
    tuning_done = time.perf_counter()
    vectors, index = word_vectors(trained_on(out_dir))
    runs = {}  # arm → one run_variant result per seed
    for name, run in (("original", source), ("finetuned", out_dir)):
        splits = sst2_splits(Embedder(load_elmo(run)), index)
        if name == "original":
            runs["baseline"] = [run_variant(splits, vectors, "baseline", s) for s in seeds]
        runs[name] = [run_variant(splits, vectors, "elmo", s) for s in seeds]
    accuracy = {arm: Spread.of([r["score"] for r in found]) for arm, found in runs.items()}
    return FinetuneReport(
        source=str(source), out_dir=str(out_dir),
        finetune=FineTuning.from_dict(tuned, "finetune"), seeds=list(seeds),
        sizes=dict(SST2_SIZES), accuracy=SST2Accuracy(**accuracy),
        seconds=ReportSeconds(finetune=tuning_done - started,
                              tasks=time.perf_counter() - tuning_done),
        control=FineTuning.from_dict(control, "control") if control else None,
        difference=paired(runs["original"], runs["finetuned"]))


def _ppl(metrics: Perplexity) -> str:
    return f"{metrics.avg_ppl:.1f} (forward {metrics.fwd_ppl:.1f}, " \
           f"backward {metrics.bwd_ppl:.1f})"


def to_markdown(result: FinetuneReport, machine: str = "") -> str:
    """The report as markdown: perplexities before and after, then SST-2 accuracies."""
    tuned, acc = result.finetune, result.accuracy
    arms = {"baseline": acc.baseline, "original": acc.original, "finetuned": acc.finetuned}
    rows = [[name, f"{arm.mean:.1f} ± {arm.std:.1f}", ", ".join(f"{r:.1f}" for r in arm.runs)]
            for name, arm in arms.items()]
    d = result.difference or PairedDifference.between(acc.original.runs, acc.finetuned.runs)
    verdict = {"gain": "higher: the interval excludes 0",
               "loss": "lower: the interval excludes 0"}.get(
        paired_verdict(d), "no difference shown: the interval includes 0")
    minutes = (result.seconds.finetune + result.seconds.tasks) / 60
    drop = 100 * (1 - tuned.after.avg_ppl / tuned.before.avg_ppl)
    return "\n".join([
        f"# Fine-tuning the biLM on the task's text: {result.source} on SST",
        "",
        "Peters et al. (2018), Sec. 3.4: \"In some cases, fine tuning the biLM on domain "
        "specific data leads to significant drops in perplexity and an increase in downstream "
        "task performance.\" Appendix A.1 fine-tunes on each task's training split (labels "
        "ignored) and freezes the result for the task model.",
        "",
        "## Perplexity on held-out SST dev sentences",
        "",
        f"- before ({tuned.head_steps} steps of a new softmax over the {tuned.vocab_size:,} "
        f"words seen ≥ {tuned.vocab_min_count} times in {tuned.train_sentences:,} SST "
        f"training sentences, on the frozen encoder): {_ppl(tuned.before)}",
        f"- after {tuned.steps} steps of the whole biLM on the same sentences (batches of "
        f"{tuned.batch_size}, Adam, lr {tuned.lr:g}): "
        f"{_ppl(tuned.after)}",
        *_control(result, drop),
        f"- held out: {tuned.valid_sentences} SST dev sentences, "
        f"{tuned.before.n_tokens:,} predictions per direction",
        "",
        "## SST-2 test accuracy with each biLM",
        "",
        f"{result.sizes['train']} training, {result.sizes['valid']} dev, "
        f"{result.sizes['test']} test sentences; mean ± std over seeds "
        f"{', '.join(map(str, result.seeds))}. The task model and its training are the "
        "`tasks` report's (static vectors and a character CNN; + ELMo at the BiLSTM's input, "
        "λ = 0.001; one dropout of 0.5 on the input and the output; Adam, its rate halved "
        f"after {PROTOCOL['lr_patience']} epochs without a better dev accuracy, until dev "
        f"accuracy has not improved for {PROTOCOL['patience']} epochs, the best epoch kept).",
        "",
        *markdown_table(["model", "accuracy", "seeds"], rows),
        "",
        f"Fine-tuned − original biLM, paired by seed: {d.mean:+.1f} points, 95 % interval "
        f"[{d.low:+.1f}, {d.high:+.1f}]"
        + (" (over the seeds and the test sentences)" if d.test_std is not None else
           " (over the seeds)")
        + f": {verdict}. With {len(result.seeds)} seeds and "
        f"{result.sizes['test']} test sentences the interval is ±{(d.high - d.low) / 2:.1f} "
        f"points. **Power:** with the spread these seeds and test sentences give, a true "
        "change of "
        f"{_detectable(d):.1f} points would be found (its interval above 0) 4 times in 5, "
        "and a smaller one would mostly go unseen: a change of a few tenths of a point, "
        "either way, is below what this design can detect, so its result neither confirms "
        "nor contradicts A.1 there.",
        "",
        f"Took {minutes:.1f} min ({result.seconds.finetune / 60:.1f} fine-tuning, "
        f"{result.seconds.tasks / 60:.1f} embedding the SST-2 samples with both biLMs "
        f"and training the task models){machine}.",
        ""])


def _control(result: FinetuneReport, drop: float) -> list[str]:
    """The fall in perplexity, and how much of it the encoder's change makes."""
    tuned, control = result.finetune, result.control
    seen = f"{tuned.steps * tuned.batch_size:,} sentences"
    share = (f"{100 * tuned.steps * tuned.batch_size / tuned.train_sentences:.0f} % of the "
             f"{tuned.train_sentences:,} SST sentences fine-tuned on"
             if tuned.train_sentences else "")
    lines = [f"- the perplexity falls by {drop:.0f} % after {seen} of fine-tuning ({share}; "
             "the paper fine-tunes for a whole epoch of the task's training split)"]
    if tuned.freeze_encoder:
        return [lines[0] + "; this run is the control: the encoder is frozen, only the "
                "softmax trains"]
    if control is None:
        return lines
    encoder = control.after.avg_ppl - tuned.after.avg_ppl
    lines.append(f"- the control, the same {control.steps} steps with the encoder frozen (the "
                 f"softmax alone trains): {_ppl(control.after)}; the encoder's change "
                 f"accounts for {encoder:+.1f} of the "
                 f"{tuned.before.avg_ppl - tuned.after.avg_ppl:.1f} points the perplexity fell"
                 + (" (the rest is the softmax's longer training)" if encoder > 0 else
                    ": the fall is the softmax's longer training, not the encoder's"))
    return lines


def _detectable(d: PairedDifference) -> float:
    """The true mean difference found at 95 % four times in five (80 % power) with ``d.n``
    seeds and the interval's standard error SE (the seeds', with the test sample's where
    kept): (t_0.975 + t_0.80) · SE, Student's t with n − 1 degrees of freedom."""
    half_width = (d.high - d.low) / 2  # t_0.975 · SE
    return half_width * (1 + T80[min(d.n - 1, len(T80)) - 1] / t_quantile(d.n - 1))


T80 = (1.376, 1.061, 0.978, 0.941, 0.920, 0.906, 0.896, 0.889, 0.883, 0.879)  # t_0.80, df 1-10


def write_report(result: FinetuneReport, json_path: str | Path | None,
                 markdown_path: str | Path | None, force: bool = False) -> list[Path]:
    """Write the JSON and markdown files (:func:`.report_files.write_report_files`)."""
    return write_report_files(result, json_path, markdown_path, to_markdown, force)
