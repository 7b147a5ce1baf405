r"""Linear probes: how much a linear classifier can read off one frozen layer (paper §5.3).

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

__all__ = [
    "LinearProbe",
    "PAPER_PTB",
    "evaluate_pos",
    "fit_probe",
    "most_frequent_tag_accuracy",
    "probe_layers",
    "token_layers",
]

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
    x = torch.as_tensor(np.asarray(features), dtype=torch.float32)  # (N, D)
    y = torch.as_tensor(np.asarray(labels), dtype=torch.long)  # (N,)
    if x.ndim != 2 or y.shape != x.shape[:1]:
        raise ValueError(f"features must be (N, D) and labels (N,), got {tuple(x.shape)} and "
                         f"{tuple(y.shape)}")
    if len(y) == 0 or y.min() < 0 or y.max() >= n_classes:
        raise ValueError(f"labels must be class ids in 0..{n_classes - 1} (at least one), got "
                         f"{len(y)} labels" + (f" in {int(y.min())}..{int(y.max())}" if len(y)
                                               else ""))
    probe = LinearProbe(x.mean(0), x.std(0), n_classes)
    optimizer = torch.optim.LBFGS(probe.linear.parameters(), lr=1, max_iter=max_iter,
                                  history_size=20, line_search_fn="strong_wolfe",
                                  tolerance_grad=1e-6, tolerance_change=1e-9)

    def closure() -> torch.Tensor:
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(probe(x), y)
        loss = loss + 0.5 * l2 * probe.linear.weight.pow(2).sum()
        loss.backward()
        return loss

    optimizer.step(closure)  # one step runs up to max_iter iterations
    return probe.eval()


def accuracy(probe: LinearProbe, features, labels) -> float:
    """Percentage of rows whose predicted class is the label (label -1: never right)."""
    x = torch.as_tensor(np.asarray(features), dtype=torch.float32)
    y = torch.as_tensor(np.asarray(labels), dtype=torch.long)
    return 100.0 * float((probe.predict(x) == y).float().mean())


def token_layers(embedder, sentences: Sequence[Sequence[str]], progress: bool = False,
                 chunk: int = 1000) -> np.ndarray:
    """Every layer's vector of every token, sentences one after another: ``(L + 1, N, 2P)``.

    ``N`` is the total number of tokens. Stored as float16 (half the memory: UD English-EWT's
    204k training tokens × 3 layers × 256 take 300 MB); the probes compute in float32.
    """
    n_tokens = sum(len(s) for s in sentences)
    out = None
    position = 0
    starts = range(0, len(sentences), chunk)
    if progress:
        from tqdm.auto import tqdm

        starts = tqdm(starts, desc=f"embedding {len(sentences)} sentences", unit="chunk")
    for start in starts:
        for vectors in embedder.embed_sentences(sentences[start:start + chunk]):  # (L+1, T, 2P)
            if out is None:
                out = np.empty((vectors.shape[0], n_tokens, vectors.shape[2]), np.float16)
            out[:, position:position + vectors.shape[1]] = vectors
            position += vectors.shape[1]
    if out is None:
        raise ValueError("no sentences to embed")
    return out


def _label_ids(tagged: TaggedSentences, tagset: dict[str, int]) -> np.ndarray:
    """Class ids of every token; a tag not in ``tagset`` (unseen in training) becomes -1."""
    return np.array([tagset.get(t, -1) for _, tags in tagged for t in tags], dtype=np.int64)


def probe_layers(embedder, train: TaggedSentences, test: TaggedSentences,
                 progress: bool = False, **fit_kwargs) -> dict[str, float]:
    """Train one probe per layer on ``train``; test accuracy in percent per layer.

    Returns:
        ``{"layer0": acc, "layer1": acc, ...}`` (as many as the biLM has layers).
    """
    tagset = {t: i for i, t in enumerate(sorted({t for _, tags in train for t in tags}))}
    y_train, y_test = _label_ids(train, tagset), _label_ids(test, tagset)
    x_train = token_layers(embedder, [list(s) for s, _ in train], progress)  # (L+1, N, 2P)
    x_test = token_layers(embedder, [list(s) for s, _ in test], progress)
    results = {}
    for j in range(x_train.shape[0]):
        probe = fit_probe(x_train[j], y_train, len(tagset), **fit_kwargs)
        results[f"layer{j}"] = accuracy(probe, x_test[j], y_test)
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


def evaluate_pos(embedder, progress: bool = True, max_sentences: int | None = None
                 ) -> dict[str, dict[str, float]]:
    """The POS probes of Table 6 on PTB tags and UD English-EWT UPOS, accuracy in percent.

    Args:
        embedder: an :class:`~elmo_tutorial.embedder.Embedder`.
        progress: show progress bars while embedding.
        max_sentences: use only the first this many training and test sentences of each
            dataset (for a quick look; the full run uses all of them).

    Returns:
        ``{"ptb": {"layer0", "layer1", "layer2", "most_frequent_tag"}, "upos": {...}}``.
    """
    from .annotated import treebank_pos, ud_english_ewt

    results = {}
    for name, reader in (("ptb", treebank_pos), ("upos", ud_english_ewt)):
        train, test = reader("train")[:max_sentences], reader("test")[:max_sentences]
        results[name] = probe_layers(embedder, train, test, progress)
        results[name]["most_frequent_tag"] = most_frequent_tag_accuracy(train, test)
    return results
