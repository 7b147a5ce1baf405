"""The layer report's result, typed: what ``layers.json`` holds, field by field.

:func:`~elmo_tutorial.analyses.layer_report.layer_report` makes a :class:`LayerReport`;
:func:`~elmo_tutorial.analyses.layer_markdown.to_markdown` reads it; ``layers.json`` is its
``to_json()`` (:mod:`elmo_tutorial.files.records`) and ``LayerReport.read(path)`` gives it back,
every field checked. F1 and accuracy are in percent::

    LayerReport
      wsd: {test set: WsdScores}         Table 5: F1 per layer, the mix, WordNet's first sense
      pos: {"ptb" | "upos": PosScores}   Table 6: a linear probe's accuracy per frozen layer
      ner: {"wnut17": NerScores}         taggers on the mix, on layer 0, on word types (optional)
      ner_ladder: {step: NerStep}        that tagger moved to the task model's settings, one
                                         at a time (optional: ``layers --ner-ladder``)
      trends: {name: Trend}              the paper's two layer trends, checked, with intervals

Example:
    >>> from elmo_tutorial.training.run_folder import shipped_model
    >>> report = LayerReport.read(shipped_model("small") / "layers.json")
    >>> report.wsd["ALL"].layer2 > report.wsd["ALL"].layer1, report.ner["wnut17"].seeds
    (True, [0, 1, 2, 3, 4])
"""

from __future__ import annotations

from dataclasses import dataclass

from elmo_tutorial.analyses.paired import PairedDifference
from elmo_tutorial.files.records import Record, optional

__all__ = ["LayerPaper", "LayerReport", "NerScores", "NerSettings", "NerStep", "PosScores",
           "TaggerScores", "Trend", "WsdScores"]


@dataclass(frozen=True)
class WsdScores(Record):
    """F1 of 1-nearest-neighbour sense centroids on one test set (:mod:`.wsd`)."""

    layer0: float  # the biLM's context-free token layer
    layer1: float  # the first LSTM layer
    layer2: float  # the second (top) LSTM layer
    elmo: float  # the model's own scalar mix of all layers
    first_sense: float  # always WordNet's first sense: the baseline to beat


@dataclass(frozen=True)
class PosScores(Record):
    """Accuracy of a linear probe on one frozen layer (:mod:`.probes`)."""

    layer0: float
    layer1: float
    layer2: float
    most_frequent_tag: float  # each word's commonest training tag: the floor


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
    """One of the paper's layer trends, checked on this model's numbers.

    The interval is 95 %, from a paired bootstrap over the test items
    (:mod:`~elmo_tutorial.analyses.layer_report`).
    """

    claim: str  # what the paper found, in words
    reproduced: bool  # the whole interval lies on the paper's side of 0 (low > 0)
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
    pos: dict[str, PosScores]  # "ptb" (PTB tags), "upos" (UD English-EWT)
    ner: dict[str, NerScores] | None = optional()  # "wnut17" (None: run with --no-ner)
    # the NER tagger moved to the task model's settings (None: run without --ner-ladder)
    ner_ladder: dict[str, NerStep] | None = optional()
    paper: LayerPaper
    trends: dict[str, Trend]  # "wsd_layer2_above_layer1", "pos_layer1_at_least_layer2", ...
