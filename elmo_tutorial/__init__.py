"""elmo_tutorial: ELMo (Peters et al. 2018) built step by step in PyTorch.

The public API::

    from elmo_tutorial import batch_to_ids, ELMo, Embedder, load_allennlp, save_allennlp

Every module, by stage. A stage imports only the stages listed before it (analyses also show
results with the course's widgets); data and model know nothing of each other; data, model and
training never import the analyses or the course tooling. ``tests/test_layering.py`` checks
this, and that there is no import cycle::

  foundations  runtime (the repository, seeds, devices, threads, stop signals as requests),
               safe_files (write-then-rename, digests, SHA256SUMS, DamagedFile),
               guarded_read (regular files only, inside their folder, checked before they
               are read), cache_record (cache entries checked before they are read),
               archives (safe extraction)
  data         registry (what a dataset is, where it comes from, its checksum) ─ downloads
               (the verified bytes in the cache or the offline folder; verified: the record of
               what was checked) ─▶ readers: corpora
               (running text for the LM, load_sentences), annotated (POS tags, entities, word
               senses), sense_corpus with sense_grammar (the small generated corpus in
               data/embedded, no download) ─▶ tokenize ─▶ list[list[str]]
  model        vocab ─▶ word ids (the LM's targets); chars ─▶ character ids (B, T, 50);
               batching (LMBatch: <S> .. </S>, padding, forward/backward targets);
               char_cnn (layer 0) ─▶ lstmp, lstm (layers 1..L, both directions); softmax and
               lm (the joint loss), generate (sampling sentences from it); layer_norm,
               scalar_mix, elmo (ELMo, ELMo.from_run, TF-Hub's input forms);
               embedder (many sentences, per layer); config (ModelConfig);
               checkpoint (weights, checkpoints), run_dir (the run directory, load_run, the
               shipped models); weight_checks (weights and options that fit);
               allennlp_format (the official files, load_model); direction_threads (the
               two directions at once on a CPU)
  training     train_config (TrainConfig, presets, overrides) ─▶ train (Trainer), with
               train_bounds (the range of every setting, the memory of one step),
               train_log, distributed (torchrun), overwrite (no lost work), report_files
               (the reports' tables and files), run_lock
               (one writer per run folder), run_threads (a run's thread count); evaluation
               (perplexities) beside ngram (Kneser-Ney); export (other formats); cost (FLOPs);
               finetune (more LM training on a task's text, into a new run)
  analyses     embedding_cache (a corpus's layers, once per model); static_vectors,
               contextual_vectors, analysis, neighbours, char_filters (what layers and
               filters hold); wsd, lexical_sample (word senses), probes, tagger (POS, NER),
               spans (entities and their F1),
               layer_report (all of them beside the paper); supervised (the one training loop
               of the taggers and task models: to convergence on dev), paired (differences
               over seeds with their 95 % interval); what ELMo adds to a task model:
               corpus_vectors (the baseline's static vectors), task_chars (the character
               CNN), bag_of_words (the sentence-classification floor), task_model,
               task_training, task_experiments, task_vectors (the baseline's vectors shipped
               beside a report), task_runs (each run kept, to resume),
               task_report, task_summary, task_markdown, task_figures, finetune_report
  course       checks (the notebooks' exercises), claims (trained numbers a lesson states),
  tooling      course (student copies, slides), exercises (their kinds and answers),
               generated (folders written without losing a student's work), slides, slide_fit,
               figures, widgets, doctor
  command line cli ─▶ commands/<name>.py: the ``elmo-tutorial`` command parses, calls, prints

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
