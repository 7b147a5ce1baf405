"""The scalar mix: ELMo's task-specific weighted sum of the biLM's layers (Peters et al. 2018).

Taught in notebook 07 (``07_scalar_mix``).

Sec. 3.2 (Eq. 1) of the paper collapses the ``L + 1`` layers ``h_0..h_L`` of the biLM into one
vector per token:

    ELMo_k = γ · Σ_j s_j h_{k,j},      s = softmax(w)

with ``w`` (called ``scalar_parameters`` here, as in AllenNLP) and ``γ`` learned by the task
model. Optionally each layer is first layer-normalised over the whole batch (Ba et al. 2016;
``masked_layer_norm``), which helps when the layers' scales differ. Sec. 3.3 adds ``λ ‖w‖²``
to the task loss "to stay close to an average of all biLM layers", and Sec. 5.1 (Table 2)
compares λ = 1 with λ = 0.001. ``penalty()`` returns the sum of squares before λ: by default of
the raw parameters ``w``, as bilm-tf regularises ``ELMo_W`` (``bilm/elmo.py``) and AllenNLP's
configs regularise ``scalar_parameters``; ``penalty(on="weights")`` takes the softmax-normalised
``s`` instead.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn

from elmo_tutorial.model.layer_norm import masked_layer_norm


class ScalarMix(nn.Module):
    r"""A learned, softmax-normalised weighted sum of ``n_layers`` tensors, times ``γ``.

    .. math::
        s = \mathrm{softmax}(w), \qquad
        \mathrm{mix}(h_0, \dots, h_{L}) = \gamma \sum_{j} s_j \, \mathrm{LN}(h_j)

    where LN is ``masked_layer_norm`` (one mean and variance over all real tokens of the
    batch) when ``do_layer_norm=True`` and the identity otherwise.

    Args:
        n_layers: number of tensors mixed (``L + 1`` for ELMo: the token layer and L LSTMs).
        do_layer_norm: normalise each layer before weighting; ``forward`` then needs a mask.
        initial_scalar_parameters: starting values of ``w`` (``n_layers`` floats). Default:
            zeros, i.e. uniform weights ``s_j = 1 / n_layers``.
        trainable: learn ``w`` and ``γ``; with ``False`` they stay at their initial values.

    Attributes:
        scalar_parameters: ``w``, shape ``(n_layers,)``, the unnormalised layer weights.
        gamma: ``γ``, shape ``(1,)``, initialised to 1.

    Shape:
        - Input: a list of ``n_layers`` tensors ``(*, D)`` of one shape, e.g. ``(B, T, D)``;
          ``mask`` ``(*)``, e.g. ``(B, T)``, True at real tokens.
        - Output: ``(*, D)``.

    Example:
        >>> mix = ScalarMix(3)
        >>> layers = [torch.full((2, 4, 8), float(j)) for j in range(3)]
        >>> mix(layers)[0, 0, :3].tolist()          # uniform weights, γ = 1: the mean
        [1.0, 1.0, 1.0]
        >>> mix.penalty().detach()                   # ‖w‖² = 0 at the initial w = 0
        tensor(0.)
        >>> mix.penalty(on="weights").detach()       # ‖s‖² is smallest (1/3) at uniform s
        tensor(0.3333)
    """

    def __init__(
        self,
        n_layers: int,
        do_layer_norm: bool = False,
        initial_scalar_parameters: Sequence[float] | None = None,
        trainable: bool = True,
    ) -> None:
        super().__init__()
        if n_layers < 1:
            raise ValueError(f"ScalarMix needs at least one layer to mix, got n_layers={n_layers}")
        if initial_scalar_parameters is None:
            initial_scalar_parameters = [0.0] * n_layers
        if len(initial_scalar_parameters) != n_layers:
            raise ValueError(
                f"initial_scalar_parameters has {len(initial_scalar_parameters)} values "
                f"({list(initial_scalar_parameters)}) but n_layers={n_layers}; give one value "
                "per layer, or None for uniform weights"
            )
        self.n_layers = n_layers
        self.do_layer_norm = do_layer_norm
        self.scalar_parameters = nn.Parameter(
            torch.tensor([float(v) for v in initial_scalar_parameters]), requires_grad=trainable
        )
        self.gamma = nn.Parameter(torch.ones(1), requires_grad=trainable)

    @property
    def weights(self) -> torch.Tensor:
        """The normalised layer weights ``s = softmax(w)``, shape ``(n_layers,)``."""
        return torch.softmax(self.scalar_parameters, dim=0)

    def penalty(self, on: str = "parameters") -> torch.Tensor:
        """The regulariser before λ (Sec. 3.3): a sum of squares that favours uniform weights.

        Args:
            on: ``"parameters"`` (default): ``‖w‖² = Σ_j w_j²`` of the raw
                ``scalar_parameters``, what bilm-tf (``l2_coef * reduce_sum(square(ELMo_W))``)
                and AllenNLP's configs (an l2 regulariser on ``scalar_parameters``) add. It is
                0 at ``w = 0`` (uniform ``s``), grows without bound as the mix sharpens, and
                also pins the constant that the softmax ignores (``w`` and ``w + c`` give the
                same ``s`` but not the same penalty).
                ``"weights"``: ``‖s‖² = Σ_j s_j²`` of the softmax-normalised weights. It lies
                between ``1 / n_layers`` (uniform) and 1 (one layer), so its pull stays bounded,
                and it fades as ``s`` nears a single layer (the softmax saturates).

        Either way ``λ · penalty()`` added to a task loss pulls the mix towards the average
        of the layers; a large λ keeps it there.
        """
        if on == "parameters":
            return self.scalar_parameters.pow(2).sum()
        if on == "weights":
            return self.weights.pow(2).sum()
        raise ValueError(f'penalty(on=...) must be "parameters" (‖w‖², bilm-tf) or "weights" '
                         f"(‖softmax(w)‖²), got {on!r}")

    def forward(
        self, tensors: Sequence[torch.Tensor], mask: torch.Tensor | None = None
    ) -> torch.Tensor:
        if len(tensors) != self.n_layers:
            raise ValueError(
                f"ScalarMix was built for {self.n_layers} layers but got {len(tensors)} "
                f"tensors; pass all of them (ELMo: the token layer plus every LSTM layer) or "
                f"build ScalarMix({len(tensors)})"
            )
        shapes = {tuple(t.shape) for t in tensors}
        if len(shapes) != 1:
            raise ValueError(f"all layers must have one shape, got {sorted(shapes)}")
        if self.do_layer_norm:
            if mask is None:
                raise ValueError(
                    "ScalarMix(do_layer_norm=True) needs the mask (True at real tokens, shape "
                    "of a layer without its last dimension) so that padding stays out of the "
                    "statistics: call mix(layers, mask=mask)"
                )
            tensors = [masked_layer_norm(t, mask) for t in tensors]
        s = self.weights  # (L,)
        mixed = s[0] * tensors[0]  # (*, D)
        for j in range(1, self.n_layers):
            mixed = mixed + s[j] * tensors[j]
        return self.gamma * mixed  # (*, D)

    def extra_repr(self) -> str:
        trainable = self.scalar_parameters.requires_grad
        return f"{self.n_layers}, do_layer_norm={self.do_layer_norm}, trainable={trainable}"


__all__ = ["ScalarMix"]
