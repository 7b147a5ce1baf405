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
  (:func:`.tagger.protocol_ladder`).

The result is a :class:`~elmo_tutorial.analyses.layer_results.LayerReport` (its schema, field
by field, is in :mod:`elmo_tutorial.analyses.layer_results`; ``layers.json``, which notebooks
09-10 read, is its JSON), and :func:`~elmo_tutorial.analyses.layer_markdown.to_markdown`
writes it as tables with the paper's numbers beside ours and a discussion of which trends the
model reproduces, derived from the numbers.

A trend counts as reproduced only when the 95 % interval of its margin excludes 0. Both layers
are scored on the *same* test items, so another sample of test items would move both scores
together, and their difference far less than either score: the interval is a paired bootstrap
over the test items (:func:`~elmo_tutorial.analyses.paired.paired_interval`). Each item adds
``[correct, predicted, gold]`` to the sums, and the score is ``2 · correct / (predicted +
gold)``, span F1's form:

- **WSD**, on ALL: the items are the test *instances*, each ``[right, answered, 1]``: that F1
  is :func:`.wsd.score`'s (with the first-sense backoff every instance is answered, so F1 is
  the accuracy);
- **POS**: the items are the test *sentences* (the tokens of a sentence are not independent:
  one odd sentence makes several errors), each ``[right tokens, tokens, tokens]``: the formula
  then gives the token accuracy over the drawn sentences.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from elmo_tutorial.analyses import probes, tagger, wsd
from elmo_tutorial.analyses.embedder import Embedder
from elmo_tutorial.analyses.layer_results import (
    LayerPaper,
    LayerReport,
    NerScores,
    NerStep,
    PosScores,
    Trend,
    WsdScores,
)
from elmo_tutorial.analyses.paired import paired_interval

__all__ = ["PAPER", "item_outcomes", "layer_report", "pos_sentence_counts", "trends",
           "wsd_instance_counts"]

# Peters et al. (2018): Table 5 (WSD, F1 on the framework's ALL) and Table 6 (PTB POS accuracy).
PAPER = {
    "wsd": {"ALL": {"first_sense": 65.9, "layer1": 67.4, "layer2": 69.0,
                    "cove_layer1": 59.4, "cove_layer2": 64.7}},
    "pos": {"ptb": {"layer1": 97.3, "layer2": 96.8, "cove_layer1": 93.3, "cove_layer2": 92.8}},
}
WSD_SETS = ("senseval2", "senseval3", "semeval2007", "semeval2013", "ALL")
POS_SETS = ("ptb", "upos")
LAYERS = ("layer1", "layer2")  # the two layers the paper's trends compare


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
        ner_ladder: also run :func:`~elmo_tutorial.analyses.tagger.protocol_ladder`
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
                  for k, v in tagger.protocol_ladder(
                      embedder, seeds=subset["seeds"], epochs=subset["epochs"],
                      max_sentences=subset["max_sentences"], progress=progress,
                      converge=subset["converge"]).items()}
    return LayerReport(model=name, quick=quick, wsd=senses, pos=tags, ner=entities,
                       ner_ladder=ladder,
                       paper=LayerPaper.from_dict(PAPER, "paper"),
                       trends=trends(senses, tags, item_outcomes(wsd_details, pos_details)))


def trends(wsd: dict[str, WsdScores], pos: dict[str, PosScores],
           outcomes: Mapping[str, Mapping[str, np.ndarray]]) -> dict[str, Trend]:
    """The paper's two layer trends, checked on a model's WSD and POS scores: what was claimed,
    by how much it holds, and whether beyond the noise of the test sample.

    Args:
        wsd, pos: the report's scores.
        outcomes: per test set scored (``"ALL"``, ``"ptb"``, ``"upos"``) layers 1 and 2's
            per-item counts (:func:`item_outcomes`). Each margin gets its 95 % interval: the
            margin ± 1.96 standard errors of a paired bootstrap over the items
            (:func:`~elmo_tutorial.analyses.paired.paired_interval`), and the trend is
            reproduced when the interval's low end is above 0.

    >>> right = lambda n: np.array([[1, 1, 1]] * n + [[0, 1, 1]] * (1000 - n))  # of 1,000
    >>> senses = {"ALL": WsdScores(layer0=50.0, layer1=60.0, layer2=62.5, elmo=61.0,
    ...                            first_sense=64.0)}
    >>> tags = {"ptb": PosScores(layer0=88.0, layer1=90.0, layer2=91.0, most_frequent_tag=85.0)}
    >>> r = trends(senses, tags, {"ALL": {"layer1": right(600), "layer2": right(625)},
    ...                           "ptb": {"layer1": right(900), "layer2": right(910)}})
    >>> r["wsd_layer2_above_layer1"].reproduced, r["pos_layer1_at_least_layer2"].reproduced
    (True, False)
    """
    out = {}
    wsd_all = wsd.get("ALL")
    if wsd_all:
        out["wsd_layer2_above_layer1"] = _trend(
            "word senses: layer 2 > layer 1 (paper: 69.0 vs 67.4 F1)",
            wsd_all.layer2 - wsd_all.layer1, outcomes["ALL"], "layer2", "layer1")
    for name in POS_SETS:
        scores = pos.get(name)
        if scores:
            key = "pos_layer1_at_least_layer2" + ("" if name == "ptb" else f"_{name}")
            out[key] = _trend(f"POS ({name}): layer 1 ≥ layer 2 (paper, PTB: 97.3 vs 96.8)",
                              scores.layer1 - scores.layer2, outcomes[name], "layer1", "layer2")
    return out


def _trend(claim: str, margin: float, counts: Mapping[str, np.ndarray], favoured: str,
           other: str) -> Trend:
    """A :class:`Trend` whose margin is ``score(favoured) − score(other)`` (the paper's side is
    above 0), ``reproduced`` when its interval, from ``counts`` (layer → per-item counts),
    lies above 0."""
    difference, low, high = paired_interval(counts[other], counts[favoured])
    # The scores in the tables are rounded to 0.01 each: outcomes of the same run agree to that.
    if abs(difference - margin) > 0.02:
        raise ValueError(f"the per-item outcomes give a difference of {difference:+.2f} points "
                         f"but the scores {margin:+.2f} ({claim}): they come from another run")
    low, high = round(low, 2), round(high, 2)
    return Trend(claim=claim, reproduced=low > 0, margin=round(difference, 2), low=low,
                 high=high)


def wsd_instance_counts(details: Mapping, rep: str) -> np.ndarray:
    """Per test instance of ALL, ``[right, answered, 1]``: ``(N, 3)``, ``N`` instances.

    Args:
        details: what :func:`.wsd.evaluate_all` filled in (``"predictions"`` and ``"gold"``);
            ALL is every test set in it, instances in the framework's order.
        rep: the representation, e.g. ``"layer2"``.

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
    """Per test sentence, ``[right tokens, tokens, tokens]``: ``(S, 3)`` for ``S`` sentences.

    Args:
        labels, predicted: ``(N,)`` gold and predicted class ids of the test tokens, sentences
            one after another (:func:`.probes.probe_layers`' ``details``).
        lengths: tokens per sentence, ``(S,)``, summing to ``N``.

    >>> pos_sentence_counts(np.array([0, 1, 2, 2, 1]), np.array([0, 1, 1, 2, 0]), [2, 3]).tolist()
    [[2, 2, 2], [1, 3, 3]]
    """
    labels, predicted = np.asarray(labels), np.asarray(predicted)
    lengths = np.asarray(lengths, dtype=np.int64)
    if labels.shape != predicted.shape or lengths.sum() != len(labels):
        raise ValueError(f"{len(labels)} gold tags, {len(predicted)} predicted ones and "
                         f"sentences of {int(lengths.sum())} tokens in all: they must agree")
    # right tokens up to each sentence boundary: a sentence's count is the step between two
    right_so_far = np.concatenate([[0], np.cumsum(labels == predicted)])  # (N + 1,)
    ends = np.cumsum(lengths)  # (S,)
    right = right_so_far[ends] - right_so_far[ends - lengths]
    return np.stack([right, lengths, lengths], axis=1)


def item_outcomes(wsd_details: Mapping, pos_details: Mapping) -> dict[str, dict[str, np.ndarray]]:
    """Layers 1 and 2's per-item counts on every test set a trend is checked on.

    Args:
        wsd_details: from :func:`.wsd.evaluate_all` (``details=``).
        pos_details: from :func:`.probes.evaluate_pos` (``details=``).

    Returns:
        ``{"ALL": {"layer1": (N, 3), "layer2": (N, 3)}, "ptb": {...}, "upos": {...}}``, the input
        of :func:`trends`.
    """
    out = {"ALL": {rep: wsd_instance_counts(wsd_details, rep) for rep in LAYERS}}
    for name, tokens in pos_details.items():
        out[name] = {rep: pos_sentence_counts(tokens["labels"], tokens["predicted"][rep],
                                               tokens["lengths"]) for rep in LAYERS}
    return out
