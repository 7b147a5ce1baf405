"""Numbers that come out of training, and the claims a lesson makes about them.

A number that comes out of training differs by machine: two CPUs sum floats in different
orders (AVX-512 vs NEON, MKL vs OpenBLAS), and a few hundred optimiser steps turn the last bits
into a perplexity of 71.5 on one laptop and 68.0 on another, from the same seed. So a notebook
prints it as an approximate value, and states the lesson's claim about it as a check::

    >>> print("valid perplexity", approx(71.4837, ".1f"))
    valid perplexity ≈71.5
    >>> claim(71.48 < 243.1, "the biLM beats the Kneser-Ney trigram")
    ✓ the biLM beats the Kneser-Ney trigram

nbval (sanitised by ``.ci/nbval_sanitize.cfg``) compares all a cell prints but the digits
right after ``≈``; a claim that fails raises, so the cell fails where the lesson is untrue.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import torch

APPROX = "≈"


def approx(value, spec: str = ".3g") -> str:
    """``value`` (a number, a 0-d tensor or array, or a sequence of them) formatted with
    ``spec`` behind ``≈``; NaN and infinities without it, so that the test sees them.

    >>> approx(0.45312, ".3f"), approx([0.5, 0.25], ".2f"), approx(324, "5d")
    ('≈0.453', '[≈0.50, ≈0.25]', '  ≈324')
    """
    if isinstance(value, torch.Tensor):
        value = value.detach().cpu().numpy()
    if isinstance(value, np.ndarray):
        value = value.item() if value.ndim == 0 else value.tolist()
    if isinstance(value, Iterable) and not isinstance(value, (str, bytes)):
        return "[" + ", ".join(approx(v, spec) for v in value) + "]"
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        text = format(int(value), spec)  # a count: "d" formats stay valid
    else:
        text = format(float(value), spec)
        if not np.isfinite(float(value)):  # no ≈: a NaN must never hide behind the sanitiser
            return text
    digits = text.lstrip()  # a width in spec pads on the left: keep ≈ next to the digits
    return text[: len(text) - len(digits)] + APPROX + digits


class ClaimFailed(AssertionError):
    """A lesson's claim does not hold for the numbers this machine produced."""


def claim(holds: bool, statement: str, detail: str = "") -> None:
    """Print ``✓ statement`` if ``holds``; otherwise raise :class:`ClaimFailed`, with
    ``detail`` (the numbers behind the claim), which is never printed.

    >>> claim(3 > 2, "three beats two")
    ✓ three beats two
    >>> claim(1 > 2, "1 > 2", detail="1")
    Traceback (most recent call last):
    ...
    elmo_tutorial.claims.ClaimFailed: the lesson's claim "1 > 2" does not hold on this machine (1)
    """
    if not bool(holds):
        more = f" ({detail})" if detail else ""
        raise ClaimFailed(f'the lesson\'s claim "{statement}" does not hold on this '
                          f"machine{more}")
    print(f"✓ {statement}")
