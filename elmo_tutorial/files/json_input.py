"""JSON that a user, a download or another process could have written, parsed or refused in
one line.

``json.loads`` fails in three ways on such a file: bytes that are not UTF-8, text that is not
JSON, and nesting deeper than Python's stack can follow (``[[[[...`` a hundred thousand levels
deep). The third raises ``RecursionError``, which no ``except ValueError`` catches: an
``options.json``, a cache record or a runs file built that way ended in a traceback.
:func:`parse_json` turns all three into :class:`NotJSON`, a ``ValueError`` that names the
file, so every reader's existing ``except ValueError`` reports it in one line. Every JSON file
the package reads goes through it (``options.json``, ``config.json``, cache records, runs and
log lines, report records, manifests).

Example:
    >>> parse_json(b'{"lstm": {"dim": 8}}', "options.json")
    {'lstm': {'dim': 8}}
    >>> parse_json("[" * 100_000, "options.json")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    elmo_tutorial.files.json_input.NotJSON: options.json is not valid JSON (nested ...
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["NotJSON", "parse_json"]


class NotJSON(ValueError):
    """A file that should hold JSON does not: not UTF-8, not JSON, or nested too deep for
    Python to read; the message names the file and what to do.

    Attributes:
        reason: what is wrong, without the file's name (for a message that names it already).
    """

    def __init__(self, source: str | Path, reason: str, hint: str) -> None:
        super().__init__(f"{source} is not valid JSON ({reason}); {hint}")
        self.reason = reason


def parse_json(data: bytes | str, source: str | Path,
               hint: str = "is it the right file, and whole?") -> Any:
    """``data`` parsed as JSON, or :class:`NotJSON` naming ``source`` and ``hint``.

    Raises:
        NotJSON: ``"{source} is not valid JSON ({what is wrong}); {hint}"``.
    """
    try:
        text = data.decode("utf-8") if isinstance(data, bytes | bytearray) else data
        return json.loads(text)
    except UnicodeDecodeError as error:
        reason = f"byte {error.start} is not UTF-8 text"
    except json.JSONDecodeError as error:
        reason = str(error)
    except RecursionError:  # "[[[[...": deeper than the stack; no file of ELMo's nests so
        reason = "nested thousands of levels deep, more than Python can read"
    raise NotJSON(source, reason, hint)
