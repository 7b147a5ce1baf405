"""elmo_tutorial: ELMo (Peters et al. 2018) built step by step in PyTorch.

The public API::

    from elmo_tutorial import batch_to_ids, ELMo, Embedder, load_allennlp, save_allennlp

Heavier names are imported on first use, so ``import elmo_tutorial`` stays fast.
"""

from __future__ import annotations

import importlib

from .chars import batch_to_ids

__version__ = "0.1.0"

_LAZY = {
    "ELMo": "elmo_tutorial.elmo",
    "Embedder": "elmo_tutorial.embedder",
    "load_allennlp": "elmo_tutorial.allennlp_format",
    "save_allennlp": "elmo_tutorial.allennlp_format",
    "ModelConfig": "elmo_tutorial.config",
    "Vocabulary": "elmo_tutorial.vocab",
}

__all__ = ["batch_to_ids", *_LAZY]


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'elmo_tutorial' has no attribute {name!r}")
