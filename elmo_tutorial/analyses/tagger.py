r"""Named entities over frozen ELMo: a BiLSTM tagger with a learned scalar mix (WNUT-17).

Taught in notebook 10 (``10_tagging``).

The paper's downstream recipe (§3.3): freeze the biLM, compute its layers once, and let the task
model learn how to mix them (Eq. 1), :math:`\mathrm{ELMo}_k = \gamma \sum_j s_j \,
\mathrm{LN}(h_{k,j})` with :math:`s = \mathrm{softmax}(w)` and ``λ · ScalarMix.penalty()`` added
to the loss. The task model here is small: dropout → one BiLSTM → a linear layer per BIO tag (the
paper's NER model adds a CRF and character features). Scored by entities (:mod:`.spans`,
re-exported here for notebook 10) on WNUT-17's test set, the epoch with the best dev F1 kept.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence

from elmo_tutorial.analyses.paired import paired_difference, paired_runs, sentence_counts
from elmo_tutorial.analyses.probes import sentence_layers, token_layers
from elmo_tutorial.analyses.spans import bio_spans, entity_scores
from elmo_tutorial.analyses.supervised import fit, length_batches
from elmo_tutorial.data.annotated import wnut17
from elmo_tutorial.model.scalar_mix import ScalarMix
from elmo_tutorial.model.softmax import IGNORE_INDEX
from elmo_tutorial.runtime import one_thread

__all__ = ["STEPS", "BiLSTMTagger", "FrozenLayers", "WordTypes", "bio_spans", "entity_scores",
           "evaluate_ner", "predict_tags", "protocol_ladder", "sentence_layers",
           "train_tagger"]


class FrozenLayers(nn.Module):
    """Precomputed biLM layers ``(B, T, L, D)`` → one vector per token ``(B, T, D)`` by a
    learned :class:`ScalarMix`."""

    def __init__(self, n_layers: int, do_layer_norm: bool = True) -> None:
        super().__init__()
        self.mix = ScalarMix(n_layers, do_layer_norm=do_layer_norm)

    def forward(self, layers: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self.mix(list(layers.float().unbind(2)), mask)  # L × (B, T, D) → (B, T, D)


class WordTypes(nn.Module):
    """One learned vector per word type (the static baseline), ``<UNK>`` (row 0) for the rest:
    ``(B, T)`` word ids → ``(B, T, dim)``."""

    def __init__(self, words: Sequence[str], dim: int = 100) -> None:
        super().__init__()
        self.index = {w: i for i, w in enumerate(words, start=1)}
        self.embedding = nn.Embedding(len(words) + 1, dim)

    def ids(self, tokens: Sequence[str]) -> torch.Tensor:
        return torch.tensor([self.index.get(t, 0) for t in tokens], dtype=torch.long)  # (T,)

    def forward(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self.embedding(ids)  # (B, T, dim)


class BiLSTMTagger(nn.Module):
    """Token inputs → dropout → bidirectional LSTM → dropout → tag logits ``(B, T, n_tags)``.

    Args:
        inputs: a module ``(inputs, mask) → (B, T, input_dim)`` (:class:`FrozenLayers`,
            :class:`WordTypes`).
        dropout: on the LSTM's input and output. Default 0: on WNUT-17 with the small biLM
            it slowed learning more than it helped the dev F1.
    """

    def __init__(self, inputs: nn.Module, input_dim: int, n_tags: int, hidden_size: int = 64,
                 dropout: float = 0.0) -> None:
        super().__init__()
        self.inputs = inputs
        self.dropout = nn.Dropout(dropout)
        self.lstm = nn.LSTM(input_dim, hidden_size, batch_first=True, bidirectional=True)
        self.output = nn.Linear(2 * hidden_size, n_tags)

    def forward(self, inputs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        x = self.dropout(self.inputs(inputs, mask))  # (B, T, input_dim)
        lengths = mask.sum(1).cpu()  # (B,)
        packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
        h, _ = pad_packed_sequence(self.lstm(packed)[0], batch_first=True,
                                   total_length=mask.shape[1])  # (B, T, 2H), 0 at padding
        return self.output(self.dropout(h))  # (B, T, n_tags)


def _batch(items: Sequence[torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
    """Pad per-sentence inputs ``(T_i, ...)`` to ``(B, T, ...)``; mask ``(B, T)``."""
    lengths = torch.tensor([len(x) for x in items])
    mask = torch.arange(int(lengths.max())) < lengths.unsqueeze(1)  # (B, T)
    return pad_sequence(list(items), batch_first=True), mask


@torch.no_grad()
def predict_tags(model: BiLSTMTagger, inputs: Sequence[torch.Tensor], tags: Sequence[str],
                 batch_size: int = 64) -> list[list[str]]:
    """The highest-scoring tag of every token, sentence by sentence (in the order given)."""
    model.eval()
    predicted: list[list[str] | None] = [None] * len(inputs)
    for index in length_batches([len(x) for x in inputs], batch_size, None):
        x, mask = _batch([inputs[i] for i in index])
        best = model(x, mask).argmax(-1)  # (B, T)
        for row, i in enumerate(index):
            predicted[i] = [tags[t] for t in best[row, : len(inputs[i])].tolist()]
    return predicted


def train_tagger(model: BiLSTMTagger, inputs: Sequence[torch.Tensor],
                 labels: Sequence[Sequence[str]], tags: Sequence[str], valid: tuple,
                 epochs: int = 10, batch_size: int = 16, lr: float = 5e-3,
                 mix_penalty: float = 1e-3, seed: int = 0, progress: bool = False,
                 converge: bool = False, patience: int = 5, lr_patience: int | None = None,
                 min_updates: int = 0) -> list[dict]:
    """Train ``model`` with Adam on cross-entropy (+ ``mix_penalty`` · the mix's penalty) in the
    course's one loop (:func:`~elmo_tutorial.analyses.supervised.fit`, whose ``lr_patience``
    and ``min_updates`` these are): one dict per epoch, ``{"epoch", "loss"}`` + dev scores.

    Args:
        inputs: one ``(T_i, ...)`` tensor per training sentence; ``labels`` their tags.
        tags: the tag set; the model scores ``tags[k]`` at output ``k``.
        valid: ``(inputs, labels)``, scored (entity F1) after every epoch; the best epoch's
            weights are put back at the end.
        seed: seeds the batch order and dropout (seed torch before building the model).
        converge: train until the dev F1 has not improved for ``patience`` epochs, with
            ``epochs`` the planned cap only.
    """
    tag_id = {t: k for k, t in enumerate(tags)}
    targets = [torch.tensor([tag_id[t] for t in sentence]) for sentence in labels]
    mix = getattr(model.inputs, "mix", None)
    batches = []
    for index in length_batches([len(x) for x in inputs], batch_size, None):
        x, mask = _batch([inputs[i] for i in index])
        y = pad_sequence([targets[i] for i in index], batch_first=True,
                         padding_value=IGNORE_INDEX)  # (B, T)
        batches.append((x, mask, y))

    def loss_of(batch) -> torch.Tensor:
        x, mask, y = batch
        logits = model(x, mask)  # (B, T, n_tags)
        loss = nn.functional.cross_entropy(logits.flatten(0, 1), y.flatten(),
                                           ignore_index=IGNORE_INDEX)
        return loss + mix_penalty * mix.penalty() if mix is not None and mix_penalty else loss

    scores: list[dict] = []

    def score_dev() -> float:
        scores.append(entity_scores(valid[1], predict_tags(model, valid[0], tags)))
        return scores[-1]["f1"]

    result = fit(model, batches, loss_of, score_dev, lr=lr, seed=seed, max_rounds=epochs,
                 patience=patience if converge else epochs,
                 hard_cap=200 if converge else epochs, progress=progress,
                 lr_patience=lr_patience, min_updates=min_updates if converge else 0,
                 wait_while_zero=True)  # F1 is 0 until the tagger finds its first entity
    return [{"epoch": r["round"], "loss": r["loss"], **s}
            for r, s in zip(result.history, scores, strict=True)]


def _ner_data(embedder, max_sentences: int | None = None, progress: bool = True
              ) -> tuple[dict, dict, list[str], dict]:
    """WNUT-17's splits: per split the ``(tokens, tags)`` pairs, the tag sequences, the tag set
    (``"O"`` first) and one ``(T, L + 1, D)`` tensor of layers per sentence."""
    data = {split: wnut17(split)[:max_sentences] for split in ("train", "valid", "test")}
    labels = {split: [tags for _, tags in d] for split, d in data.items()}
    tags = ["O", *sorted({t for ts in labels["train"] for t in ts} - {"O"})]
    layers = {split: sentence_layers(token_layers(embedder, [s for s, _ in d], f"wnut17-{split}",
                                                  progress), [len(s) for s, _ in d])
              for split, d in data.items()}  # per sentence (T, L + 1, D)
    return data, labels, tags, layers


def _train_arm(arm: str, seeds: Sequence[int], data: dict, labels: dict, tags: list[str],
               layers: dict, epochs: int, converge: bool, progress: bool, dropout: float = 0.0,
               layer_norm: bool = True, **training) -> list[tuple]:
    """The tagger on ``arm`` (``"elmo"``, ``"layer0"`` or ``"word_type"``: a vector per training
    word seen twice or more), once per seed: ``[(model, history, predicted test tags)]``."""
    runs = []
    for seed in seeds:
        torch.manual_seed(seed)  # the tagger's initial weights
        if arm == "word_type":
            counts = Counter(w for words, _ in data["train"] for w in words)
            inputs_module = WordTypes(sorted(w for w, n in counts.items() if n >= 2))
            width = inputs_module.embedding.embedding_dim
            inputs = {split: [inputs_module.ids(s) for s, _ in d] for split, d in data.items()}
        else:
            n_layers, width = layers["train"][0].shape[1:]
            n = n_layers if arm == "elmo" else 1
            inputs_module = FrozenLayers(n, do_layer_norm=layer_norm)
            inputs = {split: [x[:, :n] for x in xs] for split, xs in layers.items()}
        model = BiLSTMTagger(inputs_module, width, len(tags), dropout=dropout)
        with one_thread():  # small recurrent models run fastest, and steadiest, on one
            history = train_tagger(model, inputs["train"], labels["train"], tags,
                                   (inputs["valid"], labels["valid"]), epochs=epochs,
                                   seed=seed, progress=progress, converge=converge,
                                   **training)
            runs.append((model, history, predict_tags(model, inputs["test"], tags)))
    return runs


def evaluate_ner(embedder, progress: bool = True, epochs: int = 30,
                 max_sentences: int | None = None, seeds: Sequence[int] = (0, 1, 2, 3, 4),
                 converge: bool = True) -> dict[str, dict]:
    """WNUT-17 entity F1 (percent) of the same tagger on three inputs, over several seeds:
    ``elmo``, the learned mix of all layers (layer norm, λ = 0.001); ``layer0``, the
    context-free token layer alone; ``word_type``, vectors learned on WNUT-17 alone.

    Each tagger trains to convergence on dev (patience 5; ``converge=False``: exactly
    ``epochs``) on one CPU thread; ``max_sentences``: the first this many of each split.
    Returns ``{"wnut17": ...}``, the fields of :class:`.layer_report.NerScores`.
    """
    data, labels, tags, layers = _ner_data(embedder, max_sentences, progress)
    result, scores = {"runs": {}, "seeds": list(seeds)}, {}
    for name in ("elmo", "layer0", "word_type"):
        runs = _train_arm(name, seeds, data, labels, tags, layers, epochs, converge, progress)
        result["runs"][name] = [entity_scores(labels["test"], p)["f1"] for _, _, p in runs]
        model, history, predicted = runs[0]
        scores[name] = {**entity_scores(labels["test"], predicted), "last_epoch": len(history),
                        "best_epoch": max(history, key=lambda r: r["f1"])["epoch"]}
        if name == "elmo":
            result["s"] = model.inputs.mix.weights.tolist()
            result["gamma"] = model.inputs.mix.gamma.item()
        result[name] = float(np.mean(result["runs"][name]))
    result["std"] = {name: float(np.std(result["runs"][name], ddof=1)) if len(seeds) > 1
                     else 0.0 for name in ("elmo", "layer0", "word_type")}
    if len(seeds) > 1:
        result["differences"] = {f"elmo_vs_{other}": paired_difference(
            result["runs"][other], result["runs"]["elmo"]) for other in ("layer0", "word_type")}
    result["scores"] = scores
    return {"wnut17": result}


# Why notebook 10's tagger and notebook 12's task model (TASKS.md) answer "does the mix of all
# layers beat layer 0 alone?" differently: the ladder moves the tagger towards the task model
# one setting at a time, each step keeping the changes of the steps before it. The task model
# also adds inputs of its own (static word vectors, a character CNN): TASKS.md's Table 1.
PROBE = {"dropout": 0.0, "lr": 5e-3, "batch_size": 16, "lr_patience": None, "min_updates": 0,
         "layer_norm": True}
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
                    converge: bool = True) -> dict[str, dict]:
    """Train the mix of all layers and layer 0 alone at every step of :data:`STEPS` (or of
    ``steps``; each keeps the changes of all the steps before it, run or not).

    Returns ``{step: ...}``, the fields of :class:`.layer_report.NerStep`.
    """
    names = [name for name, _, _ in STEPS]
    chosen = names if steps is None else list(steps)
    unknown = [s for s in chosen if s not in names]
    if unknown:
        raise ValueError(f"unknown step(s) {unknown}; choose from {', '.join(names)}")
    data, labels, tags, layers = _ner_data(embedder, max_sentences, progress)
    settings, result = dict(PROBE), {}
    for name, label, change in STEPS:
        settings.update(change)  # the ladder: every step keeps the ones before it
        if name not in chosen:
            continue
        scores, counts = {}, {}
        for arm in ("elmo", "layer0"):
            runs = _train_arm(arm, seeds, data, labels, tags, layers, epochs, converge,
                              progress, **settings)
            scores[arm] = [entity_scores(labels["test"], p)["f1"] for _, _, p in runs]
            counts[arm] = [sentence_counts(labels["test"], p, bio_spans) for _, _, p in runs]
        difference = paired_runs(scores["layer0"], scores["elmo"], counts["layer0"],
                                 counts["elmo"])
        result[name] = {"label": label, "settings": dict(settings), **scores,
                        "difference": difference.to_dict()}
    return result
