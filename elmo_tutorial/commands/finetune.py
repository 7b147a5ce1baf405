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
    from elmo_tutorial.commands import (
        MAX_BATCH_SIZE,
        add_report_arguments,
        at_least,
        batch_size,
        positive_number,
    )

    parser.add_argument("model", metavar="RUN", help="the run directory to start from")
    parser.add_argument("--out", required=True, metavar="DIR",
                        help="the new run directory for the fine-tuned biLM")
    parser.add_argument("--steps", type=at_least(1), default=60,
                        help="optimiser steps of the whole biLM (default 60)")
    parser.add_argument("--head-steps", type=at_least(0), default=300,
                        help="steps of a new softmax on the frozen encoder first (default 300)")
    parser.add_argument("--sentences", type=at_least(10), default=2000,
                        help="SST training sentences to fine-tune on (default 2000)")
    parser.add_argument("--batch-size", type=batch_size, default=16,
                        help=f"sentences per step, at most {MAX_BATCH_SIZE} (default 16)")
    parser.add_argument("--lr", type=positive_number, default=1e-3,
                        help="Adam's learning rate (default 0.001)")
    parser.add_argument("--freeze-encoder", action="store_true",
                        help="the control: train the softmax alone for the same steps")
    parser.add_argument("--threads", type=one_thread_per_core, default=None, metavar="N",
                        help="CPU threads of fine-tuning, at most one per core (default 2, or 1 "
                             "on a one-core machine, whatever the load: another count gives "
                             "other weights)")
    add_report_arguments(parser, models=False,
                         force="replace an existing --out run and --json/--markdown files")


def one_thread_per_core(text: str) -> int:
    """``--threads``: at least 1, at most the cores this process may use."""
    from elmo_tutorial.commands import at_least
    from elmo_tutorial.runtime import available_cores

    cores = available_cores()
    return at_least(1, cores, f"this process may use {cores} CPU core{'s' * (cores != 1)}; "
                              "a thread more only waits for one")(text)


def run(args) -> int:
    from elmo_tutorial.commands import fail, not_permitted, show_and_write
    from elmo_tutorial.data.downloads import DatasetNotAvailable
    from elmo_tutorial.files.overwrite import (
        InsideAnotherRun,
        WouldOverwrite,
        check_fresh_run_dir,
        check_new_files,
    )
    from elmo_tutorial.files.safe_files import DiskFull
    from elmo_tutorial.tasks.finetune_report import finetune_report, to_markdown, write_report
    from elmo_tutorial.training.finetune import FineTuningInterrupted

    try:  # in a second, not after minutes of fine-tuning
        check_new_files([args.json, args.markdown], args.force)
        check_fresh_run_dir(args.out, args.force, resumable=False, doing="fine-tuning into it")
    except (WouldOverwrite, NotADirectoryError, InsideAnotherRun) as err:
        return fail("finetune", err)
    try:
        result = finetune_report(args.model, args.out, steps=args.steps,
                                 head_steps=args.head_steps, lm_sentences=args.sentences,
                                 force=args.force, lr=args.lr, batch_size=args.batch_size,
                                 vocab_min_count=3, freeze_encoder=args.freeze_encoder,
                                 **({"threads": args.threads} if args.threads else {}))
    except (DatasetNotAvailable, FileNotFoundError, ValueError, WouldOverwrite) as err:
        return fail("finetune", err)
    except FineTuningInterrupted as err:  # Ctrl-C during the steps: a checkpoint is in --out
        return fail("finetune", err, 130)
    except KeyboardInterrupt:
        return fail("finetune", "interrupted before the report was written: run the same command "
                    f"again (with --force if {args.out} holds the fine-tuned run by now)", 130)
    except FloatingPointError as err:
        return fail("finetune", err, 1)
    except DiskFull as err:  # while fine-tuning, or taking the lock: says how to go on
        return fail("finetune", err, 1)
    except PermissionError as err:  # a read-only --out (the lock says so), or source
        return not_permitted("finetune", err, f"choose an --out you may write to (not "
                                              f"{args.out}), or make it writable")
    # Printed before the files are written: a full disk or a file another run wrote meanwhile
    # then costs the files, not the results of minutes of fine-tuning
    return show_and_write("finetune", result, to_markdown, write_report, args)
