"""Self-checks for notebooks 04 and 05 (the forward and backward LMs): bilm-tf's LSTMP step, the
residual experiment, reversing a left-padded batch."""

from __future__ import annotations

import numbers
from collections.abc import Callable
from dataclasses import fields

import torch

from elmo_tutorial.checks._core import CheckFailed, assert_close, check, filled_dict, forbidding
from elmo_tutorial.model import lstmp
from elmo_tutorial.model.lstm import reverse_padded
from elmo_tutorial.model.lstmp import lstmp_step

__all__ = ["check_depth_sweep", "check_residual_experiment", "check_reverse_left_padded",
           "check_tf_lstmp_step"]


# The package's own LSTMP step, which a step under test may not call.
_PACKAGE_STEPS = (lstmp.lstmp_step, lstmp.lstmp_sequence,
                  (lstmp.LSTMCellWithProjection, "forward"))


def _from_tf(kernel: torch.Tensor, bias: torch.Tensor, n_inputs: int, forget_bias: float):
    """bilm-tf's ``kernel (I + P, 4C)`` and ``bias (4C,)``, (i, j, f, o), as torch's
    ``w_ih, w_hh, b_ih, b_hh``, (i, f, g, o), with the forget bias in ``b_hh``."""
    i, j, f, o = kernel.T.chunk(4, dim=0)  # each (C, I + P)
    w = torch.cat([i, f, j, o])  # (4C, I + P), torch's order: g is TensorFlow's j
    bi, bj, bf, bo = bias.chunk(4)
    b_hh = torch.cat([torch.zeros_like(bi), torch.full_like(bf, forget_bias),
                      torch.zeros_like(bj), torch.zeros_like(bo)])
    return w[:, :n_inputs], w[:, n_inputs:], torch.cat([bi, bf, bj, bo]), b_hh


def _tf_reference(args, forget_bias: float, read_as_torch: bool = False):
    """``lstmp_step`` on bilm-tf's tensors ``args`` (or on them misread in torch's order)."""
    x, h, c, kernel, bias, proj_kernel, cell_clip, proj_clip = args
    weights = list(_from_tf(kernel, bias, x.shape[-1], forget_bias))
    if read_as_torch:  # what a step that splits the blocks as (i, f, g, o) computes
        weights[:3] = [torch.cat([w.chunk(4)[k] for k in (0, 2, 1, 3)]) for w in weights[:3]]
    return lstmp_step(x, h, c, *weights, proj_kernel.T, cell_clip, proj_clip)


@check
def check_tf_lstmp_step(fn: Callable[..., tuple[torch.Tensor, torch.Tensor]]) -> str:
    """``fn(x_t, h, c, kernel, bias, proj_kernel, cell_clip, proj_clip)`` must return
    ``(h_t, c_t)`` of one step of bilm-tf's cell from its weight file's tensors: ``kernel``
    ``(I + P, 4C)`` multiplies ``[x_t; h]``, the gates are TensorFlow's (i, j, f, o), the forget
    gate gets the constant 1.0 the file leaves out, ``proj_kernel`` is ``(C, P)``."""
    generator = torch.Generator().manual_seed(14)

    def rand(*shape, scale=1.0):
        return torch.randn(*shape, generator=generator, dtype=torch.float64) * scale

    B, I, C, P = 3, 5, 6, 4

    for cell_clip, proj_clip in ((None, None), (0.5, 0.3)):
        x, h, c = rand(B, I), rand(B, P), rand(B, C, scale=2.0)
        kernel, bias, proj_kernel = rand(I + P, 4 * C), rand(4 * C), rand(C, P)
        args = (x, h, c, kernel, bias, proj_kernel, cell_clip, proj_clip)
        with torch.no_grad(), forbidding(fn, *_PACKAGE_STEPS, instead=(
                "compute the step on bilm-tf's tensors directly, without converting them")):
            got = fn(*(a.clone() if isinstance(a, torch.Tensor) else a for a in args))
        if not (isinstance(got, tuple | list) and len(got) == 2
                and all(isinstance(t, torch.Tensor) for t in got)):
            raise CheckFailed("Return the pair (h_t, c_t): the new output and the new memory.")
        expected = _tf_reference(args, forget_bias=1.0)
        what = "with clipping" if cell_clip else "without clipping"
        if got[1].shape == expected[1].shape:
            if torch.allclose(got[1], _tf_reference(args, forget_bias=0.0)[1]):
                raise CheckFailed("The forget gate is missing TensorFlow's constant forget_bias: "
                                  "f_t = sigmoid(f + 1.0). The weight file does not hold it.")
            if torch.allclose(got[1], _tf_reference(args, 1.0, read_as_torch=True)[1]):
                raise CheckFailed("You split the gates in torch's order (i, f, g, o); bilm-tf's "
                                  "kernel holds TensorFlow's (i, j, f, o), with j the candidate.")
        assert_close(got[1], expected[1], f"c_t {what}", hint=(
            "[x_t; h] @ kernel + bias gives (B, 4C), split as i, j, f, o; c_t = sigmoid(f + 1) "
            "* c + sigmoid(i) * tanh(j), then clamp to ±cell_clip (if set)."))
        assert_close(got[0], expected[0], f"h_t {what}", hint=(
            "h_t = (sigmoid(o) * tanh(c_t)) @ proj_kernel, proj_kernel is (C, P): no transpose; "
            "then clamp to ±proj_clip (if set)."))
    return ("bilm-tf's step (kernel [x; h], gates i, j, f, o, forget bias 1) agrees with "
            "lstmp_step on the same weights")


def _changed(config, base, name: str) -> list[str]:
    """The fields in which ``config`` (a ``ModelConfig``) differs from ``base``."""
    if not hasattr(config, "use_skip_connections"):
        raise CheckFailed(f"{name} must be a ModelConfig, got {type(config).__name__}: build "
                          "it with dataclasses.replace(config, ...)")
    return [f.name for f in fields(base) if getattr(config, f.name) != getattr(base, f.name)]


@check
def check_residual_experiment(changed, base, with_residual: float, without_residual: float
                              ) -> str:
    """``changed`` must be ``base`` with only ``use_skip_connections`` switched off, and the two
    gradient norms of an untrained stack's first layer must show several times more gradient
    with the residual (a wide margin, true on any CPU)."""
    others = [name for name in _changed(changed, base, "changed")
              if name != "use_skip_connections"]
    if others:
        raise CheckFailed(f"A control differs in one thing only, the residual; yours also "
                          f"changes {others}, so a difference could come from those.")
    if changed.use_skip_connections:
        raise CheckFailed("changed still has use_skip_connections=True: switch the residual off.")
    for name, value in (("with_residual", with_residual), ("without_residual", without_residual)):
        if not isinstance(value, numbers.Real) or isinstance(value, bool) or not value >= 0:
            raise CheckFailed(f"{name} is {value!r}: it must be the gradient norm you measured, "
                              "a number (float(...) of the norm).")
    if with_residual == without_residual:
        raise CheckFailed("Both measurements are equal: measure the second one on a model built "
                          "from the changed config.")
    if not with_residual > 2 * without_residual:
        raise CheckFailed(
            f"With the residual {with_residual:.3g}, without {without_residual:.3g}: expected "
            "several times more gradient with it. Did you swap the two numbers, or measure a "
            "layer other than the first?")
    return (f"without the residual the first layer gets ≈{with_residual / without_residual:.0f}× "
            "less gradient")


@check
def check_depth_sweep(configs: dict, base, depths) -> str:
    """``configs[depth, residual]``, for every depth of ``depths`` and both residual settings,
    must be ``base`` with ``depth`` LSTM layers and the residual on or off, nothing else."""
    filled_dict(configs, "configs", "it must map (depth, residual) to that model's config.")
    for depth in depths:
        for residual in (True, False):
            where = f"configs[{depth}, {residual}]"
            if (depth, residual) not in configs:
                raise CheckFailed(f"{where} is missing: one config for every depth, with and "
                                  "without the residual.")
            config = configs[depth, residual]
            others = [name for name in _changed(config, base, where)
                      if name not in ("n_layers", "use_skip_connections")]
            if others:
                raise CheckFailed(f"{where} also changes {others}: change only the depth and "
                                  "the residual, so that the sweep measures them alone.")
            if (config.n_layers, config.use_skip_connections) != (depth, residual):
                raise CheckFailed(f"{where} has {config.n_layers} layers and "
                                  f"use_skip_connections={config.use_skip_connections}, "
                                  f"expected {depth} and {residual}.")
    return (f"{2 * len(depths)} configs: each differs from the preset in its depth and its "
            "residual only")


@check
def check_reverse_left_padded(fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]) -> str:
    """``fn(x, lengths)`` must reverse the tokens of each row of a LEFT-padded batch ``x``
    (B, T, D), leaving the padding in front. ``fn`` may reuse
    :func:`elmo_tutorial.model.lstm.reverse_padded`: on the batch as it is, it reverses the
    wrong positions."""
    generator = torch.Generator().manual_seed(6)
    lengths = torch.tensor([6, 3, 1, 5, 0])
    T = 6
    x = torch.randn(5, T, 2, generator=generator)
    x[torch.arange(T) < T - lengths.unsqueeze(1)] = 0.0  # padding first, zero
    # flip turns a left-padded row into a right-padded reversed one; reverse_padded restores
    # the order, the last flip puts the padding back in front, now with the tokens reversed.
    expected = torch.flip(reverse_padded(torch.flip(x, dims=[1]), lengths), dims=[1])
    got = fn(x.clone(), lengths.clone())
    if isinstance(got, torch.Tensor) and got.shape == x.shape:
        if torch.equal(got, torch.flip(x, dims=[1])):
            raise CheckFailed("torch.flip moves the padding to the end: row 1 would end with "
                              "3 padding positions. The padding must stay in front.")
        if torch.equal(got, reverse_padded(x, lengths)):
            raise CheckFailed("That is the right-padded reversal: it reverses positions "
                              "0..L_b-1, which here are padding and the first tokens. In a "
                              "left-padded row the tokens are the LAST L_b positions.")
        if torch.equal(got, x):
            raise CheckFailed("Nothing changed: the rows must come back reversed.")
    assert_close(got, expected, "reversed left-padded batch", hint=(
        "Row b has its tokens at positions T - L_b .. T - 1. Position t ≥ T - L_b takes the "
        "token at (T - L_b) + (T - 1 - t); the padding positions t < T - L_b stay."))
    return ("left-padded reversal: tokens reversed in place, padding kept in front (5 rows, "
            "one of them empty)")
