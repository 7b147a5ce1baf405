r"""Linear probes: how much a linear classifier can read off one frozen layer (paper §5.3).

Taught in notebook 10 (``10_tagging``).

Peters et al. (2018, Table 6) train nothing but a linear classifier on one frozen layer's token
vectors to predict part-of-speech tags: their biLM gives 97.3% on the Penn Treebank with layer 1
and 96.8% with layer 2 (syntax sits lower than word sense). The probe is multinomial logistic
regression on standardised vectors, :math:`p(y \mid x) = \mathrm{softmax}(W (x - \mu) / \sigma
+ b)`, minimising the mean cross-entropy plus ``(l2 / 2) ‖W‖²`` over all training tokens at
once with L-BFGS: convex, started at zero, nothing sampled, so no seed is needed. The floor is
the most frequent tag: each word's commonest training tag, what word identity alone gives.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence

import numpy as np
import torch
from torch import nn

from elmo_tutorial.analyses.embedding_cache import embed_corpus
from elmo_tutorial.data.annotated import treebank_pos, ud_english_ewt

__all__ = ["L2", "PAPER_PTB", "PROBE_SETTINGS", "LinearProbe", "accuracy", "evaluate_pos",
           "fit_probe", "label_ids", "most_frequent_tag_accuracy", "probe_layers", "probe_settings",
           "sentence_layers", "tag_index", "token_layers"]

PAPER_PTB = {"layer1": 97.3, "layer2": 96.8}  # Peters et al. (2018), Table 6, biLM
L2 = 1e-4  # the probe's regularisation for Table 6
# The probe at other settings than Table 6's (l2 = L2, every training sentence): a trend
# between layers holds only if it holds at all of them. Name: (data, l2, training sentences).
PROBE_SETTINGS = {f"{data} l2={l2:g}": (data, l2, None)
                  for data in ("ptb", "upos") for l2 in (1e-5, 1e-3, 1e-2)}
PROBE_SETTINGS["ptb 600 sentences"] = ("ptb", L2, 600)  # notebooks 10 and 14's probe

TaggedSentences = Sequence[tuple[Sequence[str], Sequence[str]]]


class LinearProbe(nn.Module):
    """Standardise by ``(D,)`` buffers ``mean``, ``std``, then ``linear`` (zero-initialised):
    ``(N, D)`` → ``(N, C)`` logits."""

    def __init__(self, mean: torch.Tensor, std: torch.Tensor, n_classes: int) -> None:
        super().__init__()
        self.register_buffer("mean", mean)
        self.register_buffer("std", std.clamp_min(1e-6))  # a constant dimension stays finite
        self.linear = nn.Linear(mean.numel(), n_classes)
        nn.init.zeros_(self.linear.weight)
        nn.init.zeros_(self.linear.bias)

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        return self.linear((features - self.mean) / self.std)  # (N, C)

    @torch.no_grad()
    def predict(self, features: torch.Tensor) -> torch.Tensor:
        """The most probable class of each row, ``(N,)``."""
        return self(features).argmax(-1)


def fit_probe(features, labels, n_classes: int, l2: float = L2, max_iter: int = 100
              ) -> LinearProbe:
    """Train a :class:`LinearProbe` on ``(N, D)`` features and ``(N,)`` class ids by full-batch
    L-BFGS (``max_iter`` iterations); ``l2`` weighs ``(l2 / 2) ‖W‖²`` (not the bias)."""
    x = torch.from_numpy(np.array(features, dtype=np.float32))  # (N, D), a float32 copy
    y = torch.from_numpy(np.array(labels, dtype=np.int64))  # (N,)
    if x.ndim != 2 or y.shape != x.shape[:1]:
        raise ValueError(f"features must be (N, D) and labels (N,), got {tuple(x.shape)} and "
                         f"{tuple(y.shape)}")
    if len(y) == 0 or y.min() < 0 or y.max() >= n_classes:
        found = f" in {int(y.min())}..{int(y.max())}" if len(y) else ""
        raise ValueError(f"labels must be class ids in 0..{n_classes - 1} (at least one), got "
                         f"{len(y)} labels{found}")
    probe = LinearProbe(x.mean(0), x.std(0), n_classes)
    z = x.sub_(probe.mean).div_(probe.std)  # (N, D): standardised once, in place, not per step
    optimizer = torch.optim.LBFGS(probe.linear.parameters(), lr=1, max_iter=max_iter,
                                  history_size=20, line_search_fn="strong_wolfe",
                                  tolerance_grad=1e-6, tolerance_change=1e-9)

    def closure() -> torch.Tensor:
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(probe.linear(z), y)
        loss = loss + 0.5 * l2 * probe.linear.weight.pow(2).sum()
        loss.backward()
        return loss

    optimizer.step(closure)  # one step runs up to max_iter iterations
    return probe.eval()


def accuracy(probe: LinearProbe, features, labels) -> float:
    """Percentage of rows whose predicted class is the label (label -1: never right)."""
    predicted = probe.predict(torch.from_numpy(np.array(features, dtype=np.float32)))
    return _percent_right(predicted, labels)


def _percent_right(predicted: torch.Tensor, labels) -> float:
    y = torch.from_numpy(np.array(labels, dtype=np.int64))
    return 100.0 * float((predicted == y).float().mean())  # in float32, as the report has it


def token_layers(embedder, sentences: Sequence[Sequence[str]], name: str = "sentences",
                 progress: bool = False, cache: bool = True) -> np.ndarray:
    """Every layer's vector of every token, sentences one after another: ``(L + 1, N, 2P)``
    float16 (UD English-EWT's training tokens take 300 MB; the probes compute in float32).

    ``name``: the prefix of the cache entry, e.g. ``"ptb-train"``; ``cache``: keep the layers
    in the disk cache (:func:`~elmo_tutorial.analyses.embedding_cache.embed_corpus`).
    """
    if not sentences:
        raise ValueError("no sentences to embed")
    if cache:
        return embed_corpus(embedder, sentences, name, progress).data  # memory-mapped
    arrays = embedder.embed_sentences(sentences)  # list of (L + 1, T_i, 2P)
    return np.concatenate(arrays, axis=1).astype(np.float16)


def tag_index(tagged: TaggedSentences) -> dict[str, int]:
    """Class id of every tag seen in ``tagged`` (sorted, so the ids do not depend on order)."""
    return {t: i for i, t in enumerate(sorted({t for _, tags in tagged for t in tags}))}


def label_ids(tagged: TaggedSentences, index: dict[str, int]) -> np.ndarray:
    """Class ids of every token, ``(N,)``; a tag not in ``index`` (unseen in training) is -1."""
    return np.array([index.get(t, -1) for _, tags in tagged for t in tags], dtype=np.int64)


def probe_layers(embedder, train: TaggedSentences, test: TaggedSentences, name: str = "pos",
                 progress: bool = False, cache: bool = True, details: dict | None = None,
                 **fit_kwargs) -> dict[str, float]:
    """Embed ``train`` and ``test`` (:func:`token_layers`), then fit one probe per layer
    (:func:`fit_probe`): ``{"layer0": test accuracy (%), ...}``.

    ``details``, if given, receives the ``(N,)`` gold ``"labels"`` of the test tokens (-1: a
    tag unseen in training), each layer's ``"predicted"`` ids, the test sentences' ``"lengths"``
    and the number of ``"train_sentences"``.
    """
    index = tag_index(train)
    x_train = token_layers(embedder, [list(s) for s, _ in train], f"{name}-train", progress,
                           cache)  # (L + 1, N, 2P)
    x_test = token_layers(embedder, [list(s) for s, _ in test], f"{name}-test", progress, cache)
    train_labels, test_labels = label_ids(train, index), label_ids(test, index)
    results, predicted = {}, {}
    for j in range(x_train.shape[0]):
        probe = fit_probe(x_train[j], train_labels, len(index), **fit_kwargs)
        guess = probe.predict(torch.from_numpy(np.array(x_test[j], dtype=np.float32)))
        results[f"layer{j}"] = _percent_right(guess, test_labels)
        predicted[f"layer{j}"] = guess.numpy()
    if details is not None:
        details.update(labels=test_labels, predicted=predicted,
                       lengths=[len(tags) for _, tags in test], train_sentences=len(train))
    return results


def most_frequent_tag_accuracy(train: TaggedSentences, test: TaggedSentences) -> float:
    """Accuracy (%) of tagging each word with its most frequent training tag (unseen words:
    the most frequent overall; ties: the tag seen first)."""
    by_word: dict[str, Counter] = defaultdict(Counter)
    for words, tags in train:
        for w, t in zip(words, tags, strict=True):
            by_word[w][t] += 1
    overall = Counter(t for _, tags in train for t in tags).most_common(1)[0][0]
    best = {w: c.most_common(1)[0][0] for w, c in by_word.items()}
    right = [best.get(w, overall) == t for words, tags in test
             for w, t in zip(words, tags, strict=True)]
    return 100.0 * sum(right) / len(right)


def evaluate_pos(embedder, progress: bool = True, max_sentences: int | None = None,
                 details: dict | None = None) -> dict[str, dict[str, float]]:
    """Table 6's probes: ``{"ptb": {"layer0", "layer1", "layer2", "most_frequent_tag"},
    "upos": {...}}``, accuracy (%) on nltk's PTB sample and UD English-EWT.

    ``max_sentences``: only the first this many sentences of each split; ``details``: receives
    per dataset :func:`probe_layers`' details.
    """
    results = {}
    for name, reader in (("ptb", treebank_pos), ("upos", ud_english_ewt)):
        train, test = reader("train")[:max_sentences], reader("test")[:max_sentences]
        outcomes = {}
        results[name] = probe_layers(embedder, train, test, name, progress, True, outcomes)
        if details is not None:
            details[name] = outcomes
        results[name]["most_frequent_tag"] = most_frequent_tag_accuracy(train, test)
    return results


def probe_settings(embedder, progress: bool = True, max_sentences: int | None = None,
                   details: dict | None = None) -> dict[str, dict[str, float]]:
    """The probes of :func:`evaluate_pos` at each of :data:`PROBE_SETTINGS`: ``{name: {"layer0",
    "layer1", "layer2"}}``, accuracy (%); ``details`` receives each one's :func:`probe_layers`
    details under its name.
    """
    splits = {data: (reader("train")[:max_sentences], reader("test")[:max_sentences])
              for data, reader in (("ptb", treebank_pos), ("upos", ud_english_ewt))}
    results = {}
    for name, (data, l2, sentences) in PROBE_SETTINGS.items():
        train, test = splits[data]
        outcomes = {}
        results[name] = probe_layers(embedder, train[:sentences], test, data, progress,
                                     sentences is None, outcomes, l2=l2)  # a part: not cached
        if details is not None:
            details[name] = outcomes
    return results


def sentence_layers(flat: np.ndarray, lengths: Sequence[int]) -> list[torch.Tensor]:
    """Cut ``(L, N, D)`` token layers (:func:`token_layers`) into one ``(T_i, L, D)`` tensor
    per sentence: views of one in-memory copy."""
    per_token = torch.from_numpy(np.array(flat)).permute(1, 0, 2)  # (N, L, D)
    return list(per_token.split(list(lengths)))
