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


def _lstmp_update(
    gates: Tensor,
    c: Tensor,
    w_hr: Tensor | None,
    cell_clip: float | None,
    proj_clip: float | None,
    gate_dim: int = -1,
) -> tuple[Tensor, Tensor]:
    """From the summed gate pre-activations and ``c_{t-1}`` to ``(h_t, c_t)``.

    ``gate_dim=-1``: one row per sequence, ``gates (B, 4C)``, ``c (B, C)``. ``gate_dim=0``:
    one column per sequence, ``gates (4C, B)``, ``c (C, B)`` (the layout of
    :func:`lstmp_sequence`).
    """
    i, f, g, o = gates.chunk(4, dim=gate_dim)  # each (B, C) or (C, B), torch order
    c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
    if cell_clip is not None:
        c = c.clamp(-cell_clip, cell_clip)
    h = torch.sigmoid(o) * torch.tanh(c)  # (B, C) or (C, B)
    if w_hr is not None:
        h = h @ w_hr.t() if gate_dim == -1 else w_hr @ h  # (B, P) or (P, B)
    if proj_clip is not None:
        h = h.clamp(-proj_clip, proj_clip)
    return h, c


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
    return _lstmp_update(gates, c, w_hr, cell_clip, proj_clip)


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

    The input half of the gates does not depend on the recurrence, so it is computed for all
    steps in one batched product; each step then does one product with ``W_hh`` and the
    element-wise update. Positions after a sequence's end are computed too (their outputs are
    garbage the caller masks): a left-to-right recurrence never lets them reach earlier steps.

    The loop keeps each sequence's vectors as **columns** (``h`` is ``(P, B)``), so every
    product has the weight on the left (``W_hh @ h``) and each gate block is a contiguous
    slice of rows. Same numbers as the row layout of :func:`lstmp_step`; on a CPU the MKL
    products run 15-20% faster this way round for ELMo's shapes (``benchmarks/``). A
    TorchScript version of this loop measured slower, so it stays plain Python.

    Shape:
        x: ``(B, T, I)`` → ``(B, T, P)``.
    """
    batch, steps, _ = x.shape
    bias = (b_ih + b_hh).unsqueeze(1)  # (4C, 1), added to every column
    # Every step's input part at once: (T, 4C, I) @ (T, I, B) → (T, 4C, B)
    xw = torch.baddbmm(bias, w_ih.expand(steps, -1, -1), x.permute(1, 2, 0))
    proj = w_hh.shape[1]
    h = x.new_zeros(proj, batch)  # (P, B)
    c = x.new_zeros(w_hh.shape[0] // 4, batch)  # (C, B)
    outputs = []
    for t in range(steps):
        gates = torch.addmm(xw[t], w_hh, h)  # (4C, B)
        h, c = _lstmp_update(gates, c, w_hr, cell_clip, proj_clip, gate_dim=0)
        outputs.append(h)
    if not outputs:
        return x.new_zeros(batch, 0, proj)
    return torch.stack(outputs).permute(2, 0, 1)  # (T, P, B) → (B, T, P)


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
