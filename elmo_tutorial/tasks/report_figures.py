"""The task report's figures (:data:`FIGURES`), no wider than 10 inches, no text under 10 points.

- ``sample_efficiency``: test score against the share of training data, per arm, mean ± std
  over seeds; the majority class as a dashed line, points at or below it hollow.
- ``curves``: dev score after every epoch, mean over the seeds still training.
- ``weights``: the learned softmax(w) as bars around the uniform weight 1/(L + 1).
- ``quality`` (with quality biLMs): the gain of + ELMo, with its 95 % interval, against each
  biLM's held-out perplexity.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from elmo_tutorial.files.overwrite import write_new_file
from elmo_tutorial.tasks.registry import TASKS
from elmo_tutorial.tasks.results import TaskReport

__all__ = ["FIGURES", "draw", "write_figures"]

FIGURES = {"sample_efficiency": "tasks_sample_efficiency.png",
           "curves": "tasks_learning_curves.png", "weights": "tasks_layer_weights.png",
           "quality": "tasks_bilm_quality.png"}
ARMS = {"baseline": ("baseline", "#8ecae6"), "layer0": ("+ layer 0", "#fb8500"),
        "elmo": ("+ ELMo", "#023047")}  # Table 1's arms: their label (the markdown's too), color


def _panels(plt, n: int, width: float, height: float, **kwargs):
    """A figure of ``n`` panels no wider than 10 inches at ``width`` inches a panel (readable on a
    slide): one row of up to three, else rows of half of them; its axes, in reading order."""
    columns = n if n <= 3 else (n + 1) // 2
    rows = (n + columns - 1) // columns
    fig, axes = plt.subplots(rows, columns, figsize=(min(width * columns, 10), height * rows),
                             squeeze=False, **kwargs)
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    return fig, list(axes.flat[:n])


def _sample_efficiency(result: TaskReport, plt, arms: Sequence[str] | None = None):
    tasks = list(result.sample_efficiency)
    fig, axes = plt.subplots(1, len(tasks), figsize=(3.3 * len(tasks), 3.4), squeeze=False)
    for ax, task in zip(axes[0], tasks, strict=True):
        curve = result.sample_efficiency[task]
        x = [100 * p.fraction for p in curve]
        floor = result.tasks[task].majority
        shown = ("baseline", "layer0", "elmo") if all(p.layer0 for p in curve) else (
            "baseline", "elmo")
        for arm in (a for a in shown if arms is None or a in arms):
            label, color = ARMS[arm]
            spreads = [getattr(p, arm) for p in curve]  # p.baseline, p.layer0 or p.elmo
            y = [s.mean for s in spreads]
            ax.errorbar(x, y, yerr=[s.std for s in spreads], color=color, marker="o",
                        capsize=3, label=label)
            if floor is not None:
                low = [(a, b) for a, b in zip(x, y, strict=True) if b <= floor]
                if low:
                    ax.plot(*zip(*low, strict=True), "o", markerfacecolor="white",
                            markeredgecolor=color, zorder=3)
        if floor is not None:
            ax.axhline(floor, color="grey", linestyle="--", linewidth=1)
            ax.annotate("majority class", (x[-1], floor), textcoords="offset points",
                        xytext=(0, -4), ha="right", va="top", fontsize=10, color="grey")
        ax.set_xscale("log")
        ax.set_xticks(x, [f"{v:g} %" for v in x])
        ax.set(xlabel="training data", title=TASKS[task].panel, ylabel=result.tasks[task].metric)
    axes[0][0].legend(fontsize=10)
    return fig


def _curves(result: TaskReport, plt):
    tasks = list(result.tasks)
    fig, axes = _panels(plt, len(tasks), 3.3, 3.4)
    for ax, task in zip(axes, tasks, strict=True):
        entry = result.tasks[task]
        per_round = entry.epochs_per_round
        for arm, runs in entry.curves.items():
            label, color = ARMS[arm]
            longest = max(len(r) for r in runs)
            mean = [np.mean([r[i] for r in runs if len(r) > i]) for i in range(longest)]
            ax.plot(per_round * np.arange(1, longest + 1), mean, color=color, label=label)
            for r in runs:  # where each seed's best epoch was
                best = int(np.argmax(r))
                ax.plot(per_round * (best + 1), r[best], ".", color=color, alpha=0.6)
        ax.set(xlabel="epoch", ylabel=f"dev {entry.metric}", title=TASKS[task].panel)
    axes[0].legend(fontsize=10)
    return fig


def _weights(result: TaskReport, plt):
    rows = [(f"{TASKS[t].panel}\n{place}", w) for t, places in result.weights.items()
            for place, w in places.items()]
    n = len(rows[0][1])
    fig, axes = _panels(plt, len(rows), 2.6, 3.4, sharey=True)
    for ax, (title, w) in zip(axes, rows, strict=True):
        deviation = np.asarray(w) - 1.0 / n
        ax.bar(range(n), deviation, bottom=1.0 / n,
               color=["#fb8500" if d > 0 else "#8ecae6" for d in deviation])
        ax.axhline(1.0 / n, color="grey", linewidth=1)
        for j, value in enumerate(w):
            ax.annotate(f"{value:.2f}", (j, value), ha="center", fontsize=10,
                        xytext=(0, 3 if value >= 1.0 / n else -12), textcoords="offset points")
        ax.set_xticks(range(n), [f"layer {j}" for j in range(n)])
        ax.set_title(title, fontsize=10)
        ax.margins(y=0.15)  # room for the labels above and below the bars
    axes[0].set_ylabel(f"softmax(w); grey: uniform 1/{n}")
    return fig


def _quality(result: TaskReport, plt):
    points = [q for q in result.quality if q.perplexity is not None]
    if not points:
        return None
    fig, ax = plt.subplots(figsize=(7, 3.6))
    tasks = [t for t, task in TASKS.items() if task.quality and any(t in q.gains for q in points)]
    for k, (task, color) in enumerate(zip(tasks, ("#023047", "#fb8500"), strict=False)):
        # in the order of the axis, so that the line joins neighbours
        have = sorted((q for q in points if task in q.gains), key=lambda q: q.perplexity)
        shift = 1.04 ** (k - (len(tasks) - 1) / 2)  # the tasks side by side, not on top
        x = [q.perplexity * shift for q in have]
        gains = [q.gains[task] for q in have]
        y = [g.mean for g in gains]
        err = [[g.mean - g.low for g in gains], [g.high - g.mean for g in gains]]
        ax.errorbar(x, y, yerr=err, marker="o", capsize=3, color=color, label=TASKS[task].panel)
    ax.axhline(0, color="grey", linewidth=1)
    ax.set_xscale("log")
    ticks = sorted(points, key=lambda q: q.perplexity)
    name = {"main": result.model or "main"}  # a biLM's folder: data/models/small → small
    short = [name.get(q.bilm, q.bilm).rstrip("/").rsplit("/", 1)[-1] for q in ticks]
    ax.set_xticks([q.perplexity for q in ticks],
                  [f"{n}\n{q.perplexity:.1f}" for n, q in zip(short, ticks, strict=True)])
    ax.minorticks_off()  # no 2×10¹-style labels between the biLMs
    ax.set_xlim(ticks[-1].perplexity * 1.6, ticks[0].perplexity / 1.6)  # better: right
    ax.set(xlabel="biLM and its held-out perplexity (lower is better →)",
           ylabel="+ ELMo − baseline (F1)")
    ax.legend(fontsize=10)
    return fig


_DRAW = {"sample_efficiency": _sample_efficiency, "curves": _curves, "weights": _weights,
         "quality": _quality}


def draw(result: TaskReport | Mapping, key: str, *, arms: Sequence[str] | None = None):
    """Figure ``key`` (one of :data:`FIGURES`) of a report's ``result`` (a
    :class:`~elmo_tutorial.tasks.results.TaskReport` or the dict of its json, as notebook 12
    reads it), or ``None`` when the report has no data for it (``quality`` without quality
    biLMs). ``arms`` draws only some of Figure 1's arms (``"baseline"``, ``"layer0"``,
    ``"elmo"``): notebook 12 shows baseline and + ELMo, 13 adds layer 0.
    """
    import matplotlib.pyplot as plt

    if key not in _DRAW:
        raise ValueError(f"key must be one of {', '.join(_DRAW)}, got {key!r}")
    if unknown := [a for a in arms or () if a not in ARMS or key != "sample_efficiency"]:
        raise ValueError(f"arms {unknown} are not lines of {key!r}; Figure 1's are "
                         f"{', '.join(ARMS)}")
    if isinstance(result, Mapping):
        result = TaskReport.from_dict(result)
    fig = _DRAW[key](result, plt, arms) if arms is not None else _DRAW[key](result, plt)
    if fig is not None:
        fig.tight_layout()
    return fig


def write_figures(result: TaskReport, folder: str | Path, force: bool = True) -> list[Path]:
    """Every figure the result has data for, written atomically beside the markdown; unless
    ``force``, existing figures are refused (``overwrite.WouldOverwrite``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    for key, drawing in _DRAW.items():
        fig = drawing(result, plt)
        if fig is None:
            continue
        fig.tight_layout()
        path = Path(folder) / FIGURES[key]
        try:
            write_new_file(path, lambda tmp, f=fig: f.savefig(tmp, dpi=100, format="png"),
                           force)
        finally:
            plt.close(fig)
        written.append(path)
    return written
