"""Subcommands of the ``elmo-tutorial`` command line (see ``elmo_tutorial.commands.cli``)."""

import argparse
import math
import sys

# The bounds of the commands' numeric options, here so that each is stated once. An option that
# sizes processes or memory has an upper bound: a typo there (--workers 1000, --batch-size 16000)
# would fork a thousand processes or fill the memory before any error. Options that only cap
# what is read (more than there is means all of it) or cost time (a progress bar shows it, and
# Ctrl-C stops it) need none; tests/commands/test_bad_input.py lists those, with the reason for
# each.

def at_least(minimum: int, maximum: int | None = None, why: str = ""):
    """An argparse ``type``: an integer ≥ ``minimum`` (and ≤ ``maximum``, where ``why`` says
    what a larger one would cost), else a one-line error naming the flag."""

    def integer(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expects a whole number, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be ≥ {minimum}, got {value}")
        if maximum is not None and value > maximum:
            raise argparse.ArgumentTypeError(f"must be ≤ {maximum} ({why}), got {value}")
        return value

    return integer


MAX_BATCH_SIZE = 256  # sentences: 128 of SST's longest take 0.7 GB with the small biLM
batch_size = at_least(1, MAX_BATCH_SIZE, "a batch's memory grows with it: 128 long sentences "
                                         "take 0.7 GB with the small biLM")


def one_per_core(text: str) -> int:
    """``--workers``: processes at a time, at most one per CPU core this process may use."""
    from elmo_tutorial.runtime import available_cores

    cores = available_cores()
    return at_least(1, cores, f"this machine gives it {cores} CPU core{'s' * (cores != 1)} "
                              "and each run takes one")(text)


def positive_number(text: str) -> float:
    """A finite number > 0 (a learning rate), else a one-line error naming the flag."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expects a number, got {text!r}") from None
    if not 0 < value < math.inf:  # "not" also refuses nan
        raise argparse.ArgumentTypeError(f"must be a number > 0, got {text}")
    return value


def fail(command: str, error: object, code: int = 2) -> int:
    """Say why ``command`` stopped, in one line on stderr, and return its exit code (2: what
    was asked for cannot be done; 1: it failed on the way; 130: interrupted).

    A terminal closed under the command (SIGHUP) cannot show the line; the exit code still
    says what happened, so that is not a second error."""
    try:
        print(f"elmo-tutorial {command}: {error}", file=sys.stderr)
    except OSError:
        pass
    return code


def not_permitted(command: str, error: PermissionError, advice: str) -> int:
    """:func:`fail` for a file or folder this user may not write (or read): one line, exit 2,
    naming the path and ``advice`` (what to do). A refused lock
    (:class:`~elmo_tutorial.files.run_lock.NotWritable`) says it all already."""
    from elmo_tutorial.files.run_lock import NotWritable

    if isinstance(error, NotWritable):
        return fail(command, error)
    path = error.filename or "a file of it"
    return fail(command, f"permission denied on {path} (a read-only folder, or another "
                         f"user's file): {advice}")


def add_report_arguments(parser: argparse.ArgumentParser, *, models: bool = True,
                         markdown: str = "also write the markdown report",
                         force: str = "overwrite existing --json/--markdown files") -> None:
    """The arguments of a command that prints a report: the biLM(s) to report on (``models``),
    ``--json`` and ``--markdown`` files to write it to, and ``--force`` to replace them."""
    if models:
        parser.add_argument("model", nargs="+", metavar="MODEL",
                            help="a run directory, or options.json and weights.hdf5")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    parser.add_argument("--markdown", metavar="PATH", help=markdown)
    parser.add_argument("--force", action="store_true", help=force)


def show_and_write(command: str, result, to_markdown, write_report, args) -> int:
    """Print a report's markdown, then write its ``--json``/``--markdown`` files; the exit code.

    ``result`` is the report's typed result (``TaskReport``, ``LayerReport``, ``FinetuneReport``).

    The report is printed first, so a file that cannot be written (another run wrote it
    meanwhile, a full disk) loses nothing of the results; that failure is one line, exit 2.
    """
    from elmo_tutorial.files.overwrite import WouldOverwrite

    print(to_markdown(result))
    try:
        write_report(result, args.json, args.markdown, force=args.force)
    except (WouldOverwrite, OSError) as err:
        return fail(command, err)
    return 0
