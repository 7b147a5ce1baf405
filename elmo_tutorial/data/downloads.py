"""Downloading datasets safely: checksums, atomic writes, archive extraction that cannot escape.

The dataset registry (:mod:`elmo_tutorial.data.registry`) says *what* to fetch; this module says
*how*, with three guarantees:

1. **Verified.** Every file is hashed while it streams in and compared with the checksum the
   registry publishes (sha256; md5 only where the upstream project publishes nothing else).
   A mismatch deletes the partial file and raises :class:`ChecksumMismatch` with both digests.
2. **Atomic.** Bytes go to ``NAME.<pid>-<random>.part`` next to the destination and are
   renamed into place only once verified, so an interrupted download never looks like a
   finished one. The ``.part`` file is removed on any error; one left by a process that was
   killed is removed by the next download of the same file.
3. **Contained.** :func:`safe_extract` refuses zip and tar members that would land outside the
   target directory (absolute paths, ``..``, links that point out, members reached through a
   link of the same archive, device files), by its own checks on every Python version.

An archive already in the cache is checked again (:func:`verify_file`) before it is
extracted; :mod:`elmo_tutorial.data.verified` keeps the record that catches later changes.

Where things live:

- ``ELMO_TUTORIAL_DATA``: an offline directory with the official files (looked at first);
- ``ELMO_TUTORIAL_CACHE``: where downloads go, by default ``~/.cache/elmo_tutorial``.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import tempfile
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from elmo_tutorial.files.archives import UnsafeArchive, safe_extract
from elmo_tutorial.files.safe_files import file_digest, process_alive

__all__ = [
    "CacheNotWritable",
    "ChecksumMismatch",
    "DatasetNotAvailable",
    "RemoteFile",
    "UnsafeArchive",
    "cache_dir",
    "download_file",
    "download_remote",
    "nltk_download",
    "nltk_find",
    "offline_dir",
    "safe_extract",
    "verify_file",
    "writable_cache_folder",
    "write_problem",
]

CHUNK = 1 << 20  # bytes read per step while downloading or hashing
TIMEOUT = 60  # seconds without data before a download is abandoned


class DatasetNotAvailable(RuntimeError):
    """A dataset is neither in the offline directory nor in the cache (or cannot be fetched)."""


class ChecksumMismatch(RuntimeError):
    """A downloaded file's digest differs from the published one (the file was deleted)."""


def offline_dir() -> Path | None:
    """The offline data directory named by ``ELMO_TUTORIAL_DATA``, or ``None`` when unset."""
    value = os.environ.get("ELMO_TUTORIAL_DATA", "").strip()
    return Path(value).expanduser() if value else None


def cache_dir() -> Path:
    """The download cache: ``ELMO_TUTORIAL_CACHE``, by default ``~/.cache/elmo_tutorial``.

    Reading needs nothing more; before writing there, :func:`writable_cache_folder` says
    clearly when the folder cannot take files."""
    value = os.environ.get("ELMO_TUTORIAL_CACHE", "").strip()
    return Path(value).expanduser() if value else Path.home() / ".cache" / "elmo_tutorial"


class CacheNotWritable(DatasetNotAvailable):
    """The download cache cannot take files (a file in the way, read-only, ``/proc``)."""


def write_problem(folder: str | Path) -> str | None:
    """Why no file can be written in ``folder`` (or created under it), in words; ``None``
    when one can. It is tried, not asked: ``os.access`` says yes to root for ``/proc``, a
    read-only mount or a full quota, where making a file then fails."""
    folder = Path(folder)
    existing = next((p for p in (folder, *folder.parents) if p.exists()), None)
    if existing is None:
        return None
    if not existing.is_dir():
        return f"{existing} is a file, not a folder"
    try:  # a hidden probe, removed at once
        fd, probe = tempfile.mkstemp(prefix=".elmo-tutorial-probe-", dir=existing)
        os.close(fd)
        os.unlink(probe)
    except OSError as error:
        return f"{existing} does not take new files ({error.strerror or error})"
    return None


def writable_cache_folder(folder: str | Path) -> Path:
    """``folder`` (inside the download cache), created, once files can be written there.

    Raises:
        CacheNotWritable: saying why, and to set ``ELMO_TUTORIAL_CACHE`` elsewhere.
    """
    folder = Path(folder)
    problem = write_problem(folder)
    if problem is None:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            problem = f"{folder} cannot be made ({error.strerror or error})"
    if problem is not None:
        raise CacheNotWritable(f"cannot write into {folder}: {problem}; set ELMO_TUTORIAL_CACHE "
                               "to a folder you can write to")
    return folder


def download_file(
    url: str,
    dest: str | Path,
    *,
    sha256: str | None = None,
    md5: str | None = None,
    size: int | None = None,
    progress: bool = True,
) -> Path:
    """Download ``url`` to ``dest``, verifying its checksum, through a temporary file.

    Args:
        url: ``https://``, ``http://`` or ``file://`` address.
        dest: final path; its parent directory is created.
        sha256: expected sha256 (preferred). One of ``sha256``/``md5`` is required:
            this function never writes an unverified file.
        md5: expected md5, for datasets whose publishers list nothing stronger.
        size: expected size in bytes (for the progress bar only).
        progress: show a tqdm progress bar.

    Returns:
        ``dest`` once it holds the verified bytes.

    Raises:
        ChecksumMismatch: the digest differs; the partial file has been deleted.
        ValueError: no checksum was given.
        OSError / urllib.error.URLError: network or disk problems (partial file deleted).
    """
    if sha256 is None and md5 is None:
        raise ValueError(f"refusing to download {url} without a checksum to verify it against")
    algorithm, expected = ("sha256", sha256) if sha256 else ("md5", md5)
    dest = Path(dest)
    writable_cache_folder(dest.parent)  # not a traceback per mirror: one line, before any
    _remove_dead_parts(dest)
    part = dest.with_name(f"{dest.name}.{os.getpid()}-{secrets.token_hex(4)}.part")  # unique
    digest = hashlib.new(algorithm)
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT) as response, open(part, "wb") as out:
            total = size or int(response.headers.get("Content-Length") or 0) or None
            with _progress_bar(total, dest.name, progress) as bar:
                for chunk in iter(lambda: response.read(CHUNK), b""):
                    out.write(chunk)
                    digest.update(chunk)
                    bar.update(len(chunk))
    except BaseException:
        part.unlink(missing_ok=True)
        raise
    got = digest.hexdigest()
    if got != expected.lower():
        part.unlink(missing_ok=True)
        raise ChecksumMismatch(
            f"{algorithm} mismatch for {url}:\n  expected {expected}\n  got      {got}\n"
            f"The partial file {part} was deleted. The download may have been corrupted "
            "(try again), or the server now serves different bytes (report it; do not "
            "bypass the check)."
        )
    os.replace(part, dest)  # atomic on the same file system
    return dest


def _remove_dead_parts(dest: Path) -> None:
    """Remove ``dest``'s ``.part`` files whose downloading process no longer runs."""
    for part in dest.parent.glob(f"{glob_escape(dest.name)}.*.part"):
        match = re.fullmatch(r"\.(\d+)(?:-[0-9a-f]+)?\.part", part.name[len(dest.name):])
        if match and not process_alive(int(match.group(1))):
            part.unlink(missing_ok=True)


def glob_escape(name: str) -> str:
    """``name`` with glob's special characters taken literally."""
    return re.sub(r"([*?\[])", r"[\1]", name)


def verify_file(path: str | Path, sha256: str | None = None, md5: str | None = None) -> None:
    """Check a file already on the disk (e.g. a cached archive) against its published digest.

    Raises:
        ChecksumMismatch: naming the file and both digests; the file is left in place.
    """
    algorithm, expected = ("sha256", sha256) if sha256 else ("md5", md5)
    if expected is None:
        raise ValueError(f"no checksum to verify {path} against")
    got = file_digest(path, algorithm)
    if got != expected.lower():
        raise ChecksumMismatch(
            f"{path} is not the published file: {algorithm} expected {expected}, got {got}. "
            "It was not used. Delete it and download again (elmo-tutorial data download NAME "
            "--force)."
        )


def _progress_bar(total: int | None, name: str, enabled: bool):
    from elmo_tutorial.runtime import progress_bar

    return progress_bar(enabled, total=total, desc=name, unit="B", unit_scale=True,
                        unit_divisor=1024)


@dataclass(frozen=True)
class RemoteFile:
    """One published file: where it lives and the digest that proves we got the right bytes.

    ``urls`` lists the official address first, then mirrors; every one is checked against the
    same digest, so a mirror can never substitute other content.
    """

    name: str  # path inside the dataset folder, or the archive's file name
    urls: tuple[str, ...]
    sha256: str | None = None
    md5: str | None = None  # only where the publisher lists no sha256
    size: int | None = None  # bytes, for the progress bar


def download_remote(remote: RemoteFile, dest: Path, progress: bool = True) -> Path:
    """Try the official URL, then each mirror, until one gives the expected bytes.

    Raises:
        ChecksumMismatch: a single URL served the wrong bytes (the file was deleted).
        DatasetNotAvailable: every URL failed; the message lists why, URL by URL.
    """
    errors: list[Exception] = []
    for url in remote.urls:
        try:
            return download_file(
                url, dest, sha256=remote.sha256, md5=remote.md5, size=remote.size,
                progress=progress,
            )
        except (OSError, ChecksumMismatch) as err:  # URLError is an OSError
            errors.append(err)
    if len(errors) == 1 and isinstance(errors[0], ChecksumMismatch):
        raise errors[0]
    details = "\n".join(f"  - {url}: {err}" for url, err in zip(remote.urls, errors, strict=True))
    if all(_unreachable(err) for err in errors):
        details += ("\nNo server could be reached: this machine looks offline. Copy the data "
                    "from a machine with a network into a folder and name it in "
                    "ELMO_TUTORIAL_DATA (NLTK_DATA for nltk's corpora); `elmo-tutorial doctor` "
                    "then finds it.")
    raise DatasetNotAvailable(f"could not download {remote.name}:\n{details}")


def _unreachable(err: Exception) -> bool:
    """True for a failure to reach the server at all (no DNS, no route, refused, timed out),
    as opposed to an answer from it (an HTTP error, the wrong bytes)."""
    if isinstance(err, urllib.error.HTTPError):
        return False
    return isinstance(err, urllib.error.URLError | ConnectionError | TimeoutError)


def nltk_find(resource: str) -> Path | None:
    """Where nltk finds ``resource`` (e.g. ``"corpora/brown"``; zipped or not), else ``None``."""
    import nltk

    try:
        return Path(str(nltk.data.find(resource)))
    except LookupError:
        return None


def nltk_download(resource: str, force: bool = False, progress: bool = True) -> Path:
    """``nltk.download`` the package behind ``resource``; a failure is an error, not a ``False``."""
    import nltk

    package = resource.split("/")[-1]
    try:
        ok = nltk.download(package, quiet=not progress, force=force, raise_on_error=True)
    except Exception as err:  # ValueError, URLError or HTTPError, depending on the nltk version
        ok, reason = False, f"{type(err).__name__}: {err}"
    else:
        reason = "nltk.download returned False"
    found = nltk_find(resource) if ok else None
    if found is None:
        raise DatasetNotAvailable(
            f"nltk.download({package!r}) failed ({reason}). Check your internet connection, "
            f"or copy {resource}/ into a directory and set NLTK_DATA to it."
        )
    return found
