"""A stack of LSTMP layers for one direction of the biLM (Peters et al. 2018, Sec. 3.1, 3.4).

Taught in notebooks 04 and 05.

Each layer is one ``nn.LSTM(input_size, cell_size, proj_size=projection_size)``: that module
only *holds* the parameters (names ``weight_ih_l0``, ``weight_hh_l0``, ``bias_ih_l0``,
``bias_hh_l0``, ``weight_hr_l0``), and :class:`LSTMStack` runs them in one of two ways:

- **faithful**: an explicit loop over time (:func:`~elmo_tutorial.model.lstmp.lstmp_sequence`)
  with cell and projection clipping, exactly AllenNLP's ``LstmCellWithProjection`` and bilm-tf;
- **fused**: the ``nn.LSTM`` call itself (cuDNN on a GPU), exact only when nothing is clipped.

Both read the same tensors, so weights move freely between them. ``fused=None`` picks the fused
path iff there is no clipping; the official ELMo weights clip, our own presets do not. The
faithful loop here is the plain one; :class:`~elmo_tutorial.fast.lstm.FastLSTMStack` runs the
same loop faster on a CPU (notebook 11), by overriding :meth:`LSTMStack._run_layer` only.

Padding needs no packing: the recurrence runs left to right, so positions after a sequence's
end never influence earlier ones; their outputs are set to zero at the end. The backward
direction reverses every sequence *within its own length* (:func:`reverse_padded`), runs the
same left-to-right code, and reverses back, so it starts at each sequence's last real token.
"""

from __future__ import annotations

import warnings

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from elmo_tutorial.model.lstmp import lstmp_sequence


def reverse_padded(x: Tensor, lengths: Tensor) -> Tensor:
    """Reverse each sequence of a right-padded batch within its own length.

    ``torch.flip(x, [1])`` would move the padding to the front, so a backward LSTM would start
    on padding; here row ``b`` becomes ``x[b, L_b-1], ..., x[b, 0], <padding unchanged>``.
    The operation is its own inverse.

    Args:
        x: ``(B, T, ...)`` batch, real positions first.
        lengths: ``(B,)`` number of real positions per row.

    Shape:
        Output: same as ``x``.
    """
    steps = x.shape[1]
    t = torch.arange(steps, device=x.device)  # (T,)
    lengths = lengths.to(x.device).unsqueeze(1)  # (B, 1)
    index = torch.where(t < lengths, lengths - 1 - t, t)  # (B, T): per-row source position
    index = index.view(*index.shape, *([1] * (x.dim() - 2))).expand_as(x)
    return x.gather(1, index)


class LSTMStack(nn.Module):
    r"""``n_layers`` LSTMP layers in one direction, with residual connections and clipping.

    .. math::
        h^{(1)} = \mathrm{LSTMP}_1(x), \qquad
        h^{(k)} = \mathrm{LSTMP}_k(h^{(k-1)}) + h^{(k-1)} \quad (k \ge 2,\ \text{skip connections})

    Args:
        input_size: width of the input (the token embedding, ``P`` in ELMo).
        cell_size: memory cells per layer ``C`` (4096 in the paper).
        projection_size: output width ``P`` (512); ``= cell_size`` means no projection.
        n_layers: number of layers (2).
        cell_clip, proj_clip: clip memory cells / projected outputs (3.0 in the paper's
            weights); ``None`` for none.
        use_skip_connections: add each layer's input to its output from the 2nd layer on.
        go_forward: ``True`` reads left to right; ``False`` right to left, starting at each
            sequence's own last token.
        fused: ``None`` (auto: fused iff no clipping), ``True`` (``nn.LSTM``; refused with
            clipping because it would silently compute a different function), ``False``
            (the explicit loop).
        dropout: dropout on the input of every layer after the first, during training only
            (never inside the recurrence). The residual adds the dropped input, as in bilm-tf.

    Shape:
        - x: ``(B, T, input_size)``; mask: ``(B, T)`` bool, True at real tokens, which must
          come first in each row.
        - Output: list of ``n_layers`` tensors ``(B, T, P)``, zero at padded positions.

    Attributes:
        layers: ``ModuleList`` of ``nn.LSTM(in_k, cell_size, proj_size=P, batch_first=True)``.
            Initialised as ``nn.LSTM`` (uniform ``±1/sqrt(C)``) except the biases: zero, and
            1 on the forget gate (Józefowicz et al. 2015, TF's ``forget_bias=1.0``).

    Example:
        >>> stack = LSTMStack(16, 32, 16, n_layers=2, cell_clip=3.0, proj_clip=3.0)
        >>> mask = torch.tensor([[1, 1, 1, 1, 1], [1, 1, 0, 0, 0]]).bool()
        >>> outs = stack(torch.randn(2, 5, 16), mask)
        >>> [tuple(o.shape) for o in outs], stack.fused
        ([(2, 5, 16), (2, 5, 16)], False)
    """

    def __init__(
        self,
        input_size: int,
        cell_size: int,
        projection_size: int,
        n_layers: int,
        cell_clip: float | None = None,
        proj_clip: float | None = None,
        use_skip_connections: bool = True,
        go_forward: bool = True,
        fused: bool | None = None,
        dropout: float = 0.0,
    ) -> None:
        super().__init__()
        if projection_size > cell_size:
            raise ValueError(
                f"projection_size ({projection_size}) must be ≤ cell_size ({cell_size})"
            )
        clipping = cell_clip is not None or proj_clip is not None
        if fused and clipping:
            raise ValueError(
                "fused=True cannot clip: nn.LSTM has no cell_clip/proj_clip, so it would compute "
                "a different function. Use fused=None (auto) or fused=False, or set both clips "
                "to None."
            )
        self.input_size, self.cell_size, self.projection_size = (
            input_size, cell_size, projection_size
        )
        self.n_layers = n_layers
        self.cell_clip, self.proj_clip = cell_clip, proj_clip
        self.use_skip_connections = use_skip_connections
        self.go_forward = go_forward
        self.fused = (not clipping) if fused is None else bool(fused)
        self.dropout = dropout
        proj = projection_size if projection_size < cell_size else 0  # 0: nn.LSTM's "none"
        self.layers = nn.ModuleList(
            nn.LSTM(input_size if k == 0 else projection_size, cell_size, proj_size=proj,
                    batch_first=True)
            for k in range(n_layers)
        )
        self.reset_parameters()

    def reset_parameters(self) -> None:
        for layer in self.layers:
            layer.reset_parameters()
            with torch.no_grad():
                layer.bias_ih_l0.zero_()
                layer.bias_hh_l0.zero_()
                layer.bias_ih_l0[self.cell_size : 2 * self.cell_size] = 1.0  # forget gate

    def _run_layer(self, layer: nn.LSTM, x: Tensor) -> Tensor:
        """One layer over right-padded ``x (B, T, in)`` from zero state → ``(B, T, P)``.

        The one place that says how a layer runs: a fast subclass overrides it.
        """
        if self.fused:
            with warnings.catch_warnings():  # CPU: "no oneDNN kernel with projections", harmless
                warnings.filterwarnings("ignore", message="LSTM with projections")
                return layer(x)[0]
        return lstmp_sequence(
            x, layer.weight_ih_l0, layer.weight_hh_l0, layer.bias_ih_l0, layer.bias_hh_l0,
            getattr(layer, "weight_hr_l0", None), self.cell_clip, self.proj_clip,
        )

    def forward(self, x: Tensor, mask: Tensor) -> list[Tensor]:
        mask = mask.bool()
        lengths = mask.sum(dim=1)  # (B,)
        steps = torch.arange(x.shape[1], device=mask.device)
        if not torch.equal(mask, steps < lengths.unsqueeze(1)):
            raise ValueError(
                "LSTMStack expects right-padded batches: each mask row must be True for its "
                "tokens and False after them (no holes, no left padding)"
            )
        keep = mask.unsqueeze(-1).to(x.dtype)  # (B, T, 1)
        if not self.go_forward:
            x = reverse_padded(x, lengths)  # each row now starts at its last token
        outputs = []
        for k, layer in enumerate(self.layers):
            if k > 0:
                x = F.dropout(x, self.dropout, self.training)
            h = self._run_layer(layer, x)  # (B, T, P)
            if k > 0 and self.use_skip_connections:
                h = h + x
            x = h * keep  # zero at padding, also as the next layer's input
            outputs.append(x)
        if not self.go_forward:
            outputs = [reverse_padded(h, lengths) for h in outputs]
        return outputs

    def extra_repr(self) -> str:
        return (
            f"cell_clip={self.cell_clip}, proj_clip={self.proj_clip}, "
            f"use_skip_connections={self.use_skip_connections}, go_forward={self.go_forward}, "
            f"fused={self.fused}, dropout={self.dropout}"
        )


__all__ = ["LSTMStack", "reverse_padded"]
