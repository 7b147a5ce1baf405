"""What the two reports (``layers``, ``tasks``) share: markdown tables, the quick-run banner,
and writing their ``--json``/``--markdown`` files (each from a
:class:`~elmo_tutorial.files.records.Record`).

Example:
    >>> markdown_table(["layer", "F1"], [["0", "17.1"], ["mix", "17.6"]])
    ['| layer | F1 |', '|---|---|', '| 0 | 17.1 |', '| mix | 17.6 |']
    >>> quick_banner("not comparable with the paper's numbers")[0]
    "**Quick run on subsets (`--quick`): a smoke test, not comparable with the paper's numbers.**"
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from elmo_tutorial.files.overwrite import write_new_file
from elmo_tutorial.files.records import Record

__all__ = ["markdown_table", "quick_banner", "write_report_files"]


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """The lines of a markdown table: the header, its rule, one line per row."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return lines + ["| " + " | ".join(row) + " |" for row in rows]


def quick_banner(caveat: str) -> list[str]:
    """The first lines of a ``--quick`` report: what its numbers are not, in bold."""
    return [f"**Quick run on subsets (`--quick`): a smoke test, {caveat}.**", ""]


def write_report_files(result: Record, json_path: str | Path | None,
                       markdown_path: str | Path | None, to_markdown: Callable[[Record], str],
                       force: bool = False) -> list[Path]:
    """Write ``result.to_json()`` and ``to_markdown(result)`` (either path may be ``None``),
    each ending in one newline, never over a file that exists unless ``force``
    (:func:`~elmo_tutorial.files.overwrite.write_new_file`); return the paths written."""
    texts = {json_path: result.to_json(),
             markdown_path: to_markdown(result).rstrip("\n") + "\n"}
    return [write_new_file(path, lambda tmp, text=text: Path(tmp).write_text(
        text, encoding="utf-8", newline="\n"), force) for path, text in texts.items() if path]
