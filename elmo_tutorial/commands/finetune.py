"""``elmo-tutorial finetune``: fine-tune a biLM on a task's text (paper Appendix A.1)."""

from __future__ import annotations

DESCRIPTION = """\
Continue training a biLM on a task's own sentences, labels ignored (Peters et al. 2018,
Sec. 3.4 and Appendix A.1), into a NEW run directory (--out; the source run is only read),
then measure what it changed: the perplexity on held-out SST dev sentences before and after,
and the SST-2 test accuracy of notebook 12's task model with ELMo from the original and from
the fine-tuned biLM (5 seeds each, beside the baseline without ELMo).

A biLM without a softmax (the shipped data/models/small) first gets a new softmax over the
words of the fine-tuning text, trained on its frozen encoder (--head-steps): the "before"
perplexity is that model's. The default run (2,000 sentences, 300 head steps, 60 steps of 16
sentences) takes about 6 minutes on a 2-core CPU.

Examples:
  elmo-tutorial finetune data/models/small --out runs/small-sst --markdown FINETUNE.md
  elmo-tutorial finetune runs/small --out runs/small-sst --steps 200 --lr 3e-4
"""


def add_arguments(parser) -> None:
    from elmo_tutorial.commands import add_report_arguments, at_least, positive_number

    parser.add_argument("model", metavar="RUN", help="the run directory to start from")
    parser.add_argument("--out", required=True, metavar="DIR",
                        help="the new run directory for the fine-tuned biLM")
    parser.add_argument("--steps", type=at_least(1), default=60,
                        help="optimiser steps of the whole biLM (default 60)")
    parser.add_argument("--head-steps", type=at_least(0), default=300,
                        help="steps of a new softmax on the frozen encoder first (default 300)")
    parser.add_argument("--sentences", type=at_least(10), default=2000,
                        help="SST training sentences to fine-tune on (default 2000)")
    parser.add_argument("--batch-size", type=at_least(1), default=16,
                        help="sentences per step (default 16)")
    parser.add_argument("--lr", type=positive_number, default=1e-3,
                        help="Adam's learning rate (default 0.001)")
    parser.add_argument("--freeze-encoder", action="store_true",
                        help="the control: train the softmax alone for the same steps")
    parser.add_argument("--threads", type=at_least(1), default=None, metavar="N",
                        help="CPU threads of fine-tuning (default 2, or 1 on a one-core "
                             "machine: another count gives other weights)")
    add_report_arguments(parser, models=False,
                         force="replace an existing --out run and --json/--markdown files")


def run(args) -> int:
    from elmo_tutorial.commands import print_and_write
    from elmo_tutorial.files.overwrite import check_fresh_run_dir, check_new_files
    from elmo_tutorial.tasks.finetune_report import finetune_report, to_markdown, write_report
    from elmo_tutorial.training.finetune import FineTuningInterrupted

    # refused in a second, not after minutes of fine-tuning
    check_new_files([args.json, args.markdown], args.force)
    check_fresh_run_dir(args.out, args.force, resumable=False, doing="fine-tuning into it")
    try:
        result = finetune_report(args.model, args.out, steps=args.steps,
                                 head_steps=args.head_steps, lm_sentences=args.sentences,
                                 force=args.force, lr=args.lr, batch_size=args.batch_size,
                                 vocab_min_count=3, freeze_encoder=args.freeze_encoder,
                                 **({"threads": args.threads} if args.threads else {}))
    except FineTuningInterrupted as stopped:  # during the steps: it says what it kept
        raise KeyboardInterrupt(str(stopped)) from None
    except KeyboardInterrupt:
        raise KeyboardInterrupt(
            "interrupted before the report was written: run the same command again (with "
            f"--force if {args.out} holds the fine-tuned run by now)") from None
    return print_and_write(result, to_markdown, write_report, args)
