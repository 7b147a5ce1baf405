r"""Dropout with its mask drawn by ``rand_like``: ``nn.Dropout``'s distribution, faster on a CPU.

Taught in notebook 11 (``11_pretrained_and_scale``).

``nn.Dropout`` draws its mask with ``bernoulli_``, which on a CPU took a sixth of a task
model's training step (``benchmarks/profile_task_epoch.py``). Comparing a uniform draw with
``p`` gives the same distribution, each unit kept with probability ``1 - p``:

.. math::
    m_i = [u_i \ge p], \quad u_i \sim \mathcal{U}[0, 1), \qquad
    y_i = \frac{m_i\, x_i}{1 - p}

and is about 2.5 times faster. The masks themselves differ from ``nn.Dropout``'s for the same
seed (another draw), so a model trains to other, equally likely, numbers; the tests in
``tests/fast/test_fast_dropout.py`` check the distribution.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn


class FastDropout(nn.Dropout):
    """:class:`torch.nn.Dropout` with the mask drawn by ``rand_like`` instead of ``bernoulli_``.

    Same arguments and attributes (``p``, ``inplace``), same behaviour: identity in eval mode
    and at ``p = 0``, zeros at ``p = 1``. :func:`elmo_tutorial.fast.speed_up` switches an
    ``nn.Dropout``'s class to this one in place.

    Example:
        >>> dropout = FastDropout(0.5)
        >>> y = dropout(torch.ones(10_000))
        >>> sorted(set(y.tolist())), round((y == 0).float().mean().item(), 1)
        ([0.0, 2.0], 0.5)
        >>> torch.equal(dropout.eval()(torch.ones(3)), torch.ones(3))
        True
    """

    def forward(self, x: Tensor) -> Tensor:
        if not self.training or self.p == 0.0:
            return x
        if self.p == 1.0:  # nothing kept (and no division by 1 - p = 0)
            return x.zero_() if self.inplace else torch.zeros_like(x)
        keep = torch.rand_like(x) >= self.p  # True with probability 1 - p
        if self.inplace:
            return x.mul_(keep).div_(1.0 - self.p)
        return x * keep / (1.0 - self.p)


__all__ = ["FastDropout"]
