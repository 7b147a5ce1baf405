"""Why two NER taggers gave two answers: one setting changed at a time.

Notebook 10's tagger (:mod:`elmo_tutorial.analyses.tagger`, ``LAYERS.md``) and notebook 12's
task model (:mod:`elmo_tutorial.tasks`, ``TASKS.md``) both ask on WNUT-17 whether the biLM's
context adds anything to its context-free layer 0: does the learned mix of all layers beat
layer 0 alone? They differ in five settings:

============================  ==============================  =================================
setting                       notebook 10's tagger            the task model
============================  ==============================  =================================
dropout (LSTM in and out)     0                               0.5
optimiser                     Adam 0.005, batches of 16       Adam 0.002, batches of 32, halved
                                                              after 2 epochs without a better
                                                              dev F1, at least 1,000 updates
layer norm in the scalar mix  yes                             no (as AllenNLP's task configs)
inputs besides the biLM       none                            static word vectors and a
                                                              character CNN of its own
============================  ==============================  =================================

:func:`protocol_ladder` starts from notebook 10's tagger and moves it towards the task model
one setting at a time (:data:`STEPS`): each step trains both arms (the mix of all layers, and
layer 0 alone) on the same seeds and reports the paired difference with an interval that
covers the seeds and the test sentences (:mod:`elmo_tutorial.analyses.paired`). The last
step, the extra inputs, is the task report's own pair of arms (``TASKS.md``, Table 1).
``elmo-tutorial layers --ner-ladder`` adds the result to the layer report (``LAYERS.md``).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from elmo_tutorial.analyses.paired import PairedDifference, sentence_bootstrap_std, sentence_counts
from elmo_tutorial.analyses.spans import bio_spans, entity_scores
from elmo_tutorial.analyses.tagger import BiLSTMTagger, FrozenLayers, ner_data, train_and_predict

__all__ = ["STEPS", "protocol_ladder"]

PROBE = {"dropout": 0.0, "lr": 5e-3, "batch_size": 16, "lr_patience": None, "min_updates": 0,
         "layer_norm": True}
# Each step keeps the changes of the steps before it.
STEPS: tuple[tuple[str, str, dict], ...] = (
    ("probe", "notebook 10's tagger (LAYERS.md)", {}),
    ("dropout", "+ dropout 0.5 on the LSTM's input and output", {"dropout": 0.5}),
    ("optimiser", "+ the task model's optimiser (Adam 0.002, batches of 32, halved on a dev "
                  "plateau, ≥ 1,000 updates)",
     {"lr": 2e-3, "batch_size": 32, "lr_patience": 2, "min_updates": 1000}),
    ("no_layer_norm", "+ no layer norm in the mix: the task model's training, biLM layers only",
     {"layer_norm": False}),
)


def protocol_ladder(embedder, seeds: Sequence[int] = (0, 1, 2, 3, 4),
                    steps: Sequence[str] | None = None, epochs: int = 30,
                    max_sentences: int | None = None, progress: bool = False,
                    cache: bool = True, converge: bool = True) -> dict[str, dict]:
    """Train the mix of all layers and layer 0 alone at every step of :data:`STEPS`.

    Args:
        embedder: an :class:`~elmo_tutorial.analyses.embedder.Embedder`.
        seeds: each seeds both arms' initial weights, dropout and batch order.
        steps: the names of the steps to run (default all, in order).
        epochs: the planned cap (every step trains to convergence on dev, patience 5).
        max_sentences: the first this many sentences of each split (a quick look).
        converge: False trains exactly ``epochs`` (a smoke test).

    Returns:
        ``{step: {"label", "settings", "elmo": [test F1 per seed], "layer0": [...],
        "difference": PairedDifference (elmo − layer0) as a dict}}``.
    """
    names = [name for name, _, _ in STEPS]
    chosen = names if steps is None else list(steps)
    unknown = [s for s in chosen if s not in names]
    if unknown:
        raise ValueError(f"unknown step(s) {unknown}; choose from {', '.join(names)}")
    data, labels, tags, layers = ner_data(embedder, max_sentences, progress, cache)
    n_layers, width = layers["train"][0].shape[1:]
    settings, result = dict(PROBE), {}
    for name, label, change in STEPS:
        settings.update(change)  # the ladder: every step keeps the ones before it
        if name not in chosen:
            continue
        scores: dict[str, list[float]] = {"elmo": [], "layer0": []}
        counts: dict[str, list] = {"elmo": [], "layer0": []}
        for arm in ("elmo", "layer0"):
            n = n_layers if arm == "elmo" else 1
            inputs = {split: [x[:, :n] for x in xs] for split, xs in layers.items()}
            for seed in seeds:
                torch.manual_seed(seed)  # the tagger's initial weights
                model = BiLSTMTagger(FrozenLayers(n, do_layer_norm=settings["layer_norm"]),
                                     width, len(tags), dropout=settings["dropout"])
                _, predicted = train_and_predict(
                    model, inputs, labels, tags, seed, epochs, converge, progress,
                    batch_size=settings["batch_size"], lr=settings["lr"],
                    lr_patience=settings["lr_patience"], min_updates=settings["min_updates"])
                scores[arm].append(entity_scores(labels["test"], predicted)["f1"])
                counts[arm].append(sentence_counts(labels["test"], predicted, bio_spans))
        test_std = sentence_bootstrap_std(counts["layer0"], counts["elmo"])
        difference = PairedDifference.between(scores["layer0"], scores["elmo"], test_std)
        result[name] = {"label": label, "settings": dict(settings), **scores,
                        "difference": difference.to_dict()}
    return result
