r"""The biLM's output layer: a softmax over the vocabulary, full or sampled.

Taught in notebook 06 (``06_bilm_training``).

Both directions share one softmax (Peters et al. 2018, Sec. 3.1: "we tie the parameters for
both the token representation and Softmax layer"). For an LSTM output ``h`` and a word ``w``::

    log p(w | h) = (W_w · h + b_w) - log Σ_v exp(W_v · h + b_v)

**Why a sampled softmax.** With the paper's 793 471-word vocabulary the sum over ``v`` costs
400 M multiply-adds per token, on every training step. bilm-tf instead trains with
``tf.nn.sampled_softmax_loss`` (Jean et al. 2015; Józefowicz et al. 2016): per batch it draws
``S`` = 8192 candidate words ``s_1..s_S`` from a proposal ``Q`` and normalises over the target and
the candidates only, each logit corrected by ``- log E[count]`` so that words the proposal
favours are not over-counted::

    loss = -z_w + log(exp(z_w) + Σ_j exp(z_{s_j}))  with  z_v = W_v · h + b_v - log E_Q[count(v)]

Candidates equal to the target ("accidental hits") are dropped from the sum. The proposal is
**log-uniform** (Zipfian), ``Q(k) = log((k + 2) / (k + 1)) / log(V + 1)``, which fits because our
vocabulary is sorted by frequency (ids 0, 1, 2 are ``<S>``, ``</S>``, ``<UNK>``, then the most
frequent words): frequent words, which the target usually is, get the most samples. Sampling is
only a training shortcut; perplexities are always computed with the full softmax.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor, nn

IGNORE_INDEX = -100  # targets never counted in a loss (F.cross_entropy's default ignore_index)


def log_uniform_probs(vocab_size: int) -> Tensor:
    """``Q(k) = log((k + 2) / (k + 1)) / log(V + 1)`` for ``k = 0..V-1``; sums to 1 (telescopes).

    Shape:
        Output: ``(V,)`` float64.
    """
    k = torch.arange(vocab_size, dtype=torch.float64)
    return torch.log1p(1.0 / (k + 1.0)) / math.log(vocab_size + 1.0)


def draw_log_uniform(
    n: int, vocab_size: int, generator: torch.Generator | None = None
) -> Tensor:
    """``n`` independent draws from ``Q`` (with replacement): ``floor(exp(u · log(V + 1))) - 1``.

    With ``u ~ U[0, 1)``, ``P(draw ≤ k) = P(exp(u log(V+1)) < k + 2) = log(k + 2) / log(V + 1)``,
    whose differences are ``Q(k)``.

    Shape:
        Output: ``(n,)`` long on the CPU.
    """
    u = torch.rand(n, dtype=torch.float64, generator=generator)
    return (torch.exp(u * math.log(vocab_size + 1.0)).floor().long() - 1).clamp_(0, vocab_size - 1)


def sample_log_uniform(
    num_samples: int, vocab_size: int, generator: torch.Generator | None = None
) -> tuple[Tensor, int]:
    """Draw ``num_samples`` *distinct* ids from ``Q``, as TensorFlow's candidate sampler does.

    Draws with replacement, keeping each id the first time it appears, until ``num_samples``
    distinct ids are found (draws: :func:`draw_log_uniform`).

    Returns:
        ``(ids, num_tries)``: ids ``(num_samples,)`` long on the CPU, in order of first
        appearance, and the number of draws it took (needed for the expected counts).
    """
    if not 0 < num_samples < vocab_size:
        raise ValueError(
            f"num_samples must be in [1, vocab_size - 1] = [1, {vocab_size - 1}], got "
            f"{num_samples}; with num_samples ≥ vocab_size use the full softmax"
        )
    draws = torch.empty(0, dtype=torch.long)
    while True:
        draws = torch.cat([draws, draw_log_uniform(2 * num_samples, vocab_size, generator)])
        unique, inverse = torch.unique(draws, return_inverse=True)
        if len(unique) >= num_samples:
            break
    positions = torch.arange(len(draws))
    first = torch.full((len(unique),), len(draws), dtype=torch.long)
    first = first.scatter_reduce(0, inverse, positions, reduce="amin")  # first draw of each id
    kept = first.sort().values[:num_samples]  # draw positions of the first S distinct ids
    return draws[kept], int(kept[-1]) + 1


def expected_count(ids: Tensor, num_tries: int, num_samples: int, vocab_size: int) -> Tensor:
    """How often ``num_tries`` draws from ``Q`` are expected to contain each id.

    ``num_samples · Q(k)`` when no draw was rejected, else ``1 - (1 - Q(k))^num_tries`` (the
    probability of appearing at all), computed stably; both as in TensorFlow.

    Shape:
        ids: any; output: same, float64.
    """
    q = torch.log1p(1.0 / (ids.double() + 1.0)) / math.log(vocab_size + 1.0)
    if num_tries == num_samples:
        return q * num_samples
    return -torch.expm1(num_tries * torch.log1p(-q))


def masked_nll(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Mean negative log-likelihood over the positions whose target is not ``IGNORE_INDEX`` (-100).

    .. math::
        \\text{NLL} = -\\frac{1}{|\\{t: y_t \\ne -100\\}|} \\sum_{t: y_t \\ne -100}
                       \\log \\operatorname{softmax}(z_t)_{y_t}

    Works on logits and on log-probabilities alike (``log_softmax`` of log-probabilities
    leaves them unchanged). Positions with target -100 contribute nothing, whatever their
    logits, so padding never reaches the loss.

    Shape:
        - logits: ``(B, T, V)``
        - targets: ``(B, T)``
        - output: scalar (0 when no position has a target)
    """
    flat_logits = logits.reshape(-1, logits.shape[-1])  # (B*T, V)
    flat_targets = targets.reshape(-1)  # (B*T,)
    total = F.cross_entropy(flat_logits, flat_targets, ignore_index=IGNORE_INDEX,
                            reduction="sum")
    count = (flat_targets != IGNORE_INDEX).sum()
    return total / count.clamp(min=1)


class Softmax(nn.Module):
    r"""Softmax layer over the vocabulary with a full and a sampled negative log-likelihood.

    Args:
        dim: width ``P`` of the LSTM outputs.
        vocab_size: number of words ``V`` (frequency-sorted ids; 0, 1, 2 = ``<S> </S> <UNK>``).
        num_samples: candidates per batch for the sampled softmax (bilm-tf: 8192).

    Shape:
        - h: ``(..., P)``; targets: ``(...)`` long, ``-100`` where nothing is predicted.
        - :meth:`forward` returns ``(nll_sum, n_tokens)``: a scalar tensor and an ``int``.

    Attributes:
        weight: ``(V, P)``, normal with std ``1/sqrt(P)`` (bilm-tf's initialisation).
        bias: ``(V,)``, zeros.

    Example:
        >>> softmax = Softmax(8, 100)
        >>> nll_sum, n = softmax(torch.randn(2, 5, 8), torch.randint(100, (2, 5)))
        >>> n
        10
    """

    def __init__(self, dim: int, vocab_size: int, num_samples: int = 8192) -> None:
        super().__init__()
        self.dim, self.vocab_size, self.num_samples = dim, vocab_size, num_samples
        self.weight = nn.Parameter(torch.empty(vocab_size, dim))
        self.bias = nn.Parameter(torch.empty(vocab_size))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        nn.init.normal_(self.weight, 0.0, 1.0 / math.sqrt(self.dim))
        nn.init.zeros_(self.bias)

    def log_probs(self, h: Tensor) -> Tensor:
        """``log p(v | h)`` for every word: ``(..., P)`` → ``(..., V)``."""
        return F.log_softmax(F.linear(h, self.weight, self.bias), dim=-1)

    def forward(self, h: Tensor, targets: Tensor, sampled: bool = False) -> tuple[Tensor, int]:
        """Summed NLL of ``targets`` and their number; ``sampled`` picks the training shortcut
        (its candidates drawn from PyTorch's global generator)."""
        keep = targets != IGNORE_INDEX  # (...)
        h, targets = h[keep], targets[keep]  # (N, P), (N,): padding costs nothing
        n_tokens = int(targets.numel())
        if n_tokens and (targets.min() < 0 or targets.max() >= self.vocab_size):
            raise ValueError(
                f"targets must be word ids in [0, {self.vocab_size}) or -100 (ignored); got "
                f"values in [{int(targets.min())}, {int(targets.max())}]"
            )
        if sampled and self.num_samples < self.vocab_size:
            return self.sampled_nll(h, targets), n_tokens
        logits = F.linear(h, self.weight, self.bias)  # (N, V)
        return F.cross_entropy(logits, targets, reduction="sum"), n_tokens

    def sampled_nll(
        self,
        h: Tensor,
        targets: Tensor,
        candidates: tuple[Tensor, int] | None = None,
    ) -> Tensor:
        """Summed sampled-softmax loss, ``tf.nn.sampled_softmax_loss`` semantics.

        Args:
            h: ``(N, P)``; targets: ``(N,)`` word ids (no ``-100`` here).
            candidates: ``(ids, num_tries)`` from :func:`sample_log_uniform`; drawn afresh
                (``self.num_samples`` of them) when ``None``. One set serves the whole batch.
        """
        if candidates is None:
            candidates = sample_log_uniform(self.num_samples, self.vocab_size)
        ids, num_tries = candidates
        ids = ids.to(self.weight.device)
        count = len(ids)
        log_q_true = expected_count(targets, num_tries, count, self.vocab_size).log()  # (N,)
        log_q_sampled = expected_count(ids, num_tries, count, self.vocab_size).log()  # (S,)
        # One gather of the rows used, true and sampled: the softmax then receives a single
        # gradient from each direction, so the two directions' sum does not depend on order.
        rows = torch.cat([targets, ids])  # (N + S,)
        weight, bias = self.weight[rows], self.bias[rows]  # (N + S, P), (N + S,)
        n = len(targets)
        true_logits = (h * weight[:n]).sum(-1) + bias[:n]  # (N,)
        true_logits = true_logits - log_q_true.to(h.dtype)
        sampled_logits = F.linear(h, weight[n:], bias[n:])  # (N, S)
        sampled_logits = sampled_logits - log_q_sampled.to(h.dtype)
        hits = ids.unsqueeze(0) == targets.unsqueeze(1)  # (N, S): candidate is the target
        sampled_logits = sampled_logits.masked_fill(hits, float("-inf"))
        logits = torch.cat([true_logits.unsqueeze(1), sampled_logits], dim=1)  # (N, 1 + S)
        return (torch.logsumexp(logits, dim=1) - true_logits).sum()

    def extra_repr(self) -> str:
        return f"dim={self.dim}, vocab_size={self.vocab_size}, num_samples={self.num_samples}"


__all__ = [
    "IGNORE_INDEX", "Softmax", "draw_log_uniform", "expected_count", "log_uniform_probs",
    "masked_nll", "sample_log_uniform",
]
