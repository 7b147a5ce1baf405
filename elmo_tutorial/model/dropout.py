"""Dropout whose mask can come from a random generator the caller owns.

Taught in notebook 06 (``06_bilm_training``). ``nn.Dropout`` draws its mask from PyTorch's
one global generator. That is reproducible while one thread draws everything in a fixed order,
but the biLM's two directions can run at once, one thread each
(:mod:`elmo_tutorial.fast.direction_threads`): draws from one shared generator would then
depend on which thread gets there first, and the same seed would train other weights.

So every random draw inside a training step of the biLM belongs to a *stream*: ``"input"``
for the dropout on the token vectors that both directions read, ``"forward"`` and
``"backward"`` for everything inside one direction (dropout between LSTM layers and on the
top layer, the sampled softmax's candidates). :func:`step_generators` gives each stream its own
generator, seeded from the run's seed, the step and the stream's name, so a step draws the same
masks whether the directions run one after the other or at once, on any thread count, and a
resumed run needs nothing but its step number to draw exactly what the uninterrupted run drew.

Without a generator, :func:`dropout` and :class:`Dropout` are ``F.dropout`` and ``nn.Dropout``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

import torch
import torch.nn.functional as F
from torch import Tensor, nn

# The streams of one training step of the biLM (see the module docstring).
STREAMS = ("input", "forward", "backward")


def dropout(x: Tensor, p: float, training: bool,
            generator: torch.Generator | None = None) -> Tensor:
    """Zero each element of ``x`` with probability ``p`` and scale the rest by ``1 / (1 - p)``.

    Args:
        x: any tensor.
        p: the probability of dropping an element, in ``[0, 1]``.
        training: drop only while training; otherwise ``x`` is returned as it is.
        generator: where the mask's random numbers come from (``None``: the global
            generator, exactly ``F.dropout``).

    Example:
        >>> g = torch.Generator().manual_seed(0)
        >>> a = dropout(torch.ones(8), 0.5, True, g)
        >>> b = dropout(torch.ones(8), 0.5, True, torch.Generator().manual_seed(0))
        >>> torch.equal(a, b), sorted(set(a.tolist())) == [0.0, 2.0]
        (True, True)
    """
    if generator is None or not training or p == 0.0:
        return F.dropout(x, p, training)
    if p == 1.0:  # nothing kept (and no division by 1 - p = 0)
        return torch.zeros_like(x)
    keep = torch.empty_like(x).bernoulli_(1.0 - p, generator=generator)  # 1 w.p. 1 - p
    return x * keep.div_(1.0 - p)


class Dropout(nn.Dropout):
    """``nn.Dropout`` whose ``forward`` takes the generator of the stream that draws the mask.

    Example:
        >>> drop = Dropout(0.5)
        >>> torch.equal(drop.eval()(torch.ones(3)), torch.ones(3))
        True
    """

    def forward(self, x: Tensor, generator: torch.Generator | None = None) -> Tensor:
        return dropout(x, self.p, self.training, generator)


def stream_seed(seed: int, step: int, stream: str, rank: int = 0) -> int:
    """A 63-bit seed for one stream of one step of one process, from the run's ``seed``.

    A hash (sha256, not Python's ``hash``, which changes with ``PYTHONHASHSEED``) of all four,
    so that nearby seeds and steps give unrelated streams.

    Example:
        >>> stream_seed(0, 5, "forward") == stream_seed(0, 5, "forward")
        True
        >>> len({stream_seed(0, 5, s) for s in STREAMS})
        3
    """
    key = f"{seed}/{rank}/{step}/{stream}".encode()
    return int.from_bytes(hashlib.sha256(key).digest()[:8], "little") >> 1


def step_generators(seed: int, step: int, streams: Iterable[str] = STREAMS, rank: int = 0,
                    device: torch.device | str = "cpu") -> dict[str, torch.Generator]:
    """One freshly seeded generator per stream for training step ``step`` (0 = the first).

    Args:
        seed: the run's seed.
        step: the number of optimiser steps taken before this one.
        streams: the streams' names (default :data:`STREAMS`).
        rank: the data-parallel process (each process draws its own masks).
        device: where the tensors that the generators fill live.

    Example:
        >>> gens = step_generators(0, 0)
        >>> sorted(gens)
        ['backward', 'forward', 'input']
        >>> x = torch.rand(3, generator=gens["forward"])
        >>> torch.equal(x, torch.rand(3, generator=step_generators(0, 0)["forward"]))
        True
    """
    return {s: torch.Generator(device=device).manual_seed(stream_seed(seed, step, s, rank))
            for s in streams}


__all__ = ["STREAMS", "Dropout", "dropout", "step_generators", "stream_seed"]
