"""Subcommands of the ``elmo-tutorial`` command line (see ``elmo_tutorial.commands.cli``), and
the option types and report arguments they share."""

import argparse
import sys


def at_least(minimum: int):
    """An argparse ``type``: a whole number ≥ ``minimum``, else argparse's one-line error."""

    def whole_number(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expects a whole number, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be ≥ {minimum}, got {value}")
        return value

    return whole_number


def fail(command: str, error: object, code: int = 2) -> int:
    """Say why ``command`` stopped, in one line on stderr, and return its exit code (2: what
    was asked for cannot be done; 1: it failed on the way; 130: interrupted)."""
    try:
        print(f"elmo-tutorial {command}: {error}", file=sys.stderr)
    except OSError:  # a terminal closed under the command (SIGHUP): the exit code says it
        pass
    return code


def add_report_arguments(parser: argparse.ArgumentParser, *,
                         markdown: str = "also write the markdown report",
                         force: str = "overwrite existing --json/--markdown files") -> None:
    """The biLM(s) to report on, ``--json`` and ``--markdown`` files, ``--force``."""
    parser.add_argument("model", nargs="+", metavar="MODEL",
                        help="a run directory, or options.json and weights.hdf5")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    parser.add_argument("--markdown", metavar="PATH", help=markdown)
    parser.add_argument("--force", action="store_true", help=force)


def print_and_write(result, to_markdown, write_report, args) -> int:
    """Print a report's markdown, then write its ``--json``/``--markdown`` files: a file that
    cannot be written then costs the file, not the results of minutes of work."""
    print(to_markdown(result))
    write_report(result, args.json, args.markdown, force=args.force)
    return 0
