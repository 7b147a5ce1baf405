"""``elmo-tutorial tasks``: what ELMo adds to a task model (paper Tables 1-3, Figures 1-2)."""

from __future__ import annotations

import os

from elmo_tutorial.commands import add_report_arguments, at_least, print_and_write

DESCRIPTION = """\
Add a biLM to a task model the way the paper does (Peters et al. 2018, Sec. 3.3) and measure
what it buys: a BiLSTM over static word vectors learned from the biLM's own training text and
a character CNN (the baseline), + the biLM's layer 0, + ELMo (the learned mix of all its
layers). Every arm is trained to convergence on dev by the same rule, on 5 seeds; every
comparison is a paired difference with a 95 % interval over the seeds and the test sentences.

  Table 1   the three arms on SST-5 (sentences, and every labelled phrase), CoNLL-2000
            chunking and WNUT-17 NER, beside the paper; SST-5's bag-of-words floor
  Table 2   top layer only, λ = 1, layer 0 only vs the mix of all layers (chunking sample)
  Table 3   ELMo at the input / input and output / output (chunking sample)
  Figure 1  the arms on 1 %, 10 % and 100 % of the training data (chunking, NER)
  Figure 2  the learned layer weights; and the learning curves
  Quality   with --quality MODEL ...: the gain against each biLM's held-out perplexity

Prints a markdown report; --json and --markdown also write it. MODEL is a run directory, the
shipped data/models/small, or an official options.json and weights.hdf5. Needs the sst,
conll2000 and wnut17 data and the biLM's corpus. The full report trains 150 small models, two
at a time: about 2 h 20 min on a 2-core CPU (benchmarks/RESULTS.md); each finished run is kept
(--runs), so the same command again continues where an interrupted one stopped.

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
                        help="which tasks (default: all four; sst5_phrases is the costliest)")
    parser.add_argument("--runs", metavar="PATH",
                        help="keep each finished run in this JSON-lines file and resume from it "
                             "(default: a file in the cache folder named after the biLM)")
    parser.add_argument("--quality", nargs="+", metavar="RUN", default=[],
                        help="more biLMs of the same corpus for the quality figure (run "
                             "directories with their softmax, or encoders with a heldout.json)")
    parser.add_argument("--corpus", metavar="NAME", choices=LM_CORPORA,
                        help="the biLM's training corpus, for the baseline's static vectors "
                             "(default: the run's own, else english_mix)")
    parser.add_argument("--workers", type=at_least(1), default=min(2, available_cores()),
                        help="training runs at a time, one CPU thread each (default 2)")
    parser.add_argument("--quick", action="store_true",
                        help="a smoke test on subsets (200 sentences per split, 2 seeds, at "
                             "most 3 epochs); not comparable with anything")


def run(args) -> int:
    import dataclasses
    import platform
    from pathlib import Path

    from elmo_tutorial.files.overwrite import check_new_files
    from elmo_tutorial.formats.allennlp_format import load_model
    from elmo_tutorial.tasks.quality import heldout_perplexity, quality_models
    from elmo_tutorial.tasks.report import task_report
    from elmo_tutorial.tasks.report_markdown import FIGURES, to_markdown, write_report
    from elmo_tutorial.tasks.runs import open_run_store
    from elmo_tutorial.tasks.vectors import VECTORS_FILE, trained_on, write_task_vectors

    outputs = [args.json, args.markdown]
    if args.markdown:  # the figures and the baseline's vectors go beside the markdown
        folder = Path(args.markdown).parent
        outputs += [str(folder / f) for f in (*FIGURES.values(), VECTORS_FILE)]
    check_new_files(outputs, args.force)
    one = args.model[0] if len(args.model) == 1 else None  # a folder, not options + weights
    corpus = args.corpus or (trained_on(one) if one else "english_mix")
    model = load_model(args.model)
    quality = quality_models(args.quality)
    store = open_run_store(model, corpus, args.quick, args.runs, args.tasks)
    try:
        result = task_report(model, corpus=corpus, tasks=args.tasks, quick=args.quick,
                             workers=args.workers, progress=True, name=" ".join(args.model),
                             store=store, quality=quality,  # its perplexity: a quality point
                             perplexity=heldout_perplexity(one) if one and quality else None)
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
