"""elmo_tutorial: ELMo (Peters et al. 2018) built step by step in PyTorch.

The public API::

    from elmo_tutorial import batch_to_ids, ELMo, Embedder, load_allennlp, save_allennlp

The folders are the stages of the course, in the order a notebook meets them. A folder imports
only the folders above it in this list (``tests/test_layering.py`` checks it, and that no
import goes round in a circle)::

  runtime.py    seeds, threads, devices, the repository; files/ (written whole, read guarded)
  figures.py    what notebooks show: the architecture map, plots (widgets.py), checked
                claims about trained numbers (claims.py)
  data/         datasets (registry, checksummed downloads), corpora, annotated data, the
                generated sense corpus, the tokenizer                          (notebooks 00, 02)
  model/        the plain ELMo that notebooks 01-07 build: characters, char CNN, LSTMP,
                the language models, the scalar mix, ELMo; saving and loading weights
  fast/         the same modules made fast, same parameters, proven equal      (notebook 11)
  formats/      the official AllenNLP/bilm-tf files, export                    (notebook 11)
  training/     the trainer and its settings, evaluation, n-grams, DDP, fine-tuning (06, 11)
  analyses/     what the layers know: embedder and cache, senses, probes, taggers (08-10)
  tasks/        what ELMo adds to a task model: the experiments and their report   (12)
  checks/       the notebooks' self-checked exercises; course/: student copies, slides
  commands/     the ``elmo-tutorial`` command line (cli.py), one module per subcommand

Shapes in the docstrings: B sentences in a batch, T tokens of a sentence, N tokens of a corpus
laid end to end, C characters per token (50), L + 1 layers (layer 0 and the L LSTM layers), D
dimensions of a layer, V words in a vocabulary.

Modules that moved can still be imported by their old names (a notebook or a student copy
written before the move), with a warning that names the new place. Heavier names are imported
on first use, so ``import elmo_tutorial`` stays fast.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

from elmo_tutorial.model.chars import batch_to_ids

__version__ = "0.1.0"

_LAZY = {
    "ELMo": "elmo_tutorial.model.elmo",
    "Embedder": "elmo_tutorial.analyses.embedder",
    "load_allennlp": "elmo_tutorial.formats.allennlp_format",
    "save_allennlp": "elmo_tutorial.formats.allennlp_format",
    "ModelConfig": "elmo_tutorial.model.config",
    "Vocabulary": "elmo_tutorial.model.vocab",
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
    "report_files": "files.report_files", "task_model": "tasks.model",
    "task_chars": "tasks.characters", "task_training": "tasks.training",
    "task_experiments": "tasks.experiments", "task_runs": "tasks.runs",
    "task_report": "tasks.report", "task_summary": "tasks.summary",
    "task_markdown": "tasks.report_markdown", "task_figures": "tasks.report_figures",
    "task_vectors": "tasks.vectors", "corpus_vectors": "tasks.corpus_vectors",
    "bag_of_words": "tasks.bag_of_words", "finetune_report": "tasks.finetune_report",
    "exercises": "course.exercises", "generated": "course.generated", "slides": "course.slides",
    "slide_fit": "course.slide_fit", "doctor": "course.doctor", "chars": "model.chars",
    "vocab": "model.vocab", "batching": "model.batching", "config": "model.config",
    "layer_norm": "model.layer_norm", "char_cnn": "model.char_cnn", "lstmp": "model.lstmp",
    "lstm": "model.lstm", "softmax": "model.softmax", "lm": "model.lm",
    "generate": "model.generate", "scalar_mix": "model.scalar_mix", "elmo": "model.elmo",
    "checkpoint": "model.checkpoint", "run_dir": "model.run_dir",
    "weight_checks": "model.weight_checks", "direction_threads": "fast.direction_threads",
    "allennlp_format": "formats.allennlp_format", "bilm_hdf5": "formats.bilm_hdf5",
    "export": "formats.export", "train": "training.train", "train_setup": "training.train_setup",
    "train_config": "training.train_config", "resume_policy": "training.resume_policy",
    "train_bounds": "training.train_bounds", "train_log": "training.train_log",
    "distributed": "training.distributed", "evaluation": "training.evaluation",
    "ngram": "training.ngram", "run_threads": "training.run_threads", "cost": "training.cost",
    "finetune": "training.finetune", "embedder": "analyses.embedder",
    "embedding_cache": "analyses.embedding_cache", "static_vectors": "analyses.static_vectors",
    "contextual_vectors": "analyses.contextual_vectors", "analysis": "analyses.sense_separation",
    "neighbours": "analyses.neighbours", "char_filters": "analyses.char_filters",
    "wsd": "analyses.wsd", "lexical_sample": "analyses.lexical_sample",
    "probes": "analyses.probes", "spans": "analyses.spans", "tagger": "analyses.tagger",
    "layer_report": "analyses.layer_report", "supervised": "analyses.supervised",
    "paired": "analyses.paired", "registry": "data.registry",
    "dataset_table": "data.dataset_table", "downloads": "data.downloads",
    "verified": "data.verified", "corpora": "data.corpora", "annotated": "data.annotated",
    "sense_corpus": "data.sense_corpus", "sense_grammar": "data.sense_grammar",
    "tokenize": "data.tokenize", "cli": "commands.cli",
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
        old = module.__name__.partition(".")[2]
        new = f"{__name__}.{MOVED[old]}"
        warnings.warn(f"{module.__name__} moved to {new}: import it from there", FutureWarning,
                      stacklevel=2)
        sys.modules[module.__name__] = target = importlib.import_module(new)
        if old in MOVED_NAMES:
            _find_moved_names(target, MOVED_NAMES[old])


# Names that left their module when the plain model and its fast paths were separated:
# old module name → {name: its new module}. Old code reaches them through the old module name.
MOVED_NAMES = {
    "char_cnn": dict.fromkeys(("conv1d_windows", "conv1d_max", "distinct_rows"),
                              "fast.char_cnn"),
    "lm": {"DirectionThreads": "fast.direction_threads"},
}


def _find_moved_names(module, names: dict[str, str]) -> None:
    """Give ``module`` a module ``__getattr__`` (PEP 562) that finds ``names`` in their new
    modules, with a ``FutureWarning``; the module's own code is not changed."""
    if "__getattr__" in vars(module):
        return

    def __getattr__(name: str):
        if name not in names:
            raise AttributeError(f"module {module.__name__!r} has no attribute {name!r}")
        new = f"{__name__}.{names[name]}"
        warnings.warn(f"{name} moved to {new}: import it from there", FutureWarning,
                      stacklevel=2)
        return getattr(importlib.import_module(new), name)

    module.__getattr__ = __getattr__


if not any(isinstance(finder, _MovedModules) for finder in sys.meta_path):
    sys.meta_path.append(_MovedModules())
