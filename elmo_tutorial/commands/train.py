"""``elmo-tutorial train``: train a biLM from a preset, a TOML file and --key=value overrides."""

from __future__ import annotations

import difflib
import json
import os
import sys

from elmo_tutorial.commands import at_least, fail, not_permitted

DESCRIPTION = """\
Train the bidirectional language model that ELMo is made of (Peters et al. 2018, Sec. 3.1):
a character CNN, a forward and a backward LSTM stack, and one softmax shared by both
directions. The loss is the forward NLL plus the backward NLL of every sentence.

Presets (see elmo_tutorial/training/train_config.py, where each setting is declared):
  tiny    embedded corpus, CPU, under a minute on two cores; beats a Kneser-Ney 3-gram
  small   WikiText-2 if downloadable, else the offline nltk English mix; one GPU in minutes
  paper   Peters et al.: 4096 cells, 512 projections, 2048 char filters, sampled softmax
          with 8192 negatives, Adagrad lr 0.2 as bilm-tf (needs a large corpus and GPUs)

Override any field with --key=value (values are TOML: numbers, true/false, [lists]), model
fields with --model.FIELD=value, or put them in a TOML file ([model] table for the
architecture). Order: preset < --config-file < --key=value. Unknown keys are errors; a dash
in a key is read as an underscore (--max-steps=100 sets max_steps), and the value always
follows '=' (--max-steps 100 is refused, saying so).

The run directory (--out) receives config.json, vocab.txt, log.jsonl, loss.png,
checkpoints/ (atomic; resume with --resume) and finally model.safetensors. Ctrl-C stops
after the current step, saves a checkpoint there and says how to continue (a second Ctrl-C
stops at once, keeping the checkpoint before); so do SIGTERM, which schedulers send before
they kill a job, and SIGHUP, which a closed terminal sends. If the run directory
already holds a run, training refuses to start: --resume continues it (settings that the checkpoint
cannot continue under, such as the architecture, the corpus or the batch size, are refused;
others, such as max_steps or lr, are taken and announced; the run's settings are those its
checkpoint recorded, whatever an edited config.json says), --force deletes it and starts over.
Files of your own under a run's names (config.json, vocab.txt, ...) are refused the same way,
and an --out inside another run's folder always. A damaged, empty or missing newest
checkpoint, or one that does not fit config.json, is reported and the one before it used.
One train at a time may write into a run directory: a second one, while the
first runs, is refused (the lock dies with its process).

CPU threads: --threads=N; by default one per core that other programs leave free (on a
shared machine, a thread per core makes training many times slower). The count is chosen when
a run starts and recorded in config.json; --resume keeps it (another count gives other
weights), unless --threads=N asks for another.

Examples:
  elmo-tutorial train --config tiny --out runs/tiny
  elmo-tutorial train --config tiny --out runs/tiny --lr=0.01 --model.lstm_dim=128
  elmo-tutorial train --config small --out runs/small --config-file my.toml --resume
  elmo-tutorial train --config tiny --out runs/tiny --force          # replace runs/tiny
  elmo-tutorial train --config small --out runs/small --nproc 4     # torchrun, 4 processes
  torchrun --nproc_per_node=4 -m elmo_tutorial train --config small --out runs/small
"""


def add_arguments(parser) -> None:
    parser.add_argument("--config", default="tiny", metavar="PRESET",
                        help="training preset: tiny, small or paper (default: tiny)")
    parser.add_argument("--out", default=None, metavar="RUN_DIR",
                        help="run directory (default: the preset's out_dir, e.g. runs/tiny)")
    parser.add_argument("--config-file", default=None, metavar="TOML",
                        help="TOML file of overrides (top-level fields, [model] table)")
    parser.add_argument("--resume", action="store_true",
                        help="continue from the newest checkpoint in RUN_DIR")
    parser.add_argument("--force", action="store_true",
                        help="if RUN_DIR holds a run, delete it and train afresh")
    parser.add_argument("--nproc", type=at_least(1), default=1, metavar="N",
                        help="data-parallel processes (starts torchrun; nccl on GPUs, gloo on "
                             "CPU): at most one per GPU, or per CPU core; a stop signal to it "
                             "stops them all")
    parser.add_argument("--print-config", action="store_true",
                        help="print the resolved configuration as JSON and exit")
    parser.epilog = "settings, --key=value (the value shown is the tiny preset's):\n" + "\n".join(
        f"  {f'--{key}={value}':<36} {comment}" for key, value, comment in settings())
    _accept_overrides(parser)


def settings() -> list[tuple[str, str, str]]:
    """``(key, value in the tiny preset, help)`` for every setting ``--key=value`` takes.

    The help is the one each field of ``TrainConfig`` and ``ModelConfig`` declares (its
    ``metadata``), with the choices of a setting that has them, so that ``--help`` and the
    code say the same.
    """
    from dataclasses import fields

    from elmo_tutorial.model.config import ModelConfig
    from elmo_tutorial.training.train_config import TrainConfig

    tiny = TrainConfig.preset("tiny")
    values = {**tiny.to_dict(), **{f"model.{k}": v for k, v in tiny.model_config(0).to_dict()
                                   .items()}}
    rows = []
    for cls, prefix in ((TrainConfig, ""), (ModelConfig, "model.")):
        for field in fields(cls):
            if field.name == "model_overrides":  # given as --model.FIELD=value
                continue
            value = values[prefix + field.name]
            value = ("none" if value is None else value if isinstance(value, str)
                     else json.dumps(value, separators=(",", ":")))  # as --key=value reads
            choices = field.metadata.get("choices")
            text = field.metadata["help"] + (f" ({' | '.join(choices)})" if choices else "")
            rows.append((prefix + field.name, value, text))
    return rows


def _accept_overrides(parser) -> None:
    """Collect unknown ``--key=value`` arguments as config overrides instead of rejecting them.

    argparse cannot declare "any --key=value", so the parser's ``parse_known_args`` is wrapped:
    the unknown arguments of that form land in ``args.overrides``; anything else stays an error,
    and a name that is neither an option nor a setting (a typo) is named with the nearest one.
    """
    parse_known = parser.parse_known_args

    def parse_known_args(args=None, namespace=None):
        namespace, extras = parse_known(args, namespace)
        keys = {key for key, _, _ in settings()}
        options = [o for action in parser._actions for o in action.option_strings
                   if o.startswith("--")]
        for i, flag in enumerate(extras):
            name = flag.partition("=")[0]
            if flag.startswith("--") and name[2:].replace("-", "_") not in keys:
                near = difflib.get_close_matches(name, options + [f"--{k}" for k in keys], n=1)
                parser.error(f"there is no option or setting {name}"
                             + (f"; did you mean {near[0]}?" if near else "")
                             + " (`elmo-tutorial train --help` lists them all)")
            value = extras[i + 1] if i + 1 < len(extras) else None
            if flag.startswith("--") and "=" not in flag:  # --max_steps 10: say how instead
                parser.error(f"settings take their value after '=': write "
                             f"{flag}={value if value and not value.startswith('-') else 'VALUE'}")
        namespace.overrides = [a for a in extras if a.startswith("--") and "=" in a]
        return namespace, [a for a in extras if a not in namespace.overrides]

    parser.parse_known_args = parse_known_args


def resolve_config(args):
    """The TrainConfig these arguments describe (preset < TOML file < --key=value)."""
    from elmo_tutorial.training.train_config import (
        TrainConfig,
        apply_overrides,
        load_toml,
        parse_cli_overrides,
    )

    config = TrainConfig.preset(args.config)
    from_file = load_toml(args.config_file) if args.config_file else {}
    config = apply_overrides(config, from_file)
    flags = parse_cli_overrides(getattr(args, "overrides", []))
    config = apply_overrides(config, flags)
    if args.out:
        config = apply_overrides(config, {"out_dir": args.out})
    if getattr(args, "resume", False) and "threads" not in {**from_file, **flags}:
        # The preset's count is not a request: a resumed run keeps its own (run_threads), as
        # another count would give other weights.
        config = apply_overrides(config, {"threads": 0})
    return config


def _torchrun_arguments() -> list[str]:
    """This command's arguments, minus ``--nproc``: what each torchrun process is given."""
    given = list(sys.argv[1:])
    if "train" in given:  # the command name, put back first below
        given.remove("train")
    argv, skip = [], False
    for a in given:  # the same arguments, minus --nproc
        if skip:
            skip = False
        elif a == "--nproc":
            skip = True
        elif not a.startswith("--nproc="):
            argv.append(a)
    return argv


def run(args) -> int:
    from elmo_tutorial.data.downloads import DatasetNotAvailable
    from elmo_tutorial.files.overwrite import check_fresh_run_dir
    from elmo_tutorial.files.run_lock import lock_run_dir
    from elmo_tutorial.files.safe_files import DiskFull, is_disk_full
    from elmo_tutorial.runtime import stop_signals_interrupt
    from elmo_tutorial.training.launch import (
        LaunchStopped,
        check_process_count,
        launch_torchrun,
        stop_with_launcher,
    )
    from elmo_tutorial.training.train import TrainingInterrupted
    from elmo_tutorial.training.train import run as train

    # Mistakes in what was asked for (exit 2); nothing has been written when they are raised.
    user_errors = (ValueError, FileNotFoundError, FileExistsError, NotADirectoryError,
                   DatasetNotAvailable)
    if "WORLD_SIZE" in os.environ:  # a process of torchrun's, in a session of its own:
        stop_with_launcher()  # SIGTERM (stop and save) when torchrun ends, however it ends
    try:
        config = resolve_config(args)
        if args.print_config:
            print(json.dumps(config.to_dict(), indent=2))
            return 0
        if args.nproc > 1 and "WORLD_SIZE" not in os.environ:
            check_process_count(args.nproc, config.device, config.batch_size)  # and memory
            lock_run_dir(config.out_dir).release()  # refuse here, once, if another writes there
            if not args.resume:  # refuse here, once, rather than in every process
                check_fresh_run_dir(config.out_dir, args.force)
            return launch_torchrun(args.nproc, _torchrun_arguments())
        # SIGTERM (a scheduler) and SIGHUP (a closed terminal) stop it as Ctrl-C does: during
        # the steps, at the end of one, with a checkpoint there (Trainer.fit); before or after
        # them, as a KeyboardInterrupt. Not around torchrun above: its processes get their own.
        with stop_signals_interrupt():
            metrics = train(config, resume=args.resume, force=args.force)
    except user_errors as err:
        return fail("train", err)
    except (TrainingInterrupted, LaunchStopped) as err:  # Ctrl-C, SIGTERM, SIGHUP: saved
        if os.environ.get("RANK", "0") != "0":  # process 0 says it, with the checkpoint
            return 130
        return fail("train", err, 130)
    except KeyboardInterrupt:  # before the first step, or a second Ctrl-C while saving
        return fail("train", "interrupted; the run's newest checkpoint (if any) is intact: run "
                    "the same command with --resume to continue from it", 130)
    except FloatingPointError as err:
        return fail("train", err, 1)
    except (MemoryError, RuntimeError) as err:  # what the estimate (train_bounds) did not see
        if not _out_of_memory(err):
            raise
        return fail("train", f"out of memory ({str(err).splitlines()[0][:200]}); train again "
                    "with a smaller --batch_size= (or --max_sentence_words=), with --force to "
                    "replace this run", 1)
    except PermissionError as err:  # a read-only --out (the lock says so), or made so since
        return not_permitted("train", err, "make the run folder writable (then continue with "
                                           "--resume), or choose another --out")
    except OSError as err:  # a full disk: say so, not torch's "unexpected pos" (DiskFull)
        if not is_disk_full(err):
            raise
        if not isinstance(err, DiskFull):  # e.g. the log, appended to in place
            err = f"no space left on the disk of {err.filename or args.out}: free some " \
                  "space and continue with --resume"
        return fail("train", err, 1)
    if metrics:  # the main process's final held-out evaluation
        print(json.dumps({k: round(v, 4) for k, v in metrics.items()}))
        print(_what_next(config), file=sys.stderr)
    return 0


def _out_of_memory(error: BaseException) -> bool:
    """True for what an allocator raises when the memory is spent (CPU or GPU)."""
    import torch

    return isinstance(error, (MemoryError, torch.OutOfMemoryError)) or any(
        text in str(error) for text in ("can't allocate memory", "out of memory"))


def _what_next(config) -> str:
    """Where the run went and what to run on it next (stderr: stdout keeps the JSON line)."""
    out = config.out_dir
    held_out = (f"the first {config.eval_sentences} held-out sentences" if config.eval_sentences
                else "the whole held-out split")
    return (f"elmo-tutorial train: the run is in {out}/. The perplexities above are on "
            f"{held_out}; next:\n"
            f"  elmo-tutorial evaluate {out}       # every held-out sentence, beside an "
            "n-gram baseline\n"
            f"  elmo-tutorial embed {out} \"He sat on the bank .\"   # its contextual vectors")
