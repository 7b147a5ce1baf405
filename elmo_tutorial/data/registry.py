"""The dataset registry: name → official URL(s), checksum, size, licence; the split names.

Every dataset of the course has one :class:`Dataset` entry in :data:`REGISTRY` (the table of
:mod:`elmo_tutorial.data.dataset_table`, re-exported here). An entry is looked for in this order:

1. the offline folder ``$ELMO_TUTORIAL_DATA/<folder>/`` (the official files, unchanged);
2. the download cache ``$ELMO_TUTORIAL_CACHE/<folder>/``;
3. nltk corpora: wherever ``nltk.data.find`` finds them (``NLTK_DATA``, ``~/nltk_data``, ...).

Nothing is downloaded implicitly: :func:`fetch` (or ``elmo-tutorial data download NAME``)
does that, verifying each file's published checksum (:mod:`elmo_tutorial.data.downloads`);
:func:`locate` only finds. Checksums are the publishers' own or those listed by widely used
loaders (cited next to each entry); where none is published, the entry refuses to download
unverified and says why.

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

from elmo_tutorial.data.dataset_table import REGISTRY, Dataset
from elmo_tutorial.data.downloads import (
    DatasetNotAvailable,
    RemoteFile,
    cache_dir,
    download,
    nltk_download,
    nltk_find,
    offline_dir,
)
from elmo_tutorial.files.archives import safe_extract

__all__ = ["REGISTRY", "Dataset", "RemoteFile", "fetch", "get_dataset", "how_to_get",
           "is_available", "locate", "normalize_split"]

SPLITS = ("train", "valid", "test")  # the split names every reader of the package uses
_SPLIT_ALIASES = {"dev": "valid", "validation": "valid"}  # the names other datasets use


def _roots() -> list[Path]:
    """Where datasets are looked for: the offline folder first, then the cache."""
    return [r for r in (offline_dir(), cache_dir()) if r is not None]


def _locate(ds: Dataset) -> Path | None:
    """The folder that holds ``ds`` (offline folder first, then cache), else ``None``."""
    if ds.kind == "nltk":
        return nltk_find(ds.nltk_resource)
    for root in _roots():
        folder = root / ds.folder
        if folder.is_dir() and all((folder / p).exists() for p in ds.required_paths()):
            return folder
    return None


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
    """Whether dataset ``name`` can be read now, without downloading."""
    return _locate(get_dataset(name)) is not None


def locate(name: str) -> Path:
    """The local directory of dataset ``name``; never downloads.

    Raises:
        DatasetNotAvailable: with instructions (``elmo-tutorial data download NAME`` or
            ``ELMO_TUTORIAL_DATA``).
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
    """Dataset ``name``'s local folder, downloaded (verified, into the cache) if needed.

    Raises:
        DatasetNotAvailable: no verified download is possible, or every URL failed.
    """
    ds = get_dataset(name)
    found = None if force else _locate(ds)
    if found is not None:
        return found
    if ds.kind == "nltk":
        return nltk_download(ds.nltk_resource, force, progress)
    if not ds.verifiable:
        raise DatasetNotAvailable(f"{ds.name}: refusing an unverified download. {_how_to_get(ds)}")
    root = cache_dir()
    for remote in ds.files:
        folder = root / (ds.folder if ds.kind == "files" else "archives")
        if force:
            (folder / remote.name).unlink(missing_ok=True)
        path = download(remote, folder, progress)
        if ds.kind == "archive":
            safe_extract(path, root / ds.extract_into)
    found = _locate(ds)
    if found is None:
        raise DatasetNotAvailable(
            f"{ds.name}: downloaded, but {root / ds.folder} lacks "
            f"{', '.join(ds.required_paths())}; the upstream layout may have changed. Please "
            "report it.")
    return found
