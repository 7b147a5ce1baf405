"""The layer report (:class:`~elmo_tutorial.analyses.layer_report.LayerReport`) as ``LAYERS.md``.

Every sentence of the discussion is derived from the numbers, so a report of another model says
what that model shows.
"""

from __future__ import annotations

from pathlib import Path

from elmo_tutorial.analyses.layer_report import (
    PAPER,
    POS_SETS,
    QUICK,
    WSD_SETS,
    LayerReport,
    NerScores,
    NerStep,
    PosScores,
    ProbeSetting,
    Trend,
    WsdScores,
    pos_trend_key,
)
from elmo_tutorial.analyses.paired import DRAWS, Z_95, ci, verdict
from elmo_tutorial.files.report_files import markdown_table, quick_banner, write_report_files

__all__ = ["to_markdown", "write_report"]


def _fmt(value) -> str:
    return "–" if value is None else f"{value:.1f}"


def _wsd_section(wsd: dict[str, WsdScores]) -> list[str]:
    columns = ("first_sense", "layer0", "layer1", "layer2", "elmo")
    rows = [[name] + [_fmt(getattr(wsd[name], c)) for c in columns]
            for name in WSD_SETS if name in wsd]
    paper = PAPER["wsd"]["ALL"]
    rows.append(["ALL, paper (biLM, 1B Word)"] + [_fmt(paper.get(c)) for c in columns])
    rows.append(["ALL, paper (CoVe)", "–", "–", _fmt(paper["cove_layer1"]),
                 _fmt(paper["cove_layer2"]), "–"])
    return (["## Word sense disambiguation (Table 5): F1, 1-NN on SemCor sense centroids", ""]
            + markdown_table(("test set", "WordNet 1st sense", "layer 0", "layer 1", "layer 2",
                              "uniform mix"), rows)
            + ["", "ALL here is Senseval-2 + Senseval-3 + SemEval-2007 + SemEval-2013. The "
               "framework's own ALL also holds SemEval-2015, which the offline copy of the data "
               "lacks, so our ALL is not exactly the paper's test set. The uniform mix is the "
               "model's scalar mix as loaded: a biLM fresh from pre-training has learned no "
               "weights yet, so each layer counts 1/3 (a task model learns its own).", ""])


def _pos_section(pos: dict[str, PosScores]) -> list[str]:
    columns = ("most_frequent_tag", "layer0", "layer1", "layer2")
    rows = [[name] + [_fmt(getattr(pos[name], c)) for c in columns]
            for name in POS_SETS if name in pos]
    paper = PAPER["pos"]["ptb"]
    rows.append(["ptb, paper (biLM, full PTB)", "–", "–", _fmt(paper["layer1"]),
                 _fmt(paper["layer2"])])
    rows.append(["ptb, paper (CoVe)", "–", "–", _fmt(paper["cove_layer1"]),
                 _fmt(paper["cove_layer2"])])
    return (["## Part-of-speech tagging (Table 6): accuracy of a linear probe per frozen layer", ""]
            + markdown_table(("data", "most frequent tag", "layer 0", "layer 1", "layer 2"), rows)
            + ["", "Our PTB numbers come from nltk's 10% sample of the Penn Treebank, the paper's "
               "from the full WSJ sections: compare the trend across layers, not the level.", ""])


def _settings_section(settings: dict[str, ProbeSetting]) -> list[str]:
    rows = [[s.data, f"{s.train_sentences:,}", f"{s.l2:.0e}", _fmt(s.layer0), _fmt(s.layer1),
             _fmt(s.layer2), _interval(s.layer1_minus_layer2)] for s in settings.values()]
    return (["### The same probes at other settings", "",
             "An interval covers the test sentences, not the probe's settings: the probe is "
             "trained again with weaker and stronger regularisation (l2 weighs (l2 / 2) ‖W‖² "
             "in its loss) and, as in notebooks 10 and 14, on the first 600 PTB training "
             "sentences. The first row of each data set is the table above.", ""]
            + markdown_table(("data", "training sentences", "l2", "layer 0", "layer 1",
                              "layer 2", "layer 1 − layer 2"), rows) + [""])


def _interval(m) -> str:
    """A margin and its interval, in points: ``+0.30 [+0.10, +0.50]``."""
    return f"{m.margin:+.2f} [{m.low:+.2f}, {m.high:+.2f}]"


def _over_settings(settings: list[ProbeSetting]) -> str:
    """How a POS trend fares over the probe's settings, as a sentence."""
    margins = [s.layer1_minus_layer2 for s in settings]
    ahead = sum(m.margin > 0 for m in margins)
    beyond = sum(m.low > 0 for m in margins)
    behind = sum(m.high < 0 for m in margins)
    return (f" Over the probe's {len(margins)} settings (the table of settings above) layer 1 "
            f"is ahead at {ahead}, beyond noise at {beyond}"
            + (f", and behind beyond noise at {behind}." if behind else "."))


def _ner_section(ner: dict[str, NerScores], quick: bool = False) -> list[str]:
    w = ner["wnut17"]
    few = [] if not quick else [
        f"With `--quick` the taggers learn from {QUICK['max_sentences']} sentences for "
        f"{QUICK['epochs']} epochs: too few to find WNUT-17's rare entities, so F1 near 0 "
        "(often exactly 0.0) is what to expect, for every feature set. Run without `--quick` "
        "for numbers worth comparing.", ""]
    weights = ", ".join(f"{s:.2f}" for s in w.s)
    n = len(w.seeds)

    def cell(name):  # "elmo", "layer0" or "word_type"
        value = _fmt(getattr(w, name))
        return f"{value} ± {w.std[name]:.1f}" if name in w.std and n > 1 else value

    compared = []
    for key, label in (("elmo_vs_layer0", "layer 0 alone"),
                       ("elmo_vs_word_type", "word-type vectors")):
        d = (w.differences or {}).get(key)
        if d:
            compared.append(f"ELMo − {label}: {ci(d)}")
    return ([f"## Named entities, WNUT-17: entity-level F1 (exact span and type), mean ± std "
             f"over {n} seed{'s' if n > 1 else ''}", ""]
            + markdown_table(("features", "F1"), [
                ["ELMo (learned scalar mix)", cell("elmo")],
                ["layer 0 only (character CNN)", cell("layer0")],
                ["word-type vectors learned on WNUT-17 alone", cell("word_type")]])
            + ["", "Each tagger (a BiLSTM over the features) trains until its dev F1 has not "
               "improved for 5 epochs and keeps its best epoch. "
               + ("Differences paired by seed, with their 95 % interval: "
                  + "; ".join(compared) + ". " if compared else "")
               + f"Learned mix (first seed): softmax(s) = [{weights}], "
               f"γ = {w.gamma:.2f}. The "
               "paper evaluates NER on CoNLL-2003 (92.22 F1 with ELMo), which is not freely "
               "redistributable; WNUT-17 (tweets and web text) is much harder for every model.",
               ""] + few)


def _ladder_section(ladder: dict[str, NerStep], ner: NerScores | None) -> list[str]:
    rows = []
    for step in ladder.values():
        mean = sum(step.elmo) / len(step.elmo), sum(step.layer0) / len(step.layer0)
        rows.append([step.label, _fmt(mean[0]), _fmt(mean[1]), ci(step.difference),
                     verdict(step.difference)])
    first = next(iter(ladder.values()))
    n = len(first.elmo)
    same_runs = ner is not None and first.elmo == ner.runs.get("elmo") \
        and first.layer0 == ner.runs.get("layer0")
    return (["### The same question under the task model's settings, one at a time", "",
             "The task model of `TASKS.md` answers the same question (does the mix of all layers "
             "beat layer 0 alone?) with other settings. Here the tagger above moves towards it "
             "one setting at a time; each row keeps the changes of the rows above it. Test F1, "
             f"mean over {n} seed{'s' if n > 1 else ''}; the difference's 95 % interval covers "
             "the seeds and the test sentences (the task report's intervals).", ""]
            + markdown_table(("settings", "mix of all layers", "layer 0 alone",
                              "mix − layer 0", "verdict"), rows)
            + ["", "The task model then adds inputs of its own: static word vectors and a "
               "character CNN, in both arms (`TASKS.md`, Table 1: + ELMo against + layer 0)."
               + (" The first row trains the taggers of the table above again and gets the "
                  "same scores, seed by seed; its interval is wider because it covers the test "
                  "sentences as well as the seeds." if same_runs else ""), ""])


def _verdict(item: Trend, settings: list[ProbeSetting] | None = None) -> str:
    """What one trend's margin and interval show, as the rest of a sentence; ``settings``: a
    probe trend's other settings."""
    difference = f"difference {item.margin:+.2f} points [{item.low:+.2f}, {item.high:+.2f}]"
    if item.verdict == "not established":
        why = ("it is not beyond noise at every other setting of the probe" if settings
               else "the probe's settings are not varied")
        return (f"the paper's way at Table 6's probe setting ({difference}: the whole interval "
                f"is above 0); not established, since {why}.")
    if item.verdict == "reproduced":
        return f"reproduced ({difference}: the whole interval is above 0)."
    if item.verdict == "opposite":
        return (f"**the opposite of the paper's, beyond noise** ({difference}: the whole "
                "interval is below 0).")
    sign = ("the same sign as the paper's" if item.margin > 0
            else "**the opposite sign to the paper's**" if item.margin < 0
            else "no difference between the layers")
    return f"{sign}, but the interval includes 0: not shown beyond noise ({difference})."


def _ladder_verdict(result: LayerReport) -> str:
    """What the NER ladder says about why the two taggers disagree (one sentence or two)."""
    if not result.ner_ladder:
        return "Which of those differences decides it has not been tested one at a time."
    steps = list(result.ner_ladder.values())
    shown = [step for step in steps if verdict(step.difference) != "no difference shown"]
    if shown:
        return ("Changed one at a time (the table above), the settings move it: "
                + "; ".join(f"{step.label}: {verdict(step.difference)}" for step in shown)
                + ".")
    widest = max(abs(step.difference.mean) for step in steps)
    return ("Changed one at a time (the table above), the training settings do not decide it: "
            "at every step the two are level within their intervals (no mean difference "
            f"beyond {widest:.1f} points). What the task model adds is inputs, word vectors "
            "and a character CNN of its own in both arms; with them the mix is ahead, without "
            "them it is not shown to be. Why the extra inputs make the difference was not "
            "tested.")


def _discussion(result: LayerReport) -> list[str]:
    lines = ["## The paper's trends, and what this model shows of them", ""]
    lines += ["Each difference is in the claim's direction (positive: the paper's way), "
              "with its 95 % interval: the difference on the whole test set ± "
              f"{Z_95} standard errors, the standard error from {DRAWS:,} resamples of the "
              "test items with replacement, the same resample for both layers (WSD: the "
              "instances of ALL; POS: the sentences, each drawn sentence with all its "
              "tokens). A trend counts as reproduced only when its whole interval is "
              "above 0 and, for a probe, is above 0 at every setting the probe was trained "
              "with.", ""]
    data_of = {pos_trend_key(name): name for name in POS_SETS}
    for key, item in result.trends.items():
        settings = [s for s in (result.pos_settings or {}).values() if s.data == data_of.get(key)]
        lines.append(f"- {item.claim}: {_verdict(item, settings)}"
                     + (_over_settings(settings) if settings else ""))
    wsd_all = result.wsd.get("ALL")
    names = {"layer0": "layer 0", "layer1": "layer 1", "layer2": "layer 2",
             "elmo": "the uniform mix"}
    best = max((getattr(wsd_all, k), k) for k in names) if wsd_all else None
    if best and wsd_all.first_sense > best[0]:
        margins = result.first_sense or {}
        beyond = all(m.low > 0 for m in margins.values())
        lines.append(f"- The WordNet first-sense baseline ({wsd_all.first_sense:.1f}) beats "
                     f"every layer (best: {names[best[1]]}, {best[0]:.1f})"
                     + (", each beyond noise" if margins and beyond else "")
                     + ("" if not margins else ": first sense − " + ", − ".join(
                         f"{names[k]} {_interval(m)}" for k, m in margins.items()))
                     + "; in the paper the biLM's layers beat it (69.0 and 67.4 vs 65.9).")
    ner = (result.ner or {}).get("wnut17")
    versus = (ner.differences or {}).get("elmo_vs_layer0") if ner else None
    if versus and versus.low <= 0:
        lines.append(f"- NER: the learned mix of all layers ({ner.elmo:.1f}) does not beat "
                     f"layer 0 alone ({ner.layer0:.1f}) beyond its 95 % interval "
                     f"({ci(versus)}). This "
                     "tagger reads the biLM's layers alone; the task model of `TASKS.md` adds "
                     "word vectors and a character CNN of its own and trains with other "
                     "dropout, learning rate, batch size and layer norm, and there the mix "
                     "does beat layer 0 on the same data. " + _ladder_verdict(result))
    lines += ["", "Why a small model falls short: the paper's biLM has 4096-cell LSTMs and was "
              "trained for 10 epochs on the 1B Word Benchmark (about 800 million words). A model "
              "with 512-cell LSTMs trained for minutes on a few million words of mostly edited "
              "prose has learned much less context: differences between its layers are smaller "
              "(and can flip where they are within noise), the first-sense baseline beats its "
              "sense centroids (why was not tested), and tweets (WNUT-17) are far from its "
              "training text.", ""]
    return lines


def to_markdown(result: LayerReport) -> str:
    """The report as markdown: one table per task with the paper's numbers, then the trends."""
    lines = [f"# What the layers know: {result.model or 'model'}", ""]
    if result.quick:
        lines += quick_banner("not comparable with the paper's numbers")
    lines += _wsd_section(result.wsd) + _pos_section(result.pos)
    if result.pos_settings:
        lines += _settings_section(result.pos_settings)
    if result.ner is not None:
        lines += _ner_section(result.ner, quick=result.quick)
    if result.ner_ladder:
        lines += _ladder_section(result.ner_ladder, (result.ner or {}).get("wnut17"))
    lines += _discussion(result)
    return "\n".join(lines)


def write_report(result: LayerReport, json_path: str | Path | None,
                 markdown_path: str | Path | None, force: bool = False) -> list[Path]:
    """Write the JSON and markdown files (:func:`.report_files.write_report_files`)."""
    return write_report_files(result, json_path, markdown_path, to_markdown, force)
