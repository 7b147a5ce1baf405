"""Where datasets live, and downloading them with their published sha256 (through pooch).

- ``ELMO_TUTORIAL_DATA``: an offline folder holding the official files (looked at first);
- ``ELMO_TUTORIAL_CACHE``: where downloads go, by default the system's cache folder
  (``~/.cache/elmo_tutorial`` on Linux);
- nltk's corpora: wherever ``nltk.data.find`` finds them (``NLTK_DATA``, ``~/nltk_data``...).

``pooch.retrieve`` gives a download its name only once its sha256 is the registry's, and
downloads a cached file that no longer matches again. A tar archive is extracted with the
standard library's ``data`` filter; ``zipfile`` keeps every member inside the target itself.
"""

from __future__ import annotations

import os
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pooch

__all__ = ["BadDatasetFile", "CacheNotWritable", "DatasetNotAvailable", "RemoteFile",
           "UnsafeArchive", "cache_dir", "download", "nltk_download", "nltk_find",
           "offline_dir", "safe_extract"]


class DatasetNotAvailable(RuntimeError):
    """A dataset is neither in the offline folder nor in the cache (or cannot be fetched)."""


class CacheNotWritable(DatasetNotAvailable):
    """The download cache cannot take files (read-only, another user's, a file in the way)."""


class BadDatasetFile(DatasetNotAvailable, ValueError):
    """A file of a dataset is not in its format; the message names the file and the line."""


class UnsafeArchive(ValueError):
    """A tar member would be written outside the extraction folder (or is a device)."""


@dataclass(frozen=True)
class RemoteFile:
    """One published file; ``urls``: the official address first, then mirrors, every one
    checked against the same digest (so a mirror can never substitute other content)."""

    name: str  # file name inside the dataset folder, or the archive's file name
    urls: tuple[str, ...]
    sha256: str | None = None  # None where the publisher lists none: never downloaded


def offline_dir() -> Path | None:
    """The offline data folder named by ``ELMO_TUTORIAL_DATA``, or ``None`` when unset."""
    value = os.environ.get("ELMO_TUTORIAL_DATA", "").strip()
    return Path(value).expanduser() if value else None


def cache_dir() -> Path:
    """The download cache: ``ELMO_TUTORIAL_CACHE``, else the system's cache folder."""
    value = os.environ.get("ELMO_TUTORIAL_CACHE", "").strip()
    return Path(value).expanduser() if value else Path(pooch.os_cache("elmo_tutorial"))


def download(remote: RemoteFile, folder: Path, progress: bool = True) -> Path:
    """``folder/remote.name``, downloaded and verified unless it is there with its digest; if
    every URL fails, ``DatasetNotAvailable`` lists why, URL by URL."""
    import requests

    if not remote.sha256:
        raise ValueError(f"refusing to download {remote.name} without a checksum to verify")
    errors: list[Exception] = []
    for url in remote.urls:
        try:
            return Path(pooch.retrieve(url, f"sha256:{remote.sha256}", fname=remote.name,
                                       path=folder, progressbar=progress))
        except (OSError, ValueError) as error:  # requests' errors are OSErrors; a wrong hash
            errors.append(error)
    details = "\n".join(f"  - {url}: {str(err).strip()}" for url, err in zip(remote.urls, errors,
                                                                           strict=True))
    # no answer from any server at all (no DNS, no route, refused), not an HTTP error
    if all(isinstance(err, requests.ConnectionError | requests.Timeout) for err in errors):
        details += ("\nNo server could be reached: this machine looks offline. Copy the data "
                    "from a machine with a network into a folder and name it in "
                    "ELMO_TUTORIAL_DATA (NLTK_DATA for nltk's corpora); `elmo-tutorial doctor` "
                    "then finds it.")
    raise DatasetNotAvailable(f"could not download {remote.name}:\n{details}")


def safe_extract(archive: str | Path, target: str | Path) -> list[str]:
    """Extract a zip or tar(.gz/.bz2/.xz) archive into ``target``; return the member names."""
    if zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as zf:
            zf.extractall(target)
            return zf.namelist()
    with tarfile.open(archive) as tf:
        try:
            tf.extractall(target, filter="data")
        except tarfile.FilterError as error:  # not a ValueError: the command line's one line
            raise UnsafeArchive(f"{archive}: {error}; refusing to extract") from None
        return tf.getnames()


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
            f"or copy {resource}/ into a folder and set NLTK_DATA to it."
        )
    return found
