"""Official model files are input too: check ``options.json`` and hdf5 weights before use.

A weight file can load and still be wrong: integer or boolean tensors (copied into the float
parameters without a word), NaN or infinite values (every output NaN), finite values no
training gives (``1e29``: every output ``1e29``, which passes a NaN check), storage that was
never written (an hdf5 chunk or dataset that reads as its fill value, zeros by default), a
matrix stored transposed or of another model (PyTorch's ``load_state_dict`` answers with a
40-line ``size mismatch``). An ``options.json`` can hold ``256.5``, ``"256"``, ``true`` or ``1e12``
where a size belongs, which becomes a ``TypeError`` deep inside, or gigabytes allocated before
anything fails. The functions here (and ``ModelConfig``'s own checks of types and sizes) turn
each of these into one ``ValueError`` line that names the file and the tensor or field, before
a single parameter is allocated.

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
    """Check the structure of an ``options.json`` (bilm-tf / AllenNLP) dictionary: the objects
    and the list of filters that ``ModelConfig.from_options`` reads. The values' types and sizes
    are then checked by ``ModelConfig`` itself, before anything is allocated.

    Raises:
        ValueError: one line naming ``source`` and the first part that is not of its shape.
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


def _too_large(largest) -> str:
    return (f"holds values as large as {float(largest):.3g}, where trained weights stay far "
            f"below {MAX_ABS_WEIGHT:g}; these weights are damaged (or come from a diverged "
            "training)")


def float_weights(what: str, data) -> np.ndarray:
    """``data`` (an hdf5 dataset or an array) as float32, if it is floating point and finite.

    Raises:
        ValueError: ``"{what} is int32, but weights are floating point; ..."`` or ``"{what}
            holds N NaN or infinite values; ..."``.
    """
    if np.dtype(data.dtype).kind != "f":
        raise ValueError(f"{what} is {data.dtype}, but weights are floating point; the file is "
                         "damaged or not a model's weights")
    values = np.asarray(data[...], dtype=np.float32)
    if not np.isfinite(values).all():
        raise ValueError(f"{what} holds {int((~np.isfinite(values)).sum())} NaN or infinite "
                         "values; these weights are damaged")
    if values.size and np.abs(values).max() > MAX_ABS_WEIGHT:
        raise ValueError(f"{what} {_too_large(np.abs(values).max())}")
    if values.ndim >= 2 and values.size > 1 and (values == values.flat[0]).all():
        raise ValueError(f"{what} is {values.flat[0]:g} everywhere: a matrix of one number is "
                         "storage that was never written (read as its fill value), not "
                         "weights; the file is damaged: download the weights again")
    return values


def check_hdf5_layout(file: h5py.File, path: str, layout: dict) -> None:
    """Refuse what would read elsewhere, then check that every dataset the options imply is
    there with its shape and a floating-point dtype, all before a single value is read.

    A weight file is input like any other: a dataset whose storage is another file (external
    storage, ``/etc/passwd`` or a FIFO), a link to another file or within this one, or a
    virtual dataset would make h5py read what the user never gave.

    Args:
        layout: ``{dataset name: (shape, what it holds)}``, what the options imply.

    Raises:
        ValueError: the first dataset missing, stored elsewhere, of another shape or dtype.
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
    """What part of an hdf5 dataset's storage was never written, in words; None if none.

    h5py answers a read of unwritten storage with the dataset's fill value (zeros unless the
    file sets another), without an error: a file whose writer stopped early, or one made so,
    would load as a model with rows of zeros."""
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
