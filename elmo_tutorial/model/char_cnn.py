"""The character encoder of ELMo: characters → CNN → max-pool → highway → projection.

Taught in notebook 03 (``03_char_cnn``).

Every token becomes a vector from its characters alone (Peters et al. 2018, Sec. 3.4, after
Kim et al. 2016), so words never seen in training still get one. For a token's 50 character
ids ``c_1..c_50``:

1. look up a small embedding per character:         (50, E)
2. one ``Conv1d`` per filter width ``w`` slides over the characters, one output per window;
3. keep each filter's **maximum** over the windows, then apply the activation (max-pool first,
   then ReLU, as in bilm-tf; the two commute because ReLU and tanh are monotone);
4. concatenate all widths (2048 features in the paper), pass them through highway layers
   (Srivastava et al. 2015), and project linearly to the LSTM width ``P`` (512 in the paper).

A token's vector depends on its characters only, so ``CharCNN`` computes it once per
*distinct* token of a batch and copies it to every position where the token occurs.
"""

from __future__ import annotations

import torch
from torch import nn

from elmo_tutorial.model.chars import PAD_CHAR
from elmo_tutorial.model.config import ModelConfig

_ACTIVATIONS = {"relu": torch.relu, "tanh": torch.tanh}
PAD_ID = PAD_CHAR + 1  # the padding *character* id inside a token (ids are shifted by +1)


def _activation(name: str):
    if name not in _ACTIVATIONS:
        raise ValueError(f"unknown activation {name!r}; use one of {sorted(_ACTIVATIONS)}")
    return _ACTIVATIONS[name]


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


class Highway(nn.Module):
    r"""A stack of highway layers (Srivastava et al. 2015) of constant width.

    Each layer computes, with one ``nn.Linear(dim, 2 * dim)`` whose output is split in two:

    .. math::
        h = f(W_h x + b_h), \qquad g = \sigma(W_g x + b_g), \qquad
        y = g \odot x + (1 - g) \odot h

    ``g`` is the **carry** gate: ``g → 1`` passes ``x`` through unchanged, ``g → 0`` replaces
    it by the non-linear ``h``. This is AllenNLP's convention. bilm-tf writes the same layer as
    ``y = t ⊙ relu(x W_transform + b_transform) + (1 - t) ⊙ x`` with
    ``t = σ(x W_carry + b_carry)``: its "carry" gate ``t`` actually gates the transform, so
    ``t = 1 - g``. Loading TF weights therefore takes ``W_h = W_transformᵀ``, ``b_h =
    b_transform`` and ``W_g = -W_carryᵀ``, ``b_g = -b_carry`` (because ``1 - σ(z) = σ(-z)``).

    Args:
        dim: width of ``x`` (and ``y``).
        n_layers: number of highway layers; 0 gives the identity.
        activation: ``f``, ``"relu"`` (ELMo) or ``"tanh"``.

    Attributes:
        layers: ``ModuleList`` of ``nn.Linear(dim, 2 * dim)``; output rows ``[:dim]`` give
            ``h``, rows ``[dim:]`` give the gate ``g``. Initialised as bilm-tf does: weights
            ``N(0, 1/dim)``, ``b_h = 0`` and ``b_g = +2`` (bilm-tf's ``b_carry = -2``), so
            each layer starts close to the identity (mostly carrying ``x``).

    Shape:
        - Input: ``(*, dim)``
        - Output: ``(*, dim)``

    Example:
        >>> highway = Highway(8, n_layers=2)
        >>> highway(torch.randn(3, 5, 8)).shape
        torch.Size([3, 5, 8])
    """

    def __init__(self, dim: int, n_layers: int, activation: str = "relu") -> None:
        super().__init__()
        self.dim = dim
        self.activation = activation
        self._f = _activation(activation)
        self.layers = nn.ModuleList(nn.Linear(dim, 2 * dim) for _ in range(n_layers))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        for layer in self.layers:
            nn.init.normal_(layer.weight, std=(1.0 / self.dim) ** 0.5)
            nn.init.zeros_(layer.bias[: self.dim])
            nn.init.constant_(layer.bias[self.dim :], 2.0)  # carry gate open: σ(2) ≈ 0.88

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        shape = x.shape
        if shape[-1:] != (self.dim,):
            raise ValueError(f"Highway expects inputs of shape (*, {self.dim}), got {tuple(shape)}")
        # One column per vector, so that each product has the weight on the left (W @ x):
        # MKL runs that 10-20% faster than x @ Wᵀ for these shapes (benchmarks/).
        columns = x.reshape(-1, self.dim).t()  # (dim, N)
        for layer in self.layers:
            projected = torch.addmm(layer.bias.unsqueeze(1), layer.weight, columns)  # (2 dim, N)
            h, g = projected.chunk(2, dim=0)  # 2 × (dim, N)
            # g ⊙ x + (1 - g) ⊙ f(h) in one op: lerp(a, b, w) = a + w ⊙ (b - a)
            columns = torch.lerp(self._f(h), columns, torch.sigmoid(g))
        return columns.t().reshape(shape)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, n_layers={len(self.layers)}, activation={self.activation!r}"


def conv1d_windows(x: torch.Tensor, conv: nn.Conv1d) -> torch.Tensor:
    """``conv(x)`` with channels last, as one matrix product over all windows.

    A convolution is a matrix product: each window of ``width`` columns, flattened to
    ``E·width`` numbers, times the filters flattened the same way. ``unfold`` lists the
    windows, and one ``addmm`` scores them all. On a CPU this runs 2-3× faster than
    ``nn.Conv1d`` for ELMo's shapes (16 input channels, up to 1024 filters).

    Shape:
        x: ``(N, C, E)`` embeddings, channels last → ``(N, C - width + 1, count)``.
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


class CharCNN(nn.Module):
    r"""ELMo's context-independent token encoder: character ids → token vectors.

    For a token's character embeddings :math:`C \in \mathbb{R}^{E \times 50}` and each filter
    width :math:`w` with weights :math:`K_w`:

    .. math::
        z_w = \mathrm{act}\bigl(\max_{t} (K_w * C)_{:,t} + b_w\bigr), \qquad
        x_k = W_p \,\mathrm{Highway}([z_{w_1}; \dots; z_{w_n}]) + b_p

    Args:
        config: a ``ModelConfig``; uses ``char_embed_dim`` (E), ``filters`` (width, count),
            ``n_highway``, ``activation``, ``max_chars``, ``n_characters`` and
            ``projection_dim`` (P).

    Attributes:
        char_embedding: ``nn.Embedding(262, E, padding_idx=0)``; row 0 (no token) stays 0.
        convs: one ``nn.Conv1d(E, count, kernel_size=width)`` per ``config.filters`` entry.
        highway: ``Highway(n_filters, n_highway)``, always ReLU (bilm-tf and AllenNLP use ReLU
            there whatever ``activation`` says).
        projection: ``nn.Linear(n_filters, P)``.
        Initialisation follows bilm-tf: characters ``U(-1, 1)``; convolutions ``U(-0.05,
        0.05)`` for ReLU (Kim et al.) or ``N(0, 1/(w E))`` for tanh, biases 0; projection
        ``N(0, 1/n_filters)``, bias 0.

    Shape:
        - Input: ``(B, T, 50)`` character ids from ``batch_to_ids``; all-zero rows are padding.
          The models that contain a ``CharCNN`` check their input once, with
          :func:`~elmo_tutorial.model.chars.check_char_ids`; the ``CharCNN`` itself does not.
        - Output: ``(B, T, P)``, zeros at padded positions.

    Example:
        >>> from elmo_tutorial.model.chars import batch_to_ids
        >>> from elmo_tutorial.model.config import MODEL_PRESETS
        >>> cnn = CharCNN(MODEL_PRESETS["tiny"])
        >>> cnn(batch_to_ids([["Hello", "world"], ["Hi"]])).shape
        torch.Size([2, 2, 64])
    """

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.config = config
        self._act = _activation(config.activation)
        self.char_embedding = nn.Embedding(
            config.n_characters, config.char_embed_dim, padding_idx=0
        )
        self.convs = nn.ModuleList(
            nn.Conv1d(config.char_embed_dim, count, kernel_size=width)
            for width, count in config.filters
        )
        self.highway = Highway(config.n_filters, config.n_highway, activation="relu")
        self.projection = nn.Linear(config.n_filters, config.projection_dim)
        self._max_width = max(width for width, _ in config.filters)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        nn.init.uniform_(self.char_embedding.weight, -1.0, 1.0)
        with torch.no_grad():
            self.char_embedding.weight[0].zero_()
        for conv in self.convs:
            if self.config.activation == "relu":
                nn.init.uniform_(conv.weight, -0.05, 0.05)
            else:
                width = conv.kernel_size[0]
                nn.init.normal_(conv.weight, std=(1.0 / (width * conv.in_channels)) ** 0.5)
            nn.init.zeros_(conv.bias)
        self.highway.reset_parameters()
        nn.init.normal_(self.projection.weight, std=(1.0 / self.config.n_filters) ** 0.5)
        nn.init.zeros_(self.projection.bias)

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
        return vectors[where].view(B, T, -1)  # (B, T, P)

    def embed_tokens(self, ids: torch.Tensor) -> torch.Tensor:
        """The plain computation for ``N`` tokens: ``(N, 50)`` ids → ``(N, P)`` vectors."""
        features = self.filter_features(ids)  # (N, n_filters)
        return self.projection(self.highway(features))  # (N, P)

    def filter_features(self, ids: torch.Tensor) -> torch.Tensor:
        """Every filter's activated maximum over each token's windows: ``(N, 50)`` → ``(N, F)``.

        Equal to ``act(conv(x).amax(-1))`` for each ``conv`` over all 50 columns, computed in
        less time: tokens go in groups of similar length, each group drops the trailing
        columns that are PAD in all its tokens (:meth:`_length_groups`), and each convolution
        is one matrix product over all windows (:func:`conv1d_max`).
        """
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
        end-of-word id every id is PAD. A window wholly in that region scores the same for
        every token, and that score can be a filter's maximum, so it must stay among the
        windows. Keeping ``longest + max_width`` columns keeps every window that touches a real
        character *and* at least one all-PAD window for every width, so each maximum is
        unchanged: the windows dropped are further all-PAD copies. Groups hold 1/8 of the
        tokens, at least 32 and at most 512: few calls on a GPU, bounded memory on a CPU.
        """
        real = (ids != PAD_ID) & (ids != 0)  # (N, C): a character of a real token
        columns = torch.arange(1, ids.shape[-1] + 1, device=ids.device)  # 1..C
        lengths, order = (real * columns).amax(dim=-1).sort(stable=True)  # (N,), shortest first
        lengths = lengths.tolist()
        size = min(max(-(-len(ids) // 8), 32), 512)
        groups = []
        for start in range(0, len(ids), size):
            longest = lengths[min(start + size, len(ids)) - 1]  # the group's last = longest
            columns_needed = min(ids.shape[-1], longest + self._max_width)
            groups.append((order[start : start + size], columns_needed))
        return order, groups

    def extra_repr(self) -> str:
        return f"filters={list(self.config.filters)}, activation={self.config.activation!r}"


__all__ = ["CharCNN", "Highway", "conv1d_max", "conv1d_windows"]
