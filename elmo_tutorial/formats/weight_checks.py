"""Official model files are input too: check ``options.json`` and hdf5 weights before use.

A weight file can load and still be wrong: integer tensors (copied into float parameters
without a word), NaN or infinite values, finite values no training gives (``1e29``), storage
never written (read as its fill value, zeros by default), a matrix of another shape (a 40-line
``size mismatch``). An ``options.json`` can hold ``"256"`` or ``1e12`` where a size belongs.
The functions here (and ``ModelConfig``'s own checks) turn each into one ``ValueError`` line
naming the file and the tensor or field, before a single parameter is allocated.

Example:
    >>> check_options({"lstm": [256]}, "options.json")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: options.json: lstm must be an object ({...}), got [256]; is it an ELMo...
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # h5py is imported where an hdf5 file is read, not with every model
    import h5py

__all__ = ["check_hdf5_layout", "check_options", "float_weights"]

# Trained and freshly initialised biLM weights are small numbers (the shipped models' largest
# is 2.3); a value beyond this is garbage or a diverged training, whose outputs overflow.
MAX_ABS_WEIGHT = 1e4


def _section(options, key: str, source) -> dict:
    value = options.get(key) if isinstance(options, dict) else None
    if not isinstance(value, dict):
        raise ValueError(f"{source}: {key} must be an object ({{...}}), got {value!r:.40}; is "
                         "it an ELMo options file?")
    return value


def check_options(options, source: str | Path = "options.json") -> None:
    """Check the structure of an ``options.json`` dictionary: the objects and the list of
    filters that ``ModelConfig.from_options`` reads (which checks the values' types and sizes).
    """
    if not isinstance(options, dict):
        raise ValueError(f"{source}: expected a JSON object, got {type(options).__name__}")
    _section(options, "lstm", source)
    cnn = _section(options, "char_cnn", source)
    _section(cnn, "embedding", f"{source}: char_cnn")
    filters = cnn.get("filters")
    if not isinstance(filters, list) or not all(isinstance(p, list) for p in filters):
        raise ValueError(f"{source}: char_cnn.filters must be a list of [width, count] pairs, "
                         f"got {filters!r:.40}")


def float_weights(what: str, data) -> np.ndarray:
    """``data`` (an hdf5 dataset or an array) as float32, if it is floating point, finite,
    below :data:`MAX_ABS_WEIGHT` and not one number everywhere; else a ``ValueError`` naming
    ``what``."""
    if np.dtype(data.dtype).kind != "f":
        raise ValueError(f"{what} is {data.dtype}, but weights are floating point; the file is "
                         "damaged or not a model's weights")
    values = np.asarray(data[...], dtype=np.float32)
    if not np.isfinite(values).all():
        raise ValueError(f"{what} holds {int((~np.isfinite(values)).sum())} NaN or infinite "
                         "values; these weights are damaged")
    if values.size and (largest := np.abs(values).max()) > MAX_ABS_WEIGHT:
        raise ValueError(f"{what} holds values as large as {largest:.3g}, where trained weights "
                         f"stay far below {MAX_ABS_WEIGHT:g}; these weights are damaged (or come "
                         "from a diverged training)")
    if values.ndim >= 2 and values.size > 1 and (values == values.flat[0]).all():
        raise ValueError(f"{what} is {values.flat[0]:g} everywhere: a matrix of one number is "
                         "storage that was never written (read as its fill value), not "
                         "weights; the file is damaged: download the weights again")
    return values


def check_hdf5_layout(file: h5py.File, path: str, layout: dict) -> None:
    """Check, before a single value is read, that every dataset of ``layout`` (``{name:
    (shape, what it holds)}``, what the options imply) is there, of its shape, and stored in
    the file itself: external storage (``/etc/passwd``, a FIFO), a link or a virtual dataset
    would make h5py read what the user never gave. ``ValueError`` for the first that is not.
    """
    import h5py

    for name in layout:
        parts = name.split("/")
        for depth in range(1, len(parts) + 1):
            link = file.get("/".join(parts[:depth]), getlink=True)
            if isinstance(link, h5py.ExternalLink | h5py.SoftLink):
                kind = "an external link" if isinstance(link, h5py.ExternalLink) else "a link"
                raise ValueError(f"{path}: {'/'.join(parts[:depth])!r} is {kind}, not data; "
                                 "official ELMo weight files hold their datasets themselves: "
                                 "download the weights again")
            if link is None:
                raise ValueError(f"{path}: the dataset {name!r} ({layout[name][1]}) is missing. "
                                 "Check that the weight file belongs to this options.json "
                                 "(bilm-tf/AllenNLP ELMo format).")
        data = file[name]
        if not isinstance(data, h5py.Dataset):
            raise ValueError(f"{path}: {name!r} is a group, not a dataset; is it an ELMo file?")
        if data.external is not None or data.is_virtual:
            raise ValueError(f"{path}: the dataset {name!r} keeps its values in other files "
                             f"({'virtual' if data.is_virtual else 'external storage'}); "
                             "official ELMo weight files hold them: download the weights again")
        shape, why = layout[name]
        if tuple(data.shape) != shape:
            raise ValueError(
                f"{path}: the dataset {name!r} ({why}) has shape {tuple(data.shape)}, but "
                f"options.json implies {shape}. Are the options and weights a pair?")
        unwritten = _unwritten(data)
        if unwritten:
            raise ValueError(f"{path}: the dataset {name!r} ({why}) {unwritten}, which would "
                             f"read as its fill value ({data.fillvalue:g}), not as weights; the "
                             "file is damaged: download the weights again")


def _unwritten(data) -> str | None:
    """What part of an hdf5 dataset's storage was never written, in words; None if none (h5py
    reads unwritten storage as the fill value, without an error: rows of zeros)."""
    import h5py

    layout = data.id.get_create_plist().get_layout()
    if layout == h5py.h5d.CHUNKED:
        expected = int(np.prod([-(-n // c) for n, c in zip(data.shape, data.chunks,
                                                            strict=True)]))
        written = data.id.get_num_chunks()
        return (f"holds {written} of its {expected} chunks" if written < expected else None)
    if layout == h5py.h5d.CONTIGUOUS and data.id.get_offset() is None:
        return "has no storage written at all"
    return None
