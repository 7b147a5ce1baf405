"""``elmo-tutorial train``: train a biLM from a preset, a TOML file and ``--SETTING VALUE``."""

from __future__ import annotations

import argparse
import json
import os
import sys
import tomllib

from elmo_tutorial.commands import at_least

DESCRIPTION = """\
Train the bidirectional language model that ELMo is made of (Peters et al. 2018, Sec. 3.1):
a character CNN, a forward and a backward LSTM stack, and one softmax shared by both
directions. The loss is the forward NLL plus the backward NLL of every sentence.

Presets (elmo_tutorial/training/train_config.py, where each setting is declared):
{presets}

Every setting below is an option, with dashes or with its field name as config.json and TOML
files spell it (--max-steps 100, --max_steps=100, --model.lstm-dim 128). Values are TOML
(numbers, true/false, [lists]; a bare word is a string, none is None), as in a --config-file
(max_steps = 100, and a [model] table). Order: preset < --config-file < options.

The run directory (--out) receives config.json, vocab.txt, log.jsonl, loss.png, checkpoints/
and finally model.safetensors; one train at a time may write there. Ctrl-C, SIGTERM and SIGHUP
stop after the current step and save a checkpoint there. A run is never overwritten: --resume
continues it (refusing settings the checkpoint cannot continue under, such as the architecture
or the batch size; taking others, such as lr, and saying so; keeping its thread count unless
--threads asks for another), --force replaces it (only a run of this package).

Examples:
  elmo-tutorial train --config tiny --out runs/tiny
  elmo-tutorial train --config tiny --out runs/tiny --lr 0.01 --model.lstm-dim 128
  elmo-tutorial train --config small --out runs/small --config-file my.toml --resume
  elmo-tutorial train --config tiny --out runs/tiny --force          # replace runs/tiny
  elmo-tutorial train --config small --out runs/small --nproc 4     # torchrun, 4 processes
  torchrun --nproc_per_node=4 -m elmo_tutorial train --config small --out runs/small
"""

SETTING = "setting:"  # the prefix of a setting's dest: only the settings given are in args
NOT_OPTIONS = {"model_overrides", "out_dir"}  # given as --model.FIELD and as --out
METAVARS = {bool: "BOOL", int: "INT", float: "NUMBER", str: "TEXT"}  # by the default's type


def add_arguments(parser) -> None:
    from dataclasses import fields

    from elmo_tutorial.model.config import ModelConfig
    from elmo_tutorial.training.train_config import TRAIN_PRESETS, TrainConfig

    parser.description = parser.description.format(presets="\n".join(
        f"  {name:<9} {_summary(config)}" for name, config in TRAIN_PRESETS.items()))
    parser.usage = ("%(prog)s [--config PRESET] [--out RUN_DIR] [--config-file TOML] "
                    "[--resume | --force] [--nproc N] [--print-config] [--SETTING VALUE ...]")
    parser.add_argument("--config", default="tiny", choices=TRAIN_PRESETS, metavar="PRESET",
                        help=f"training preset: {', '.join(TRAIN_PRESETS)} (default: tiny)")
    parser.add_argument("--out", default=None, metavar="RUN_DIR",
                        help="run directory (default: the preset's out_dir, e.g. runs/tiny)")
    parser.add_argument("--config-file", default=None, metavar="TOML",
                        help="TOML file of settings (field names, a [model] table)")
    parser.add_argument("--resume", action="store_true",
                        help="continue from the newest checkpoint in RUN_DIR")
    parser.add_argument("--force", action="store_true",
                        help="if RUN_DIR holds a run, delete it and train afresh")
    parser.add_argument("--nproc", type=at_least(1), default=1, metavar="N",
                        help="data-parallel processes (starts torchrun; nccl on GPUs, gloo on "
                             "CPU); a stop signal to it stops them all")
    parser.add_argument("--print-config", action="store_true",
                        help="print the resolved configuration as JSON and exit")
    tiny = TrainConfig.preset("tiny").model_config(0)
    for cls, prefix, title in ((TrainConfig, "", "settings"),
                               (ModelConfig, "model.", "architecture (replaces the preset's)")):
        group = parser.add_argument_group(title)
        for field in fields(cls):
            if field.name in NOT_OPTIONS:
                continue
            choices = field.metadata.get("choices")
            example = getattr(tiny if prefix else TrainConfig(), field.name)
            kind = "|".join(choices) if choices else METAVARS.get(type(example), "LIST")
            names = dict.fromkeys([f"--{prefix}{field.name.replace('_', '-')}",
                                   f"--{prefix}{field.name}"])  # as other commands; as TOML
            group.add_argument(*names, dest=SETTING + prefix + field.name, metavar=kind,
                               default=argparse.SUPPRESS, help=field.metadata.get("help", ""))


def _summary(config) -> str:
    """One line of ``train --help`` for a preset: its model, corpus, length and optimiser."""
    length = (f"{config.max_steps} steps" if config.max_steps
              else f"{config.epochs} epoch{'s' * (config.epochs != 1)}")
    return (f"model {config.model}, corpus {config.corpus}, {length} of {config.batch_size} "
            f"sentences, {config.optimizer} lr {config.lr:g}")


def _toml_value(text: str):
    """A setting's value: TOML (``0.1``, ``true``, ``[[1, 32]]``), a bare word as a string,
    ``none`` as None."""
    if text.lower() == "none":
        return None
    try:
        return tomllib.loads(f"value = {text}")["value"]
    except tomllib.TOMLDecodeError:
        return text


def resolve_config(args):
    """The TrainConfig these arguments describe (preset < TOML file < options)."""
    from elmo_tutorial.training.train_config import TrainConfig, apply_overrides, load_toml

    config = TrainConfig.preset(args.config)
    from_file = load_toml(args.config_file) if args.config_file else {}
    given = {dest[len(SETTING):]: _toml_value(text) for dest, text in vars(args).items()
             if dest.startswith(SETTING)}
    config = apply_overrides(apply_overrides(config, from_file), given)
    if args.out:
        config = apply_overrides(config, {"out_dir": args.out})
    if args.resume and "threads" not in {**from_file, **given}:
        config = apply_overrides(config, {"threads": 0})  # the run's own count, not the preset's
    return config


def _torchrun_arguments() -> list[str]:
    """This command's arguments minus ``--nproc``: what each torchrun process is given."""
    given, argv = [a for a in sys.argv[1:] if a != "train"], []
    for i, a in enumerate(given):
        if not (a == "--nproc" or a.startswith("--nproc=") or (i and given[i - 1] == "--nproc")):
            argv.append(a)
    return argv


def run(args) -> int:
    from elmo_tutorial.files.overwrite import check_fresh_run_dir
    from elmo_tutorial.files.run_lock import lock_run_dir
    from elmo_tutorial.training.launch import (
        check_process_count,
        launch_torchrun,
        stop_with_launcher,
    )
    from elmo_tutorial.training.train import TrainingInterrupted
    from elmo_tutorial.training.train import run as train

    if "WORLD_SIZE" in os.environ:  # a process of torchrun's, in a session of its own:
        stop_with_launcher()  # SIGTERM (stop and save) when torchrun ends, however it ends
    config = resolve_config(args)
    if args.print_config:
        print(json.dumps(config.to_dict(), indent=2))
        return 0
    try:
        if args.nproc > 1 and "WORLD_SIZE" not in os.environ:
            check_process_count(args.nproc, config.device, config.batch_size)
            lock_run_dir(config.out_dir).release()  # refuse here, once, if another writes there
            if not args.resume:  # refuse here, once, rather than in every process
                check_fresh_run_dir(config.out_dir, args.force)
            launch_torchrun(args.nproc, _torchrun_arguments())  # becomes torchrun
        metrics = train(config, resume=args.resume, force=args.force)
    except TrainingInterrupted as stopped:  # saved where it stopped
        if os.environ.get("RANK", "0") != "0":  # process 0 says it, with the checkpoint
            return 130
        raise KeyboardInterrupt(str(stopped)) from None
    except KeyboardInterrupt:  # before the first step, or a second Ctrl-C while saving
        raise KeyboardInterrupt(
            "interrupted; the run's newest checkpoint (if any) is intact: run the same command "
            "with --resume to continue from it") from None
    if metrics:  # the main process's final held-out evaluation
        print(json.dumps({k: round(v, 4) for k, v in metrics.items()}))
        print(_what_next(config), file=sys.stderr)
    return 0


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
