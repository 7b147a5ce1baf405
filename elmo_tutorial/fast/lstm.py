"""The faithful (clipping) LSTMP loop with vectors as columns: the same numbers, faster on a CPU.

Taught in notebook 11 (``11_pretrained_and_scale``); the plain loop is
:func:`elmo_tutorial.model.lstmp.lstmp_sequence` (notebook 04).

The plain loop keeps one row per sequence, ``h (B, P)``, and multiplies ``h @ W_hh^T``. Here
every sequence is a **column**, ``h (P, B)``, and the products read ``W_hh @ h``: the weight
on the left, and each gate block a contiguous slice of rows. Two more changes:

- the input half of the gates, ``W_ih x_t + b_ih + b_hh``, does not depend on the recurrence,
  so it is computed for all steps in one batched product before the loop;
- each step then does one ``addmm`` (input part + ``W_hh @ h``) and the element-wise update.

The equations are those of :mod:`elmo_tutorial.model.lstmp`, in the same order; on a CPU the MKL
products run 15-20 % faster this way round for ELMo's shapes (``benchmarks/``). A TorchScript
version of this loop measured slower, so it stays plain Python. ``tests/fast/test_fast_lstm.py``
checks it against the plain loop.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from elmo_tutorial.model.lstm import LSTMStack


def lstmp_update_columns(
    gates: Tensor,
    c: Tensor,
    w_hr: Tensor | None,
    cell_clip: float | None,
    proj_clip: float | None,
) -> tuple[Tensor, Tensor]:
    """From the summed gate pre-activations and ``c_{t-1}`` to ``(h_t, c_t)``, one column per
    sequence: ``gates (4C, B)``, ``c (C, B)`` → ``h_t (P, B)``, ``c_t (C, B)``."""
    i, f, g, o = gates.chunk(4, dim=0)  # each (C, B), torch's gate order
    c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
    if cell_clip is not None:
        c = c.clamp(-cell_clip, cell_clip)
    h = torch.sigmoid(o) * torch.tanh(c)  # (C, B)
    if w_hr is not None:
        h = w_hr @ h  # (P, C) @ (C, B) → (P, B)
    if proj_clip is not None:
        h = h.clamp(-proj_clip, proj_clip)
    return h, c


def lstmp_sequence_columns(
    x: Tensor,
    w_ih: Tensor,
    w_hh: Tensor,
    b_ih: Tensor,
    b_hh: Tensor,
    w_hr: Tensor | None = None,
    cell_clip: float | None = None,
    proj_clip: float | None = None,
) -> Tensor:
    """:func:`~elmo_tutorial.model.lstmp.lstmp_sequence` with the vectors as columns.

    Same arguments and result; see the module docstring for what differs.

    Shape:
        x: ``(B, T, I)`` → ``(B, T, P)``.

    Example:
        >>> from elmo_tutorial.model.lstmp import lstmp_sequence
        >>> weights = [torch.randn(16, 3), torch.randn(16, 2), torch.randn(16), torch.randn(16),
        ...            torch.randn(2, 4)]
        >>> x = torch.randn(5, 6, 3)
        >>> torch.allclose(lstmp_sequence_columns(x, *weights, 3.0, 3.0),
        ...                lstmp_sequence(x, *weights, 3.0, 3.0), atol=1e-6)
        True
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
        h, c = lstmp_update_columns(gates, c, w_hr, cell_clip, proj_clip)
        outputs.append(h)
    if not outputs:
        return x.new_zeros(batch, 0, proj)
    return torch.stack(outputs).permute(2, 0, 1)  # (T, P, B) → (B, T, P)


class FastLSTMStack(LSTMStack):
    """:class:`~elmo_tutorial.model.lstm.LSTMStack` whose faithful (clipping) path runs
    :func:`lstmp_sequence_columns`; the fused path (``nn.LSTM``) is unchanged.

    It adds nothing to the module: :func:`elmo_tutorial.fast.speed_up` switches an
    ``LSTMStack``'s class to this one in place, so the parameters, their names and the
    ``state_dict`` stay the same.
    """

    def _run_layer(self, layer: nn.LSTM, x: Tensor) -> Tensor:
        if self.fused:
            return super()._run_layer(layer, x)
        return lstmp_sequence_columns(
            x, layer.weight_ih_l0, layer.weight_hh_l0, layer.bias_ih_l0, layer.bias_hh_l0,
            getattr(layer, "weight_hr_l0", None), self.cell_clip, self.proj_clip,
        )  # (B, T, P)


__all__ = ["FastLSTMStack", "lstmp_sequence_columns", "lstmp_update_columns"]
