"""elmo_tutorial: ELMo (Peters et al. 2018) built step by step in PyTorch.

The public API::

    from elmo_tutorial import batch_to_ids, ELMo, Embedder, load_allennlp, save_allennlp

Every module, by stage. A stage imports only the stages listed before it; data and model know
nothing of each other; nothing below the course tooling imports it. A top-level module is one
that a notebook uses; the rest live in three packages (``files``, ``tasks``, ``course``).
``tests/test_layering.py`` checks this, and that there is no import cycle. Shapes in the
docstrings: B sentences in a batch, T tokens of a sentence, N tokens of a corpus laid end to
end, C characters per token (50), L + 1 layers (layer 0 and the L LSTM layers), D dimensions
of a layer, V words in a vocabulary::

  foundations  runtime (the repository, seeds, devices, threads, memory, stop signals as
               requests); files/ (file safety: write-then-rename, one full-disk language,
               guarded reading, no lost work, one writer per folder, the reports' files,
               cache records, safe extraction, staging: folders published whole)
  display      figures (the architecture map, readable plots), widgets, claims (trained
               numbers a lesson states, checked): what notebooks show, importing nothing above
  data         registry (finding and fetching a dataset; dataset_table: what each is, where
               it comes from, its checksum) ─ downloads
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
               allennlp_format (the official files, load_model) ─ bilm_hdf5 (their weight
               file's datasets, converted); direction_threads (the
               two directions at once on a CPU)
  training     train_config (TrainConfig, presets, overrides; resume_policy: what a resumed
               run may change) ─▶ train (Trainer: the steps; train_setup: its set-up and
               checkpoints), with
               train_bounds (the range of every setting, the memory of one step),
               train_log, distributed (torchrun), run_threads (a run's thread count);
               evaluation (perplexities) beside ngram (Kneser-Ney); export (other formats);
               cost (FLOPs); finetune (more LM training on a task's text, into a new run)
  analyses     embedding_cache (a corpus's layers, once per model); static_vectors,
               contextual_vectors, analysis, neighbours, char_filters (what layers and
               filters hold); wsd, lexical_sample (word senses), probes, tagger (POS, NER),
               spans (entities and their F1), layer_report (all of them beside the paper);
               supervised (the one training loop of the taggers and task models: to
               convergence on dev), paired (differences over seeds with their 95 % interval)
  tasks        tasks/: what ELMo adds to a task model (the model, its training, the
               experiments, the baseline's vectors, the report, fine-tuning the biLM)
  course       checks (the notebooks' exercises); course/ (student copies, slides, the
  tooling      exercises' conventions, folders written without losing work, doctor)
  command line cli ─▶ commands/<name>.py: the ``elmo-tutorial`` command parses, calls, prints

Modules that moved into the packages can still be imported by their old names (a student copy
made before the move), with a warning that names the new place.

Heavier names are imported on first use, so ``import elmo_tutorial`` stays fast.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

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


# Old name → new place of the modules that moved into the packages.
MOVED = {
    "safe_files": "files.safe_files", "guarded_read": "files.guarded_read",
    "cache_record": "files.cache_record", "archives": "files.archives",
    "overwrite": "files.overwrite", "run_lock": "files.run_lock",
    "report_files": "files.report_files",
    "task_model": "tasks.model", "task_chars": "tasks.characters",
    "task_training": "tasks.training", "task_experiments": "tasks.experiments",
    "task_runs": "tasks.runs", "task_report": "tasks.report", "task_summary": "tasks.summary",
    "task_markdown": "tasks.report_markdown", "task_figures": "tasks.report_figures",
    "task_vectors": "tasks.vectors", "corpus_vectors": "tasks.corpus_vectors",
    "bag_of_words": "tasks.bag_of_words", "finetune_report": "tasks.finetune_report",
    "exercises": "course.exercises", "generated": "course.generated",
    "slides": "course.slides", "slide_fit": "course.slide_fit", "doctor": "course.doctor",
}


class _MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """``import elmo_tutorial.task_model`` gives ``elmo_tutorial.tasks.model`` (one module,
    not a copy), with a ``FutureWarning`` that names the new place."""

    def find_spec(self, fullname, path=None, target=None):
        package, _, name = fullname.partition(".")
        if package == __name__ and name in MOVED:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        return None  # a placeholder: exec_module puts the real module in its place

    def exec_module(self, module) -> None:
        new = f"{__name__}.{MOVED[module.__name__.partition('.')[2]]}"
        warnings.warn(f"{module.__name__} moved to {new}: import it from there", FutureWarning,
                      stacklevel=2)
        sys.modules[module.__name__] = importlib.import_module(new)


if not any(isinstance(finder, _MovedModules) for finder in sys.meta_path):
    sys.meta_path.append(_MovedModules())
