"""The biLM's two directions at once, one CPU thread each, with the same numbers.

Taught in notebook 11 (``11_pretrained_and_scale``). The plain biLM computes its directions one
after the other (:meth:`~elmo_tutorial.model.lm.BidirectionalLM.forward`). They share only
their input, the character CNN's token vectors, and the softmax weights: each direction's LSTM
stack and softmax products are an independent job. The small matrix products of the ``tiny``
model gain nothing from a second OpenMP thread inside each product, but two jobs keep two
cores busy: on two quiet cores the whole ``train --config tiny`` command runs about 1.4× as
fast (``benchmarks/RESULTS.md``).

:class:`FastBidirectionalLM` runs :meth:`~elmo_tutorial.model.lm.BidirectionalLM.direction_nll`,
the model's own per-direction method, in two Python threads, forward **and backward**:
PyTorch's operations release the interpreter lock, and the autograd engine runs a ``backward``
called from a thread on that thread. :class:`_BothDirections`, an autograd function, builds
each direction's graph in its thread from a detached copy of the token vectors; its backward
runs both graphs' backward passes at once and returns the sum of their two gradients.

**Same numbers as one thread.** Each direction runs the same operations in the same order on
one thread. Where the two meet, exactly two gradients are added (the token vectors', each
softmax parameter's), and a sum of two floats does not depend on its order
(``tests/fast/test_directions.py`` checks the bits). The rest of the step (the character CNN,
the optimiser) runs on one direction's threads too, so that a run on two threads trains the bits
of a run on one: a product split between two threads sums in another order. Random draws
inside a direction (its dropout, the sampled softmax's candidates) would depend on which thread
draws first, so a model that draws them trains with its directions one after the other, as do
a model on a GPU, one process of several (``torch.distributed``) and a process with one CPU
thread: :func:`run_directions_at_once` decides.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import torch
from torch import Tensor

from elmo_tutorial.model.batching import LMBatch
from elmo_tutorial.model.lm import BidirectionalLM, LMOutput

_pools: dict[int, ThreadPoolExecutor] = {}  # one per process: a forked child has no threads


def _pool() -> ThreadPoolExecutor:  # the two worker threads
    pid = os.getpid()
    if pid not in _pools:
        _pools[pid] = ThreadPoolExecutor(2, thread_name_prefix="lm-direction")
    return _pools[pid]


class _BothDirections(torch.autograd.Function):
    """``x → (mean NLL per direction)``, each direction's graph built and run in its thread."""

    @staticmethod
    def forward(ctx, x, anchor, score, directions, threads):  # noqa: D102 (class docstring)
        # anchor: a scalar that requires grad, so that the losses do even when x does not
        # (a frozen character CNN): their backward must still reach the LSTMs and softmax
        def build(direction: str) -> tuple[Tensor, Tensor]:
            torch.set_num_threads(threads)
            with torch.enable_grad():  # grad mode is per thread, and off inside forward
                leaf = x.detach().requires_grad_()
                return leaf, score(direction, leaf)

        ctx.graphs = list(_pool().map(build, directions))
        return tuple(nll.detach() for _, nll in ctx.graphs)

    @staticmethod
    def backward(ctx, *grads):  # noqa: D102
        def run(job) -> Tensor:
            (leaf, nll), grad = job
            torch.autograd.backward(nll, grad)
            return leaf.grad

        first, second = _pool().map(run, zip(ctx.graphs, grads, strict=True))
        ctx.graphs = None  # free both graphs now
        return (first + second if ctx.needs_input_grad[0] else None), None, None, None, None


class FastBidirectionalLM(BidirectionalLM):
    """:class:`~elmo_tutorial.model.lm.BidirectionalLM` with its two directions in two threads.

    The same parameters and the same :class:`~elmo_tutorial.model.lm.LMOutput`, with the same
    numbers bit for bit as the plain model on ``threads_per_direction`` threads;
    :func:`elmo_tutorial.fast.speed_up` switches a biLM's class to this one in place, and
    :func:`run_directions_at_once` sets ``threads_per_direction`` (0, the default, computes the
    directions one after the other).

    Example:
        >>> from dataclasses import replace
        >>> from elmo_tutorial.model.batching import make_lm_batch
        >>> from elmo_tutorial.model.config import MODEL_PRESETS
        >>> from elmo_tutorial.model.vocab import Vocabulary
        >>> vocab = Vocabulary.from_sentences([["the", "cat", "sat"]])
        >>> lm = BidirectionalLM(replace(MODEL_PRESETS["tiny"], vocab_size=len(vocab)))
        >>> batch = make_lm_batch([["the", "cat", "sat"]], vocab)
        >>> lm = lm.eval()
        >>> plain_loss = lm(batch).loss
        >>> lm.__class__ = FastBidirectionalLM
        >>> lm.threads_per_direction = 1
        >>> torch.equal(lm(batch).loss, plain_loss)
        True
    """

    threads_per_direction = 0  # 0: one direction after the other (see run_directions_at_once)

    def forward(self, batch: LMBatch, sampled: bool = False) -> LMOutput:
        draws = self.training and (self.config.dropout > 0 or sampled)
        if not self.threads_per_direction or draws:
            return super().forward(batch, sampled)
        x, mask = self.token_vectors(batch)  # (B, T, P), (B, T)
        n_tokens = {}

        def score(direction: str, x: Tensor) -> Tensor:
            nll, n_tokens[direction] = self.direction_nll(direction, x, mask, batch, sampled)
            return nll

        threads = self.threads_per_direction
        if torch.is_grad_enabled():
            anchor = torch.zeros((), requires_grad=True)
            nll = _BothDirections.apply(x, anchor, score, self.directions, threads)
        else:  # evaluation: no graph to keep, the workers compute in the caller's mode
            inference = torch.is_inference_mode_enabled()

            def evaluate(direction: str) -> Tensor:
                torch.set_num_threads(threads)
                with torch.inference_mode(inference), torch.no_grad():
                    return score(direction, x)

            nll = tuple(_pool().map(evaluate, self.directions))
        forward_nll, backward_nll = nll
        return LMOutput(loss=forward_nll + backward_nll, forward_nll=forward_nll,
                        backward_nll=backward_nll, n_tokens=n_tokens["forward"])


def run_directions_at_once(model: BidirectionalLM, processes: int = 1,
                           sampled: bool = False) -> bool:
    """Train ``model`` with its directions at once where that gives the same numbers as one
    thread each; return whether it does.

    Where it can (a :class:`FastBidirectionalLM` on the CPU, one process, nothing random drawn
    inside a direction: no dropout, no sampled softmax, and two CPU threads or more), each
    direction gets half of the process's threads, and so does the rest of the process (the
    character CNN, the optimiser, and the cells that follow in a notebook): the run then trains
    the bits of one on one thread.

    Args:
        model: the language model being trained (not a DDP wrapper).
        processes: the data-parallel processes of the run.
        sampled: whether training uses the sampled softmax.
    """
    softmax = model.softmax
    sampled = sampled and softmax is not None and softmax.num_samples < softmax.vocab_size
    threads = torch.get_num_threads()
    if (not isinstance(model, FastBidirectionalLM) or softmax is None or sampled
            or softmax.weight.device.type != "cpu" or model.config.dropout > 0
            or processes > 1 or threads < 2):
        return False
    torch.set_num_threads(threads // 2)
    model.threads_per_direction = threads // 2
    return True


__all__ = ["FastBidirectionalLM", "run_directions_at_once"]
