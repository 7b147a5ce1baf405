"""What was verified, kept beside the data: a cached dataset changed later is noticed.

A download's sha256 proves the bytes that arrived; it says nothing about the files a week
later, after a disk error, an editor's accidental save or a planted replacement. So when the
registry puts a dataset into the download cache (a verified download, or an archive whose
sha256 was checked before extraction), it writes ``<folder>/.verified.json``: the dataset's
name, the archive and its sha256 where there was one, and the sha256 of every file in the
folder. Each time the dataset is located in the cache, the files are checked against that
record (hashing runs at hundreds of MB/s; a process hashes each unchanged file once, judged by
its status-change time, which ``cp -p`` or ``touch -d`` cannot set back), and a
file that differs, is missing, or a folder without a record raises :class:`DatasetDamaged`
naming the file and how to get the data again. The offline folder (``ELMO_TUTORIAL_DATA``)
is the user's own copy and is not checked.

Example:
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "wiki.train.tokens").write_text("a b c\\n")
    >>> write_record(folder, "toy")
    >>> check_record(folder, "toy")
    >>> _ = (folder / "wiki.train.tokens").write_text("a b d\\n")
    >>> check_record(folder, "toy")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    elmo_tutorial.data.verified.DatasetDamaged: ...train.tokens changed since it was verified...
"""

from __future__ import annotations

import json
from pathlib import Path

from elmo_tutorial.data.downloads import DatasetNotAvailable
from elmo_tutorial.files.cache_record import content_digest
from elmo_tutorial.files.guarded_read import NotARegularFile, check_regular_file, read_regular_file
from elmo_tutorial.files.json_input import parse_json
from elmo_tutorial.files.safe_files import atomic_write_text

__all__ = ["RECORD", "DatasetDamaged", "check_record", "write_record"]

RECORD = ".verified.json"
MAX_RECORD_BYTES = 1 << 24  # a digest per file: 1B Word's 100 shards take 10 kB


class DatasetDamaged(DatasetNotAvailable):
    """A cached dataset no longer matches what was verified when it was downloaded."""


def write_record(folder: str | Path, dataset: str, archive: str | None = None,
                 archive_sha256: str | None = None) -> None:
    """Record the sha256 of every file under ``folder`` (just verified) in ``RECORD``."""
    folder = Path(folder)
    files = {p.relative_to(folder).as_posix(): content_digest(p)
             for p in sorted(folder.rglob("*"))
             if p.is_file() and not p.is_symlink() and p.name != RECORD}
    record = {"dataset": dataset, "archive": archive, "archive_sha256": archive_sha256,
              "files": files}
    atomic_write_text(folder / RECORD, json.dumps(record, indent=1) + "\n")


def check_record(folder: str | Path, dataset: str) -> None:
    """Check ``folder``'s files against its ``RECORD``.

    Raises:
        DatasetDamaged: no readable record, or a recorded file missing or changed; the
            message names it and says how to download the dataset again.
    """
    folder = Path(folder)
    again = (f"run `elmo-tutorial data download {dataset} --force` to download and verify it "
             "again")
    try:  # a FIFO or /dev/zero planted as the record is refused, not waited on or read
        record = parse_json(read_regular_file(folder / RECORD, MAX_RECORD_BYTES, folder),
                            folder / RECORD)
        files = record["files"]
        if not isinstance(files, dict) or record.get("dataset") != dataset:
            raise ValueError("it describes another dataset")
    except NotARegularFile as error:
        raise DatasetDamaged(f"{error}; {again}") from None
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise DatasetDamaged(f"{folder} in the download cache has no valid record of its "
                             f"verification ({folder / RECORD}: {type(error).__name__}); "
                             f"{again}") from None
    for name, expected in files.items():
        path = folder / name
        if not path.exists() and not path.is_symlink():
            raise DatasetDamaged(f"{path} is missing from the verified download; {again}")
        try:
            check_regular_file(path, folder=folder)  # hashing a FIFO would never end
        except (OSError, ValueError) as error:
            raise DatasetDamaged(f"{error}; {again}") from None
        if content_digest(path) != expected:
            raise DatasetDamaged(f"{path} changed since it was verified (sha256 {expected[:16]}… "
                                 f"then, {content_digest(path)[:16]}… now); {again}")
