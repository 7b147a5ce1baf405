"""Layer normalisation (Ba et al. 2016), from its formula, and the masked variant ELMo uses.

Taught in notebook 01 (``01_layer_norm``).

Two functions of the same idea live here:

* ``LayerNorm`` normalises **each vector on its own** over its last dimension(s) and then
  rescales it with a learnable gain γ and bias β. It equals ``torch.nn.LayerNorm``; we write
  it out so that the notebook ``01_layer_norm`` can show every step.
* ``masked_layer_norm`` normalises **a whole batch with one mean and one variance**, computed
  over the real (unmasked) elements only, with no gain or bias. This is what the scalar mix of
  ELMo does with ``do_layer_norm=True`` (Peters et al. 2018, Sec. 3.2; AllenNLP ``ScalarMix``):
  padding must not shift the statistics, so the padded positions are left out of them.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import torch
from torch import nn


class LayerNorm(nn.Module):
    r"""Layer normalisation over the last ``len(normalized_shape)`` dimensions.

    .. math::
        \mu = \frac{1}{H}\sum_{i=1}^{H} x_i, \qquad
        \sigma^2 = \frac{1}{H}\sum_{i=1}^{H} (x_i - \mu)^2, \qquad
        y_i = \gamma_i \, \frac{x_i - \mu}{\sqrt{\sigma^2 + \epsilon}} + \beta_i

    where :math:`H` is the number of normalised elements. The variance is the *biased* one
    (divide by :math:`H`, not :math:`H - 1`), and :math:`\epsilon` sits inside the square root,
    exactly as in ``torch.nn.LayerNorm``.

    Args:
        normalized_shape: the trailing shape to normalise over, e.g. ``D`` or ``(T, D)``.
        eps: added to the variance for numerical stability. Default: ``1e-5``.
        elementwise_affine: learn the gain γ and bias β (per element). Default: ``True``.

    Attributes:
        weight: the gain γ, shape ``normalized_shape``, initialised to ones.
        bias: the bias β, shape ``normalized_shape``, initialised to zeros.
        (``weight``/``bias`` are ``torch.nn.LayerNorm``'s names, so state dicts interchange.)

    Shape:
        - Input: ``(*, *normalized_shape)``
        - Output: same shape as the input.

    Example:
        >>> norm = LayerNorm(4)
        >>> y = norm(torch.tensor([[1.0, 2.0, 3.0, 4.0]]))
        >>> [round(v, 4) for v in y[0].tolist()]
        [-1.3416, -0.4472, 0.4472, 1.3416]
    """

    def __init__(
        self,
        normalized_shape: int | Sequence[int],
        eps: float = 1e-5,
        elementwise_affine: bool = True,
    ) -> None:
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (int(normalized_shape),)
        self.normalized_shape = tuple(int(n) for n in normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = nn.Parameter(torch.empty(self.normalized_shape))
            self.bias = nn.Parameter(torch.empty(self.normalized_shape))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """γ = 1, β = 0: at initialisation the layer only standardises."""
        if self.elementwise_affine:
            nn.init.ones_(self.weight)
            nn.init.zeros_(self.bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n = len(self.normalized_shape)
        if tuple(x.shape[-n:]) != self.normalized_shape:
            raise ValueError(
                f"LayerNorm expects inputs whose last {n} dimension(s) are "
                f"{self.normalized_shape}, got shape {tuple(x.shape)}; pass the trailing "
                "shape you want normalised as normalized_shape"
            )
        dims = tuple(range(-n, 0))
        mean = x.mean(dim=dims, keepdim=True)  # (*, 1, ..., 1)
        variance = (x - mean).pow(2).mean(dim=dims, keepdim=True)  # biased: divide by H
        y = (x - mean) / torch.sqrt(variance + self.eps)
        if self.elementwise_affine:
            y = y * self.weight + self.bias
        return y

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, "
            f"elementwise_affine={self.elementwise_affine}"
        )


def masked_layer_norm(x: torch.Tensor, mask: torch.Tensor, eps: float = 1e-12) -> torch.Tensor:
    r"""Normalise a batch with **one** mean and variance over its unmasked elements.

    With :math:`M` the set of (position, feature) pairs whose position is unmasked and
    :math:`N = |M|` = (number of real positions) × D:

    .. math::
        \mu = \frac{1}{N}\sum_{(t,d)\in M} x_{t,d}, \qquad
        \sigma^2 = \frac{1}{N}\sum_{(t,d)\in M} (x_{t,d} - \mu)^2, \qquad
        y_{t,d} = \frac{x_{t,d} - \mu}{\sqrt{\sigma^2 + \epsilon}}

    This is AllenNLP's ``ScalarMix._do_layer_norm`` (ε = 1e-12 inside the square root, biased
    variance, no gain or bias): the statistics are shared by the whole batch, not computed per
    token, and padded positions take no part in them. Masked positions of the output are 0
    (AllenNLP leaves ``(x - μ)/σ`` there; nothing downstream reads them).

    Args:
        x: the activations, shape ``(*, D)``, e.g. ``(B, T, D)``.
        mask: ``True`` at real positions, shape ``(*)``, e.g. ``(B, T)``; any dtype, nonzero
            counts as real.
        eps: added to the variance. Default: ``1e-12`` (AllenNLP's value).

    Returns:
        A tensor shaped like ``x``. If the mask is all ``False`` the result is all zeros.

    Example:
        >>> x = torch.tensor([[[1.0, 3.0], [100.0, -100.0]]])   # second position is padding
        >>> masked_layer_norm(x, torch.tensor([[True, False]])).tolist()
        [[[-1.0, 1.0], [0.0, 0.0]]]
    """
    if mask.shape != x.shape[:-1]:
        raise ValueError(
            f"mask must have the shape of x without its last dimension: x is "
            f"{tuple(x.shape)}, so the mask should be {tuple(x.shape[:-1])}, got "
            f"{tuple(mask.shape)}; build it with elmo_tutorial.model.chars.ids_to_mask"
        )
    keep = mask.bool().unsqueeze(-1)  # (*, 1), broadcasts over D
    # Count on the device (no .item(): no host sync); clamp so an empty mask gives 0, not NaN.
    n = (keep.sum() * x.shape[-1]).clamp(min=1).to(x.dtype)
    # masked_fill (not multiplication by the mask) so that inf/NaN in padding cannot leak in.
    x_real = x.masked_fill(~keep, 0.0)  # (*, D)
    mean = x_real.sum() / n
    centered = (x_real - mean).masked_fill(~keep, 0.0)  # (*, D), zero at padding
    variance = centered.pow(2).sum() / n
    return centered / torch.sqrt(variance + eps)


__all__ = ["LayerNorm", "masked_layer_norm"]
