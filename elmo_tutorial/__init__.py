"""elmo_tutorial: ELMo (Peters et al. 2018) built step by step in PyTorch.

    from elmo_tutorial import batch_to_ids, ELMo, Embedder, load_allennlp, save_allennlp
    from elmo_tutorial import load_elmo, shipped_model   # a run folder, the course's models

The folders are the stages of the course; each imports only those above it
(``tests/test_layering.py``). At the top: runtime.py, figures.py, widgets.py, claims.py.

  files/      written whole, read guarded        data/      datasets, corpora, tokenizer
  model/      the plain ELMo of notebooks 01-07  fast/      the same, fast, proven equal
  formats/    official AllenNLP/bilm-tf files    training/  trainer, evaluation, DDP
  analyses/   what the layers know (08-10)       tasks/     ELMo in a task model (12-13)
  checks/     the notebooks' self-checks         course/    student copies, slides, pages
  commands/   the ``elmo-tutorial`` command line, its doctor

Shapes in the docstrings: B sentences, T tokens, N tokens of a corpus end to end, C characters
per token (50), L + 1 layers, D dimensions of a layer, V words in a vocabulary. The heavier
names are imported on first use, so ``import elmo_tutorial`` stays fast.
"""

from __future__ import annotations

import importlib

from elmo_tutorial.model.chars import batch_to_ids

__version__ = "0.1.0"

_LAZY = {
    "ELMo": "elmo_tutorial.model.elmo",
    "Embedder": "elmo_tutorial.analyses.embedder",
    "load_allennlp": "elmo_tutorial.formats.allennlp_format",
    "save_allennlp": "elmo_tutorial.formats.allennlp_format",
    "load_elmo": "elmo_tutorial.training.run_folder",
    "shipped_model": "elmo_tutorial.training.run_folder",
    "ModelConfig": "elmo_tutorial.model.config",
    "Vocabulary": "elmo_tutorial.model.vocab",
}

__all__ = ["batch_to_ids", *_LAZY]


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'elmo_tutorial' has no attribute {name!r}")

