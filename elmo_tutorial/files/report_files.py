"""What the three reports (``layers``, ``tasks``, ``finetune``) share: markdown tables, the
quick-run banner, and writing their ``--json``/``--markdown`` files.

Each report module keeps what is its own (its sections, its figures, its typed result: a
:class:`~elmo_tutorial.files.records.Record`); the shape of a table, the warning a quick run
carries and the rule for writing its files live here once. Files are written whole and never
replace one that exists unless ``force``, also one that another run wrote while this one worked
(:func:`~elmo_tutorial.files.overwrite.write_new_file`).

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


def _text_writer(text: str) -> Callable[[str], object]:
    return lambda tmp: Path(tmp).write_text(text, encoding="utf-8", newline="\n")


def write_report_files(result: Record, json_path: str | Path | None,
                       markdown_path: str | Path | None, to_markdown: Callable[[Record], str],
                       force: bool = False) -> list[Path]:
    """Write ``result.to_json()`` and ``to_markdown(result)``; either path may be ``None``.

    Each file ends in one newline. Returns the paths written.

    Raises:
        overwrite.WouldOverwrite: a file exists and ``force`` is False (it is kept), also one
            that another run wrote while this one worked.
    """
    texts = {json_path: result.to_json(),
             markdown_path: to_markdown(result).rstrip("\n") + "\n"}
    return [write_new_file(path, _text_writer(text), force)
            for path, text in texts.items() if path]
