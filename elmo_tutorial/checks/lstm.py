"""Self-checks for notebook 04 (the forward LM): bilm-tf's LSTMP step, the residual experiment."""

from __future__ import annotations

import numbers
from collections.abc import Callable
from dataclasses import fields

import torch

from elmo_tutorial.checks._core import (
    CheckFailed,
    assert_close,
    check,
    filled_dict,
    forbidding,
    nothing_returned,
    passed,
)
from elmo_tutorial.model import lstmp
from elmo_tutorial.model.lstmp import lstmp_step

__all__ = ["check_depth_sweep", "check_residual_experiment", "check_tf_lstmp_step"]


# The package's own LSTMP step, which a step under test may not call.
_PACKAGE_STEPS = (lstmp.lstmp_step, lstmp.lstmp_sequence,
                  (lstmp.LSTMCellWithProjection, "forward"))


def _tf_gate_order(w: torch.Tensor) -> torch.Tensor:
    """Read our (i, f, g, o) blocks as if they were TensorFlow's (i, j, f, o)."""
    i, f, g, o = w.chunk(4, dim=0)
    return torch.cat([i, g, f, o])


def _from_tf(kernel: torch.Tensor, bias: torch.Tensor, n_inputs: int, forget_bias: float):
    """bilm-tf's ``kernel (I + P, 4C)`` and ``bias (4C,)`` in (i, j, f, o) order, as the
    ``w_ih, w_hh, b_ih, b_hh`` of torch's (i, f, g, o) with the forget bias in ``b_hh``."""
    i, j, f, o = kernel.T.chunk(4, dim=0)  # each (C, I + P)
    w = torch.cat([i, f, j, o])  # (4C, I + P), torch's order: g is TensorFlow's j
    bi, bj, bf, bo = bias.chunk(4)
    b_hh = torch.cat([torch.zeros_like(bi), torch.full_like(bf, forget_bias),
                      torch.zeros_like(bj), torch.zeros_like(bo)])
    return w[:, :n_inputs], w[:, n_inputs:], torch.cat([bi, bf, bj, bo]), b_hh


def _tf_reference(args, forget_bias: float, read_as_torch: bool = False):
    """``lstmp_step`` on bilm-tf's tensors ``args`` (or on them misread in torch's order)."""
    x, h, c, kernel, bias, proj_kernel, cell_clip, proj_clip = args
    weights = _from_tf(kernel, bias, x.shape[-1], forget_bias)
    if read_as_torch:  # what a step that splits the blocks as (i, f, g, o) computes
        weights = [_tf_gate_order(w) for w in weights[:3]] + [weights[3]]
    return lstmp_step(x, h, c, *weights, proj_kernel.T, cell_clip, proj_clip)


@check
def check_tf_lstmp_step(fn: Callable[..., tuple[torch.Tensor, torch.Tensor]]) -> None:
    """``fn(x_t, h, c, kernel, bias, proj_kernel, cell_clip, proj_clip)`` must return
    ``(h_t, c_t)`` of one step of bilm-tf's cell from its weight file's tensors: ``kernel``
    ``(I + P, 4C)`` multiplies ``[x_t; h]``, the gate blocks are TensorFlow's (i, j, f, o),
    the forget gate gets the constant ``forget_bias`` = 1.0 that the file leaves out, and
    ``proj_kernel`` is ``(C, P)``. Compared with :func:`elmo_tutorial.model.lstmp.lstmp_step` on the
    same weights in torch's layout; ``fn`` runs with the package's LSTMP step unavailable."""
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
        nothing_returned(got, "your step", "the pair (h_t, c_t)")
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
    passed("bilm-tf's step (kernel [x; h], gates i, j, f, o, forget bias 1) agrees with "
           "lstmp_step on the same weights")


def _changed(config, base, name: str) -> list[str]:
    """The fields in which ``config`` (a ``ModelConfig``) differs from ``base``."""
    if not hasattr(config, "use_skip_connections"):
        raise CheckFailed(f"{name} must be a ModelConfig, got {type(config).__name__}: build "
                          "it with dataclasses.replace(config, ...)")
    return [f.name for f in fields(base) if getattr(config, f.name) != getattr(base, f.name)]


@check
def check_residual_experiment(changed, base, with_residual: float, without_residual: float
                              ) -> None:
    """The residual experiment of notebook 04: ``changed`` must be ``base`` (a ``ModelConfig``)
    with only ``use_skip_connections`` switched off, and the two measured gradient norms must
    show what the residual does for the first layer of an untrained stack: several times more
    gradient reaches it (a direction with a wide margin, true on any CPU)."""
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
    passed(f"without the residual the first layer gets ≈{with_residual / without_residual:.0f}× "
           "less gradient")


@check
def check_depth_sweep(configs: dict, base, depths) -> None:
    """``configs[depth, residual]``, for every depth of ``depths`` and both residual settings,
    must be ``base`` (a ``ModelConfig``) with ``depth`` LSTM layers and the residual on or off,
    and nothing else changed: the sweep of notebook 04's Exercise 4."""
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
    passed(f"{2 * len(depths)} configs: each differs from the preset in its depth and its "
           "residual only")
