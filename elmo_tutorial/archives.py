"""Extracting zip and tar archives so that nothing lands outside the target folder.

:func:`safe_extract` checks every member *before* anything is written and raises
:class:`UnsafeArchive` for absolute paths, ``..`` components, links whose destination leaves
the target, members reached through a link of the same archive (the chain ``x -> .``,
``x/y -> ..``, ``y/ESCAPED.txt``), and device or FIFO entries. These checks are its own;
Python's tarfile ``data`` filter (3.11.4+, 3.12+) checks again where it exists.

Example:
    >>> safe_extract("archives/wikitext-2-v1.zip", "cache")  # doctest: +SKIP
"""

from __future__ import annotations

import tarfile
import zipfile
from pathlib import Path, PurePosixPath

__all__ = ["UnsafeArchive", "safe_extract"]


class UnsafeArchive(RuntimeError):
    """An archive member would be written outside the extraction directory."""


def _check_member(name: str, target: Path) -> Path:
    """Resolve an archive member name under ``target``; raise if it would escape."""
    posix = PurePosixPath(name.replace("\\", "/"))
    if posix.is_absolute() or (posix.parts and ":" in posix.parts[0]):
        raise UnsafeArchive(f"archive member {name!r} has an absolute path; refusing to extract")
    if ".." in posix.parts:
        raise UnsafeArchive(f"archive member {name!r} contains '..'; refusing to extract")
    resolved = (target / posix).resolve()
    if not resolved.is_relative_to(target):
        raise UnsafeArchive(f"archive member {name!r} resolves outside {target}; refusing")
    return resolved


def safe_extract(archive: str | Path, target: str | Path) -> list[str]:
    """Extract a zip or tar(.gz/.bz2/.xz) archive into ``target``, refusing unsafe members.

    Every member is checked *before* anything is written: absolute paths, ``..`` components,
    symbolic or hard links whose destination leaves ``target``, and device/FIFO entries all
    raise :class:`UnsafeArchive`, so a hostile archive writes nothing.

    Returns:
        The member names, in archive order.
    """
    archive, target = Path(archive), Path(target)
    target.mkdir(parents=True, exist_ok=True)
    target = target.resolve()
    if zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as zf:
            names = zf.namelist()
            for info in zf.infolist():
                _check_member(info.filename, target)
                mode = info.external_attr >> 16
                if (mode & 0o170000) == 0o120000:  # a symlink stored in a zip
                    link = zf.read(info).decode("utf-8", "replace")
                    _check_link(info.filename, link, target)
            zf.extractall(target)
        return names
    if tarfile.is_tarfile(archive):
        with tarfile.open(archive) as tf:
            members = tf.getmembers()
            links = {_normal(m.name) for m in members if m.issym() or m.islnk()}
            for member in members:
                _check_member(member.name, target)
                _check_not_through_links(member.name, _parts(member.name), links)
                if member.issym() or member.islnk():
                    _check_link(member.name, member.linkname, target, hard=member.islnk())
                    base = [] if member.islnk() else _parts(member.name)[:-1]
                    _check_not_through_links(member.name, base + _parts(member.linkname), links)
                elif not (member.isfile() or member.isdir()):
                    raise UnsafeArchive(f"archive member {member.name!r} is a device or FIFO")
            # Python's own "data" filter (3.12+, backported) re-checks the same rules.
            extra = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
            tf.extractall(target, members=members, **extra)
        return [m.name for m in members]
    raise ValueError(f"{archive} is neither a zip nor a tar archive")


def _parts(name: str) -> list[str]:
    return [p for p in PurePosixPath(name.replace("\\", "/")).parts if p not in ("", ".")]


def _normal(name: str) -> str:
    return "/".join(_parts(name))


def _check_not_through_links(name: str, path: list[str], links: set[str]) -> None:
    """Refuse a member whose path, or whose link's target, goes through a link of the archive.

    Walked one component at a time, before ``..`` is folded: with ``x -> .``, the member
    ``x/y -> ..`` points *above* the target although ``x/y/..`` looks like ``x`` on paper, and
    ``y/ESCAPED.txt`` then lands outside. Real datasets never need this: it is refused.
    """
    walked: list[str] = []
    for part in path:
        if walked and "/".join(walked) in links:
            raise UnsafeArchive(f"archive member {name!r} goes through the link "
                                f"{'/'.join(walked)!r} of the same archive; refusing to extract")
        walked = walked[:-1] if part == ".." else [*walked, part]


def _check_link(name: str, link: str, target: Path, hard: bool = False) -> None:
    """A link member is safe only if what it points to stays inside ``target``."""
    if PurePosixPath(link).is_absolute():
        raise UnsafeArchive(f"archive link {name!r} points to the absolute path {link!r}")
    # A symlink is relative to its own directory; a tar hard link to the archive root.
    base = target if hard else (target / PurePosixPath(name)).parent
    if not (base / link).resolve().is_relative_to(target):
        raise UnsafeArchive(f"archive link {name!r} -> {link!r} points outside {target}")
