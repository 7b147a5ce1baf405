r"""Linear probes: how much a linear classifier can read off one frozen layer (paper §5.3).

Taught in notebook 10 (``10_tagging``).

To see *what* each layer of the biLM encodes, Peters et al. (2018, Table 6) freeze the biLM
and train nothing but a linear classifier on one layer's token vectors to predict each token's
part-of-speech tag. Whatever the probe gets right must already be (linearly) present in the
layer. Their biLM gives 97.3% on the Penn Treebank with layer 1 and 96.8% with layer 2: syntax
sits lower in the network than word sense (Table 5, notebook 09).

The probe is multinomial logistic regression on standardised vectors:

.. math::
    \hat x = (x - \mu) / \sigma, \qquad p(y = c \mid x) = \mathrm{softmax}(W \hat x + b)_c

with ``μ``, ``σ`` the training tokens' per-dimension mean and standard deviation, trained by
minimising the mean cross-entropy plus ``(l2 / 2) ‖W‖²`` over **all** training tokens at once
with L-BFGS. The loss is convex, the start is zero and nothing is sampled, so the same data
give the same probe: no seed is needed for determinism.

Data (``evaluate_pos``): PTB tags on nltk's 10% sample of the Penn Treebank (documents
wsj_0001-0150 train, wsj_0151-0199 test; see :func:`treebank_pos`), and UPOS on UD English-EWT
(train → test). Next to the layers, the most-frequent-tag baseline: each word's most frequent
training tag, the overall most frequent tag for unseen words. It is what word identity alone
gives, with no vectors at all.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence

import numpy as np
import torch
from torch import nn

from elmo_tutorial.analyses.embedding_cache import embed_corpus
from elmo_tutorial.data.annotated import treebank_pos, ud_english_ewt

__all__ = ["PAPER_PTB", "LinearProbe", "accuracy", "evaluate_pos", "fit_probe", "label_ids",
           "most_frequent_tag_accuracy", "probe_layers", "sentence_layers", "tag_index",
           "token_layers"]

PAPER_PTB = {"layer1": 97.3, "layer2": 96.8}  # Peters et al. (2018), Table 6, biLM

TaggedSentences = Sequence[tuple[Sequence[str], Sequence[str]]]


class LinearProbe(nn.Module):
    """Standardise, then one linear map to class scores: ``(N, D)`` → ``(N, C)`` logits.

    Attributes:
        mean, std: ``(D,)`` buffers, the training features' statistics (``std`` ≥ 1e-6).
        linear: ``nn.Linear(D, C)``, zero-initialised.
    """

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


def fit_probe(features, labels, n_classes: int, l2: float = 1e-4, max_iter: int = 100
              ) -> LinearProbe:
    """Train a :class:`LinearProbe` by full-batch L-BFGS (deterministic; see module docstring).

    Args:
        features: ``(N, D)`` float array or tensor, one row per training token.
        labels: ``(N,)`` class ids in ``0 .. n_classes - 1``.
        n_classes: number of classes ``C``.
        l2: weight of ``(l2 / 2) ‖W‖²`` (the bias is not penalised).
        max_iter: L-BFGS iterations (each evaluates the loss about once or twice).
    """
    x = torch.from_numpy(np.array(features, dtype=np.float32))  # (N, D), a float32 copy
    y = torch.from_numpy(np.array(labels, dtype=np.int64))  # (N,)
    if x.ndim != 2 or y.shape != x.shape[:1]:
        raise ValueError(f"features must be (N, D) and labels (N,), got {tuple(x.shape)} and "
                         f"{tuple(y.shape)}")
    if len(y) == 0 or y.min() < 0 or y.max() >= n_classes:
        raise ValueError(f"labels must be class ids in 0..{n_classes - 1} (at least one), got "
                         f"{len(y)} labels" + (f" in {int(y.min())}..{int(y.max())}" if len(y)
                                               else ""))
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
    """Every layer's vector of every token, sentences one after another: ``(L + 1, N, 2P)``.

    ``N`` is the total number of tokens; float16 (half the memory: UD English-EWT's 204k
    training tokens × 3 layers × 256 take 300 MB; the probes compute in float32).

    Args:
        embedder: an :class:`~elmo_tutorial.analyses.embedder.Embedder` (anything with
            ``embed_sentences`` when ``cache=False``).
        name: the prefix of the cache entry, e.g. ``"ptb-train"``.
        cache: keep the layers in the disk cache
            (:func:`~elmo_tutorial.analyses.embedding_cache.embed_corpus`, keyed by the model's and
            the sentences' checksums), so the next run with the same model loads them instead.
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
    """Embed ``train`` and ``test`` (:func:`token_layers`, cache entries ``{name}-train`` and
    ``{name}-test``), then fit one probe per layer on the tags seen in ``train``
    (``fit_kwargs`` go to :func:`fit_probe`): ``{"layer0": test accuracy (%), ...}``.

    Args:
        details: if a dict is given, it receives what the accuracies are made of, token by
            token: ``"labels"``, the ``(N,)`` gold class ids of the test tokens (-1: a tag
            unseen in training); ``"predicted"``, each layer's ``(N,)`` predicted ids; and
            ``"lengths"``, the number of tokens of each test sentence (they sum to ``N``).
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
                       lengths=[len(tags) for _, tags in test])
    return results


def most_frequent_tag_accuracy(train: TaggedSentences, test: TaggedSentences) -> float:
    """Accuracy (%) of tagging each word with its most frequent training tag.

    Words never seen in training get the most frequent tag overall. Ties go to the tag seen
    first in training, so the result is deterministic.
    """
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
    """The POS probes of Table 6 on PTB tags and UD English-EWT UPOS, accuracy in percent.

    Args:
        embedder: an :class:`~elmo_tutorial.analyses.embedder.Embedder`.
        progress: show progress bars while embedding.
        max_sentences: use only the first this many training and test sentences of each
            dataset (for a quick look; the full run uses all of them).
        details: if a dict is given, it receives per dataset (``details["ptb"]``,
            ``details["upos"]``) the token-level test outcomes of :func:`probe_layers`.

    Returns:
        ``{"ptb": {"layer0", "layer1", "layer2", "most_frequent_tag"}, "upos": {...}}``.
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


def sentence_layers(flat: np.ndarray, lengths: Sequence[int]) -> list[torch.Tensor]:
    """Cut ``(L, N, D)`` token layers (:func:`~elmo_tutorial.analyses.probes.token_layers`) into one
    ``(T_i, L, D)`` tensor per sentence: views of one in-memory copy."""
    per_token = torch.from_numpy(np.array(flat)).permute(1, 0, 2)  # (N, L, D)
    return list(per_token.split(list(lengths)))
