"""Subcommands of the ``elmo-tutorial`` command line (see ``elmo_tutorial.cli``)."""

import argparse
import sys


def at_least(minimum: int):
    """An argparse ``type``: an integer ≥ ``minimum``, else a one-line error naming the flag."""

    def integer(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expects a whole number, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be ≥ {minimum}, got {value}")
        return value

    return integer


def show_and_write(command: str, result: dict, to_markdown, write_report, args) -> int:
    """Print a report's markdown, then write its ``--json``/``--markdown`` files; the exit code.

    The report is printed first, so a file that cannot be written (another run wrote it
    meanwhile, a full disk) loses nothing of the results; that failure is one line, exit 2.
    """
    from elmo_tutorial.overwrite import WouldOverwrite

    print(to_markdown(result))
    try:
        write_report(result, args.json, args.markdown, force=args.force)
    except (WouldOverwrite, OSError) as err:
        print(f"elmo-tutorial {command}: {err}", file=sys.stderr)
        return 2
    return 0
