"""What each layer of a biLM knows, in one table: the analyses of notebooks 09 and 10 for any model.

Peters et al. (2018, §5.3): word sense disambiguation (Table 5, best on the top LSTM layer) and
part-of-speech tagging (Table 6, best on the first). :func:`layer_report` measures WSD
(:mod:`.wsd`, F1 on the four test sets and their union ALL), POS (:mod:`.probes`, PTB tags and
UD English-EWT UPOS) and optionally NER (:mod:`.tagger`, WNUT-17, and ``ner_ladder``:
:func:`.tagger.protocol_ladder`). ``layers.json`` is the :class:`LayerReport`'s ``to_json()``;
:func:`~elmo_tutorial.analyses.layer_markdown.to_markdown` writes it as ``LAYERS.md``.

A trend counts as reproduced only when the 95 % interval of its margin lies above 0: a paired
bootstrap over the test items (:func:`~elmo_tutorial.analyses.paired.paired_interval`), each
``[correct, predicted, gold]``. For WSD the items are the instances of ALL; for POS the test
*sentences* (one odd sentence makes several errors: its tokens are not independent). An
interval covers the test items, not the probe's settings, and a probe trend's sign can follow
the regularisation or the tag set: so the probe is also run at each of
:data:`.probes.PROBE_SETTINGS`, and a POS trend counts as reproduced only when its interval is
above 0 at every setting of its data.

Example:
    >>> report = LayerReport.read("data/models/small/layers.json")
    >>> report.wsd["ALL"].layer2 > report.wsd["ALL"].layer1, report.ner["wnut17"].seeds
    (True, [0, 1, 2, 3, 4])
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from elmo_tutorial.analyses import probes, tagger, wsd
from elmo_tutorial.analyses.embedder import Embedder
from elmo_tutorial.analyses.paired import PairedDifference, paired_interval
from elmo_tutorial.files.overwrite import write_new_file
from elmo_tutorial.files.records import Record, optional

__all__ = ["PAPER", "LayerReport", "Margin", "ProbeSetting", "item_outcomes", "layer_report",
           "outcomes_path", "pos_sentence_counts", "pos_trend_key", "read_outcomes", "trends",
           "write_outcomes", "wsd_instance_counts"]


@dataclass(frozen=True)
class WsdScores(Record):
    """F1 of 1-nearest-neighbour sense centroids on one test set (:mod:`.wsd`)."""

    layer0: float  # the biLM's context-free token layer
    layer1: float  # the first LSTM layer
    layer2: float  # the second (top) LSTM layer
    elmo: float  # the model's scalar mix as loaded (untrained: the uniform mix, s_j = 1/3)
    first_sense: float  # always WordNet's first sense: the baseline to beat


@dataclass(frozen=True)
class PosScores(Record):
    """Accuracy of a linear probe on one frozen layer (:mod:`.probes`)."""

    layer0: float
    layer1: float
    layer2: float
    most_frequent_tag: float  # each word's commonest training tag: the floor


@dataclass(frozen=True)
class Margin(Record):
    """One representation's score minus another's on the same test items, and its 95 % interval
    (:func:`~elmo_tutorial.analyses.paired.paired_interval`), in points."""

    margin: float
    low: float
    high: float


@dataclass(frozen=True)
class ProbeSetting(Record):
    """The POS probe of one setting (:data:`.probes.PROBE_SETTINGS`, or Table 6's)."""

    data: str  # "ptb" or "upos"
    l2: float  # the weight of (l2 / 2) ‖W‖² in the probe's loss
    train_sentences: int  # the training sentences it learned from
    layer0: float  # test accuracy (%) of the probe on each layer
    layer1: float
    layer2: float
    layer1_minus_layer2: Margin  # the paper's POS trend at this setting


@dataclass(frozen=True)
class TaggerScores(Record):
    """Entity-level scores of one tagger on the first seed (:func:`.spans.entity_scores`)."""

    precision: float
    recall: float
    f1: float
    correct: int  # predicted entities with the gold span and type
    gold: int  # entities in the test set
    predicted: int  # entities the tagger predicted
    last_epoch: int  # the epoch training stopped after
    best_epoch: int  # the epoch with the best dev F1 (the one scored)


@dataclass(frozen=True, kw_only=True)
class NerScores(Record):
    """WNUT-17 taggers over several seeds (:func:`.tagger.evaluate_ner`)."""

    runs: dict[str, list[float]]  # "elmo", "layer0", "word_type" → F1 per seed
    seeds: list[int]
    s: list[float]  # softmax(w) of the first seed's ELMo tagger
    gamma: float  # its γ
    elmo: float  # mean F1 over seeds: the learned mix of all layers
    layer0: float  # ... layer 0 alone
    word_type: float  # ... word-type vectors learned on WNUT-17 alone
    std: dict[str, float]  # each input's sample standard deviation over seeds
    # "elmo_vs_layer0", "elmo_vs_word_type": paired by seed (None with a single seed)
    differences: dict[str, PairedDifference] | None = optional()
    scores: dict[str, TaggerScores]  # each input's first seed, in detail


@dataclass(frozen=True)
class NerSettings(Record):
    """How one step of the NER ladder trains its taggers (:func:`.tagger.protocol_ladder`)."""

    dropout: float  # on the LSTM's input and output
    lr: float  # Adam's learning rate
    batch_size: int
    lr_patience: int | None  # halve the rate after this many epochs without a better dev F1
    min_updates: int  # never stop for patience before this many updates
    layer_norm: bool  # layer-normalise the biLM's layers inside the scalar mix


@dataclass(frozen=True)
class NerStep(Record):
    """One step of :func:`.tagger.protocol_ladder`: the mix against layer 0 alone."""

    label: str  # what this step changed, in words
    settings: NerSettings  # every setting the step trained with (the steps before it included)
    elmo: list[float]  # test F1 per seed: the learned mix of all layers
    layer0: list[float]  # ... layer 0 alone
    difference: PairedDifference  # elmo − layer0, the interval over seeds and test sentences


@dataclass(frozen=True)
class Trend(Record):
    """One of the paper's layer trends, checked on this model's numbers (see the module)."""

    claim: str  # what the paper found, in words
    # "reproduced" (the interval above 0), "not established" (a probe's trend above 0 at one
    # probe setting), "opposite" (the interval below 0) or "within noise" (it holds 0)
    verdict: str
    margin: float  # by how many points, in the claim's direction (negative: the other way)
    low: float  # the margin's 95 % interval
    high: float


@dataclass(frozen=True)
class LayerPaper(Record):
    """Peters et al. (2018) Table 5 (WSD F1 on ALL) and Table 6 (PTB POS accuracy)."""

    wsd: dict[str, dict[str, float]]  # test set → representation → F1 (CoVe's too)
    pos: dict[str, dict[str, float]]  # data → layer → accuracy


@dataclass(frozen=True, kw_only=True)
class LayerReport(Record):
    """The whole layer report (see the module docstring); fields in the JSON's order."""

    model: str  # how the report names the model
    quick: bool  # a smoke test on subsets
    wsd: dict[str, WsdScores]  # "senseval2", "senseval3", "semeval2007", "semeval2013", "ALL"
    # on ALL, the first sense's F1 minus each representation's: "layer0", ..., "elmo"
    first_sense: dict[str, Margin] | None = optional()
    pos: dict[str, PosScores]  # "ptb" (PTB tags), "upos" (UD English-EWT)
    # "ptb" and "upos" (the probes of ``pos``), then each of .probes.PROBE_SETTINGS
    pos_settings: dict[str, ProbeSetting] | None = optional()
    ner: dict[str, NerScores] | None = optional()  # "wnut17" (None: run with --no-ner)
    # the NER tagger moved to the task model's settings (None: run without --ner-ladder)
    ner_ladder: dict[str, NerStep] | None = optional()
    paper: LayerPaper
    trends: dict[str, Trend]  # "wsd_layer2_above_layer1", "pos_layer1_at_least_layer2", ...


# Peters et al. (2018): Table 5 (WSD, F1 on the framework's ALL) and Table 6 (PTB POS accuracy).
PAPER = {"wsd": {"ALL": wsd.PAPER_ALL},
         "pos": {"ptb": {**probes.PAPER_PTB, "cove_layer1": 93.3, "cove_layer2": 92.8}}}
WSD_SETS = ("senseval2", "senseval3", "semeval2007", "semeval2013", "ALL")
POS_SETS = ("ptb", "upos")
LAYERS = ("layer1", "layer2")  # the two layers the paper's trends compare


# A smoke test on subsets: minutes become seconds, the numbers not comparable with the paper's.
QUICK = {"semcor_every": 20, "max_sentences": 300, "epochs": 2, "seeds": (0,), "converge": False}
FULL = {"semcor_every": 1, "max_sentences": None, "epochs": 30, "seeds": (0, 1, 2, 3, 4),
        "converge": True}


def layer_report(model, *, ner: bool = True, progress: bool = True, name: str = "",
                 quick: bool = False, ner_ladder: bool = False,
                 outcomes: dict | None = None) -> LayerReport:
    """Run WSD, the POS probes and (optionally) NER on ``model``, an ``ELMo``.

    ``ner``: train and score the WNUT-17 taggers (the slowest part); ``quick``: the subsets of
    ``QUICK`` (a smoke test); ``ner_ladder``: also :func:`.tagger.protocol_ladder` (40 more
    taggers); ``outcomes``, if given, receives every representation's per-item counts
    (:func:`item_outcomes`), from which anyone recomputes the trends' intervals.
    """
    embedder = Embedder(model)
    subset = QUICK if quick else FULL
    training = {k: subset[k] for k in ("epochs", "max_sentences", "seeds", "converge")}
    wsd_details, pos_details = {}, {}  # per-item outcomes, for the trends' intervals
    senses = wsd.evaluate_all(embedder, progress=progress, details=wsd_details,
                              semcor_every=subset["semcor_every"])
    tags = probes.evaluate_pos(embedder, progress=progress, details=pos_details,
                               max_sentences=subset["max_sentences"])
    tags_elsewhere = probes.probe_settings(embedder, progress, subset["max_sentences"],
                                           pos_details)
    counts = item_outcomes(wsd_details, pos_details)
    if outcomes is not None:
        outcomes.update(counts)
    first = {rep: _margin(counts["ALL"]["first_sense"], counts["ALL"][rep])
             for rep in wsd.REPRESENTATIONS}
    every = {**{d: (d, probes.L2, None) for d in tags}, **probes.PROBE_SETTINGS}
    accuracy = {**tags, **tags_elsewhere}
    settings = {  # Table 6's probe of each data set, then its other settings
        key: ProbeSetting(
            data=data, l2=l2, train_sentences=pos_details[key]["train_sentences"],
            **{f"layer{j}": accuracy[key][f"layer{j}"] for j in range(3)},
            layer1_minus_layer2=_margin(counts[key]["layer1"], counts[key]["layer2"]))
        for name in tags for key, (data, l2, _) in every.items() if data == name}
    report = LayerReport.from_dict({
        "model": name, "quick": quick, "wsd": senses,
        "first_sense": {k: v.to_dict() for k, v in first.items()}, "pos": tags,
        "pos_settings": {k: v.to_dict() for k, v in settings.items()},
        "ner": tagger.evaluate_ner(embedder, progress=progress, **training) if ner else None,
        "ner_ladder": (tagger.protocol_ladder(embedder, progress=progress, **training)
                       if ner_ladder else None),
        "paper": PAPER, "trends": {}})
    return replace(report, trends=trends(report.wsd, report.pos, counts, settings))


def trends(wsd: dict[str, WsdScores], pos: dict[str, PosScores],
           outcomes: Mapping[str, Mapping[str, np.ndarray]],
           settings: Mapping[str, ProbeSetting] | None = None) -> dict[str, Trend]:
    """The paper's two layer trends, checked on a model's WSD and POS scores.

    ``outcomes``: per test set (``"ALL"``, ``"ptb"``, ``"upos"``) layers 1 and 2's per-item
    counts (:func:`item_outcomes`), from which each margin gets its 95 % interval;
    ``settings``: the probe at other settings (a POS trend is reproduced only if its interval is
    above 0 at each of its data's; without them, never).

    >>> right = lambda n: np.array([[1, 1, 1]] * n + [[0, 1, 1]] * (1000 - n))  # of 1,000
    >>> senses = {"ALL": WsdScores(layer0=50.0, layer1=60.0, layer2=62.5, elmo=61.0,
    ...                            first_sense=64.0)}
    >>> tags = {"ptb": PosScores(layer0=88.0, layer1=90.0, layer2=91.0, most_frequent_tag=85.0)}
    >>> r = trends(senses, tags, {"ALL": {"layer1": right(600), "layer2": right(625)},
    ...                           "ptb": {"layer1": right(900), "layer2": right(910)}})
    >>> r["wsd_layer2_above_layer1"].verdict, r["pos_layer1_at_least_layer2"].verdict
    ('reproduced', 'opposite')
    """
    out = {}
    if wsd.get("ALL"):
        out["wsd_layer2_above_layer1"] = _trend(
            "word senses: layer 2 > layer 1 (paper: 69.0 vs 67.4 F1)", outcomes["ALL"],
            "layer2", "layer1")
    for name in POS_SETS:
        scores = pos.get(name)
        if scores:
            key = pos_trend_key(name)
            others = [s.layer1_minus_layer2.low for s in (settings or {}).values()
                      if s.data == name]
            out[key] = _trend(f"POS ({name}): layer 1 ≥ layer 2 (paper, PTB: 97.3 vs 96.8)",
                              outcomes[name], "layer1", "layer2",
                              everywhere=bool(others) and min(others) > 0)
    return out


def pos_trend_key(data: str) -> str:
    """The key of the POS trend on ``data`` in :func:`trends`' result."""
    return "pos_layer1_at_least_layer2" + ("" if data == "ptb" else f"_{data}")


def _margin(counts: np.ndarray, other: np.ndarray) -> Margin:
    """The score of ``(N, 3)`` ``counts`` minus that of ``other``, with its 95 % interval."""
    difference, low, high = paired_interval(other, counts)
    return Margin(margin=round(difference, 2), low=round(low, 2), high=round(high, 2))


def _trend(claim: str, counts: Mapping[str, np.ndarray], favoured: str, other: str,
           everywhere: bool | None = None) -> Trend:
    """A :class:`Trend` of margin ``score(favoured) − score(other)``; ``everywhere``, for a
    probe: whether the margin's interval is above 0 at every other probe setting too."""
    m = _margin(counts[favoured], counts[other])
    if m.low > 0:
        verdict = "not established" if everywhere is False else "reproduced"
    else:
        verdict = "opposite" if m.high < 0 else "within noise"
    return Trend(claim=claim, verdict=verdict, margin=m.margin, low=m.low, high=m.high)


def wsd_instance_counts(details: Mapping, rep: str) -> np.ndarray:
    """Per test instance of ALL, ``[right, answered, 1]``: ``(N, 3)``; ``details`` from
    :func:`.wsd.evaluate_all`, ``rep`` e.g. ``"layer2"``.

    >>> details = {"gold": {"s2": {"a": ("x",), "b": ("y", "z")}, "s3": {"c": ("x",)}},
    ...            "predictions": {"layer1": {"s2": {"a": "x", "b": "w"}, "s3": {"c": None}}}}
    >>> wsd_instance_counts(details, "layer1").tolist()
    [[1, 1, 1], [0, 1, 1], [0, 0, 1]]
    """
    predictions = details["predictions"][rep]
    rows = [[int(predictions[name].get(i) in keys), int(predictions[name].get(i) is not None), 1]
            for name, gold in details["gold"].items() for i, keys in gold.items()]
    return np.array(rows, dtype=np.int64).reshape(-1, 3)


def pos_sentence_counts(labels: np.ndarray, predicted: np.ndarray, lengths: Sequence[int]
                        ) -> np.ndarray:
    """Per test sentence, ``[right tokens, tokens, tokens]``: ``(S, 3)``, from ``(N,)`` gold
    and predicted class ids (:func:`.probes.probe_layers`' ``details``) and ``(S,)`` lengths.

    >>> pos_sentence_counts(np.array([0, 1, 2, 2, 1]), np.array([0, 1, 1, 2, 0]), [2, 3]).tolist()
    [[2, 2, 2], [1, 3, 3]]
    """
    labels, predicted = np.asarray(labels), np.asarray(predicted)
    lengths = np.asarray(lengths, dtype=np.int64)
    # right tokens up to each sentence boundary: a sentence's count is the step between two
    right_so_far = np.concatenate([[0], np.cumsum(labels == predicted)])  # (N + 1,)
    ends = np.cumsum(lengths)  # (S,)
    right = right_so_far[ends] - right_so_far[ends - lengths]
    return np.stack([right, lengths, lengths], axis=1)


def item_outcomes(wsd_details: Mapping, pos_details: Mapping) -> dict[str, dict[str, np.ndarray]]:
    """``{"ALL": {rep: (N, 3)}, "ptb": {rep: (S, 3)}, "upos": {...}}`` from the ``details`` of
    :func:`.wsd.evaluate_all` and :func:`.probes.evaluate_pos`: for WSD every representation
    (``layer0``-``layer2``, ``elmo``, ``first_sense``), for POS every layer."""
    out = {"ALL": {rep: wsd_instance_counts(wsd_details, rep)
                   for rep in wsd_details["predictions"]}}
    for name, tokens in pos_details.items():
        out[name] = {rep: pos_sentence_counts(tokens["labels"], predicted, tokens["lengths"])
                     for rep, predicted in tokens["predicted"].items()}
    return out


OUTCOMES_ABOUT = ("Per test item, [right, predicted, gold] for each representation: the "
                  "instances of WSD's ALL (in the order of its test sets and their files) and "
                  "the test sentences of each POS probe (layers.json's pos_settings). A score "
                  "is 100 * 2 * right / (predicted + gold) summed over the items; an interval "
                  "is elmo_tutorial.analyses.paired.paired_interval of two representations' "
                  "rows.")


def outcomes_path(json_path: str | Path) -> Path:
    """Where the per-item outcomes go beside a report's JSON: ``layers.json`` →
    ``layers_outcomes.json``."""
    path = Path(json_path)
    return path.with_name(f"{path.stem}_outcomes.json")


def write_outcomes(path: str | Path, outcomes: Mapping[str, Mapping[str, np.ndarray]],
                   force: bool = False) -> Path:
    """Write :func:`item_outcomes` as JSON, one representation to a line."""
    def rows(reps: Mapping[str, np.ndarray]) -> str:
        return ",\n".join(f'  "{rep}": {json.dumps(np.asarray(c).tolist(), separators=(",", ":"))}'
                          for rep, c in reps.items())

    body = ",\n".join([f' "about": {json.dumps(OUTCOMES_ABOUT)}',
                       *(f' "{name}": {{\n{rows(reps)}\n }}' for name, reps in outcomes.items())])
    text = "{\n" + body + "\n}\n"
    return write_new_file(path, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"), force)


def read_outcomes(path: str | Path) -> dict[str, dict[str, np.ndarray]]:
    """The per-item outcomes that :func:`write_outcomes` wrote: ``{set: {rep: (N, 3)}}``."""
    payload = json.loads(Path(path).read_text(encoding="utf-8"))
    return {name: {rep: np.asarray(rows, dtype=np.int64).reshape(-1, 3)
                   for rep, rows in reps.items()}
            for name, reps in payload.items() if name != "about"}
