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

This module computes exactly that, at every position of a batch. A faster drop-in with the
same parameters, :class:`elmo_tutorial.fast.char_cnn.FastCharCNN` (notebook 11), computes the
same vectors once per distinct token, with fewer columns and fewer calls.
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
        if x.shape[-1:] != (self.dim,):
            raise ValueError(f"Highway expects inputs of shape (*, {self.dim}), got "
                             f"{tuple(x.shape)}")
        for layer in self.layers:
            h, g = layer(x).chunk(2, dim=-1)  # (*, 2 dim) → 2 × (*, dim)
            g = torch.sigmoid(g)  # the carry gate
            x = g * x + (1 - g) * self._f(h)
        return x

    def extra_repr(self) -> str:
        return f"dim={self.dim}, n_layers={len(self.layers)}, activation={self.activation!r}"


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
        E, P = self.config.char_embed_dim, self.config.projection_dim
        chars = self.char_embedding(char_ids)  # (B, T, C, E)
        chars = chars.view(B * T, C, E).transpose(1, 2)  # (B·T, E, C): channels first
        # conv(chars) is (B·T, count, C - width + 1), one score per window; keep each maximum.
        pooled = [conv(chars).amax(dim=-1) for conv in self.convs]  # each (B·T, count)
        features = self._act(torch.cat(pooled, dim=-1))  # (B·T, n_filters)
        vectors = self.projection(self.highway(features))  # (B·T, P)
        vectors = vectors.view(B, T, P)  # (B, T, P)
        is_token = (char_ids != 0).any(dim=-1, keepdim=True)  # (B, T, 1); False at padding
        return vectors.masked_fill(~is_token, 0.0)

    def embed_tokens(self, ids: torch.Tensor) -> torch.Tensor:
        """The vectors of ``N`` tokens: ``(N, 50)`` ids → ``(N, P)``, as :meth:`forward`
        computes them at each position (an all-zero row is not zeroed here)."""
        features = self.filter_features(ids)  # (N, n_filters)
        return self.projection(self.highway(features))  # (N, P)

    def filter_features(self, ids: torch.Tensor) -> torch.Tensor:
        """Every filter's activated maximum over each token's windows: ``(N, 50)`` → ``(N, F)``,
        the features that :meth:`forward` passes to the highway layers."""
        chars = self.char_embedding(ids).transpose(1, 2)  # (N, 50, E) → (N, E, 50)
        pooled = [conv(chars).amax(dim=-1) for conv in self.convs]  # each (N, count)
        return self._act(torch.cat(pooled, dim=-1))  # (N, n_filters)

    def extra_repr(self) -> str:
        return f"filters={list(self.config.filters)}, activation={self.config.activation!r}"


__all__ = ["PAD_ID", "CharCNN", "Highway"]
