"""The ``elmo-tutorial`` command line.

Each subcommand lives in ``elmo_tutorial/commands/<name>.py`` and defines ``DESCRIPTION``
(what it teaches, shown by ``COMMAND --help``), ``add_arguments(parser)`` and
``run(args) -> int``; its one-line summary is here, in ``COMMANDS``, so that ``--help`` lists
every command without importing any. A command's module is imported only when it runs.
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import sys

COMMANDS = {
    "doctor": "Check the environment: versions, device, threads, which datasets are available.",
    "data": "List and download the datasets of the course (checksummed).",
    "train": "Train a biLM from a preset config (tiny, small, paper) with overrides.",
    "evaluate": "Perplexities of a trained run, next to a Kneser-Ney n-gram baseline.",
    "embed": "Print contextual vectors of a sentence from a trained run.",
    "export": "Export a trained run to the official options.json + weights.hdf5 format.",
    "layers": "What each layer knows: WSD, POS probes and NER, beside the paper's numbers.",
    "tasks": "What ELMo adds to a task model: baseline vs +ELMo on SST-5, chunking and NER.",
    "finetune": "Fine-tune a biLM on SST's text; perplexity before/after and the SST-2 effect.",
}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="elmo-tutorial",
        description="ELMo, built step by step. Run `elmo-tutorial COMMAND --help` for details.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, summary in COMMANDS.items():
        if name == command:  # only the chosen command's module is imported
            module = importlib.import_module(f"elmo_tutorial.commands.{name}")
            sub = subparsers.add_parser(
                name,
                help=summary,
                description=getattr(module, "DESCRIPTION", summary),
                formatter_class=argparse.RawDescriptionHelpFormatter,
            )
            module.add_arguments(sub)
            sub.set_defaults(run=module.run)
        else:
            subparsers.add_parser(name, help=summary, add_help=False)
    return parser


def _tolerant_output() -> None:
    """Print what the terminal cannot show (``×`` on an ASCII or Latin-1 terminal) as an
    escape such as ``\\xd7`` instead of dying with ``UnicodeEncodeError``."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):  # not when replaced by a plain object (tests)
            stream.reconfigure(errors="backslashreplace")


def main(argv: list[str] | None = None) -> int:
    _tolerant_output()
    argv = sys.argv[1:] if argv is None else list(argv)
    command = next((a for a in argv if not a.startswith("-")), None)
    if command is not None and command not in COMMANDS:
        build_parser().print_usage(sys.stderr)
        close = difflib.get_close_matches(command, COMMANDS, n=1)
        hint = (f"did you mean {close[0]!r}?" if close
                else f"the commands are {', '.join(COMMANDS)}")
        print(f"elmo-tutorial: unknown command {command!r}; {hint} "
              "(`elmo-tutorial --help` says what each does)", file=sys.stderr)
        return 2
    parser = build_parser(command)
    args = parser.parse_args(argv)
    if command is None:
        parser.print_help()
        return 0
    return _run_stoppable(command, args)


def _run_stoppable(command: str, args: argparse.Namespace) -> int:
    """Run the command with SIGTERM (a scheduler, ``kill``) and SIGHUP (a closed terminal)
    taken as Ctrl-C: a ``KeyboardInterrupt`` that the command turns into what it kept and
    how to continue, or else this one line, exit 130, instead of a silent death or a
    traceback. Every file the commands write is written whole (``files.safe_files``), so an
    interrupted one leaves the previous file, or none."""
    from elmo_tutorial.commands import fail
    from elmo_tutorial.runtime import stop_signals_interrupt

    try:
        with stop_signals_interrupt():
            return int(args.run(args) or 0)
    except KeyboardInterrupt:
        return fail(command, "interrupted before it finished; the files it writes are written "
                    "whole, so none is left half-written: run the same command again", 130)


if __name__ == "__main__":
    sys.exit(main())
