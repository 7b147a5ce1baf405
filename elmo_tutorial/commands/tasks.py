"""``elmo-tutorial tasks``: what ELMo adds to a task model (paper Tables 1-3, Figures 1-2)."""

from __future__ import annotations

import sys

from . import show_and_write

HELP = "What ELMo adds to a task model: baseline vs +ELMo on SST-5, chunking and NER."

DESCRIPTION = """\
Add a biLM to a task model the way the paper does (Peters et al. 2018, Sec. 3.3) and measure
what it buys: a BiLSTM over static word vectors learned from the biLM's own training text
(the baseline; for chunking and NER each token's vector is joined by a character CNN's, as in
the paper's tagging baselines), then the same model with the frozen biLM's layers mixed by a
learned scalar mix and concatenated at its input and output. Every number is the mean ± std
over 3 seeds.

  Table 1   baseline vs +ELMo on SST-5 (accuracy), CoNLL-2000 chunking and WNUT-17 NER (F1)
  Table 2   top layer only vs all layers with λ = 1 vs λ = 0.001 (one task)
  Table 3   ELMo at the input only / input and output / output only (one task)
  Figure 1  baseline vs +ELMo with 1 %, 10 % and 100 % of the training data
  Figure 2  the learned layer weights softmax(w) per task, at the input and the output

Prints a markdown report with the paper's numbers beside ours; --json and --markdown also
write it to files (the figures go beside the markdown file).

MODEL is a run directory (from `train`), the shipped data/models/small, a folder holding an
official options.json and weights.hdf5, or those two files.

Data: sst, conll2000 and wnut17 (elmo-tutorial data list) and the biLM's training corpus for
the static vectors (--corpus; a run directory names its own). The full report trains on a
fixed sample of 2,000 training sentences per task (dev and test whole) and trains 66 small
models, two at a time on one CPU thread each: 12-20 minutes on a 2-core CPU; layers and
vectors computed before are read from the cache.

Examples:
  elmo-tutorial tasks data/models/small --json tasks.json --markdown TASKS.md
  elmo-tutorial tasks runs/tiny --quick --tasks sst5 chunking
"""


def add_arguments(parser) -> None:
    from elmo_tutorial.commands import at_least
    from elmo_tutorial.task_experiments import TASKS

    parser.add_argument("model", nargs="+", metavar="MODEL",
                        help="a run directory, or options.json and weights.hdf5")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    parser.add_argument("--markdown", metavar="PATH",
                        help="also write the markdown report, with its figures beside it")
    parser.add_argument("--tasks", nargs="+", choices=TASKS, default=list(TASKS),
                        help="which tasks (default: all three)")
    parser.add_argument("--table-task", choices=TASKS,
                        help="the task of Tables 2 and 3 (default: chunking)")
    parser.add_argument("--corpus", metavar="NAME",
                        help="the biLM's training corpus, for the baseline's static vectors "
                             "(default: the run's own, else english_mix)")
    parser.add_argument("--workers", type=at_least(1), default=2,
                        help="training runs at a time, one CPU thread each (default 2)")
    parser.add_argument("--quick", action="store_true",
                        help="a smoke test on subsets (300 sentences per split, 2 epochs, "
                             "10 %% of them for Figure 1); not comparable with the paper")
    parser.add_argument("--force", action="store_true",
                        help="overwrite existing --json/--markdown files and figures")


def _training_corpus(paths) -> str:
    """The corpus a run directory was trained on (its config.json), else english_mix."""
    from pathlib import Path

    from elmo_tutorial.run_dir import read_run_config

    if len(paths) == 1 and (Path(paths[0]) / "config.json").is_file():
        return read_run_config(paths[0])[1].get("corpus") or "english_mix"
    return "english_mix"


def run(args) -> int:
    from pathlib import Path

    from elmo_tutorial.allennlp_format import load_model
    from elmo_tutorial.corpora import LM_CORPORA
    from elmo_tutorial.downloads import DatasetNotAvailable
    from elmo_tutorial.embedding_cache import CacheNotWritable
    from elmo_tutorial.overwrite import WouldOverwrite, check_new_files
    from elmo_tutorial.task_markdown import FIGURES, to_markdown, write_report
    from elmo_tutorial.task_report import task_report

    outputs = [args.json, args.markdown]
    if args.markdown:
        outputs += [str(Path(args.markdown).parent / f) for f in FIGURES.values()]
    try:
        check_new_files(outputs, args.force)
    except WouldOverwrite as err:
        print(f"elmo-tutorial tasks: {err}", file=sys.stderr)
        return 2
    corpus = args.corpus or _training_corpus(args.model)
    if corpus not in LM_CORPORA:
        print(f"elmo-tutorial tasks: unknown corpus {corpus!r}; choose one of "
              f"{', '.join(LM_CORPORA)}", file=sys.stderr)
        return 2
    try:
        model = load_model(args.model)
    except (FileNotFoundError, ValueError) as err:
        print(f"elmo-tutorial tasks: {err}", file=sys.stderr)
        return 2
    try:
        result = task_report(model, corpus=corpus, tasks=args.tasks, quick=args.quick,
                             table_task=args.table_task, workers=args.workers,
                             progress=True, name=" ".join(args.model))
    except (DatasetNotAvailable, CacheNotWritable, ValueError) as err:
        print(f"elmo-tutorial tasks: {err}", file=sys.stderr)
        return 2
    return show_and_write("tasks", result, to_markdown, write_report, args)
