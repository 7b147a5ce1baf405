"""Faster drop-in versions of the plain model's modules, with the same parameters.

Taught in notebook 11 (``11_pretrained_and_scale``). The modules of :mod:`elmo_tutorial.model`
are written to be read beside the paper; the ones here compute the same functions faster on a
CPU, each measured in ``benchmarks/RESULTS.md`` and proven equal to its plain twin by the tests
in ``tests/fast/``:

* :mod:`~elmo_tutorial.fast.char_cnn` — the character CNN on each *distinct* token once, tokens
  in groups of similar length that drop their all-padding columns, every convolution as one
  matrix product, the highway with vectors as columns;
* :mod:`~elmo_tutorial.fast.lstm` — the faithful (clipping) LSTMP loop with vectors as columns;
* :mod:`~elmo_tutorial.fast.dropout` — dropout with the mask drawn by ``rand_like`` (the same
  distribution, other masks than ``nn.Dropout``'s for one seed);
* :mod:`~elmo_tutorial.fast.directions` — the biLM's two directions at once, one CPU thread
  each, where nothing random is drawn inside a direction.

A fast module is a subclass of its plain module that changes *how* ``forward`` computes, never
*what* it holds: the same parameters under the same names, so state dicts, optimisers and saved
files are shared. :func:`speed_up` is the one place that switches them on; the trainer, the
``Embedder`` and the task models call it (each has a ``fast=True`` argument to leave it off).
"""

from __future__ import annotations

from torch import nn

from elmo_tutorial.fast.char_cnn import FastCharCNN, FastHighway
from elmo_tutorial.fast.directions import FastBidirectionalLM
from elmo_tutorial.fast.dropout import FastDropout
from elmo_tutorial.fast.lstm import FastLSTMStack
from elmo_tutorial.model.char_cnn import CharCNN, Highway
from elmo_tutorial.model.lm import BidirectionalLM
from elmo_tutorial.model.lstm import LSTMStack

# Plain module → its fast drop-in. The one table of what "fast" means.
FAST_VERSIONS: dict[type[nn.Module], type[nn.Module]] = {
    BidirectionalLM: FastBidirectionalLM,
    CharCNN: FastCharCNN,
    Highway: FastHighway,
    LSTMStack: FastLSTMStack,
    nn.Dropout: FastDropout,
}


def speed_up(model: nn.Module) -> nn.Module:
    """Switch every plain module inside ``model`` to its fast version, in place; return ``model``.

    Only the class of each module changes (``FAST_VERSIONS``): its parameters, buffers and
    their names stay the very same objects, so an optimiser built before still trains them and
    ``state_dict()`` is unchanged. Modules that are already fast, or have no fast version, are
    left as they are. :func:`plain` undoes it.

    Example:
        >>> from elmo_tutorial.model.config import MODEL_PRESETS
        >>> from elmo_tutorial.model.lm import BidirectionalLM
        >>> lm = BidirectionalLM(MODEL_PRESETS["tiny"])
        >>> keys = list(lm.state_dict())
        >>> type(speed_up(lm).char_cnn).__name__, list(lm.state_dict()) == keys
        ('FastCharCNN', True)
    """
    for module in model.modules():
        fast = FAST_VERSIONS.get(type(module))
        if fast is not None:
            module.__class__ = fast
    return model


def plain(model: nn.Module) -> nn.Module:
    """Switch every fast module inside ``model`` back to its plain version, in place."""
    back = {fast: slow for slow, fast in FAST_VERSIONS.items()}
    for module in model.modules():
        slow = back.get(type(module))
        if slow is not None:
            module.__class__ = slow
    return model


def is_fast(model: nn.Module) -> bool:
    """Whether any module inside ``model`` runs a fast version."""
    fast_classes = set(FAST_VERSIONS.values())
    return any(type(module) in fast_classes for module in model.modules())


__all__ = ["FAST_VERSIONS", "is_fast", "plain", "speed_up"]
