"""``elmo-tutorial tasks``: what ELMo adds to a task model (paper Tables 1-3, Figures 1-2)."""

from __future__ import annotations

import os

from elmo_tutorial.commands import add_report_arguments, at_least, print_and_write

DESCRIPTION = """\
Add a biLM to a task model the way the paper does (Peters et al. 2018, Sec. 3.3) and measure
what it buys. The baseline is a BiLSTM over static word vectors learned from the biLM's own
training text and a character CNN's vector per token; + layer 0 adds the biLM's context-free
layer, + ELMo the learned scalar mix of all its layers. Every arm is trained on dev by the same
rule (the learning rate halved after 2 epochs without a better dev score, a stop after 5; no
run stops at a cap while it may improve), on 5 seeds, and every comparison is a paired
difference whose 95 % interval covers both the seeds and the choice of test sentences.

  Table 1   baseline, + layer 0, + ELMo on SST-5 (accuracy; also bag-of-words logistic
            regression; trained on the sentences, and as the paper did on every labelled
            phrase), CoNLL-2000 chunking and WNUT-17 NER (F1): full training sets
  Table 2   top layer only, λ = 1 and layer 0 only vs the mix of all layers (chunking sample)
  Table 3   ELMo at the input / input and output / output (chunking sample; the taggers
            use the better one on dev)
  Figure 1  baseline, + layer 0, + ELMo with 1 %, 10 % and 100 % of the training data
            (chunking, NER)
  Curves    dev score per epoch, per arm and task
  Figure 2  the learned layer weights softmax(w) per task and place
  Quality   with --quality MODEL ...: the gain against each biLM's held-out perplexity

Prints a markdown report with the paper's numbers beside ours; --json and --markdown also
write it to files (the figures, and the baseline's vectors for the tasks' words, go
beside the markdown file).

MODEL is a run directory (from `train`), the shipped data/models/small, a folder holding an
official options.json and weights.hdf5, or those two files.

Data: sst, conll2000 and wnut17 (elmo-tutorial data list) and the biLM's training corpus for
the static vectors (--corpus; a run directory names its own). The full report trains 150
small models, 10 more per --quality biLM, two at a time on one CPU thread each: 2 h 18 min
from scratch on a 2-core CPU with two --quality biLMs (benchmarks/RESULTS.md), a quarter of
it SST-5's phrases (--tasks sst5 chunking ner leaves them out); a committed TASKS.md gives the
CPU-hours its runs took. Each finished run is kept
in a runs file (--runs; by default in the
cache folder, named after the biLM and the protocol): run the same command again after an
interruption and it continues where it stopped.

Examples:
  elmo-tutorial tasks data/models/small --json tasks.json --markdown TASKS.md
  elmo-tutorial tasks data/models/small --quality runs/small-135 runs/small-540
  elmo-tutorial tasks runs/tiny --quick --tasks sst5 chunking
"""


def add_arguments(parser) -> None:
    from elmo_tutorial.data.corpora import LM_CORPORA
    from elmo_tutorial.runtime import available_cores
    from elmo_tutorial.tasks.registry import TASKS

    add_report_arguments(parser, markdown="also write the markdown report, with its figures and "
                                          "the baseline's vectors beside it",
                         force="overwrite existing --json/--markdown files and figures")
    parser.add_argument("--tasks", nargs="+", choices=TASKS, default=list(TASKS),
                        help="which tasks (default: all four; sst5_phrases is SST-5 trained on "
                             "every labelled phrase, the costliest)")
    parser.add_argument("--runs", metavar="PATH",
                        help="keep each finished run in this JSON-lines file and resume from it "
                             "(default: a file in the cache folder named after the biLM)")
    parser.add_argument("--quality", nargs="+", metavar="RUN", default=[],
                        help="more biLMs of the same corpus for the quality figure (run "
                             "directories with their softmax, or encoders with a heldout.json, "
                             "e.g. one architecture trained for more and fewer steps)")
    parser.add_argument("--corpus", metavar="NAME", choices=LM_CORPORA,
                        help="the biLM's training corpus, for the baseline's static vectors "
                             "(default: the run's own, else english_mix)")
    parser.add_argument("--workers", type=at_least(1), default=min(2, available_cores()),
                        help="training runs at a time, one CPU thread each (default 2)")
    parser.add_argument("--quick", action="store_true",
                        help="a smoke test on subsets (200 sentences per split, 2 seeds, at "
                             "most 3 epochs, 10 %% for Figure 1); not comparable with anything")


def _training_corpus(paths) -> str:
    """The corpus a run directory was trained on (its config.json), else english_mix."""
    from pathlib import Path

    from elmo_tutorial.training.run_folder import read_run_config

    if len(paths) == 1 and (Path(paths[0]) / "config.json").is_file():
        return read_run_config(paths[0])[1].get("corpus") or "english_mix"
    return "english_mix"


def _quality_models(runs) -> dict:
    """``{name: (ELMo, held-out test perplexity)}`` for the quality figure's biLMs."""
    from pathlib import Path

    from elmo_tutorial.tasks.quality import heldout_perplexity
    from elmo_tutorial.training.run_folder import load_elmo

    models = {}
    for run in runs:
        name = Path(run).name
        if name in models or name == "main":
            raise ValueError(f"two quality runs are named {name!r}: give them distinct folders")
        ppl = heldout_perplexity(run)
        if ppl is None:
            raise ValueError(f"{run} has no held-out perplexity (no softmax to score words "
                             "with, no heldout.json): the quality figure cannot place it")
        models[name] = (load_elmo(run), ppl)
    return models


def run(args) -> int:
    import dataclasses
    import platform
    from pathlib import Path

    from elmo_tutorial.files.overwrite import check_new_files
    from elmo_tutorial.formats.allennlp_format import load_model
    from elmo_tutorial.tasks.quality import heldout_perplexity
    from elmo_tutorial.tasks.report import open_run_store, task_report
    from elmo_tutorial.tasks.report_markdown import FIGURES, to_markdown, write_report
    from elmo_tutorial.tasks.vectors import VECTORS_FILE, write_task_vectors

    outputs = [args.json, args.markdown]
    if args.markdown:  # the figures and the baseline's vectors go beside the markdown
        outputs += [str(Path(args.markdown).parent / f) for f in (*FIGURES.values(),
                                                                  VECTORS_FILE)]
    check_new_files(outputs, args.force)
    corpus = args.corpus or _training_corpus(args.model)
    model = load_model(args.model)
    quality = _quality_models(args.quality)
    perplexity = heldout_perplexity(args.model[0]) if len(args.model) == 1 else None
    store = open_run_store(model, corpus, args.quick, args.runs, args.tasks)
    try:
        result = task_report(model, corpus=corpus, tasks=args.tasks, quick=args.quick,
                             workers=args.workers, progress=True, name=" ".join(args.model),
                             store=store, quality=quality, perplexity=perplexity)
    except KeyboardInterrupt:  # the pool's workers are ended; the finished runs are kept
        raise KeyboardInterrupt("interrupted; " + (
            f"the {len(store)} runs finished so far are kept in {store.path}: run the same "
            "command again to continue from them" if store.path
            else "no run was kept (no runs file)")) from None
    runs = "1 run" if args.workers == 1 else f"{args.workers} runs"
    result = dataclasses.replace(result, machine=f"{platform.machine()}, {os.cpu_count()} "
                                 f"cores, {runs} at a time")
    print_and_write(result, to_markdown, write_report, args)
    if args.markdown:
        write_task_vectors(Path(args.markdown).parent, corpus, args.tasks)
    return 0
