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

import re
import shutil
import tarfile
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath

from elmo_tutorial.files.guarded_read import check_regular_file

__all__ = ["UnsafeArchive", "safe_extract"]


CHUNK = 1 << 20  # bytes written per step
MAX_EXTRACTED_BYTES = 1 << 35  # 34 GB; the largest dataset, the 1B Word Benchmark, takes 4


class UnsafeArchive(RuntimeError):
    """An archive member would be written outside the extraction directory."""


def _check_member(name: str, target: Path) -> Path:
    """Resolve an archive member name under ``target``; raise if it would escape."""
    posix = PurePosixPath(name.replace("\\", "/"))
    # A Windows drive is one letter and a colon ("C:", "C:x"); "notes:v1.txt" is a file name.
    if posix.is_absolute() or (posix.parts and re.match(r"[A-Za-z]:", posix.parts[0])):
        raise UnsafeArchive(f"archive member {name!r} has an absolute path; refusing to extract")
    if ".." in posix.parts:
        raise UnsafeArchive(f"archive member {name!r} contains '..'; refusing to extract")
    resolved = (target / posix).resolve()
    if not resolved.is_relative_to(target):
        raise UnsafeArchive(f"archive member {name!r} resolves outside {target}; refusing")
    return resolved


def safe_extract(archive: str | Path, target: str | Path,
                 max_bytes: int = MAX_EXTRACTED_BYTES) -> list[str]:
    """Extract a zip or tar(.gz/.bz2/.xz) archive into ``target``, refusing unsafe members.

    Every member is checked *before* anything is written: absolute paths, ``..`` components,
    symbolic or hard links whose destination leaves ``target``, and device/FIFO entries all
    raise :class:`UnsafeArchive`, so a hostile archive writes nothing. So does a bomb: members
    whose declared sizes add up to more than ``max_bytes`` or than the disk has free; and a zip
    member that streams out more than it declared stops there. Whatever an extraction that
    fails (a full disk, a damaged archive) had written of new files is removed.

    Returns:
        The member names, in archive order.
    """
    archive, target = Path(archive), Path(target)
    check_regular_file(archive)  # is_zipfile would wait forever on a FIFO, or read /dev/zero
    target.mkdir(parents=True, exist_ok=True)
    target = target.resolve()
    if zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as zf:
            infos = zf.infolist()
            for info in infos:
                _check_member(info.filename, target)
                mode = info.external_attr >> 16
                if (mode & 0o170000) == 0o120000:  # a symlink stored in a zip
                    link = zf.read(info).decode("utf-8", "replace")
                    _check_link(info.filename, link, target)
            _check_sizes(archive, target, sum(i.file_size for i in infos), max_bytes)
            with _removed_on_failure(target, [i.filename for i in infos]):
                for info in infos:
                    _extract_zip_member(zf, info, target)
        return [info.filename for info in infos]
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
            # a tar member's size is its exact length in the archive: the sum bounds the output
            _check_sizes(archive, target, sum(m.size for m in members if m.isfile()), max_bytes)
            # Python's own "data" filter (3.12+, backported) re-checks the same rules.
            extra = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
            with _removed_on_failure(target, [m.name for m in members]):
                tf.extractall(target, members=members, **extra)
        return [m.name for m in members]
    raise ValueError(f"{archive} is neither a zip nor a tar archive")


def _check_sizes(archive: Path, target: Path, total: int, max_bytes: int) -> None:
    """Refuse an archive whose members would take more than ``max_bytes`` or the free space."""
    if total > max_bytes:
        raise UnsafeArchive(f"{archive} would unpack to {total / 1e9:.1f} GB, more than the "
                            f"{max_bytes / 1e9:.1f} GB any dataset of the course needs (a zip "
                            "bomb?); refusing to extract")
    free = shutil.disk_usage(target).free
    if total > free:
        raise UnsafeArchive(f"{archive} unpacks to {total / 1e9:.1f} GB, but {target} has "
                            f"{free / 1e9:.1f} GB free; free some space, then extract again")


def _extract_zip_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo, target: Path) -> None:
    """Write one checked member, stopping if it streams out more than it declared."""
    dest = target / PurePosixPath(info.filename.replace("\\", "/"))
    if info.is_dir():
        dest.mkdir(parents=True, exist_ok=True)
        return
    dest.parent.mkdir(parents=True, exist_ok=True)
    written = 0
    try:
        with zf.open(info) as source, open(dest, "wb") as out:
            for chunk in iter(lambda: source.read(CHUNK), b""):
                written += len(chunk)
                if written > info.file_size:
                    raise UnsafeArchive(f"archive member {info.filename!r} holds more than the "
                                        f"{info.file_size:,} bytes it declares; refusing it")
                out.write(chunk)
    except zipfile.BadZipFile as error:  # zipfile stops at the declared size: a CRC error then
        raise UnsafeArchive(f"archive member {info.filename!r} is not what the archive declares "
                            f"({error}); delete the archive and download it again") from None


@contextmanager
def _removed_on_failure(target: Path, names: list[str]) -> Iterator[None]:
    """Remove the members' files and folders that the block created, if it fails: a full disk
    or a damaged archive must not leave half a dataset that looks like one."""
    paths = sorted({target.joinpath(*_parts(name)[:depth]) for name in names  # and folders
                    for depth in range(1, len(_parts(name)) + 1)}, key=lambda p: len(p.parts))
    paths = [p for p in paths if p.resolve().is_relative_to(target)]  # members are checked
    new = [p for p in paths if not (p.exists() or p.is_symlink())]
    try:
        yield
    except BaseException:
        for path in reversed(new):  # deepest first: files, then their folders
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)
        raise


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
