"""What each layer of a biLM knows, in one table: the analyses of notebooks 09 and 10 for any model.

Peters et al. (2018, §5.3) probe the layers of their biLM with two tasks that need different
knowledge. Word sense disambiguation (Table 5) needs the *meaning* of a word in its context,
and the top LSTM layer is best at it; part-of-speech tagging (Table 6) needs *syntax*, and the
first LSTM layer is best at it. :func:`layer_report` runs the same measurements on any model:

- WSD: 1-nearest-neighbour over sense centroids from SemCor (:mod:`elmo_tutorial.analyses.wsd`),
  F1 on Senseval-2, Senseval-3, SemEval-2007, SemEval-2013 and their concatenation ALL;
- POS: a linear probe per frozen layer (:mod:`elmo_tutorial.analyses.probes`), accuracy on the
  Penn Treebank sample (PTB tags) and UD English-EWT (UPOS);
- NER (optional): a small tagger over a learned scalar mix (:mod:`elmo_tutorial.analyses.tagger`),
  entity-level F1 on WNUT-17 against the same tagger on layer 0; and (``ner_ladder``) that
  comparison again with the task model's settings, one at a time
  (:mod:`elmo_tutorial.analyses.ner_protocols`).

The result is a :class:`~elmo_tutorial.analyses.layer_results.LayerReport` (its schema, field
by field, is in :mod:`elmo_tutorial.analyses.layer_results`; ``layers.json``, which notebooks
09-10 read, is its JSON), and :func:`to_markdown` writes it as tables with the paper's numbers
beside ours and a discussion of which trends the model reproduces, derived from the numbers:
a trend counts as reproduced only when the 95 % interval of its margin, from a paired bootstrap
over the test items (:mod:`~elmo_tutorial.analyses.layer_intervals`), excludes 0.
"""

from __future__ import annotations

from pathlib import Path

from elmo_tutorial.analyses import ner_protocols, probes, tagger, wsd
from elmo_tutorial.analyses.bootstrap import DRAWS
from elmo_tutorial.analyses.embedder import Embedder
from elmo_tutorial.analyses.layer_intervals import Z_95, item_outcomes, paired_interval
from elmo_tutorial.analyses.layer_results import (
    LayerPaper,
    LayerReport,
    NerScores,
    NerStep,
    PosScores,
    Trend,
    WsdScores,
)
from elmo_tutorial.analyses.paired import verdict
from elmo_tutorial.files.report_files import markdown_table, quick_banner, write_report_files

__all__ = ["PAPER", "layer_report", "to_markdown", "trends"]

# Peters et al. (2018): Table 5 (WSD, F1 on the framework's ALL) and Table 6 (PTB POS accuracy).
PAPER = {
    "wsd": {"ALL": {"first_sense": 65.9, "layer1": 67.4, "layer2": 69.0,
                    "cove_layer1": 59.4, "cove_layer2": 64.7}},
    "pos": {"ptb": {"layer1": 97.3, "layer2": 96.8, "cove_layer1": 93.3, "cove_layer2": 92.8}},
}
WSD_SETS = ("senseval2", "senseval3", "semeval2007", "semeval2013", "ALL")
POS_SETS = ("ptb", "upos")


# A smoke-test run on subsets (every 20th SemCor sentence, 300 sentences per POS/NER split,
# one NER seed of 2 epochs): minutes become seconds, and the numbers are not comparable with
# the paper's. The full report trains each NER tagger to convergence on dev, on 5 seeds.
QUICK = {"semcor_every": 20, "max_sentences": 300, "epochs": 2, "seeds": (0,), "converge": False}
FULL = {"semcor_every": 1, "max_sentences": None, "epochs": 30, "seeds": (0, 1, 2, 3, 4),
        "converge": True}


def layer_report(model, *, ner: bool = True, progress: bool = True, name: str = "",
                 quick: bool = False, ner_ladder: bool = False) -> LayerReport:
    """Run WSD, the POS probes and (optionally) NER on ``model``; see the module docstring.

    Args:
        model: an ``ELMo`` (see :func:`~elmo_tutorial.formats.allennlp_format.load_model`).
        ner: also train and score the WNUT-17 taggers (the slowest part).
        progress: progress bars while embedding and training.
        name: how the report names the model.
        quick: run on the subsets of ``QUICK`` (a smoke test; marked in the result).
        ner_ladder: also run :func:`~elmo_tutorial.analyses.ner_protocols.protocol_ladder`
            (40 more taggers; needs ``ner``).
    """
    if ner_ladder and not ner:
        raise ValueError("the NER ladder extends the NER section: it needs ner=True")
    embedder = Embedder(model)
    subset = QUICK if quick else FULL
    wsd_details, pos_details = {}, {}  # per-item outcomes, for the trends' intervals
    senses = {k: WsdScores.from_dict(v, f"wsd.{k}") for k, v in wsd.evaluate_all(
        embedder, progress=progress, semcor_every=subset["semcor_every"],
        details=wsd_details).items()}
    tags = {k: PosScores.from_dict(v, f"pos.{k}") for k, v in probes.evaluate_pos(
        embedder, progress=progress, max_sentences=subset["max_sentences"],
        details=pos_details).items()}
    entities = None
    if ner:
        entities = {k: NerScores.from_dict(v, f"ner.{k}") for k, v in tagger.evaluate_ner(
            embedder, progress=progress, epochs=subset["epochs"],
            max_sentences=subset["max_sentences"], seeds=subset["seeds"],
            converge=subset["converge"]).items()}
    ladder = None
    if ner_ladder:
        ladder = {k: NerStep.from_dict(v, f"ner_ladder.{k}")
                  for k, v in ner_protocols.protocol_ladder(
                      embedder, seeds=subset["seeds"], epochs=subset["epochs"],
                      max_sentences=subset["max_sentences"], progress=progress,
                      converge=subset["converge"]).items()}
    return LayerReport(model=name, quick=quick, wsd=senses, pos=tags, ner=entities,
                       ner_ladder=ladder,
                       paper=LayerPaper.from_dict(PAPER, "paper"),
                       trends=trends(senses, tags, item_outcomes(wsd_details, pos_details)))


def trends(wsd: dict[str, WsdScores], pos: dict[str, PosScores],
           outcomes: dict | None = None) -> dict[str, Trend]:
    """The paper's two layer trends, checked on a model's WSD and POS scores: what was claimed,
    by how much it holds, and whether beyond the noise of the test sample.

    Args:
        wsd, pos: the report's scores.
        outcomes: per test set (``"ALL"``, ``"ptb"``, ``"upos"``) layers 1 and 2's per-item
            counts (:func:`~elmo_tutorial.analyses.layer_intervals.item_outcomes`). The margin
            then gets its 95 % interval: the margin ± 1.96 standard errors of a paired
            bootstrap over the items (:func:`~.layer_intervals.paired_interval`), and the trend
            is reproduced when the interval's low end is above 0. A test set without outcomes
            gets no interval, and ``reproduced`` then says only that the sign is the paper's.

    >>> senses = {"ALL": WsdScores(layer0=50.0, layer1=60.0, layer2=62.5, elmo=61.0,
    ...                            first_sense=64.0)}
    >>> tags = {"ptb": PosScores(layer0=88.0, layer1=90.0, layer2=91.0, most_frequent_tag=85.0)}
    >>> r = trends(senses, tags)
    >>> r["wsd_layer2_above_layer1"].reproduced, r["pos_layer1_at_least_layer2"].reproduced
    (True, False)
    >>> r["wsd_layer2_above_layer1"].low is None       # no outcomes given: no interval
    True
    """
    outcomes = outcomes or {}
    out = {}
    wsd_all = wsd.get("ALL")
    if wsd_all:
        out["wsd_layer2_above_layer1"] = _trend(
            "word senses: layer 2 > layer 1 (paper: 69.0 vs 67.4 F1)",
            wsd_all.layer2 - wsd_all.layer1, outcomes.get("ALL"), "layer2", "layer1")
    for name in POS_SETS:
        scores = pos.get(name)
        if scores:
            key = "pos_layer1_at_least_layer2" + ("" if name == "ptb" else f"_{name}")
            out[key] = _trend(f"POS ({name}): layer 1 ≥ layer 2 (paper, PTB: 97.3 vs 96.8)",
                              scores.layer1 - scores.layer2, outcomes.get(name), "layer1",
                              "layer2", at_least=True)
    return out


def _trend(claim: str, margin: float, counts: dict | None, favoured: str, other: str,
           at_least: bool = False) -> Trend:
    """A :class:`Trend` whose margin is ``score(favoured) − score(other)`` (the paper's side is
    above 0); with ``counts`` (layer → per-item counts) its interval decides ``reproduced``.
    Without, only the sign does, as in the reports written before intervals: a margin of 0
    counts for an "at least" claim (``at_least``)."""
    if counts is None:
        return Trend(claim=claim, reproduced=margin > 0 or (at_least and margin == 0),
                     margin=round(margin, 2))
    difference, low, high = paired_interval(counts[other], counts[favoured])
    # The scores in the tables are rounded to 0.01 each: outcomes of the same run agree to that.
    if abs(difference - margin) > 0.02:
        raise ValueError(f"the per-item outcomes give a difference of {difference:+.2f} points "
                         f"but the scores {margin:+.2f} ({claim}): they come from another run")
    low, high = round(low, 2), round(high, 2)
    return Trend(claim=claim, reproduced=low > 0, margin=round(difference, 2), low=low,
                 high=high)


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
                              "ELMo"), rows)
            + ["", "ALL here is Senseval-2 + Senseval-3 + SemEval-2007 + SemEval-2013. The "
               "framework's own ALL also holds SemEval-2015, which the offline copy of the data "
               "lacks, so our ALL is not exactly the paper's test set.", ""])


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
            compared.append(f"ELMo − {label}: {d.mean:+.1f} [{d.low:+.1f}, {d.high:+.1f}]")
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


def _interval(d) -> str:
    return f"{d.mean:+.1f} [{d.low:+.1f}, {d.high:+.1f}]"


def _ladder_section(ladder: dict[str, NerStep], ner: NerScores | None) -> list[str]:
    rows = []
    for step in ladder.values():
        mean = sum(step.elmo) / len(step.elmo), sum(step.layer0) / len(step.layer0)
        rows.append([step.label, _fmt(mean[0]), _fmt(mean[1]), _interval(step.difference),
                     verdict(step.difference)])
    n = len(next(iter(ladder.values())).elmo)
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
                  "sentences as well as the seeds." if _same_runs(ladder, ner) else ""), ""])


def _same_runs(ladder: dict[str, NerStep], ner: NerScores | None) -> bool:
    first = next(iter(ladder.values()))
    return ner is not None and first.elmo == ner.runs.get("elmo") \
        and first.layer0 == ner.runs.get("layer0")


def _verdict(item: Trend) -> str:
    """What one trend's margin and interval show, as the rest of a sentence."""
    if item.low is None or item.high is None:  # a report written before intervals
        sign = ("the same sign as the paper's" if item.reproduced
                else "**the opposite sign to the paper's**")
        return (f"{sign} (difference {item.margin:+.2f} points; no interval was computed, so "
                "this does not show the difference beyond noise).")
    difference = f"difference {item.margin:+.2f} points [{item.low:+.2f}, {item.high:+.2f}]"
    if item.low > 0:
        return f"reproduced ({difference}: the whole interval is above 0)."
    if item.high < 0:
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
    if any(item.low is not None for item in result.trends.values()):
        lines += ["Each difference is in the claim's direction (positive: the paper's way), "
                  "with its 95 % interval: the difference on the whole test set ± "
                  f"{Z_95} standard errors, the standard error from {DRAWS:,} resamples of the "
                  "test items with replacement, the same resample for both layers (WSD: the "
                  "instances of ALL; POS: the sentences, each drawn sentence with all its "
                  "tokens). A trend counts as reproduced only when its whole interval is "
                  "above 0.", ""]
    for item in result.trends.values():
        lines.append(f"- {item.claim}: {_verdict(item)}")
    wsd_all = result.wsd.get("ALL")
    best = max((getattr(wsd_all, k), k) for k in ("layer1", "layer2", "elmo")) if wsd_all \
        else None
    if best and wsd_all.first_sense > best[0]:
        lines.append(f"- The WordNet first-sense baseline ({wsd_all.first_sense:.1f}) beats "
                     f"every layer (best: {best[1]}, {best[0]:.1f}); in the paper the biLM's "
                     "layers beat it (69.0 and 67.4 vs 65.9).")
    ner = (result.ner or {}).get("wnut17")
    versus = (ner.differences or {}).get("elmo_vs_layer0") if ner else None
    if versus and versus.low <= 0:
        lines.append(f"- NER: the learned mix of all layers ({ner.elmo:.1f}) does not beat "
                     f"layer 0 alone ({ner.layer0:.1f}) beyond its 95 % interval "
                     f"({versus.mean:+.1f} [{versus.low:+.1f}, {versus.high:+.1f}]). This "
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
