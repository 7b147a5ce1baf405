"""Extracting a downloaded zip or tar archive so that nothing lands outside the target folder.

A tar archive is extracted with the standard library's ``data`` filter (Python 3.11.4+): it
refuses ``..`` and links that lead out of the target and device files, and writes an absolute
name inside the target. ``zipfile`` makes no links and keeps every member inside the target on
its own (it drops a leading ``/``, a drive and every ``..`` of a name).
"""

from __future__ import annotations

import tarfile
import zipfile
from pathlib import Path

__all__ = ["UnsafeArchive", "safe_extract"]


class UnsafeArchive(ValueError):
    """A tar member would be written outside the extraction folder (or is a device)."""


def safe_extract(archive: str | Path, target: str | Path) -> list[str]:
    """Extract a zip or tar(.gz/.bz2/.xz) archive into ``target``; return the member names.

    Raises:
        UnsafeArchive: a tar member with ``..``, a link out of ``target`` or a device.
    """
    if zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as zf:
            zf.extractall(target)
            return zf.namelist()
    with tarfile.open(archive) as tf:
        try:
            tf.extractall(target, filter="data")
        except tarfile.FilterError as error:
            raise UnsafeArchive(f"{archive}: {error}; refusing to extract") from None
        return tf.getnames()
