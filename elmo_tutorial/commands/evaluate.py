"""``elmo-tutorial evaluate``: held-out perplexities of a run, next to a Kneser-Ney baseline."""

from __future__ import annotations

import json
from pathlib import Path

from elmo_tutorial.commands import at_least

DESCRIPTION = """\
Score a trained biLM on held-out sentences of the corpus it was trained on.

Perplexity = exp(mean negative log-likelihood per predicted word): the model is as unsure as
a uniform choice among that many words; "avg" is exp of the mean of the forward and backward
NLLs, as bilm-tf reports. The paper's biLM reaches 39.7 on the 1B Word Benchmark, over its
793,471-word vocabulary (Peters et al. 2018, Sec. 3.4). Beside it, an interpolated Kneser-Ney
trigram fitted on the same training sentences, with the same vocabulary, scored on the same
predictions (elmo_tutorial/training/ngram.py): beating it shows that the LSTMs learned more
than local word statistics. From Python: elmo_tutorial.training.evaluation.evaluate_run(RUN_DIR).

Examples:
  elmo-tutorial evaluate runs/tiny
  elmo-tutorial evaluate runs/tiny --split test --json
  elmo-tutorial evaluate runs/tiny --json results/tiny.json
  elmo-tutorial evaluate runs/small --no-ngram --max-sentences 2000
"""


def add_arguments(parser) -> None:
    parser.add_argument("run_dir", metavar="RUN_DIR", help="a run directory (from `train`)")
    parser.add_argument("--split", default="valid", choices=["valid", "test"],
                        help="held-out split to score (default: valid)")
    parser.add_argument("--max-sentences", type=at_least(0), default=0, metavar="N",
                        help="score only the first N sentences (0 = all)")
    parser.add_argument("--no-ngram", action="store_true", help="skip the n-gram baseline")
    parser.add_argument("--checkpoint", action="store_true",
                        help="use the newest checkpoint instead of the final weights")
    parser.add_argument("--ngram-train-sentences", type=at_least(0), default=50_000, metavar="N",
                        help="fit the n-gram on at most N training sentences (nltk.lm is "
                             "pure Python; 0 = all)")
    parser.add_argument("--device", default="cpu",
                        help="cpu (default), cuda, cuda:N, mps or auto; one this machine lacks "
                             "is an error")
    parser.add_argument("--json", nargs="?", const="-", metavar="PATH",
                        help="print one JSON object instead of the table; with PATH, print "
                             "the table and write the JSON there, as the report commands do")
    parser.add_argument("--force", action="store_true", help="overwrite an existing --json file")


def run(args) -> int:
    from elmo_tutorial.files.overwrite import check_new_files, write_new_file
    from elmo_tutorial.training.evaluation import evaluate_run

    to_file = args.json not in (None, "-")
    if to_file:  # refused now, not after minutes of scoring
        check_new_files([args.json], args.force)
    result = evaluate_run(args.run_dir, args.split, args.max_sentences, not args.no_ngram,
                          args.checkpoint, args.device, args.ngram_train_sentences or None)
    if args.json == "-":
        print(json.dumps(result, indent=2))
        return 0
    print(f"{args.run_dir} ({result['weights']}): {result['n_sentences']} {args.split} sentences, "
          f"{result['bilm']['n_tokens']} predictions per direction")
    print(f"{'model':<16}{'forward':>10}{'backward':>10}{'avg':>10}")
    rows = [("biLM", result["bilm"])]
    if result["ngram"]:
        rows.append(("3-gram KN", result["ngram"]))
    for name, r in rows:
        print(f"{name:<16}{r['fwd_ppl']:>10.2f}{r['bwd_ppl']:>10.2f}{r['avg_ppl']:>10.2f}")
    if result["ngram"]:
        print(f"(the n-gram was fitted on {result['ngram']['train_sentences']} training sentences)")
    if to_file:
        text = json.dumps(result, indent=2) + "\n"
        write_new_file(args.json, lambda tmp: Path(tmp).write_text(text), args.force)
    return 0
