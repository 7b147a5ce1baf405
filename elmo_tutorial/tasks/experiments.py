"""The tasks of notebook 12 and the ``tasks`` command, ready for :class:`TaskModel`, and one run.

Three tasks, each read by :mod:`elmo_tutorial.data.annotated` and split into train / valid / test:

- ``sst5``: Stanford Sentiment Treebank, five sentence labels (the paper's Table 1), accuracy;
  trained on the 8,544 training sentences, scored on the sentences of dev and test;
  ``sst5_phrases`` is the same task trained as the paper did, on every labelled phrase of the
  training trees (159,273 phrases, the sentences among them), scored on the same sentences;
- ``chunking``: CoNLL-2000 (WSJ), chunk spans, F1; the shared task has no validation set, so
  the last 1,000 sentences of its training file are held out for it (7,936 train);
- ``ner``: WNUT-17 emerging entities, entity spans, F1.

:func:`prepare_task` attaches to every sentence its word ids (the static vectors,
:mod:`elmo_tutorial.tasks.corpus_vectors`), its character ids (the task model's character CNN,
:mod:`elmo_tutorial.tasks.characters`, as in the paper's baselines) and its biLM layers (embedded
once, then read from the cache of :mod:`elmo_tutorial.analyses.embedding_cache`).
:func:`run_variant` trains one model of one experiment on one seed, to convergence on dev, and
scores it on test.
The variants (``places`` says where ELMo goes: ``("input",)`` or ``("input", "output")``)::

    baseline    x_k = [w_k; c_k] → BiLSTM (no biLM)
    elmo        + ELMo (the scalar mix of all layers) at ``places``, λ = 0.001   (Table 1)
    layer0      + the biLM's layer 0 alone at ``places``: its context-free half  (Table 1)
    top         + the top layer alone at ``places`` (no mix)                     (Table 2)
    lambda1     as ``elmo`` with λ = 1: the mix held near the average           (Table 2)
    layernorm   as ``elmo`` with layer norm inside the mix     (an option; not in the report)
    input, input_output, output: as ``elmo``, at that place whatever ``places`` (Table 3)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from elmo_tutorial.analyses.embedding_cache import embed_corpus
from elmo_tutorial.analyses.probes import sentence_layers
from elmo_tutorial.data import annotated
from elmo_tutorial.tasks.characters import encode_chars
from elmo_tutorial.tasks.corpus_vectors import corpus_vectors, vectors_recipe
from elmo_tutorial.tasks.model import TaskModel
from elmo_tutorial.tasks.training import TaskSplit, encode_words, score_and_counts, train_task_model

__all__ = ["ARMS", "CHAR_FILTERS", "CLASSIFICATION", "FRACTION_TASKS", "METRICS", "PROTOCOL",
           "TABLE1_ARMS", "TASKS", "VARIANTS", "layers_per_sentence", "prepare_task",
           "read_task", "run_variant", "training_subset", "word_vectors",
           "word_vectors_recipe"]

TASKS = ("sst5", "sst5_phrases", "chunking", "ner")
CLASSIFICATION = ("sst5", "sst5_phrases")  # a label per sentence; the others tag tokens
FRACTION_TASKS = ("chunking", "ner")  # Figure 1's tasks (the paper's are SRL and SNLI)
# Table 1's arms: the baseline, + layer 0 and + ELMo, except on SST-5's 159,273 phrases, where a
# run costs ten of the sentences' and only the paper's comparison is run
TABLE1_ARMS = {"sst5_phrases": ("baseline", "elmo")}
ARMS = ("baseline", "layer0", "elmo")
METRICS = {"sst5": "accuracy", "sst5_phrases": "accuracy", "chunking": "F1", "ner": "F1"}
CHUNKING_VALID = 1000  # sentences at the end of CoNLL-2000's train file held out for dev
CHAR_FILTERS = 40  # the character features c_k (filters of width 3 over 16-dim characters)
# One protocol for every arm (notebook 12, the `tasks` report): Adam, batches of 32 sentences
# of similar length, one dropout of 0.5 on the LSTM's input and one on its output (AllenNLP's
# reference configurations), dev scored after every epoch, the learning rate halved after 2
# epochs without a better dev score, a stop after 5 (by then half the rate was tried for 2
# epochs and a quarter for 1; the cap of 30 grows while patience has not acted), the best
# epoch kept. A small training set gets at least 1,000 updates, and an epoch of at least 50.
# An "epoch" (a round: what patience counts) is at most 2,500 updates (80,000 examples). Every
# training set but SST-5's phrases makes fewer batches (chunking's pass: 248); the phrases'
# pass of 4,978 is scored on dev twice. (Rounds of 500 updates stopped the phrase runs within
# one pass, at 31-34 % accuracy: dev is too noisy to judge 16,000 phrases of training, and two
# such rounds without a better score already halve the learning rate.)
PROTOCOL = {"max_epochs": 30, "patience": 5, "lr_patience": 2, "wait_while_zero": True,
            "min_updates": 1000, "round_updates": 50, "max_round_updates": 2500, "hard_cap": 200,
            "batch_size": 32, "lr": 2e-3, "dropout": 0.5, "hidden_size": 64}
VARIANTS = {  # name: (where ELMo goes (None: the run's places), λ, layers used, layer norm)
    "baseline": ((), 0.0, None, False),
    "elmo": (None, 1e-3, slice(None), False),
    "layer0": (None, 0.0, slice(0, 1), False),
    "top": (None, 0.0, slice(-1, None), False),
    "lambda1": (None, 1.0, slice(None), False),
    "layernorm": (None, 1e-3, slice(None), True),
    "input": (("input",), 1e-3, slice(None), False),
    "input_output": (("input", "output"), 1e-3, slice(None), False),
    "output": (("output",), 1e-3, slice(None), False),
}


def read_task(name: str) -> dict[str, list[tuple[list[str], object]]]:
    """``{"train", "valid", "test": [(tokens, target), ...]}``: a label or a list of tags."""
    if name == "sst5":
        return {split: annotated.sst(split) for split in ("train", "valid", "test")}
    if name == "sst5_phrases":
        return {"train": annotated.sst("train", phrases=True), "valid": annotated.sst("valid"),
                "test": annotated.sst("test")}
    if name == "chunking":
        train = annotated.conll2000_chunks("train")
        return {"train": train[:-CHUNKING_VALID], "valid": train[-CHUNKING_VALID:],
                "test": annotated.conll2000_chunks("test")}
    if name == "ner":
        return {split: annotated.wnut17(split) for split in ("train", "valid", "test")}
    raise ValueError(f"unknown task {name!r}; choose from {', '.join(TASKS)}")


def word_vectors(corpus: str, dim: int = 100) -> tuple[torch.Tensor, dict[str, int]]:
    """The baseline's static vectors from ``corpus``: ``(V + 1, dim)`` (row 0: ``<UNK>``,
    zeros) scaled to unit variance, and ``{word: row}``."""
    static = corpus_vectors(corpus, dim=dim, min_count=_min_count(corpus))
    vectors = torch.from_numpy(np.asarray(static.vectors, dtype=np.float32))  # (V, dim)
    vectors = vectors / vectors.std()  # the scale of a usual embedding initialisation
    table = torch.cat([torch.zeros(1, vectors.shape[1]), vectors])  # (V + 1, dim)
    return table, {w: i for i, w in enumerate(static.words, start=1)}


def word_vectors_recipe(corpus: str, dim: int = 100) -> dict:
    """What :func:`word_vectors` ``(corpus, dim)`` are computed from (``vectors_recipe``): runs
    trained on them are named by it, since two computations differ in float rounding.

    The vectors are computed first if the cache lacks them: the runs need them anyway, and
    the text (english_mix: half a minute to read) is then read once for both."""
    word_vectors(corpus, dim)
    return vectors_recipe(corpus, dim=dim, min_count=_min_count(corpus))


def _min_count(corpus: str) -> int:
    return 1 if corpus == "embedded" else 5  # the embedded corpus is too small to leave words out


def layers_per_sentence(embedded) -> list[torch.Tensor]:
    """A cached corpus's ``(L + 1, N, D)`` float16 layers (``embed_corpus``) → one
    ``(T_i, L + 1, D)`` float16 tensor per sentence (``probes.sentence_layers``)."""
    return sentence_layers(embedded.data, np.diff(embedded.offsets).tolist())


def prepare_task(name: str, embedder, index: dict[str, int], max_sentences: int | None = None,
                 max_train: int | None = None, progress: bool = False,
                 samples: dict[str, int] | None = None) -> dict[str, TaskSplit]:
    """Every split of task ``name`` as a :class:`TaskSplit` with word ids and biLM layers.

    Args:
        embedder: an :class:`~elmo_tutorial.analyses.embedder.Embedder` (layers are cached on disk).
        index: ``{word: row}`` of the baseline's vectors (:func:`word_vectors`).
        max_sentences: keep only the first this many sentences of each split (quick runs).
        max_train: train on a fixed random sample of this many training sentences (the same
            sample for every model and seed); dev and test stay whole.
        samples: ``{split: n}``: a fixed random sample of ``n`` sentences of each split named
            (e.g. a notebook's small ``train``, ``valid`` and ``test``).
    """
    data = {split: pairs[:max_sentences] for split, pairs in read_task(name).items()}
    samples = {**(samples or {}), **({"train": max_train} if max_train is not None else {})}
    for split, n in samples.items():
        if len(data[split]) > n:
            keep = training_subset(len(data[split]), n / len(data[split]), seed=0)
            data[split] = [data[split][i] for i in keep]
    tagging = isinstance(data["train"][0][1], list)
    if tagging:  # "O" first, then the tags of the training set (unseen ones count as "O")
        classes = ["O", *sorted({t for _, tags in data["train"] for t in tags} - {"O"})]
    else:  # every label of the task (a quick run's first phrases may lack one)
        classes = [str(c) for c in sorted({label for pairs in data.values()
                                           for _, label in pairs})]
    ids = {c: i for i, c in enumerate(classes)}
    splits = {}
    for split, pairs in data.items():
        sentences = [tokens for tokens, _ in pairs]
        embedded = embed_corpus(embedder, sentences, f"{name}-{split}", progress)
        targets = ([torch.tensor([ids.get(t, 0) for t in tags]) for _, tags in pairs] if tagging
                   else [ids[str(label)] for _, label in pairs])
        splits[split] = TaskSplit(encode_words(sentences, index), layers_per_sentence(embedded),
                                  targets, classes, encode_chars(sentences))
    return splits


def training_subset(n: int, fraction: float, seed: int) -> list[int]:
    """A seeded random ``fraction`` of ``range(n)`` (at least 10 sentences), in order."""
    k = min(n, max(10, round(fraction * n)))
    return sorted(np.random.default_rng(seed).permutation(n)[:k].tolist())


def run_variant(splits: dict[str, TaskSplit], vectors: torch.Tensor, variant: str, seed: int,
                fraction: float = 1.0, places: Sequence[str] = ("input",),
                protocol: dict | None = None) -> dict:
    """Train one variant (see :data:`VARIANTS`) on one seed, to convergence; score it on test.

    A fraction below 1 trains on a seeded random part of ``train`` (the same part for every
    variant of a seed, another part for each seed) in batches of 8, with at least
    ``protocol["min_updates"]`` updates; dev and test stay whole.

    Returns:
        ``{"score": test score (percent), "valid": best dev score, "best_epoch", "last_epoch",
        "cap": the cap in the end, "stopped": "patience" or "cap", "updates", "curve": the dev
        score after every epoch (round), "epochs_per_round", "weights": {place: softmax(w)},
        "gamma": {place: γ}, "places", "test_counts": what each test sentence adds to the
        score (1/0, or correct, predicted and gold spans; for the test-sample bootstrap)}``.
    """
    protocol = {**PROTOCOL, **(protocol or {})}
    own_places, penalty, which, layer_norm = VARIANTS[variant]
    places = tuple(places if own_places is None else own_places)
    train, valid, test = splits["train"], splits["valid"], splits["test"]
    batch_size = protocol["batch_size"]
    if fraction < 1.0:
        train = train.subset(training_subset(len(train), fraction, seed))
        batch_size = 8
    if places and which != slice(None):  # the mix of one layer is γ · h_j: no mix to learn
        train, valid, test = (s.with_layers(which) for s in (train, valid, test))
    n_layers, width = train.layers[0].shape[1:]
    torch.manual_seed(seed)  # initial weights
    model = TaskModel(vectors, len(train.classes), "tag" if train.is_tagging else "classify",
                      elmo_layers=n_layers, elmo_dim=width, elmo_at=places,
                      hidden_size=protocol["hidden_size"], dropout=protocol["dropout"],
                      do_layer_norm=layer_norm, char_filters=CHAR_FILTERS)
    result = train_task_model(
        model, train, valid, max_epochs=protocol["max_epochs"], patience=protocol["patience"],
        batch_size=batch_size, lr=protocol["lr"], mix_penalty=penalty, seed=seed,
        min_updates=protocol["min_updates"] if fraction < 1.0 else 0,
        round_updates=protocol["round_updates"], hard_cap=protocol["hard_cap"],
        lr_patience=protocol.get("lr_patience"),
        wait_while_zero=protocol.get("wait_while_zero", False),
        max_round_updates=protocol.get("max_round_updates"))
    history = result.history
    score, counts = score_and_counts(model, test)
    return {"score": score, "valid": result.best_valid,
            "best_epoch": result.best_round, "last_epoch": result.last_round, "cap": result.cap,
            "stopped": result.stopped, "updates": history[-1]["updates"],
            "epochs_per_round": history[0]["epochs"], "curve": [r["valid"] for r in history],
            "places": list(places), "weights": model.mix_weights(),
            "gamma": {p: m.gamma.item() for p, m in model.mixes.items()},
            "test_counts": counts}


def majority_rate(split: TaskSplit) -> float:
    """The accuracy (percent) of always answering the commonest label of ``split``."""
    counts = np.bincount([int(t) for t in split.targets])
    return 100.0 * float(counts.max()) / max(1, len(split))
