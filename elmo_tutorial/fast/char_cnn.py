"""The character CNN made fast: the same vectors as :mod:`elmo_tutorial.model.char_cnn`, less work.

Taught in notebook 11 (``11_pretrained_and_scale``); the plain module is notebook 03's.
:class:`FastCharCNN` and :class:`FastHighway` are subclasses of ``CharCNN`` and ``Highway``
that change only how ``forward`` computes: same parameters, same names, no attribute of their
own, so :func:`elmo_tutorial.fast.speed_up` switches a model to them by changing each module's
class. Each trick, what it buys (on a CPU; measurements in ``benchmarks/RESULTS.md``) and why
it changes no result beyond float rounding:

* **Each distinct token once** (:func:`distinct_rows`). A token's vector depends on its 50
  character ids only: no neighbour, no position and nothing random enters the encoder. Batches
  repeat "the", ",", "." and the all-zero padding row, so the network runs on far fewer rows
  (988 distinct rows for 3,840 positions in 128 Brown sentences) and the vectors are copied
  back. The gradient of a copied vector sums over its copies, as it would over the positions.
* **Fewer columns** (:meth:`FastCharCNN._length_groups`). Most words are far shorter than 50
  characters. Tokens go in groups of similar length and each group drops the trailing columns
  that are PAD in all its tokens, keeping ``max width`` of them: a window made only of PAD
  characters scores the same for every word and can be a filter's maximum, so one such window
  per width stays; the windows dropped are copies of it, and the maximum is unchanged.
* **Convolution as one matrix product** (:func:`conv1d_windows`). ``unfold`` lists every
  window, flattened to ``E·width`` numbers, and one ``addmm`` scores them all against the
  filters flattened the same way: the same sums as ``nn.Conv1d``, 2-3× faster on a CPU for
  ELMo's shapes (16 input channels, up to 1024 filters). The ``nn.Conv1d`` modules only hold
  the weights.
* **Highway with vectors as columns** (:class:`FastHighway`). Each product has the weight on
  the left (``W @ x``), which MKL runs 10-20% faster than ``x @ Wᵀ`` for these shapes, and
  ``g ⊙ x + (1 − g) ⊙ f(h)`` is one ``lerp``: the same formula, one pass over the memory.
"""

from __future__ import annotations

import torch
from torch import nn

from elmo_tutorial.model.char_cnn import PAD_ID, CharCNN, Highway

# Random weights < 2**47 times ids < 2**9, summed over 50 columns, stay below 2**62: no overflow.
_ROW_KEY_WEIGHTS = torch.randint(0, 2**47, (64,), generator=torch.Generator().manual_seed(0))


def distinct_rows(rows: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The distinct rows of ``rows`` ``(N, C)`` and, for each row, its index among them.

    Returns ``(distinct (U, C), where (N,))`` with ``distinct[where]`` equal to ``rows``, as
    ``torch.unique(rows, dim=0, return_inverse=True)`` does (in another order of the rows).
    That sorts whole rows and took 2.5 of the 10 ms of the tiny model's character CNN on a
    training batch; here each row becomes one integer key (a random linear hash of its ids,
    which are below 512), the keys are made unique, and the result is checked: if two rows
    ever share a key, the exact sort is used instead. On a GPU, which sorts fast and has no
    integer matrix product, ``torch.unique`` itself.

    Example:
        >>> distinct, where = distinct_rows(torch.tensor([[3, 4], [5, 6], [3, 4]]))
        >>> len(distinct), torch.equal(distinct[where], torch.tensor([[3, 4], [5, 6], [3, 4]]))
        (2, True)
    """
    if (rows.device.type != "cpu" or rows.shape[1] > len(_ROW_KEY_WEIGHTS) or rows.numel() == 0
            or rows.min() < 0 or rows.max() >= 512):
        return torch.unique(rows, dim=0, return_inverse=True)
    keys = rows.long() @ _ROW_KEY_WEIGHTS[: rows.shape[1]]  # (N,)
    _, where = torch.unique(keys, return_inverse=True)  # (N,) index of each row's key
    first = torch.empty(int(where.max()) + 1, dtype=torch.long)
    first.scatter_(0, where, torch.arange(len(where)))  # one row that has each key
    distinct = rows[first]  # (U, C)
    if not torch.equal(distinct[where], rows):  # two different rows share a key
        return torch.unique(rows, dim=0, return_inverse=True)
    return distinct, where


def conv1d_windows(x: torch.Tensor, conv: nn.Conv1d) -> torch.Tensor:
    """``conv(x)`` with channels last, as one matrix product over all windows.

    Window ``t`` flattened, times the filters flattened the same way:
    ``out[n, t, f] = Σ_e Σ_k x[n, t + k, e] · weight[f, e, k] + bias[f]``.

    Shape:
        x: ``(N, C, E)`` embeddings, channels last → ``(N, C - width + 1, count)``.

    Example:
        >>> conv = nn.Conv1d(4, 3, kernel_size=2)
        >>> x = torch.randn(5, 9, 4)
        >>> torch.allclose(conv1d_windows(x, conv), conv(x.transpose(1, 2)).transpose(1, 2),
        ...                atol=1e-6)
        True
    """
    n, _, channels = x.shape
    width = conv.kernel_size[0]
    windows = x.unfold(1, width, 1)  # (N, L, E, width), L = C - width + 1 windows
    flat = windows.reshape(-1, channels * width)  # (N·L, E·width), the weight's (E, width) order
    scores = torch.addmm(conv.bias, flat, conv.weight.reshape(conv.out_channels, -1).t())
    return scores.view(n, -1, conv.out_channels)  # (N·L, count) → (N, L, count)


def conv1d_max(x: torch.Tensor, conv: nn.Conv1d) -> torch.Tensor:
    """``conv(x)`` then the maximum over positions: ``(N, C, E)`` → ``(N, count)``."""
    return conv1d_windows(x, conv).amax(dim=1)


class FastHighway(Highway):
    """:class:`~elmo_tutorial.model.char_cnn.Highway` with vectors as columns and ``lerp``."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        shape = x.shape
        if shape[-1:] != (self.dim,):
            raise ValueError(f"Highway expects inputs of shape (*, {self.dim}), got {tuple(shape)}")
        columns = x.reshape(-1, self.dim).t()  # (dim, N): W @ x, the faster order for MKL
        for layer in self.layers:
            projected = torch.addmm(layer.bias.unsqueeze(1), layer.weight, columns)  # (2 dim, N)
            h, g = projected.chunk(2, dim=0)  # 2 × (dim, N)
            # g ⊙ x + (1 - g) ⊙ f(h) in one op: lerp(a, b, w) = a + w ⊙ (b - a)
            columns = torch.lerp(self._f(h), columns, torch.sigmoid(g))
        return columns.t().reshape(shape)  # (*, dim)


class FastCharCNN(CharCNN):
    """:class:`~elmo_tutorial.model.char_cnn.CharCNN` on distinct tokens, in length groups,
    each convolution one product. ``embed_tokens`` is the plain one, on these features."""

    def forward(self, char_ids: torch.Tensor) -> torch.Tensor:
        B, T, C = char_ids.shape
        if B * T == 0:
            return self.projection.weight.new_zeros(B, T, self.projection.out_features)
        # Each distinct token once: sentences repeat "the", ",", "." and padding many times.
        tokens, where = distinct_rows(char_ids.reshape(B * T, C))
        # tokens (U, C), U ≤ B·T distinct rows; where (B·T,) row of each position in `tokens`
        vectors = self.embed_tokens(tokens)  # (U, P)
        is_token = (tokens != 0).any(dim=-1, keepdim=True)  # (U, 1); False for the padding row
        vectors = vectors.masked_fill(~is_token, 0.0)
        # index_select, not vectors[where]: on two threads indexing's backward adds the
        # gradients of a repeated token in an order that changes from run to run
        return vectors.index_select(0, where).view(B, T, -1)  # (B, T, P)

    def filter_features(self, ids: torch.Tensor) -> torch.Tensor:
        """The plain ``act(conv(x).amax(-1))`` of every filter, ``(N, 50)`` → ``(N, F)``, in
        length groups (:meth:`_length_groups`), each convolution one product
        (:func:`conv1d_max`)."""
        order, groups = self._length_groups(ids)
        pieces = []
        for rows, columns in groups:
            x = self.char_embedding(ids[rows, :columns])  # (n, columns, E)
            pieces.append(torch.cat([conv1d_max(x, conv) for conv in self.convs], dim=-1))
        if not pieces:  # no tokens
            return self.projection.weight.new_zeros(0, self.config.n_filters)
        features = torch.cat(pieces)  # (N, n_filters), sorted by length
        return self._act(features[order.argsort()])  # back to the input order, (N, n_filters)

    def _length_groups(self, ids: torch.Tensor) -> tuple[torch.Tensor, list]:
        """Sort tokens by length and cut them into groups, each with the columns it needs.

        Returns ``order`` (the sorting permutation) and ``[(rows, columns), ...]``: ``rows``
        index ``ids``, and the group keeps its first ``columns`` columns. Beyond a token's
        end-of-word id every id is PAD. Keeping ``longest + max_width`` columns keeps every
        window that touches a real character *and* at least one all-PAD window for every
        width, so each maximum is unchanged. Groups hold 1/8 of the tokens, at least 32 and at
        most 512: few calls on a GPU, bounded memory on a CPU.
        """
        max_width = max(conv.kernel_size[0] for conv in self.convs)  # from the modules: no state
        real = (ids != PAD_ID) & (ids != 0)  # (N, C): a character of a real token
        columns = torch.arange(1, ids.shape[-1] + 1, device=ids.device)  # 1..C
        lengths, order = (real * columns).amax(dim=-1).sort(stable=True)  # (N,), shortest first
        lengths = lengths.tolist()
        size = min(max(-(-len(ids) // 8), 32), 512)
        groups = []
        for start in range(0, len(ids), size):
            longest = lengths[min(start + size, len(ids)) - 1]  # the group's last = longest
            columns_needed = min(ids.shape[-1], longest + max_width)
            groups.append((order[start : start + size], columns_needed))
        return order, groups


__all__ = ["FastCharCNN", "FastHighway", "conv1d_max", "conv1d_windows", "distinct_rows"]
