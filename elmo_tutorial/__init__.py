"""elmo_tutorial: ELMo (Peters et al. 2018) built step by step in PyTorch.

The public API::

    from elmo_tutorial import batch_to_ids, ELMo, Embedder, load_allennlp, save_allennlp

The data path, with the module of each step::

    dataset name ─ registry: what it is, where it comes from, its checksum, the split names
                 ─ downloads: the verified bytes in the cache (or the offline directory)
       ─▶ readers: corpora (running text for the LM, load_sentences), annotated (POS tags,
          entities, word senses), embedded_corpus (shipped in data/embedded, no download)
       ─▶ list[list[str]]   (raw text: tokenize)
       ├─ vocab ─▶ word ids (the LM's targets)     └─ chars ─▶ character ids (B, T, 50)
       ─▶ batching: LMBatch with <S> .. </S>, padding and forward/backward targets
       ─▶ char_cnn: token vectors, layer 0 ─▶ lstmp, lstm: layers 1..L in both directions
       ─▶ training: softmax and lm (the joint loss), train (Trainer, with train_config,
          train_log and checkpoint for the run directory), evaluation (perplexities; ngram)
       ─▶ using: scalar_mix and elmo (ELMo, ELMo.from_run), embedder (many sentences, per
          layer), contextual_vectors (raw text), allennlp_format and export (other formats)
       ─▶ analyses: what the layers know (wsd, probes, tagger, layer_report) and what ELMo
          adds to a task model (corpus_vectors for the baseline, task_model, task_training,
          task_experiments, task_report, task_markdown); nothing above imports them
    cli, commands: the ``elmo-tutorial`` command line parses arguments, calls these, prints.

Dependencies point one way: the data stack knows nothing of the model; the model (chars to
elmo, embedder, allennlp_format) imports nothing from training, the command line or the data
stack; only the command line imports the commands. ``tests/test_layering.py`` checks this, and
that there is no import cycle. Heavier names are imported on first use, so
``import elmo_tutorial`` stays fast.
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
