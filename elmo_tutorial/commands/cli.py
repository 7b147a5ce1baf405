"""The ``elmo-tutorial`` command line.

Each subcommand lives in ``elmo_tutorial/commands/<name>.py`` and defines ``DESCRIPTION``
(its ``--help``), ``add_arguments(parser)`` and ``run(args) -> int``; its summary is here, in
``COMMANDS``, so that ``--help`` lists every command without importing any.

Errors take one path, here: a plausible mistake (a typo'd name, a missing file, a bad value, a
folder it may not write, a batch that does not fit in memory) is one line on stderr, exit 2,
or 1 for what failed on the way (a download, a full disk, a diverged training); any other
exception is a bug and shows its traceback. Ctrl-C, SIGTERM and SIGHUP end it with one line,
exit 130: every file the commands write is written whole.
"""

from __future__ import annotations

import argparse
import difflib
import errno
import importlib
import sys

from elmo_tutorial.commands import fail

COMMANDS = {
    "doctor": "Check the environment: versions, device, threads, which datasets are available.",
    "data": "List and download the datasets of the course (checksummed).",
    "train": "Train a biLM from a preset config (train --help lists them), with overrides.",
    "evaluate": "Perplexities of a trained run, next to a Kneser-Ney n-gram baseline.",
    "embed": "Print contextual vectors of a sentence from a trained run.",
    "export": "Export a trained run to the official options.json + weights.hdf5 format.",
    "layers": "What each layer knows: WSD, POS probes and NER, beside the paper's numbers.",
    "tasks": "What ELMo adds to a task model: baseline vs +ELMo on SST-5, chunking and NER.",
}

INTERRUPTED = ("interrupted before it finished; the files it writes are written whole, so none "
               "is left half-written: run the same command again")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of ``elmo-tutorial``, with the arguments of ``command`` only."""
    parser = argparse.ArgumentParser(
        prog="elmo-tutorial",
        description="ELMo, built step by step. Run `elmo-tutorial COMMAND --help` for details.",
        allow_abbrev=False,
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, summary in COMMANDS.items():
        if name != command:
            subparsers.add_parser(name, help=summary, add_help=False)
            continue
        module = importlib.import_module(f"elmo_tutorial.commands.{name}")
        sub = subparsers.add_parser(name, help=summary, description=module.DESCRIPTION,
                                    formatter_class=argparse.RawDescriptionHelpFormatter,
                                    allow_abbrev=False)  # a typo is not another option
        module.add_arguments(sub)
        sub.set_defaults(run=module.run, parser=sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    for stream in (sys.stdout, sys.stderr):  # "×" on an ASCII terminal: \xd7, not a crash
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
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
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        _refuse_unknown(getattr(args, "parser", parser), unknown)
    if command is None:
        parser.print_help()
        return 0
    from elmo_tutorial.runtime import stop_signals_interrupt

    try:
        with stop_signals_interrupt():  # SIGTERM and SIGHUP: a KeyboardInterrupt, as Ctrl-C
            return int(args.run(args) or 0)
    except KeyboardInterrupt as stop:  # a command may say what it kept: KeyboardInterrupt(text)
        return fail(command, str(stop) or INTERRUPTED, 130)
    except Exception as error:
        mistake = one_line(error)
        if mistake is None:
            raise
        return fail(command, *mistake)


def _refuse_unknown(parser: argparse.ArgumentParser, unknown: list[str]) -> None:
    """argparse's error for arguments the command does not take, with the nearest option."""
    name = unknown[0].partition("=")[0]
    options = [o for action in parser._actions for o in action.option_strings]
    near = difflib.get_close_matches(name, options, n=1)
    parser.error(f"unrecognized arguments: {' '.join(unknown)}"
                 + (f"; did you mean {near[0]}?" if near else ""))


def one_line(error: Exception) -> tuple[str, int] | None:
    """``(line, exit code)`` for an exception that is a plausible mistake; ``None`` for a bug."""
    from elmo_tutorial.data.downloads import DatasetNotAvailable

    if isinstance(error, OSError):  # a missing file, a folder it may not write, a full disk
        text = str(error)
        if text.startswith("[Errno") and error.strerror:  # the OS's words, without "[Errno 13]"
            text = f"{error.filename}: {error.strerror}" if error.filename else error.strerror
        if error.errno == errno.ENOSPC:  # what was written is whole: the previous file, or none
            return f"{text}: free some space and run the same command again", 1
        return text, 2
    if isinstance(error, ValueError):  # a bad name or value, a damaged file, an empty corpus
        return str(error), 2
    if isinstance(error, (DatasetNotAvailable, FloatingPointError)):
        return str(error), 1
    if isinstance(error, MemoryError) or (isinstance(error, RuntimeError) and any(
            text in str(error) for text in ("out of memory", "not enough memory",
                                            "can't allocate memory"))):
        first = str(error).strip().splitlines()[0][:200] if str(error).strip() else "MemoryError"
        return f"out of memory ({first}): try a smaller --batch-size", 1
    return None


if __name__ == "__main__":
    sys.exit(main())
