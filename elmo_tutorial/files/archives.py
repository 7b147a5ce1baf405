"""Extracting a downloaded zip or tar archive so that nothing lands outside the target folder.

A tar archive is extracted with the standard library's ``data`` filter (Python 3.11.4+), which
refuses absolute paths, ``..``, links that lead out of the target and device files. A zip
member can only be a file or a folder (``zipfile`` makes no links), so checking that every name
stays inside the target is enough. Every member is checked before anything is written.
"""

from __future__ import annotations

import re
import tarfile
import zipfile
from pathlib import Path

__all__ = ["UnsafeArchive", "safe_extract"]


class UnsafeArchive(RuntimeError):
    """An archive member would be written outside the extraction folder (or is a device)."""


def safe_extract(archive: str | Path, target: str | Path) -> list[str]:
    """Extract a zip or tar(.gz/.bz2/.xz) archive into ``target``, refusing unsafe members.

    Returns:
        The member names, in archive order.

    Raises:
        UnsafeArchive: a member with an absolute path, ``..`` or a link out of ``target``.
        ValueError: ``archive`` is neither a zip nor a tar archive.
    """
    archive, target = Path(archive), Path(target)
    target.mkdir(parents=True, exist_ok=True)
    target = target.resolve()
    if zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as zf:
            names = zf.namelist()
            for name in names:  # "C:x" and "\\x" are absolute on Windows: refused too
                dest = (target / name.replace("\\", "/")).resolve()
                if re.match(r"[A-Za-z]:", name) or not dest.is_relative_to(target):
                    raise UnsafeArchive(f"archive member {name!r} of {archive} would be written "
                                        f"outside {target}; refusing to extract")
            zf.extractall(target)
        return names
    if tarfile.is_tarfile(archive):
        with tarfile.open(archive) as tf:
            try:  # every member checked first: a hostile one writes nothing
                for member in tf.getmembers():  # the filter would strip a leading "/"
                    if member.name.startswith("/"):
                        raise tarfile.AbsolutePathError(member)
                    tarfile.data_filter(member, str(target))
                tf.extractall(target, filter="data")
            except tarfile.FilterError as error:
                raise UnsafeArchive(f"{archive}: {error}; refusing to extract") from None
            return tf.getnames()
    raise ValueError(f"{archive} is neither a zip nor a tar archive")
