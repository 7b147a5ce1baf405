"""The attacks of the guarded-reader tests: what can be planted where a file belongs.

Each attack must be refused at once, with one line that says what the path is: never waited
on (a FIFO), read to the end (``/dev/zero``) or read from another folder without a word.
"""

from __future__ import annotations

import os
from pathlib import Path

ATTACKS = ("fifo", "dev_zero", "link_out", "folder")
# What each attack's message must say: the kind of file, or that the link leads outside.
SAYS = {"fifo": "named pipe", "dev_zero": "character device|outside", "link_out": "outside",
        "folder": "is a folder"}


def plant(path: Path, attack: str, good: bytes, outside: Path) -> None:
    """Put ``attack`` at ``path``; ``good`` is what a real file there would hold."""
    if path.exists() or path.is_symlink():
        path.unlink()
    path.parent.mkdir(parents=True, exist_ok=True)
    if attack == "fifo":
        os.mkfifo(path)
    elif attack == "dev_zero":
        path.symlink_to("/dev/zero")
    elif attack == "link_out":  # a real file of the right kind, in another folder
        outside.mkdir(parents=True, exist_ok=True)
        (outside / path.name).write_bytes(good)
        path.symlink_to(outside / path.name)
    else:
        path.mkdir()
