"""Train the forward and the backward LM at once, one CPU thread each, with the same numbers.

Taught in notebook 11 (``11_pretrained_and_scale``). The plain model runs its directions one
after the other (:meth:`~elmo_tutorial.model.lm.BidirectionalLM.forward`); the trainer calls
:func:`lm_loss_in_threads` instead, and the ``Embedder`` :func:`encode_in_threads`.

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
``tests/fast/test_direction_threads.py`` checks that a step's gradients are identical bit for
bit. Random draws inside the directions (dropout, the sampled softmax's candidates) would depend
on which thread draws first if they came from PyTorch's one global generator, so each direction
draws from its own generator (:func:`~elmo_tutorial.model.dropout.step_generators`, passed as
``generators``), as the model's own ``forward`` does with the same generators: the masks are
then the same too. Without generators, a model that would draw anything is refused.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor

import torch
from torch import Tensor

from elmo_tutorial.model.batching import LMBatch
from elmo_tutorial.model.chars import check_char_ids
from elmo_tutorial.model.lm import BackwardLM, BidirectionalLM, ForwardLM, Generators, LMOutput

# What the functions below run: any of the package's language models.
LanguageModel = BidirectionalLM | ForwardLM | BackwardLM


class _BothDirections(torch.autograd.Function):
    """``word_emb → (nll per direction)``, each direction's graph built and run in a thread."""

    @staticmethod
    def forward(ctx, word_emb, anchor, score, directions, pool):  # noqa: D102 (class docstring)
        # anchor: a scalar that requires grad, so that the losses do even when word_emb does
        # not (a frozen encoder, only the softmax training): their backward must still run
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
        return (total if ctx.needs_input_grad[0] else None), None, None, None, None


class DirectionThreads:
    """Two worker threads that compute the LM directions' losses (and gradients) at once.

    Args:
        threads_per_direction: PyTorch threads in each worker (``torch.set_num_threads``).

    Use as a context manager (the threads end on exit), and pass it to
    :func:`lm_loss_in_threads` (training) or :func:`encode_in_threads` (the layers only).

    Example:
        >>> from elmo_tutorial.model.config import MODEL_PRESETS
        >>> from elmo_tutorial.model.lm import BidirectionalLM
        >>> bilm = BidirectionalLM(MODEL_PRESETS["tiny"]).eval()
        >>> word_emb, mask = torch.randn(2, 5, 64), torch.ones(2, 5, dtype=torch.bool)
        >>> with DirectionThreads(1) as threads, torch.no_grad():
        ...     out = encode_in_threads(bilm, word_emb, mask, threads)
        >>> [tuple(h.shape) for h in out["backward"]]
        [(2, 5, 64), (2, 5, 64)]
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

        anchor = torch.zeros((), requires_grad=torch.is_grad_enabled())
        nll = _BothDirections.apply(word_emb, anchor, counted, tuple(directions), self.pool)
        return dict(zip(directions, nll, strict=True)), counts[directions[0]]


def _refuse_random_draws(model: LanguageModel, sampled: bool = False,
                         generators: Generators | None = None) -> None:
    draws = sampled or (model.training and model.config.dropout > 0)
    if draws and not (generators and all(d in generators for d in model.directions)):
        raise ValueError(
            "the directions in threads draw random numbers here (dropout, or sampled=True): "
            "pass generators=step_generators(seed, step) (elmo_tutorial.model.dropout), one "
            "per direction, so that the draws do not depend on which thread runs first")


def lm_loss_in_threads(model: LanguageModel, batch: LMBatch, threads: DirectionThreads,
                       sampled: bool = False, generators: Generators | None = None) -> LMOutput:
    """``model(batch, sampled, generators)`` with each direction's LSTM stack and softmax in its
    own thread.

    The same :class:`~elmo_tutorial.model.lm.LMOutput`, with the same numbers bit for bit, as
    the model's own ``forward`` (one direction after the other) with the same generators;
    ``loss.backward()`` runs the directions' backward passes in the threads too.

    Args:
        model: a language model (``BidirectionalLM``, ``ForwardLM`` or ``BackwardLM``) with a
            softmax.
        batch: an ``LMBatch``; targets equal to -100 never contribute.
        threads: the two worker threads.
        sampled: use the sampled softmax (in training mode).
        generators: the step's random streams (``"input"`` and one per direction,
            :func:`~elmo_tutorial.model.dropout.step_generators`); needed when the model
            draws anything (dropout in training mode, or ``sampled``).
    """
    sampled = sampled and model.training
    _refuse_random_draws(model, sampled, generators)
    if model.softmax is None:
        raise ValueError("this model has no softmax (config.vocab_size == 0), so it cannot "
                         "score words; build it with ModelConfig(vocab_size=len(vocab))")
    gens = generators or {}
    device = model.softmax.weight.device
    char_ids = batch.char_ids.to(device)
    mask = check_char_ids(char_ids)  # (B, T)

    def score(direction: str, word_emb: Tensor) -> tuple[Tensor, int]:
        stack = getattr(model, f"{direction}_lstm")
        top = stack(word_emb, mask, gens.get(direction))[-1]  # (B, T, P)
        top = model.dropout(top, gens.get(direction))
        targets = getattr(batch, f"{direction}_targets").to(device)  # (B, T)
        nll_sum, n = model.softmax(top, targets, sampled=sampled, generator=gens.get(direction))
        return nll_sum / max(n, 1), n

    # the input's dropout is drawn here, once, for both directions (as in the model's forward)
    word_emb = model.dropout(model.char_cnn(char_ids), gens.get("input"))  # (B, T, P)
    nll, n_tokens = threads.nll(score, word_emb, model.directions)
    return LMOutput(loss=sum(nll.values()), forward_nll=nll.get("forward"),
                    backward_nll=nll.get("backward"), n_tokens=n_tokens)


def encode_in_threads(model: LanguageModel, word_emb: Tensor, mask: Tensor,
                      threads: DirectionThreads, generators: Generators | None = None) -> dict:
    """``model.encode_embeddings(word_emb, mask, generators)`` with each direction's stack in its
    own thread (a model in training mode with dropout needs ``generators``).

    Returns the same dictionary with the same numbers. The workers compute in the caller's
    autograd mode (grad, no-grad or inference mode), which PyTorch keeps per thread.

    Shape:
        word_emb ``(B, T, P)``, mask ``(B, T)`` → as
        :meth:`~elmo_tutorial.model.lm.BidirectionalLM.encode_embeddings`.
    """
    _refuse_random_draws(model, generators=generators)
    gens = generators or {}
    x = model.dropout(word_emb, gens.get("input"))  # drawn here, in the caller's thread
    inference, grad = torch.is_inference_mode_enabled(), torch.is_grad_enabled()

    def run(direction: str) -> list[Tensor]:
        with torch.inference_mode(inference), torch.set_grad_enabled(grad):
            stack = getattr(model, f"{direction}_lstm")
            return stack(x, mask, gens.get(direction))  # n_layers × (B, T, P)

    out = {"word_emb": word_emb, "mask": mask}
    out.update(zip(model.directions, threads.pool.map(run, model.directions), strict=True))
    return out


@contextlib.contextmanager
def directions_at_once(model: LanguageModel, processes: int = 1,
                       ) -> Iterator[Callable[..., LMOutput] | None]:
    """While training ``model``, its loss with the two directions at once, where that gives the
    same numbers as one thread: 2 or more CPU threads, one process. Yields
    ``loss(batch, sampled=..., generators=...) -> LMOutput`` (:func:`lm_loss_in_threads`; a
    model that drops out or samples needs the step's ``generators``), or ``None`` where the
    model's own ``forward`` must run.

    The caller's own operations (character CNN, optimiser, evaluation) run on one direction's
    threads too, and stay so afterwards: a notebook's next cells then compute with the thread
    count of the model's evaluations, as with one thread per direction during training.

    Args:
        model: the language model being trained (not a DDP wrapper).
        processes: the data-parallel processes of the run (threads only with one).
    """
    threads = torch.get_num_threads()
    device = next(model.parameters()).device
    if threads < 2 or processes > 1 or device.type != "cpu":
        yield None
        return
    torch.set_num_threads(threads // 2)
    with DirectionThreads(threads // 2) as pool:
        yield functools.partial(lm_loss_in_threads, model, threads=pool)


__all__ = ["DirectionThreads", "directions_at_once", "encode_in_threads", "lm_loss_in_threads"]
