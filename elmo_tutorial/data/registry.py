"""The dataset registry: name → official URL(s), checksum, size, licence; the split names.

Every dataset of the course has one :class:`Dataset` entry in :data:`REGISTRY` (the table of
:mod:`elmo_tutorial.data.dataset_table`, re-exported here). An entry is looked for in this order:

1. the offline directory ``$ELMO_TUTORIAL_DATA/<folder>/`` (the official files, unchanged);
2. the download cache ``$ELMO_TUTORIAL_CACHE/<folder>/`` (default ``~/.cache/elmo_tutorial``);
3. nltk corpora: wherever ``nltk.data.find`` finds them (``NLTK_DATA``, ``~/nltk_data``, ...).

Nothing is downloaded implicitly: :func:`fetch` (or ``elmo-tutorial data download NAME``)
does that, verifying each file's published checksum (an archive already in the cache is
verified again before it is extracted) and recording what it verified
(:mod:`elmo_tutorial.data.verified`); :func:`locate` only finds, and checks a dataset found in the
cache against that record. Checksums
are the publishers' own or those listed by widely used loaders (cited next to each entry);
where none is published, the entry refuses to download unverified and says why.

Every reader calls a dataset's parts ``"train"``, ``"valid"`` and ``"test"``;
:func:`normalize_split` also accepts ``"dev"`` and ``"validation"`` for ``"valid"``.

Example:
    >>> ds = get_dataset("wnut17")
    >>> ds.licence
    'CC BY 4.0'
    >>> normalize_split("dev")
    'valid'
"""

from __future__ import annotations

import difflib
from pathlib import Path

from elmo_tutorial.data.dataset_files import BadDatasetFile
from elmo_tutorial.data.dataset_table import REGISTRY, Dataset
from elmo_tutorial.data.downloads import (
    DatasetNotAvailable,
    RemoteFile,
    cache_dir,
    download_remote,
    nltk_download,
    nltk_find,
    offline_dir,
    safe_extract,
    verify_file,
)
from elmo_tutorial.data.verified import DatasetDamaged, check_record, write_record
from elmo_tutorial.files.guarded_read import NotARegularFile
from elmo_tutorial.files.safe_files import file_digest

__all__ = [
    "REGISTRY",
    "Dataset",
    "RemoteFile",
    "fetch",
    "get_dataset",
    "how_to_get",
    "is_available",
    "locate",
    "normalize_split",
]

SPLITS = ("train", "valid", "test")  # the split names every reader of the package uses
_SPLIT_ALIASES = {"dev": "valid", "validation": "valid"}  # the names other datasets use


def _roots() -> list[Path]:
    """Where datasets are looked for: the offline directory first, then the cache."""
    roots = [offline_dir(), cache_dir()]
    return [r for r in roots if r is not None]


def _locate(ds: Dataset) -> Path | None:
    """The directory that holds ``ds`` (offline directory first, then cache), else ``None``.

    Raises:
        DatasetDamaged: the cache holds it, but its files are not those verified on download.
    """
    if ds.kind == "nltk":
        return nltk_find(ds.nltk_resource)
    for root in _roots():
        folder = root / ds.folder
        if folder.is_dir() and all((folder / p).exists() for p in ds.required_paths()):
            if root == cache_dir():  # what we downloaded; the offline folder is the user's
                check_record(folder, ds.name)
            return folder
    return None


def _matches(path: Path, remote: RemoteFile) -> bool:
    """Whether a file already in the cache has its published digest."""
    algorithm, expected = ("sha256", remote.sha256) if remote.sha256 else ("md5", remote.md5)
    return file_digest(path, algorithm) == (expected or "").lower()


def _how_to_get(ds: Dataset) -> str:
    """One paragraph telling a user how to make ``ds`` available."""
    if ds.kind == "nltk":
        return (
            f"Run `elmo-tutorial data download {ds.name}` (it calls nltk.download("
            f"{ds.name!r})), or point NLTK_DATA at a directory holding {ds.nltk_resource}/."
        )
    where = (
        f"so that some directory DIR holds {ds.folder}/ "
        f"({', '.join(ds.required_paths()[:3])}), then set ELMO_TUTORIAL_DATA=DIR"
    )
    if not ds.verifiable and ds.kind == "files":
        sources = " and ".join(f.urls[0] for f in ds.files)
        return f"{ds.note} Download the files yourself from {sources} and place them {where}."
    if not ds.verifiable:
        source = ds.files[0].urls[0] if ds.files else ds.homepage
        return f"{ds.note} Download it yourself from {source} and unpack it {where}."
    return f"Run `elmo-tutorial data download {ds.name}`, or place the official files {where}."


def _fetch(ds: Dataset, force: bool, progress: bool) -> Path:
    """Make ``ds`` available locally, downloading into the cache if needed; return its folder.

    Raises:
        DatasetNotAvailable: no verified download is possible, or every URL failed.
        ChecksumMismatch: the only URL served bytes with the wrong digest (file deleted).
    """
    try:
        found = None if force else _locate(ds)
    except DatasetDamaged:
        found = None  # downloaded, or extracted from its verified archive, again below
    if found is not None:
        return found
    if ds.kind == "nltk":
        return nltk_download(ds.nltk_resource, force, progress)
    if not ds.verifiable:
        raise DatasetNotAvailable(f"{ds.name}: refusing an unverified download. {_how_to_get(ds)}")
    try:
        return _download(ds, force, progress)
    except NotARegularFile as err:  # a FIFO, a device or a folder where a download belongs
        raise BadDatasetFile(f"{ds.name}: {err}") from None


def _download(ds: Dataset, force: bool, progress: bool) -> Path:
    """The download (or the verified cached archive) of a non-nltk ``ds``, unpacked."""
    root = cache_dir()
    archive = None
    for remote in ds.files:
        if ds.kind == "files":
            dest = root / ds.folder / remote.name
            if force or not dest.exists() or not _matches(dest, remote):
                download_remote(remote, dest, progress)
        else:
            archive = root / "archives" / remote.name
            if force or not archive.exists():
                download_remote(remote, archive, progress)
            else:  # perhaps not what we downloaded: planted, or damaged since
                verify_file(archive, remote.sha256, remote.md5)
            safe_extract(archive, root / ds.extract_into)
    if (root / ds.folder).is_dir():
        write_record(root / ds.folder, ds.name, archive and archive.name,
                     archive and file_digest(archive))
    found = _locate(ds)
    if found is None:
        missing = ", ".join(ds.required_paths())
        raise DatasetNotAvailable(
            f"{ds.name}: downloaded, but {root / ds.folder} lacks {missing}; the upstream layout "
            "may have changed. Please report it."
        )
    return found


# --------------------------------------------------------------------------- by name


def get_dataset(name: str) -> Dataset:
    """The registry entry called ``name`` (``_`` and ``-`` are interchangeable)."""
    for candidate in (name, name.replace("_", "-"), name.replace("-", "_")):
        if candidate in REGISTRY:
            return REGISTRY[candidate]
    close = difflib.get_close_matches(name, list(REGISTRY), n=3)
    hint = f" Did you mean {', '.join(close)}?" if close else ""
    raise KeyError(f"no dataset called {name!r}.{hint} Known: {', '.join(REGISTRY)}.")


def normalize_split(split: str) -> str:
    """The package's name for a split: ``"train"``, ``"valid"`` or ``"test"``.

    ``"dev"`` and ``"validation"`` (the names UD, WNUT-17 and Hugging Face use) mean ``"valid"``.

    Raises:
        ValueError: any other name, listing the accepted ones.
    """
    name = _SPLIT_ALIASES.get(split, split)
    if name not in SPLITS:
        raise ValueError(f"unknown split {split!r}; expected train, valid or test "
                         "(dev and validation also mean valid)")
    return name


def how_to_get(name: str) -> str:
    """What a user should do to make dataset ``name`` available."""
    return _how_to_get(get_dataset(name))


def is_available(name: str) -> bool:
    """Whether dataset ``name`` can be read now, without downloading (and, in the cache,
    unchanged since it was verified)."""
    try:
        return _locate(get_dataset(name)) is not None
    except DatasetDamaged:
        return False


def locate(name: str) -> Path:
    """The local directory of dataset ``name``; never downloads.

    Raises:
        DatasetNotAvailable: with instructions (``elmo-tutorial data download NAME`` or
            ``ELMO_TUTORIAL_DATA``); :class:`~elmo_tutorial.data.verified.DatasetDamaged` where the
            cached copy changed since it was verified.
    """
    ds = get_dataset(name)
    found = _locate(ds)
    if found is None:
        looked = ", ".join(str(r / ds.folder) for r in _roots()) if ds.kind != "nltk" else (
            "nltk.data.path")
        raise DatasetNotAvailable(
            f"dataset {ds.name!r} is not available locally (looked in {looked}). {_how_to_get(ds)}"
        )
    return found


def fetch(name: str, force: bool = False, progress: bool = True) -> Path:
    """Download dataset ``name`` if needed (verified, into the cache); return its directory."""
    return _fetch(get_dataset(name), force=force, progress=progress)
