"""``elmo-tutorial layers``: what each layer of a model knows (paper Tables 5 and 6)."""

from __future__ import annotations

from elmo_tutorial.commands import add_report_arguments, print_and_write

DESCRIPTION = """\
Measure what each layer of a biLM captures, with the paper's own methods (Peters et al. 2018,
Sec. 5.3): word sense disambiguation by 1-nearest-neighbour over SemCor sense centroids
(Table 5: the top layer knows meaning best), a linear part-of-speech probe per frozen layer
(Table 6: the first LSTM layer knows syntax best; also at other regularisations and on 600
training sentences, since a probe's trend must not hang on its setting), and optionally NER
on WNUT-17 with a learned scalar mix against layer 0 alone and word-type vectors (each tagger
trained until its dev F1 has not improved for 5 epochs, on 5 seeds, compared by paired
intervals); --ner-ladder then moves that tagger to the task report's training settings one at
a time. Prints a markdown report with the paper's numbers beside ours and which layer trends
the model reproduces beyond the noise of the test sample (a 95 % interval from a paired
bootstrap over the test instances and sentences); --json and --markdown also write it to
files, and beside --json NAME.json goes NAME_outcomes.json: every representation's outcome on
every test item, from which the intervals can be computed again.

MODEL is a run directory (from `train`), the shipped data/models/small, a folder holding an
official options.json and weights.hdf5, or those two files. Data: the WSD Evaluation
Framework, UD English-EWT and WNUT-17 (elmo-tutorial data list), nltk's treebank and wordnet.
The full run embeds about a million tokens and trains 15 NER taggers: about 15-20 minutes on
a 2-core CPU; layers already embedded by the same model are read from the cache.

Examples:
  elmo-tutorial layers data/models/small --json layers.json --markdown layers.md
  elmo-tutorial layers options.json weights.hdf5 --no-ner
"""


def add_arguments(parser) -> None:
    add_report_arguments(parser)
    parser.add_argument("--no-ner", action="store_true", help="skip NER (the slowest part)")
    parser.add_argument("--ner-ladder", action="store_true",
                        help="also move the NER tagger to the task model's settings one at a "
                             "time (dropout, optimiser, layer norm): 40 more taggers, about "
                             "half an hour on 2 cores")
    parser.add_argument("--quick", action="store_true",
                        help="a smoke test on subsets (every 20th SemCor sentence, 300 sentences "
                             "per POS/NER split, one seed of 2 NER epochs); not comparable with "
                             "the paper")


def run(args) -> int:
    from elmo_tutorial.analyses.layer_markdown import to_markdown, write_report
    from elmo_tutorial.analyses.layer_report import layer_report, outcomes_path, write_outcomes
    from elmo_tutorial.data.downloads import cache_dir
    from elmo_tutorial.files.overwrite import check_new_files
    from elmo_tutorial.formats.allennlp_format import load_model

    if args.no_ner and args.ner_ladder:
        args.parser.error("--ner-ladder extends the NER section: drop --no-ner")
    outcomes_file = outcomes_path(args.json) if args.json else None
    check_new_files([args.json, outcomes_file, args.markdown], args.force)
    model = load_model(args.model)
    outcomes = {}
    try:
        result = layer_report(model, ner=not args.no_ner, progress=True,
                              name=" ".join(args.model), quick=args.quick,
                              ner_ladder=args.ner_ladder, outcomes=outcomes)
    except KeyboardInterrupt:  # the entry being written is removed, the finished ones stay
        raise KeyboardInterrupt(
            "interrupted; the layers embedded so far are kept in the embedding cache "
            f"({cache_dir() / 'embeddings'}) and read from there: run the same command again "
            "to continue") from None
    print_and_write(result, to_markdown, write_report, args)
    if outcomes_file:
        write_outcomes(outcomes_file, outcomes, args.force)
    return 0
