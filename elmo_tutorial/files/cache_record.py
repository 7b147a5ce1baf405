"""Cache entries that prove themselves: a record beside the data, checked before it is read.

The package keeps files it computed from others so as not to compute them twice: a corpus's
layers (:mod:`elmo_tutorial.analyses.embedding_cache`), the baseline's static vectors
(:mod:`elmo_tutorial.tasks.corpus_vectors`), the generated corpus
(:mod:`elmo_tutorial.data.sense_corpus`).
Such a file is only worth reading if it is whole and was computed from the inputs asked for
now. A disk error, a copy cut short or a file left from other inputs would otherwise load as if
it were right, or die with a ``BadZipFile`` that nothing recovers from. So:

- every entry ``NAME.npy`` / ``NAME.npz`` has a record ``NAME.json``, written after it: the
  facts that make it the right entry (its format, the checksums of its inputs) and the sha256
  of its bytes. :func:`check_record` compares both before anything reads the data and raises
  :class:`EntryMismatch` saying what differs; the caller computes the entry again;
- a folder of files (the generated corpus) lists the sha256 of each in ``sha256sum``'s format;
  :func:`folder_problem` says which file differs, and :func:`publish_folder` puts a new folder
  in place whole, never half written.
- a file read again and again (a corpus's sources, a verified download) is hashed once per
  process while it stays the same (:func:`content_digest`), judged by what no tool can set
  back: its status-change time, never its size and modification time alone.

Hashing costs a few milliseconds per megabyte, far less than loading a damaged entry costs.

Example:
    >>> import tempfile, pathlib
    >>> data = pathlib.Path(tempfile.mkdtemp()) / "toy.npz"
    >>> _ = data.write_bytes(b"vectors")
    >>> write_record(data, format=1, text="abc")
    >>> check_record(data, format=1, text="abc")["sha256"][:12]
    '29a6a5e3c398'
    >>> check_record(data, format=1, text="xyz")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    elmo_tutorial.files.cache_record.EntryMismatch: it was computed from other input (text: ...
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from elmo_tutorial.files.guarded_read import NotARegularFile, check_inside, read_regular_file
from elmo_tutorial.files.json_input import NotJSON, parse_json
from elmo_tutorial.files.safe_files import atomic_write_text, file_digest, fsync_dir

__all__ = ["EntryMismatch", "check_record", "content_digest", "folder_problem",
           "listed_digests", "publish_folder", "record_path", "write_record"]


MAX_RECORD_BYTES = 1 << 20  # a record or a folder's listing: a few lines
SETTLED_NS = 2 * 10**9  # a file changed this recently is hashed again next time
_known_digests: dict[tuple, str] = {}  # (path, device, inode, size, ctime) → sha256


class EntryMismatch(ValueError):
    """A cache entry that is damaged, has no record, or was computed from other input; the
    message says which, for the one line that announces the entry is computed again."""


def content_digest(path: str | Path) -> str:
    """sha256 of a file's bytes, remembered in this process while the file stays the same.

    Size and modification time do not prove that: ``cp -p``, ``rsync -a`` and ``tar x`` give
    an edited file of the same length its old time back. The key of what is remembered is the
    status-change time (ctime) with the inode and size: every write and every ``utime`` sets
    the ctime to the present, and no tool sets it back. A file whose ctime is less than
    ``SETTLED_NS`` before the hashing began is not remembered (as git treats "racily clean"
    files): a change in the same tick of the file system's clock would keep the same ctime.

    Raises:
        FileNotFoundError, NotARegularFile: as :func:`~elmo_tutorial.files.safe_files.file_digest`.
    """
    path = Path(path)
    before = os.stat(path)
    key = (str(path), before.st_dev, before.st_ino, before.st_size, before.st_ctime_ns)
    if key in _known_digests:
        return _known_digests[key]
    started = time.time_ns()
    digest = file_digest(path)
    after = os.stat(path)
    unchanged = (after.st_dev, after.st_ino, after.st_size, after.st_ctime_ns) == key[1:]
    if unchanged and after.st_ctime_ns < started - SETTLED_NS:
        _known_digests[key] = digest
    return digest


def record_path(data_path: str | Path) -> Path:
    """The record of an entry: ``NAME.json`` beside ``NAME.npy`` or ``NAME.npz``."""
    return Path(data_path).with_suffix(".json")


def write_record(data_path: str | Path, **facts) -> None:
    """Record ``facts`` (JSON values) and the sha256 of ``data_path``, which is complete now.

    Written after the data and atomically: an entry whose writer was killed in between has
    no record, and is computed again rather than trusted."""
    record = {**facts, "sha256": file_digest(data_path)}
    atomic_write_text(record_path(data_path), json.dumps(record, indent=1))


def check_record(data_path: str | Path, **expected) -> dict:
    """The record of ``data_path`` once it says ``expected`` and the bytes match its sha256.

    Raises:
        EntryMismatch: no record or an unreadable one, a fact that differs from ``expected``
            (other input, another format), or data whose sha256 is not the recorded one
            (cut short, a flipped byte, missing).
    """
    folder = Path(data_path).parent  # a cache folder anybody may have planted files in
    try:
        record = parse_json(read_regular_file(record_path(data_path), MAX_RECORD_BYTES, folder),
                            record_path(data_path).name)
    except FileNotFoundError:
        raise EntryMismatch("it has no record of what it holds (its writer was stopped?)") \
            from None
    except NotARegularFile as error:
        raise EntryMismatch(f"its record cannot be read: {error}") from None
    except NotJSON as error:  # also "[[[[..." nested deeper than Python's stack
        raise EntryMismatch(f"its record cannot be read: {error}") from None
    except OSError as error:
        raise EntryMismatch(f"its record cannot be read ({type(error).__name__})") from None
    if not isinstance(record, dict):
        raise EntryMismatch("its record is not a JSON object")
    for name, value in expected.items():
        if record.get(name) != json.loads(json.dumps(value)):  # as JSON gives it back
            raise EntryMismatch(f"it was computed from other input ({name}: "
                                f"{_short(record.get(name))}, now {_short(value)})")
    try:
        check_inside(data_path, folder)  # the data read after this check is the file hashed
        intact = file_digest(data_path) == record.get("sha256")
    except NotARegularFile as error:
        raise EntryMismatch(f"its data cannot be read: {error}") from None
    except OSError as error:
        raise EntryMismatch(f"its data cannot be read ({type(error).__name__})") from None
    if not intact:
        raise EntryMismatch("its data does not match the checksum written with it")
    return record


def _short(value) -> str:
    text = repr(value)  # a 64-digit checksum would take the whole line
    return text if len(text) <= 20 else text[:16] + "...'"


_DIGEST_LINE = re.compile(r"^([0-9a-f]{64})  (\S+)$")


def listed_digests(text: str) -> dict[str, str]:
    """``{file name: sha256}`` from the ``"<digest>  <name>"`` lines of ``text`` (the format
    of ``sha256sum``, also inside a README's code block); other lines are ignored."""
    return {m.group(2): m.group(1) for line in text.splitlines()
            if (m := _DIGEST_LINE.match(line.strip()))}


def folder_problem(folder: str | Path, listing: str) -> str | None:
    """Why ``folder`` is not whole, in words, judged by the digests its file ``listing``
    holds; ``None`` when every listed file is there with its digest. A folder without the
    listing (written last) was never finished."""
    folder = Path(folder)
    try:
        digests = listed_digests(
            read_regular_file(folder / listing, MAX_RECORD_BYTES, folder).decode("utf-8"))
        if not digests:
            return f"{listing} lists no file digests"
        for name, digest in digests.items():
            check_inside(folder / name, folder)
            if file_digest(folder / name) != digest:
                return f"{name} does not match the digest in {listing}"
    except FileNotFoundError as error:
        return f"{Path(error.filename or listing).name} is missing"
    except NotARegularFile as error:
        return str(error)
    except (OSError, UnicodeDecodeError) as error:
        return f"it cannot be read ({type(error).__name__})"
    return None


def publish_folder(target: str | Path, fill: Callable[[Path], object]) -> None:
    """Fill a new temporary folder beside ``target`` with ``fill(folder)``, then give it the
    name ``target``, replacing a damaged ``target``. A reader never sees half a folder, and a
    process that published first wins: its folder is kept, this one dropped."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent))
    try:
        fill(tmp)
        if target.exists():  # damaged: a whole folder cannot be replaced in one step
            shutil.rmtree(target, ignore_errors=True)
        try:
            os.rename(tmp, target)
        except OSError:  # another process published meanwhile (ENOTEMPTY/EEXIST): use its copy
            if not target.is_dir():
                raise
        fsync_dir(target.parent)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
