"""Train the forward and the backward LM at once, one CPU thread each, with the same numbers.

The two directions of the biLM share only their input (the character CNN's token vectors)
and the softmax weights; their LSTM stacks and softmax products are independent. On a CPU
their small matrix products gain little from a second OpenMP thread per operation (and under
load they collapse: ``runtime.default_threads``), but two directions are two independent
jobs. :class:`DirectionThreads` runs them in two Python threads, forward **and backward**
pass: PyTorch operations release the interpreter lock, and the autograd engine runs a
``backward`` called from a thread on that thread.

How the backward pass gets there: :class:`_BothDirections` is an autograd function whose
forward builds each direction's graph in its worker thread, from a detached copy of the token
vectors, and whose backward runs ``torch.autograd.backward`` on both graphs at once and
returns the sum of the two gradients of the token vectors. The rest of the model (character
CNN, the loss's scaling) and the caller's ``loss.backward()`` stay as they are.

**Same numbers as one thread.** Each direction's operations are the same, in the same order,
on one thread each. Where the directions meet, exactly two gradients are added (the token
vectors', each softmax parameter's), and a sum of two floats does not depend on its order.
``tests/training/test_train.py`` checks that a step's gradients are identical bit for bit. Random
draws inside the directions (dropout, the sampled softmax's candidates) would depend on which
thread draws first, so the trainer uses the threads only for models without either.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

import torch
from torch import Tensor


class _BothDirections(torch.autograd.Function):
    """``word_emb → (nll per direction)``, each direction's graph built and run in a thread."""

    @staticmethod
    def forward(ctx, word_emb, score, directions, pool):  # noqa: D102 (see the class docstring)
        def build(direction):
            with torch.enable_grad():  # grad mode is per thread, and off inside forward
                leaf = word_emb.detach().requires_grad_()
                return leaf, score(direction, leaf)

        ctx.graphs, ctx.pool = list(pool.map(build, directions)), pool
        return tuple(nll.detach() for _, nll in ctx.graphs)

    @staticmethod
    def backward(ctx, *grads):  # noqa: D102
        def run(job):
            (leaf, nll), grad = job
            torch.autograd.backward(nll, grad)
            return leaf.grad

        leaf_grads = list(ctx.pool.map(run, zip(ctx.graphs, grads, strict=True)))
        ctx.graphs = None  # free both graphs now
        total = leaf_grads[0]
        for more in leaf_grads[1:]:
            total = total + more
        return total, None, None, None


class DirectionThreads:
    """Two worker threads that compute the LM directions' losses (and gradients) at once.

    Args:
        threads_per_direction: PyTorch threads in each worker (``torch.set_num_threads``).

    Use as a context manager (the threads end on exit), and pass it to the language model's
    ``forward(batch, direction_threads=...)`` while training; see the module docstring.
    """

    def __init__(self, threads_per_direction: int = 1) -> None:
        self.pool = ThreadPoolExecutor(2, initializer=torch.set_num_threads,
                                       initargs=(threads_per_direction,))

    def __enter__(self) -> DirectionThreads:
        return self

    def __exit__(self, *exc) -> None:
        self.pool.shutdown()

    def nll(self, score: Callable[[str, Tensor], tuple[Tensor, int]], word_emb: Tensor,
            directions: Sequence[str]) -> tuple[dict[str, Tensor], int]:
        """Each direction's ``score(direction, word_emb)`` in its own thread.

        Args:
            score: one direction's mean NLL (a scalar tensor) and its number of targets,
                computed from the token vectors ``word_emb (B, T, P)``.
            directions: the model's directions, e.g. ``("forward", "backward")``.

        Returns:
            ``{direction: mean NLL}`` (differentiable with respect to ``word_emb`` and the
            parameters ``score`` uses) and the number of targets per direction.
        """
        counts = {}

        def counted(direction: str, emb: Tensor) -> Tensor:
            nll, counts[direction] = score(direction, emb)
            return nll

        nll = _BothDirections.apply(word_emb, counted, tuple(directions), self.pool)
        return dict(zip(directions, nll, strict=True)), counts[directions[0]]


__all__ = ["DirectionThreads"]
