"""What the tests of files and commands share: a folder's contents, and a one-line error."""

from pathlib import Path


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (relative path → bytes): compare before and after a refusal."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


def one_line(text: str) -> str:
    """The one line of an error message; fails if there is none or more than one."""
    lines = text.strip().splitlines()
    assert len(lines) == 1, f"expected one line, got:\n{text}"
    return lines[0]
