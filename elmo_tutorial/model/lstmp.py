"""The LSTM cell with a projection (LSTMP) and clipping that ELMo's biLM uses, one step at a time.

Taught in notebook 04 (``04_forward_lm``).

ELMo's LSTM layers have 4096 memory cells but only a 512-wide output: after each step the cell's
output is multiplied by a projection matrix (LSTMP, Sak et al. 2014; Józefowicz et al. 2016
use it for large language models). bilm-tf additionally clips the memory cell and the projected
output to ``[-3, 3]``. The equations, with ``[·]`` the four row blocks of the weight matrices::

    i_t = σ(W_ii x_t + b_ii + W_hi h_{t-1} + b_hi)        input gate
    f_t = σ(W_if x_t + b_if + W_hf h_{t-1} + b_hf)        forget gate
    g_t = tanh(W_ig x_t + b_ig + W_hg h_{t-1} + b_hg)     candidate memory
    o_t = σ(W_io x_t + b_io + W_ho h_{t-1} + b_ho)        output gate
    c_t = clip(f_t ⊙ c_{t-1} + i_t ⊙ g_t, cell_clip)      clipped AFTER the update
    h_t = clip(W_hr (o_t ⊙ tanh(c_t)), proj_clip)         clipped AFTER projecting

**Gate order.** Our weights stack the blocks as PyTorch does: ``(i, f, g, o)``. TensorFlow's
``LSTMCell`` (bilm-tf) stacks them as ``(i, j, f, o)`` with ``j`` = our ``g``, and adds a constant
``forget_bias`` = 1.0 to the forget gate that is not stored in its weights; the weight loader
reorders the blocks and adds that 1.0 to our forget bias. AllenNLP's ``LstmCellWithProjection``
uses ``(i, f, g, o)`` like us and clips in the same order (cell, then projection).

Without clipping, these equations are exactly ``torch.nn.LSTM(..., proj_size=P)``.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor, nn


def lstmp_step(
    x_t: Tensor,
    h: Tensor,
    c: Tensor,
    w_ih: Tensor,
    w_hh: Tensor,
    b_ih: Tensor,
    b_hh: Tensor,
    w_hr: Tensor | None = None,
    cell_clip: float | None = None,
    proj_clip: float | None = None,
) -> tuple[Tensor, Tensor]:
    """One step of the LSTM with projection and clipping (equations in the module docstring).

    Args:
        x_t: input at step t, ``(B, I)``.
        h: previous output ``h_{t-1}``, ``(B, P)`` (``P = C`` without projection).
        c: previous memory ``c_{t-1}``, ``(B, C)``.
        w_ih, w_hh: ``(4C, I)`` and ``(4C, P)``, gate blocks in the order ``(i, f, g, o)``.
        b_ih, b_hh: ``(4C,)`` each (only their sum matters).
        w_hr: projection ``(P, C)``, or ``None`` for a plain LSTM.
        cell_clip, proj_clip: clip ``c_t`` to ``[-cell_clip, cell_clip]`` and the projected
            ``h_t`` to ``[-proj_clip, proj_clip]``; ``None`` = no clipping.

    Returns:
        ``(h_t, c_t)`` with shapes ``(B, P)`` and ``(B, C)``.
    """
    gates = F.linear(x_t, w_ih, b_ih) + F.linear(h, w_hh, b_hh)  # (B, 4C)
    i, f, g, o = gates.chunk(4, dim=-1)  # each (B, C), torch's gate order
    c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)  # (B, C)
    if cell_clip is not None:
        c = c.clamp(-cell_clip, cell_clip)  # the clipped memory is also what t + 1 reads
    h = torch.sigmoid(o) * torch.tanh(c)  # (B, C)
    if w_hr is not None:
        h = h @ w_hr.t()  # (B, C) → (B, P)
    if proj_clip is not None:
        h = h.clamp(-proj_clip, proj_clip)
    return h, c


def lstmp_sequence(
    x: Tensor,
    w_ih: Tensor,
    w_hh: Tensor,
    b_ih: Tensor,
    b_hh: Tensor,
    w_hr: Tensor | None = None,
    cell_clip: float | None = None,
    proj_clip: float | None = None,
) -> Tensor:
    """Run :func:`lstmp_step` over a whole sequence from zero state; return every ``h_t``.

    Positions after a sequence's end are computed too (their outputs are garbage the caller
    masks): a left-to-right recurrence never lets them reach earlier steps. Arguments after
    ``x`` as in :func:`lstmp_step`.

    :mod:`elmo_tutorial.fast.lstm` computes the same sequence faster on a CPU (notebook 11).

    Shape:
        x: ``(B, T, I)`` → ``(B, T, P)``.

    Example:
        >>> lstm = nn.LSTM(3, 4, batch_first=True)  # no projection, no clipping
        >>> x = torch.randn(5, 6, 3)
        >>> weights = [lstm.weight_ih_l0, lstm.weight_hh_l0, lstm.bias_ih_l0, lstm.bias_hh_l0]
        >>> torch.allclose(lstmp_sequence(x, *weights), lstm(x)[0], atol=1e-6)
        True
    """
    batch, steps, _ = x.shape
    h = x.new_zeros(batch, w_hh.shape[1])  # (B, P): h_0 = 0
    c = x.new_zeros(batch, w_hh.shape[0] // 4)  # (B, C): c_0 = 0
    outputs = []
    for t in range(steps):
        h, c = lstmp_step(x[:, t], h, c, w_ih, w_hh, b_ih, b_hh, w_hr, cell_clip, proj_clip)
        outputs.append(h)
    if not outputs:  # no steps: nothing to stack
        return x.new_zeros(batch, 0, h.shape[1])
    return torch.stack(outputs, dim=1)  # T × (B, P) → (B, T, P)


class LSTMCellWithProjection(nn.Module):
    r"""One LSTMP cell with optional clipping, for teaching and gradient checks.

    It owns the same five tensors as one layer of ``nn.LSTM(..., proj_size=P)``, under the names
    of ``nn.LSTMCell`` (no ``_l0`` suffix), and applies :func:`lstmp_step`.

    Args:
        input_size: width ``I`` of ``x_t``.
        cell_size: number of memory cells ``C``.
        projection_size: width ``P`` of ``h_t``; equal to ``cell_size`` means no projection.
        cell_clip, proj_clip: clipping thresholds, ``None`` for none.

    Shape:
        - x_t: ``(B, I)``; state ``(h, c)``: ``(B, P)``, ``(B, C)`` or ``None`` for zeros.
        - Output: ``(h_t, c_t)``.

    Attributes:
        weight_ih ``(4C, I)``, weight_hh ``(4C, P)``, bias_ih, bias_hh ``(4C,)``,
        weight_hr ``(P, C)`` (absent without projection). Initialised like ``nn.LSTM``:
        uniform in ``±1/sqrt(C)``.

    Example:
        >>> cell = LSTMCellWithProjection(8, 16, 4, cell_clip=3.0, proj_clip=3.0)
        >>> h, c = cell(torch.randn(2, 8))
        >>> h.shape, c.shape
        (torch.Size([2, 4]), torch.Size([2, 16]))
    """

    def __init__(
        self,
        input_size: int,
        cell_size: int,
        projection_size: int,
        cell_clip: float | None = None,
        proj_clip: float | None = None,
    ) -> None:
        super().__init__()
        if projection_size > cell_size:
            raise ValueError(
                f"projection_size ({projection_size}) must be ≤ cell_size ({cell_size}); "
                "the projection makes the output narrower than the memory"
            )
        self.input_size, self.cell_size, self.projection_size = (
            input_size, cell_size, projection_size
        )
        self.cell_clip, self.proj_clip = cell_clip, proj_clip
        self.weight_ih = nn.Parameter(torch.empty(4 * cell_size, input_size))
        self.weight_hh = nn.Parameter(torch.empty(4 * cell_size, projection_size))
        self.bias_ih = nn.Parameter(torch.empty(4 * cell_size))
        self.bias_hh = nn.Parameter(torch.empty(4 * cell_size))
        if projection_size < cell_size:
            self.weight_hr = nn.Parameter(torch.empty(projection_size, cell_size))
        else:
            self.register_parameter("weight_hr", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        bound = 1.0 / math.sqrt(self.cell_size)
        for weight in self.parameters():
            nn.init.uniform_(weight, -bound, bound)

    def forward(
        self, x_t: Tensor, state: tuple[Tensor, Tensor] | None = None
    ) -> tuple[Tensor, Tensor]:
        if state is None:
            h = x_t.new_zeros(x_t.shape[0], self.projection_size)
            c = x_t.new_zeros(x_t.shape[0], self.cell_size)
        else:
            h, c = state
        return lstmp_step(
            x_t, h, c, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh,
            self.weight_hr, self.cell_clip, self.proj_clip,
        )

    def extra_repr(self) -> str:
        return (
            f"{self.input_size}, {self.cell_size}, projection_size={self.projection_size}, "
            f"cell_clip={self.cell_clip}, proj_clip={self.proj_clip}"
        )


__all__ = ["LSTMCellWithProjection", "lstmp_sequence", "lstmp_step"]
