"""Self-check for notebook 04 (the forward LM): one LSTMP step with projection and clipping."""

from __future__ import annotations

from collections.abc import Callable

import torch

from ..lstmp import lstmp_step
from ._core import CheckFailed, assert_close, passed

__all__ = ["check_lstmp_step"]


def _tf_gate_order(w: torch.Tensor) -> torch.Tensor:
    """Read our (i, f, g, o) blocks as if they were TensorFlow's (i, j, f, o)."""
    i, f, g, o = w.chunk(4, dim=0)
    return torch.cat([i, g, f, o])


def check_lstmp_step(fn: Callable[..., tuple[torch.Tensor, torch.Tensor]]) -> None:
    """``fn(x_t, h, c, w_ih, w_hh, b_ih, b_hh, w_hr, cell_clip, proj_clip)`` must return
    ``(h_t, c_t)`` of one LSTMP step: gates in torch's order (i, f, g, o), the memory clipped
    after its update, the output projected by ``w_hr`` (P, C) and clipped after projecting.
    Compared with :func:`elmo_tutorial.lstmp.lstmp_step`, with and without clipping."""
    generator = torch.Generator().manual_seed(4)
    B, I, C, P = 3, 5, 6, 4

    def rand(*shape, scale=1.0):
        return torch.randn(*shape, generator=generator, dtype=torch.float64) * scale

    for cell_clip, proj_clip in ((None, None), (0.5, 0.1)):
        x, h, c = rand(B, I), rand(B, P), rand(B, C, scale=2.0)
        weights = [rand(4 * C, I), rand(4 * C, P), rand(4 * C), rand(4 * C), rand(P, C)]
        expected = lstmp_step(x, h, c, *weights, cell_clip, proj_clip)
        with torch.no_grad():
            got = fn(x.clone(), h.clone(), c.clone(), *(w.clone() for w in weights),
                     cell_clip, proj_clip)
        if not (isinstance(got, tuple) and len(got) == 2):
            raise CheckFailed("Return the pair (h_t, c_t): the new output and the new memory.")
        what = "with clipping" if cell_clip else "without clipping"
        swapped = [_tf_gate_order(w) for w in weights[:4]] + [weights[4]]
        tf_order = lstmp_step(x, h, c, *swapped, cell_clip, proj_clip)
        if got[1].shape == expected[1].shape and torch.allclose(got[1], tf_order[1]):
            raise CheckFailed("Your gates are in TensorFlow's order (i, j, f, o); ours and "
                              "torch's are (i, f, g, o): chunk(4) gives i, f, g, o.")
        assert_close(got[1], expected[1], f"c_t {what}", hint=(
            "c_t = sigmoid(f) * c + sigmoid(i) * tanh(g), then clamp to ±cell_clip (if set); "
            "the gates are x @ w_ih.T + b_ih + h @ w_hh.T + b_hh, split with .chunk(4, dim=-1)."))
        assert_close(got[0], expected[0], f"h_t {what}", hint=(
            "h_t = (sigmoid(o) * tanh(c_t)) @ w_hr.T with the CLIPPED c_t, then clamp the "
            "projected result to ±proj_clip (clip after projecting, not before)."))
    passed("LSTMP step agrees with elmo_tutorial.lstmp.lstmp_step, with and without clipping")
