"""The baseline's word vectors for the three tasks, shipped beside a task report.

:func:`~elmo_tutorial.tasks.experiments.word_vectors` computes the baseline's static vectors
from the biLM's training text: for ``english_mix`` that means reading 4.7 million words
(about 50 s on 2 CPU cores) before the counting even starts. A task model only ever looks up
the words of its task's sentences, so the rows of the words that the three tasks use (16,574
of ``english_mix``'s 29,627) give every task model exactly the numbers of the full table.

``elmo-tutorial tasks`` writes those rows beside its report as ``baseline_vectors.safetensors``
(float32, the words in its metadata, with the sha256 of the rows and of the full table they
came from), and :func:`task_word_vectors` reads them back, checked: notebook 12 starts in a
second instead of a minute. A run folder without the file gets the vectors computed from its
corpus, as before. ``tests/tasks/test_task_vectors.py`` recomputes the shipped rows from the text.

Example:
    >>> table, index = task_word_vectors(shipped_model("small"))  # doctest: +SKIP
    >>> table.shape, table[index["river"]].shape  # doctest: +SKIP
    (torch.Size([16575, 100]), torch.Size([100]))
"""

from __future__ import annotations

import hashlib
import json
import warnings
from collections.abc import Sequence
from pathlib import Path

import torch
from safetensors import SafetensorError
from safetensors.torch import load, save

from elmo_tutorial.files.json_input import parse_json
from elmo_tutorial.files.safe_files import (
    DamagedFile,
    atomic_write_bytes,
    check_sha256sums,
    read_regular_file,
    read_sha256sums,
    write_sha256sums,
)
from elmo_tutorial.model.run_dir import read_run_config
from elmo_tutorial.model.weight_checks import check_weights
from elmo_tutorial.tasks.experiments import TASKS, read_task, word_vectors

__all__ = ["VECTORS_FILE", "task_word_vectors", "task_words", "write_task_vectors"]

VECTORS_FILE = "baseline_vectors.safetensors"
FORMAT = "1"
# A task whose words are another's: every SST phrase is a span of a training sentence, and
# the phrases' dev and test sets are the sentences'.
SAME_WORDS = {"sst5_phrases": "sst5"}
MAX_BYTES = 1 << 28  # 100-dim float32 rows of every word of the tasks take about 7 MB
_HINT = ("delete it to compute the vectors from the corpus (about a minute), or restore it "
         "with `git checkout` in a clone of the course")


def task_words(tasks: Sequence[str] = TASKS) -> set[str]:
    """Every lower-cased token of every split of ``tasks`` (what the task models look up)."""
    return {token.lower() for task in tasks for pairs in read_task(task).values()
            for tokens, _ in pairs for token in tokens}


def _digest(table: torch.Tensor, words: Sequence[str]) -> str:
    """sha256 of a table's float32 bytes and its words: what the file says it holds."""
    digest = hashlib.sha256(table.contiguous().numpy().tobytes())
    digest.update("\n".join(words).encode("utf-8"))
    return digest.hexdigest()


def write_task_vectors(folder: str | Path, corpus: str, tasks: Sequence[str] = TASKS) -> Path:
    """Write the rows of :func:`word_vectors` ``(corpus)`` for the words of ``tasks`` to
    ``folder/baseline_vectors.safetensors``; a ``SHA256SUMS`` in ``folder`` lists it too.

    The rows keep their values bit for bit (row 0 stays the zero ``<UNK>`` row); only their
    order follows the sorted words.
    """
    full, index = word_vectors(corpus)  # (V + 1, dim), {word: row}
    words = sorted(task_words(tasks) & index.keys())
    table = full[[0, *(index[w] for w in words)]].contiguous()  # (len(words) + 1, dim)
    metadata = {"format": FORMAT, "corpus": corpus, "tasks": ",".join(tasks),
                "words": json.dumps(words, ensure_ascii=False),
                "sha256": _digest(table, words),
                "full_table_sha256": hashlib.sha256(full.numpy().tobytes()).hexdigest(),
                "full_table_rows": str(full.shape[0])}
    path = Path(folder) / VECTORS_FILE
    atomic_write_bytes(path, save({"vectors": table}, metadata=metadata))
    listed = read_sha256sums(folder)
    if listed:  # a shipped or exported folder: its sums vouch for the new file too
        write_sha256sums(folder, sorted({*listed, VECTORS_FILE}))
    return path


def task_word_vectors(run_dir: str | Path, corpus: str | None = None,
                      tasks: Sequence[str] = TASKS) -> tuple[torch.Tensor, dict[str, int]]:
    """The baseline's ``(V + 1, dim)`` vectors (row 0: ``<UNK>``) and ``{word: row}`` for
    task models of ``tasks`` over the biLM in ``run_dir``.

    Read from ``run_dir/baseline_vectors.safetensors`` when it is there and covers ``tasks``
    (checked against its own sha256 and the folder's ``SHA256SUMS``); else computed from
    ``corpus`` (default: the corpus the run was trained on) by :func:`word_vectors`.

    Raises:
        DamagedFile: the file is there but cut short, changed, or not of ``corpus``.
    """
    path = Path(run_dir) / VECTORS_FILE
    if not path.exists() and not path.is_symlink():
        return word_vectors(corpus or read_run_config(run_dir)[1].get("corpus") or "embedded")
    check_sha256sums(run_dir, [VECTORS_FILE], _HINT)
    try:
        data = read_regular_file(path, MAX_BYTES, folder=run_dir)
        table = load(data)["vectors"]
        with_header = parse_json(data[8:8 + int.from_bytes(data[:8], "little")], path)
        metadata = with_header["__metadata__"]
        words = parse_json(metadata["words"], path)  # NotJSON is a ValueError
    except (SafetensorError, KeyError, ValueError, TypeError) as error:
        raise DamagedFile(path, f"it does not load ({error})", _HINT) from None
    if table.dtype != torch.float32 or table.shape[0] != len(words) + 1:
        raise DamagedFile(path, f"it holds a {tuple(table.shape)} {table.dtype} table for "
                                f"{len(words)} words", _HINT)
    if metadata.get("sha256") != _digest(table, words):
        raise DamagedFile(path, "its rows are not the ones it was written with", _HINT)
    try:  # finite, and of a size vectors scaled to unit variance can have
        check_weights(path, {"vectors": table})
    except ValueError as error:
        raise DamagedFile(path, str(error).removeprefix(f"{path}: "), _HINT) from None
    if corpus is not None and metadata.get("corpus") != corpus:
        raise DamagedFile(path, f"it holds vectors of {metadata.get('corpus')!r}, "
                                f"not of {corpus!r}", _HINT)
    covered = {SAME_WORDS.get(t, t) for t in metadata.get("tasks", "").split(",")}
    missing = {SAME_WORDS.get(t, t) for t in tasks} - covered
    if missing:  # written by a report of other tasks: its words are not all there
        warnings.warn(f"{path} has no vectors for the words of {', '.join(sorted(missing))}; "
                      "computing the vectors from the corpus", stacklevel=2)
        return word_vectors(metadata["corpus"])
    return table, {w: i for i, w in enumerate(words, start=1)}
