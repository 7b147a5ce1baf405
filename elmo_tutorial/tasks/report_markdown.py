"""The task report (a :class:`~elmo_tutorial.tasks.results.TaskReport`) as markdown.

Every sentence is derived from the numbers: a difference between two arms is called a gain or a
loss only when its paired 95 % interval (:mod:`elmo_tutorial.analyses.paired`) excludes 0.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from elmo_tutorial.analyses.paired import PairedDifference, ci, verdict
from elmo_tutorial.files.report_files import markdown_table, quick_banner, write_report_files
from elmo_tutorial.tasks.registry import TASKS
from elmo_tutorial.tasks.report_figures import ARMS, FIGURES, write_figures
from elmo_tutorial.tasks.results import Spread, TaskReport

__all__ = ["FIGURES", "table1_markdown", "to_markdown", "write_report"]

TABLE2 = {"elmo": "all layers, λ = 0.001", "top": "top layer only", "lambda1": "all layers, λ = 1",
          "layer0": "layer 0 only (no context)", "baseline": "baseline (no biLM)"}
TABLE3 = {"input": "input only", "input_output": "input and output", "output": "output only"}


def _pm(x: Spread) -> str:
    return f"{x.mean:.1f} ± {x.std:.1f}"


def _word(d: PairedDifference) -> str:
    return {"gain": "**gain**", "loss": "**loss**"}.get(verdict(d), "no difference shown")


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    return markdown_table(header, rows) + [""]  # every table of this report ends a paragraph


def _protocol(result: TaskReport) -> list[str]:
    p, conv = result.protocol, result.convergence
    lines = [
        "## Protocol", "",
        f"Every arm is trained the same way, on the same {len(result.seeds)} seeds (seed i draws "
        "every arm's initial weights, dropout and batch order from the same seed and, below "
        f"100 %, picks the same training sentences): Adam (lr {p.lr}), batches of {p.batch_size} "
        f"sentences of similar length, dropout {p.dropout} once on the BiLSTM's whole input and "
        "once on its whole output, dev scored after every epoch, the learning rate halved after "
        f"{p.lr_patience} epochs without a better dev score (counted from the best epoch or the "
        f"last halving), stop after {p.patience} epochs without a better dev score, the best "
        "epoch's weights kept; epochs before the first dev score above 0 (a tagger that finds no "
        "entity yet) count towards neither, so no run stops or slows down before it has "
        f"started (a run that has not started after {p.max_epochs} epochs stops there). "
        + (f"At most {p.hard_cap} dev scores (a smoke test). " if p.hard_cap <= p.max_epochs
           else f"The cap of {p.max_epochs} epochs grows by {p.patience} whenever it is "
                "reached before patience has acted, so no run that has started ends at a cap. ")
        + f"Training sets below 100 % use batches of 8, at least {p.min_updates:,} updates, and "
        f"score dev after at least {p.round_updates} updates (several passes over a small set "
        f"count as one epoch above). A pass of more than {p.max_round_updates:,} updates "
        f"(SST-5's phrases) is scored on dev every {p.max_round_updates:,} updates, and each of "
        "those counts as one epoch above.", "",
        f"**Convergence:** {conv.runs} runs; **{conv.at_cap} ended at a cap**; "
        f"{conv.extended} needed more than {p.max_epochs} epochs; the longest made "
        f"{conv.longest} passes over its training set.", ""]
    lines += _best_epoch(result) + _intervals(result)
    if result.wall_seconds is not None:
        again = result.resumed_runs or 0
        lines += [f"Wall time of the invocation that finished this report: "
                  f"{result.wall_seconds / 60:.0f} min ({result.machine or 'this machine'}"
                  + (f"; it read {again} of its runs back from the runs file of an earlier "
                     "invocation, without training them again" if again else "")
                  + "); the runs' own time adds up to "
                  f"{sum(r.result.seconds or 0 for r in result.runs) / 3600:.1f} "
                  "CPU-hours (one thread each).", ""]
    return lines


def _best_epoch(result: TaskReport) -> list[str]:
    """Does stopping early predict a lower test score? (It would if runs had not converged.)"""
    table = result.convergence.best_epoch_vs_test
    if not table:
        return []
    parts = [f"{TASKS[t].title}: " + ", ".join(f"{ARMS[v][0]} {r:+.2f}" for v, r in arms.items())
             for t, arms in table.items()]
    return ["**Does an early stop cost test score?** The correlation, over Table 1's seeds, "
            "of the epoch a run's weights come from and its test score (with 5 seeds only a "
            "value beyond ±0.88 is unlikely by chance alone, at 5 %): " + "; ".join(parts)
            + ".", ""]


def _intervals(result: TaskReport) -> list[str]:
    if all(r.differences.elmo_vs_baseline.test_std is None for r in result.tasks.values()):
        return ["**Intervals** are Student's t over the seeds (paired by seed); they do not "
                "include the chance in the choice of test sentences.", ""]
    return ["**Intervals.** Every difference is paired by seed, and its 95 % interval covers "
            "two sources of chance: the seeds (Student's t over the paired differences) and "
            "the test sentences (a bootstrap: the test set drawn again 2,000 times, the same "
            "draw for both arms of every seed), their variances added: "
            "d̄ ± t(n−1)·√(s²/n + SE_test²). A verdict (gain, loss) needs the whole interval "
            "on one side of 0.", ""]


def _quick_notes(result: TaskReport) -> list[str]:
    """What a quick run's numbers cannot say: a task on which every run scored 0, and
    intervals of two seeds."""
    notes = [f"- {len(result.seeds)} seeds: a 95 % interval from so few is very wide, so "
             "\"no difference shown\" is all a quick run can say."]
    for task, r in result.tasks.items():
        if all(arm.mean == 0 and arm.std == 0 for arm in r.arms.values()):
            notes.append(f"- {TASKS[task].title}: every run scored 0 (no entity found): "
                         f"{r.sizes['train']:,} training sentences and a few epochs are "
                         "too little to learn one.")
    return notes + [""]


def table1_markdown(result: TaskReport | Mapping, *, layer0: bool = True) -> str:
    """Table 1 of the report as markdown, with its floors and arms; ``layer0=False`` leaves
    out the layer-0 columns (notebook 12, whose successor asks for a prediction about them).
    ``result`` is a :class:`TaskReport` or the dict of its json, checked on the way."""
    if isinstance(result, Mapping):
        result = TaskReport.from_dict(result)
    header = ("task", "metric", "train sentences", "baseline", "+ layer 0", "+ ELMo",
              "ELMo − layer 0 (context)", "ELMo − baseline", "paper")
    keep = [layer0 or "layer 0" not in column for column in header]
    rows, paper = [], result.paper["table1"]
    for task, r in result.tasks.items():
        a, d, p = r.arms, r.differences, paper.get(task)
        row = [TASKS[task].title, r.metric, f"{r.sizes['train']:,}", _pm(a["baseline"]),
               _pm(a["layer0"]) if "layer0" in a else "–", _pm(a["elmo"]),
               ci(d.elmo_vs_layer0) if d.elmo_vs_layer0 else "–", ci(d.elmo_vs_baseline),
               f"{p['baseline']:.2f} → {p['elmo']:.2f}" if p else "–"]
        rows.append([cell for cell, k in zip(row, keep, strict=True) if k])
    n = len(result.seeds)
    lines = [f"## Table 1: the task model without and with ELMo (test set, mean ± std over {n} "
             "seeds; differences paired by seed, with their 95 % interval)", ""]
    lines += _table([c for c, k in zip(header, keep, strict=True) if k], rows)
    if layer0:
        lines += _context(result)
    for task, r in result.tasks.items():
        if (bow := r.bag_of_words) is not None:
            lines += [f"{TASKS[task].panel} floors on the same {r.sizes['train']:,} training "
                      f"sentences: always the commonest class {r.majority:.1f} %; bag-of-words "
                      f"logistic regression {bow.test:.1f} % ({bow.features:,} words, L2 "
                      f"strength {bow.alpha:g} chosen on dev).", ""]
    lines += [
        "**Arms.** *Baseline*: frozen PPMI-SVD word vectors w_k (100 dimensions, lower-cased) "
        f"learned from `{result.corpus}`, the biLM's own training text, and c_k from a "
        f"character CNN trained with the task model ({result.char_filters} filters of "
        "width 3 over 16-dimensional characters, case kept), x_k = [w_k; c_k], for every "
        "task; then a BiLSTM (64 cells per direction) and a softmax per token (chunking, NER) "
        "or over the mean and maximum of the states (SST-5). *+ layer 0*: the same model with "
        "the biLM's layer 0 (its character CNN and highway layers, no context) added where "
        "ELMo goes: what characters learned on more text buy. *+ ELMo*: the scalar mix of all "
        "the biLM's layers (γ, softmax(w), no layer norm, λ = 0.001) added at the BiLSTM's "
        f"{_place(result, tagging=False)} for SST-5 (the reference setup) and at its "
        f"{_place(result, tagging=True)} for the taggers (the better place on dev in Table 3). "
        + _sst_training(result) + "The paper's columns: Peters et al. 2018, Table 1 (SST-5: "
        "BCN; NER: CoNLL-2003, not WNUT-17), and TagLM (Peters et al. 2017) for CoNLL-2000 "
        "chunking. Its baselines are stronger than ours ("
        + ", ".join(f"{TASKS[t].column} {paper[t]['baseline']:.1f} against "
                    f"{r.arms['baseline'].mean:.1f} here" for t, r in result.tasks.items()
                    if t in paper and TASKS[t].metric == "F1")
        + "), so neither a gain in points nor a share of errors removed compares with the "
        "paper's.", ""]
    return "\n".join(lines)


def _context(result: TaskReport) -> list[str]:
    """The headline: what the biLM's context adds beyond its context-free layer 0, the
    control with the same inputs and the same width."""
    parts = [f"{TASKS[t].title} {ci(r.differences.elmo_vs_layer0)} "
             f"({_word(r.differences.elmo_vs_layer0)})"
             for t, r in result.tasks.items() if r.differences.elmo_vs_layer0]
    if not parts:
        return []
    return ["**What context adds**, + ELMo − (+ layer 0): the same task model with the same "
            "extra input width, the biLM's context taken away: " + "; ".join(parts) + ".", ""]


def _place(result: TaskReport, tagging: bool) -> str:
    """Where the report's taggers (or its sentence classifiers) get ELMo: "input and output"."""
    return " and ".join(next((p for t, p in result.places.items()
                              if TASKS[t].tagging == tagging), ["input"]))


def _sst_training(result: TaskReport) -> str:
    phrases = next((r for t, r in result.tasks.items() if TASKS[t].words_of), None)
    if phrases is None:
        return "SST-5 trains on its training sentences, not on their labelled phrases. "
    return (f"SST-5's second row trains as the paper's did, on every labelled phrase of the "
            f"training trees ({phrases.sizes['train']:,} distinct phrases, the sentences "
            "among them), and is scored on the same test sentences. ")


def _variants(result: TaskReport, key: str, names: dict, title: str, against: str) -> list[str]:
    table = getattr(result, key)  # result.table2 or result.table3
    if not table:
        return []
    rows = []
    for v, label in names.items():
        if v in table.arms:
            diff = table.differences.get(v)
            rows.append([label, _pm(table.arms[v]), ci(diff) if diff else "–",
                         _word(diff) if diff else "–"])
    if table.sample is None:  # only the quick setting samples nothing: its subset is all
        sample = f"the quick run's {result.tasks[table.task].sizes['train']:,} training sentences"
    else:
        sample = (f"a fixed random sample of {table.sample:,} training sentences (the same "
                  "for every arm)")
    lines = [f"## {title}", "", f"{TASKS[table.task].title}, trained on {sample}, "
             f"{len(table.seeds)} seeds; differences against {against}, paired by seed.", ""]
    lines += _table(("variant", "test F1", f"− {against}", "verdict"), rows)
    paper = result.paper[key]
    cols = [v for v in names if v in next(iter(paper.values()))]
    lines += _table(("paper", *[names[v] for v in cols]),
                    [[task.upper(), *[f"{paper[task][v]:.1f}" for v in cols]] for task in paper])
    return lines


def _sample_efficiency(result: TaskReport) -> list[str]:
    rows = []
    for task, curve in result.sample_efficiency.items():
        floor = result.tasks[task].majority
        for point in curve:
            low = floor is not None and min(point.baseline.mean, point.elmo.mean) <= floor
            rows.append([TASKS[task].title, f"{100 * point.fraction:g} %",
                         f"{point.train_sentences:,}", _pm(point.baseline),
                         _pm(point.layer0) if point.layer0 else "–", _pm(point.elmo),
                         ci(point.difference), _word(point.difference)
                         + (" (at or below the majority class)" if low else ""),
                         ci(point.context_difference) if point.context_difference else "–"])
    n = len(result.fraction_seeds)
    floors = [TASKS[t].title for t in result.sample_efficiency
              if result.tasks[t].majority is not None]
    dashed = (f" The dashed line in the panel of {', '.join(floors)} is the majority class."
              if floors else "")
    return ([f"## Figure 1: how much labelled data (test score, mean ± std over seeds: {n} "
             f"below 100 %, {len(result.seeds)} at 100 %)", "",
             f"![sample efficiency]({FIGURES['sample_efficiency']})", ""]
            + _table(("task", "training data", "sentences", "baseline", "+ layer 0",
                      "+ ELMo", "ELMo − baseline", "verdict", "ELMo − layer 0"), rows)
            + ["Below 100 % each seed trains on another random part of the training set (the "
               "same part for both arms), so the spread there includes the choice of "
               f"sentences; the differences stay paired.{dashed}", ""])


def _curves_and_weights(result: TaskReport) -> list[str]:
    rows = [[TASKS[task].title, place, *[f"{x:.2f}" for x in w]]
            for task, places in result.weights.items() for place, w in places.items()]
    width = max(len(r) for r in rows) - 2 if rows else 0
    return (["## Learning curves (dev score after every epoch, mean over seeds)", "",
             f"![learning curves]({FIGURES['curves']})", "",
             f"Each curve ends where its runs stopped (a run stops "
             f"{result.protocol.patience} epochs after its best).", "",
             "## Figure 2: the learned layer weights softmax(w), mean over seeds", "",
             f"![layer weights]({FIGURES['weights']})", ""]
            + _table(("task", "place", *[f"layer {j}" for j in range(width)]), rows))


def _quality(result: TaskReport) -> list[str]:
    points = [q for q in result.quality if q.perplexity is not None]
    if not points:
        return []
    quality_tasks = [t for t, task in TASKS.items() if task.quality]
    rows = [[result.model if q.bilm == "main" and result.model else q.bilm,
             f"{q.perplexity:.1f}",
             *[f"{ci(q.gains[t])} ({_word(q.gains[t])})" if t in q.gains else "–"
               for t in quality_tasks]]
            for q in sorted(points, key=lambda q: -q.perplexity)]
    return (["## What the biLM's quality buys", "",
             f"![quality]({FIGURES['quality']})", "",
             "The gain of + ELMo over the same baseline (chunking on the training sample of "
             "Table 2, NER on its whole training set), for biLMs of one architecture trained on "
             "one corpus for more or fewer words, against each biLM's perplexity on the first "
             "2,000 test sentences of that corpus.", ""]
            + _table(("biLM", "test perplexity",
                      *[f"{TASKS[t].column} gain" for t in quality_tasks]), rows))


def _discussion(result: TaskReport) -> list[str]:
    lines = ["## Table 1's verdicts, from their intervals", ""]
    for task, r in result.tasks.items():
        d = r.differences
        line = f"- {TASKS[task].title}: "
        if d.elmo_vs_layer0 is not None:
            line += (f"what context adds, + ELMo − (+ layer 0), {ci(d.elmo_vs_layer0)}: "
                     f"{_word(d.elmo_vs_layer0)}; + layer 0 alone − baseline "
                     f"{ci(d.layer0_vs_baseline)}: {_word(d.layer0_vs_baseline)}; ")
        line += f"+ ELMo − baseline {ci(d.elmo_vs_baseline)}: {_word(d.elmo_vs_baseline)}"
        lines.append(line + ".")
    return lines + [""]


def to_markdown(result: TaskReport) -> str:
    """The report: protocol, Tables 1-3, figures, the paper's numbers, the discussion."""
    lines = [f"# What ELMo adds to a task model: {result.model or 'model'}", ""]
    if result.quick:
        lines += quick_banner("runs end at a small cap and are not comparable with "
                              "anything") + _quick_notes(result)
    lines += [*_protocol(result), table1_markdown(result)]
    lines += _variants(result, "table3", TABLE3, "Table 3: where ELMo is added (all layers, "
                       "λ = 0.001)", "input only")
    if result.place_dev:
        lines += ["The place for both taggers is chosen on dev, before Table 1's runs: mean dev "
                  "F1 " + ", ".join(f"{TABLE3[v]} {x:.2f}" for v, x in result.place_dev.items())
                  + f"; Table 1's taggers get ELMo at the {_place(result, tagging=True)}.", ""]
    lines += _variants(result, "table2", TABLE2, "Table 2: which layers, and how strongly the "
                       "mix is regularised", "all layers, λ = 0.001")
    lines += _sample_efficiency(result) + _curves_and_weights(result) + _quality(result)
    lines += _discussion(result)
    return "\n".join(lines)


def write_report(result: TaskReport, json_path=None, markdown_path=None,
                 force: bool = False) -> list[Path]:
    """Write the JSON, the markdown and (beside the markdown) the figures, atomically; a file
    that exists is kept (``overwrite.WouldOverwrite``) unless ``force``."""
    written = write_report_files(result, json_path, markdown_path, to_markdown, force)
    if markdown_path:
        written += write_figures(result, Path(markdown_path).parent, force)
    return written
