"""Subcommands of the ``elmo-tutorial`` command line (see ``elmo_tutorial.cli``)."""

import argparse


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
