"""Reading a dataset's files through the guard, wherever the registry found the dataset.

The offline folder (``ELMO_TUTORIAL_DATA``), the download cache and nltk's data folders are
the user's: any file in them could have been replaced by a FIFO (a reader would wait for
ever), a link to ``/dev/zero`` (one endless line, read until the memory is full) or a link to
a file elsewhere (read as if it were the dataset, or quoted in an error message). So the
readers of :mod:`elmo_tutorial.data.annotated` and :mod:`elmo_tutorial.data.corpora` open a
dataset's files only here, through :func:`~elmo_tutorial.files.guarded_read.open_regular_file`
bound to the dataset's folder, and nltk's corpus folders are checked whole before nltk's own
readers open them. What is refused, or is not the text it should be, raises
:class:`BadDatasetFile`: a :class:`~elmo_tutorial.data.downloads.DatasetNotAvailable` (every
command that reads datasets reports one in one line) and a ``ValueError``.

Example:
    >>> import os, tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> os.mkfifo(folder / "train.txt")
    >>> list(dataset_lines(folder / "train.txt", folder, MAX_LABELLED_FILE_BYTES))
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    elmo_tutorial.data.dataset_files.BadDatasetFile: ... (it is a named pipe (FIFO)): ...
"""

from __future__ import annotations

import io
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from elmo_tutorial.data.downloads import DatasetNotAvailable
from elmo_tutorial.files.guarded_read import NotARegularFile, check_inside, open_regular_file

__all__ = ["MAX_CORPUS_FILE_BYTES", "MAX_LABELLED_FILE_BYTES", "MAX_NLTK_FILE_BYTES",
           "BadDatasetFile", "check_dataset_folder", "check_nltk_corpus", "dataset_lines",
           "open_dataset_file"]

# Larger than the largest real file of each kind by a wide margin, and small enough that a
# planted giant (a sparse file of one endless line) is refused before a byte is read.
MAX_LABELLED_FILE_BYTES = 1 << 28  # 268 MB; SemCor's XML, the largest, is 38 MB
MAX_CORPUS_FILE_BYTES = 1 << 31  # 2.1 GB; WikiText-103's train file is 0.54 GB
MAX_NLTK_FILE_BYTES = 1 << 28  # WordNet's data.noun, the largest, is 15 MB


class BadDatasetFile(DatasetNotAvailable, ValueError):
    """A file of a dataset cannot be used: not a regular file (a FIFO, a device, a folder), a
    symbolic link out of the dataset's folder, far too large, not UTF-8 text, or not in the
    dataset's format. The message names the file and says what to do."""


@contextmanager
def open_dataset_file(path: str | Path, folder: str | Path,
                      max_bytes: int) -> Iterator[BinaryIO]:
    """``path``, a file of the dataset in ``folder``, opened for reading (binary) once it is
    a regular file of at most ``max_bytes`` bytes inside ``folder``.

    Raises:
        BadDatasetFile: what the path really is (or that nothing is there), and what to do.
    """
    path = Path(path)
    try:
        file = open_regular_file(path, max_bytes, folder)
    except NotARegularFile as error:
        raise BadDatasetFile(str(error)) from None
    except FileNotFoundError:  # the folder was found, so this copy of the dataset is partial
        what = (f"is a symbolic link to {path.resolve()}, which does not exist"
                if path.is_symlink() else f"is missing from the dataset in {folder}")
        raise BadDatasetFile(f"{path} {what}: put the dataset's own file there") from None
    with file:
        yield file


def dataset_lines(path: str | Path, folder: str | Path, max_bytes: int,
                  encoding: str = "utf-8") -> Iterator[tuple[int, str]]:
    """``(line number, line)`` of a text file of the dataset in ``folder``, read lazily (the
    line end kept, ``\\r\\n`` read as ``\\n``).

    Raises:
        BadDatasetFile: as :func:`open_dataset_file`, or the bytes are not ``encoding`` text.
    """
    with open_dataset_file(path, folder, max_bytes) as raw:
        try:
            yield from enumerate(io.TextIOWrapper(raw, encoding=encoding), start=1)
        except UnicodeDecodeError as error:  # its own message does not name the file
            raise BadDatasetFile(f"{path} is not {encoding.removesuffix('-sig').upper()} text "
                                 f"({error.reason}): is it the right file?") from None


def check_dataset_folder(folder: str | Path, max_bytes: int = MAX_NLTK_FILE_BYTES) -> None:
    """Check every file under ``folder`` as :func:`open_dataset_file` would, without reading
    one: for readers that open the files themselves (nltk's corpus readers, which read
    WordNet's index as soon as they are created).

    Raises:
        BadDatasetFile: the first file that is not a regular file inside ``folder``, or a
            link that leads nowhere.
    """
    for parent, folders, files in os.walk(folder):  # links to folders are listed, not entered
        for name in files:
            _check_file(Path(parent) / name, folder, max_bytes)
        for name in folders:
            try:
                check_inside(Path(parent) / name, folder)
            except NotARegularFile as error:
                raise BadDatasetFile(str(error)) from None


def check_nltk_corpus(name: str, folder: Path) -> None:
    """Check the folder of nltk corpus ``name`` before nltk's reader opens its files: every
    file under it (:func:`check_dataset_folder`), and that each file the reader opens by name
    is one (a folder planted as ``train.txt`` is no file of the walk). A zipped corpus is read
    from its zip file, which ``nltk.data.find`` has opened already."""
    if not folder.is_dir():
        return
    check_dataset_folder(folder)  # first: WordNet's reader reads its files once created
    import nltk.corpus

    if name == "wordnet":
        from nltk.corpus.reader.wordnet import WordNetCorpusReader

        names = WordNetCorpusReader._FILES
    else:
        names = getattr(nltk.corpus, name).fileids()
    for file in names:
        if os.path.lexists(folder / file):  # a missing one is the reader's to report
            _check_file(folder / file, folder, MAX_NLTK_FILE_BYTES)


def _check_file(path: Path, folder: str | Path, max_bytes: int) -> None:
    """:func:`open_dataset_file`'s checks, by ``lstat`` alone for a plain file of a folder
    walked without following links (thousands of them, for every use of a corpus)."""
    info = os.lstat(path)
    if stat.S_ISREG(info.st_mode) and info.st_size <= max_bytes:
        return  # not a link, in a folder reached without a link: inside
    with open_dataset_file(path, folder, max_bytes):  # says what is wrong with it
        pass
