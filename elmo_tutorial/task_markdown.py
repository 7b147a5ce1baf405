"""The task report (:func:`~elmo_tutorial.task_report.task_report`) as markdown and figures.

Every sentence of the discussion is derived from the numbers: a difference is called a gain
only when it exceeds the spread over seeds (``|Δmean| > std_a + std_b``), and "within the
spread" otherwise.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

__all__ = ["FIGURES", "compare", "to_markdown", "write_figures", "write_report"]

FIGURES = {"sample_efficiency": "tasks_sample_efficiency.png",
           "weights": "tasks_layer_weights.png"}
NAMES = {"sst5": "SST-5 (sentiment, 5 classes)", "chunking": "CoNLL-2000 chunking",
         "ner": "WNUT-17 NER"}
VARIANT_NAMES = {"top": "top layer only", "lambda1": "all layers, λ = 1",
                 "elmo": "all layers, λ = 0.001", "input": "input only",
                 "output": "output only"}
VARIANT_NAMES_T3 = {**VARIANT_NAMES, "elmo": "input and output"}


def compare(a: dict, b: dict) -> str:
    """``"higher"``, ``"lower"`` or ``"within the spread"``: ``b`` against ``a``.

    >>> compare({"mean": 50.0, "std": 1.0}, {"mean": 53.0, "std": 1.0})
    'higher'
    >>> compare({"mean": 50.0, "std": 1.0}, {"mean": 51.0, "std": 0.5})
    'within the spread'
    """
    delta = b["mean"] - a["mean"]
    if abs(delta) <= a["std"] + b["std"]:
        return "within the spread"
    return "higher" if delta > 0 else "lower"


def _pm(x: dict) -> str:
    return f"{x['mean']:.1f} ± {x['std']:.1f}"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return lines + ["| " + " | ".join(row) + " |" for row in rows]


def _table1(result: dict) -> list[str]:
    rows, paper = [], result["paper"]["table1"]
    for task, r in result["tasks"].items():
        p = paper.get(task, {})
        paper_cell = (f"{p['baseline']:.2f} → {p['elmo']:.2f}" if p else "–")
        rows.append([NAMES[task], r["metric"], f"{r['sizes']['train']:,}", _pm(r["baseline"]),
                     _pm(r["elmo"]), f"{r['error_reduction']:+.1f} %",
                     compare(r["baseline"], r["elmo"]), paper_cell])
    return (["## Table 1: the task model without and with ELMo (test set, mean ± std over "
             f"{len(result['seeds'])} seeds)", ""]
            + _table(("task", "metric", "train sentences", "baseline", "+ ELMo",
                      "relative error reduction", "+ ELMo vs baseline", "paper"), rows)
            + ["", *_sample_note(result),
               "Baseline: frozen PPMI-SVD word vectors w_k (100 dimensions, lower-cased) learned "
               f"from `{result['corpus']}`, the biLM's own training text; for the taggers "
               "(chunking, NER), as in the paper's tagging baselines, each token is x_k = "
               "[w_k; c_k], with c_k from a character CNN trained with the tagger (16-dimensional "
               f"characters, case kept, {result.get('char_filters', 40)} filters of width 3, "
               "max-pooled over the token); the "
               "SST-5 classifier, like the paper's BCN, reads word vectors only. Then dropout → "
               "BiLSTM (64 cells per direction) → a softmax per token (chunking, NER) or over "
               "the mean and maximum of the states (SST-5); Adam, the best dev epoch of at most "
               f"{result['epochs']} kept. + ELMo: the same model, the same x_k, with the frozen "
               "biLM's layers mixed by a learned scalar mix (layer norm, γ) and concatenated at "
               "the BiLSTM's input ([x_k; ELMo_k]) and output, each with its own mix, dropout "
               "0.5 on ELMo, λ = 0.001. "
               "The paper's columns: Peters et al. 2018, Table 1 (SST-5: BCN with GloVe + CoVe; "
               "NER: CoNLL-2003, not WNUT-17), and TagLM (Peters et al. 2017) for CoNLL-2000 "
               "chunking.", ""])


def _sample_note(result: dict) -> list[str]:
    if not result.get("max_train"):
        return []
    return [f"Every model trains on the same fixed random sample of {result['max_train']:,} "
            "training sentences per task (so that the whole report runs in under 20 minutes "
            "on a 2-core CPU); dev and test sets are whole. With little labelled data ELMo "
            "helps most (Figure 1), so gains on the full training sets would be smaller.", ""]


def _variants(result: dict, key: str, names: dict, title: str) -> list[str]:
    table = result[key]
    ours = [f"{NAMES[table['task']]} (ours)"] + [_pm(table[v]) for v in names]
    rows = [ours] + [[f"{task.upper()} (paper)"] + [f"{s[v]:.1f}" for v in names]
                     for task, s in result["paper"][key].items()]
    return [f"## {title}", ""] + _table(("task", *names.values()), rows) + [""]


def _sample_efficiency(result: dict) -> list[str]:
    rows = []
    for task, curve in result["sample_efficiency"].items():
        for point in curve:
            b = {"mean": point["baseline"], "std": point["baseline_std"]}
            e = {"mean": point["elmo"], "std": point["elmo_std"]}
            rows.append([NAMES[task], f"{100 * point['fraction']:g} %", _pm(b), _pm(e),
                         f"{e['mean'] - b['mean']:+.1f}", compare(b, e)])
    return (["## Figure 1: sample efficiency (test score, mean ± std over seeds)", "",
             f"![sample efficiency]({FIGURES['sample_efficiency']})", ""]
            + _table(("task", "training data", "baseline", "+ ELMo", "difference",
                      "+ ELMo vs baseline"), rows)
            + ["", "A fraction below 100 % trains on a random part of the training set above "
               "(a different part per seed, the same for both models), with batches of 8 (and, "
               "below 5 %, up to three times the epochs).", ""])


def _weights(result: dict) -> list[str]:
    rows = [[NAMES[t], place] + [f"{s:.2f}" for s in w[place]]
            for t, w in result["weights"].items() for place in ("input", "output")]
    n = max(len(w["input"]) for w in result["weights"].values())
    return (["## Figure 2: the learned layer weights softmax(w), mean over seeds", "",
             f"![layer weights]({FIGURES['weights']})", ""]
            + _table(("task", "place", *(f"layer {j}" for j in range(n))), rows) + [""])


def _discussion(result: dict) -> list[str]:
    lines = ["## What this biLM reproduces", ""]
    for task, r in result["tasks"].items():
        verdict = compare(r["baseline"], r["elmo"])
        said = {"higher": "improves", "lower": "hurts",
                "within the spread": "changes nothing beyond the seed spread on"}[verdict]
        lines.append(f"- Table 1, {NAMES[task]}: ELMo {said} the baseline "
                     f"({_pm(r['baseline'])} → {_pm(r['elmo'])}; paper: gains on every task).")
    t2 = result["table2"]
    lines.append(f"- Table 2 ({NAMES[t2['task']]}): all layers with λ = 0.001 vs the top layer "
                 f"alone: {compare(t2['top'], t2['elmo'])}; λ = 0.001 vs λ = 1: "
                 f"{compare(t2['lambda1'], t2['elmo'])} (paper: all layers > top layer, and "
                 "a small λ ≥ a large one).")
    t3 = result["table3"]
    lines.append(f"- Table 3 ({NAMES[t3['task']]}): input and output vs input only: "
                 f"{compare(t3['input'], t3['elmo'])}; output only vs input only: "
                 f"{compare(t3['input'], t3['output'])} (paper: where ELMo goes depends on the "
                 "task; output only is never best).")
    for task, curve in result["sample_efficiency"].items():
        small, full = curve[0], curve[-1]
        gain = small["elmo"] - small["baseline"]
        lines.append(f"- Figure 1, {NAMES[task]}: the gain is {gain:+.1f}"
                     f" points with {100 * small['fraction']:g} % of the training data and "
                     f"{full['elmo'] - full['baseline']:+.1f} with all of it.")
    lines += _training_time(result)
    lines += ["", "Why a smaller biLM reproduces some findings and not others: the paper's biLM "
              "has 4096-cell LSTMs and read about 800 million words for 10 epochs. A biLM with "
              "fewer cells, trained briefly on a few million words, has learned less from "
              "context: it helps a task only where it knows more than the baseline's own "
              "inputs." + _most_helped(result)]
    weights = [s for w in result["weights"].values() for place in w.values() for s in place]
    if weights and max(abs(s - 1 / len(place)) for w in result["weights"].values()
                       for place in w.values() for s in place) < 0.1:
        lines[-1] += (" Its learned layer weights stay within 0.1 of uniform, so a large λ, "
                      "which holds them there, changes little.")
    return lines + [""]


def _most_helped(result: dict) -> str:
    """Where ELMo removes the largest share of the baseline's errors, and where it does not help."""
    tasks = result["tasks"]
    best = max(tasks, key=lambda t: tasks[t]["error_reduction"])
    text = ""
    if compare(tasks[best]["baseline"], tasks[best]["elmo"]) == "higher":
        text = (f" Here it removes the largest share of the baseline's errors on {NAMES[best]} "
                f"({tasks[best]['error_reduction']:.0f} %)")
    unhelped = [NAMES[t] for t, r in tasks.items() if compare(r["baseline"], r["elmo"]) != "higher"]
    if unhelped:
        text += ("; it does not help " if text else " It does not help ") + ", ".join(unhelped)
    return text + "." if text else ""


def _training_time(result: dict) -> list[str]:
    """What the epoch limit means: runs still improving on dev, and the NER baseline."""
    lines, tasks = [], result["tasks"]
    learning = {t: r["still_learning"] for t, r in tasks.items() if "still_learning" in r}
    k = len(result["seeds"])
    busy = [f"{NAMES[t]}, {n['baseline']} of {k} baseline and {n['elmo']} of {k} + ELMo runs"
            for t, n in learning.items() if n["baseline"] + n["elmo"]]
    if busy:
        lines.append(f"- The best dev epoch was the last one allowed ({result['epochs']}) in "
                     + "; ".join(busy) + ". Those models were still improving when training "
                     "stopped: Table 1 compares the two models after the same number of epochs, "
                     "not each at its best.")
    ner = tasks.get("ner")
    if ner and ner["baseline"]["mean"] < 10:
        lines.append(f"- The NER baseline finds few entities ({ner['baseline']['mean']:.1f} F1) "
                     "although its character CNN sees capitals and spelling: entities are rare "
                     "in WNUT-17's tweets and most of them are unseen words. Both models read "
                     "characters, so what ELMo adds here is what the pre-trained biLM knows "
                     f"beyond a character CNN trained on {ner['sizes']['train']:,} tweets: its "
                     "character layer, trained on far more text, and its context layers.")
    return lines


def to_markdown(result: dict) -> str:
    """The report: Tables 1-3 and Figures 1-2 with the paper's numbers, then the discussion."""
    lines = [f"# What ELMo adds to a task model: {result.get('model') or 'model'}", ""]
    if result.get("quick"):
        lines += ["**Quick run on subsets (`--quick`): a smoke test, not comparable with the "
                  "paper's numbers.**", ""]
    lines += _table1(result)
    lines += _variants(result, "table2", {k: VARIANT_NAMES[k] for k in ("top", "lambda1", "elmo")},
                       "Table 2: which layers, and how strongly the mix is regularised "
                       "(ELMo at the input and output)")
    lines += _variants(result, "table3", {k: VARIANT_NAMES_T3[k] for k in ("input", "elmo",
                                                                           "output")},
                       "Table 3: where ELMo is added (all layers, λ = 0.001)")
    lines += _sample_efficiency(result) + _weights(result) + _discussion(result)
    return "\n".join(lines)


def write_figures(result: dict, folder: str | Path, force: bool = True) -> list[Path]:
    """Figure 1 (score vs training fraction per task) and Figure 2 (layer weights heat map),
    written atomically; unless ``force``, existing figures are refused (``WouldOverwrite``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    folder = Path(folder)
    tasks = list(result["sample_efficiency"])
    fig, axes = plt.subplots(1, len(tasks), figsize=(3.2 * len(tasks), 2.8), squeeze=False)
    for ax, task in zip(axes[0], tasks, strict=True):
        curve = result["sample_efficiency"][task]
        x = [100 * p["fraction"] for p in curve]
        for key, label in (("baseline", "baseline"), ("elmo", "+ ELMo")):
            ax.errorbar(x, [p[key] for p in curve], yerr=[p[f"{key}_std"] for p in curve],
                        marker="o", capsize=3, label=label)
        ax.set(xscale="log", xlabel="% of training data", title=NAMES[task],
               ylabel=result["tasks"][task]["metric"])
    axes[0][0].legend()
    fig.tight_layout()
    paths = [folder / FIGURES["sample_efficiency"], folder / FIGURES["weights"]]
    _save(fig, paths[0], force)
    rows = [(f"{t} {place}", w[place]) for t, w in result["weights"].items()
            for place in ("input", "output")]
    fig, ax = plt.subplots(figsize=(3.6, 0.4 * len(rows) + 1))
    image = ax.imshow([r[1] for r in rows], cmap="Blues", vmin=0, vmax=1)
    ax.set(yticks=range(len(rows)), yticklabels=[r[0] for r in rows], xlabel="biLM layer",
           xticks=range(len(rows[0][1])), title="softmax(w)")
    fig.colorbar(image, ax=ax)
    fig.tight_layout()
    _save(fig, paths[1], force)
    return paths


def _save(fig, path: Path, force: bool) -> None:
    import matplotlib.pyplot as plt

    from .overwrite import write_new_file

    try:
        write_new_file(path, lambda tmp: fig.savefig(tmp, dpi=80, format="png"), force)
    finally:
        plt.close(fig)


def write_report(result: dict, json_path=None, markdown_path=None,
                 force: bool = False) -> list[Path]:
    """Write the JSON, the markdown and (beside the markdown) the figures, atomically.

    Raises:
        overwrite.WouldOverwrite: a file exists and ``force`` is False (it is kept).
    """
    from .overwrite import write_new_file

    def text_writer(text: str):
        return lambda tmp: Path(tmp).write_text(text, encoding="utf-8", newline="\n")

    written = []
    if json_path:
        written.append(write_new_file(json_path, text_writer(json.dumps(result, indent=2) + "\n"),
                                      force))
    if markdown_path:
        written.append(write_new_file(markdown_path, text_writer(to_markdown(result) + "\n"),
                                      force))
        written += write_figures(result, Path(markdown_path).parent, force)
    return written
