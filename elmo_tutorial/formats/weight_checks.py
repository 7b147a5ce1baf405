"""Official model files are input too: check ``options.json`` and hdf5 weights before use.

A weight file can load and still be wrong: integer or boolean tensors (copied into the float
parameters without a word), NaN or infinite values (every output NaN), finite values no
training gives (``1e29``: every output ``1e29``, which passes a NaN check), storage that was
never written (an hdf5 chunk or dataset that reads as its fill value, zeros by default), a
matrix stored transposed or of another model (PyTorch's ``load_state_dict`` answers with a
40-line ``size mismatch``). An ``options.json`` can hold ``256.5``, ``"256"``, ``true`` or ``1e12``
where a size belongs, which becomes a ``TypeError`` deep inside, or gigabytes allocated before
anything fails. The functions here turn each of these into one ``ValueError`` line that names
the file and the tensor or field, before a single parameter is allocated.

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

from elmo_tutorial.files.safe_files import DamagedFile

if TYPE_CHECKING:  # h5py is imported where an hdf5 file is read, not with every model
    import h5py

__all__ = ["MAX_PARAMETERS", "check_hdf5_layout", "check_options", "float_weights",
           "open_weight_file"]

MAX_DIM = 32_768  # widths (lstm.dim, projection_dim, ...); the largest released ELMo uses 8192
MAX_DEPTH = 16  # LSTM layers, highway layers
MAX_VOCAB = 10_000_000  # n_tokens_vocab; the released models have 793,471 words
MAX_PARAMETERS = 2_000_000_000  # 8 GB of float32 encoder weights: far beyond any ELMo
# Trained and freshly initialised biLM weights are small numbers (the shipped models' largest
# is 2.3); a value beyond this is garbage or a diverged training, whose outputs overflow.
MAX_ABS_WEIGHT = 1e4


def _whole(value, where: str, source, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{source}: {where} must be a whole number between {low} and {high}, "
                         f"got {value!r:.40}; is it an ELMo options file, and unedited?")
    return value


def _section(options, key: str, source) -> dict:
    value = options.get(key) if isinstance(options, dict) else None
    if not isinstance(value, dict):
        raise ValueError(f"{source}: {key} must be an object ({{...}}), got {value!r:.40}; is "
                         "it an ELMo options file?")
    return value


def check_options(options, source: str | Path = "options.json") -> None:
    """Check the types and sizes of an ``options.json`` (bilm-tf / AllenNLP) dictionary.

    Raises:
        ValueError: one line naming ``source`` and the first field of a wrong type or an
            absurd size (``lstm.dim``, ``char_cnn.filters[2]``, ...), or a model whose encoder
            would exceed :data:`MAX_PARAMETERS`.
    """
    if not isinstance(options, dict):
        raise ValueError(f"{source}: expected a JSON object, got {type(options).__name__}")
    lstm, cnn = _section(options, "lstm", source), _section(options, "char_cnn", source)
    embedding = _section(cnn, "embedding", f"{source}: char_cnn")
    C = _whole(lstm.get("dim"), "lstm.dim", source, 1, MAX_DIM)
    P = _whole(lstm.get("projection_dim"), "lstm.projection_dim", source, 1, MAX_DIM)
    layers = _whole(lstm.get("n_layers"), "lstm.n_layers", source, 1, MAX_DEPTH)
    E = _whole(embedding.get("dim"), "char_cnn.embedding.dim", source, 1, MAX_DIM)
    highway = _whole(cnn.get("n_highway"), "char_cnn.n_highway", source, 0, MAX_DEPTH)
    max_chars = _whole(cnn.get("max_characters_per_token", 50),
                       "char_cnn.max_characters_per_token", source, 3, 1000)
    filters = cnn.get("filters")
    if not isinstance(filters, list) or not filters:
        raise ValueError(f"{source}: char_cnn.filters must be a list of [width, count] pairs, "
                         f"got {filters!r:.40}")
    F = 0
    for i, pair in enumerate(filters):
        if not isinstance(pair, list) or len(pair) != 2:
            raise ValueError(f"{source}: char_cnn.filters[{i}] must be a [width, count] pair, "
                             f"got {pair!r:.40}")
        width = _whole(pair[0], f"char_cnn.filters[{i}] width", source, 1, max_chars)
        F += _whole(pair[1], f"char_cnn.filters[{i}] count", source, 1, MAX_DIM) * width * E
    n_filters = sum(pair[1] for pair in filters)
    _whole(n_filters, "the total filter count of char_cnn.filters", source, 1, MAX_DIM)
    if "n_tokens_vocab" in options:
        _whole(options["n_tokens_vocab"], "n_tokens_vocab", source, 0, MAX_VOCAB)
    for key in ("cell_clip", "proj_clip"):
        value = lstm.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
            raise ValueError(f"{source}: lstm.{key} must be a number or null, got {value!r:.40}")
    for key, kind in (("use_skip_connections", bool), ("activation", str)):
        where = lstm if key == "use_skip_connections" else cnn
        if key in where and not isinstance(where[key], kind):
            raise ValueError(f"{source}: {key} must be a {kind.__name__}, got {where[key]!r:.40}")
    # The big matrices: convolutions, highway, projection, and per LSTM layer and direction
    # W (2P × 4C) and the projection (C × P).
    parameters = F + highway * 2 * n_filters * n_filters + n_filters * P + 2 * layers * (
        8 * P * C + C * P)
    if parameters > MAX_PARAMETERS:
        raise ValueError(f"{source}: these sizes make an encoder of {parameters:,} parameters, "
                         f"more than {MAX_PARAMETERS:,} ({4 * parameters / 1e9:.0f} GB); the "
                         "file is not a real ELMo model's options")


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
        if np.dtype(data.dtype).kind != "f":
            raise ValueError(f"{path}: the dataset {name!r} ({why}) is {data.dtype}, but weights "
                             "are floating point; the file is damaged or not a model's weights")
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


def open_weight_file(weight_file: str | Path) -> h5py.File:
    """The hdf5 file, open for reading, once h5py can open it.

    Raises:
        FileNotFoundError: nothing at the path.
        ValueError: it is not an hdf5 file at all.
        DamagedFile: h5py cannot open it: cut short (a download cut off), or overwritten.
    """
    import h5py

    if not Path(weight_file).exists():
        raise FileNotFoundError(f"{weight_file} not found")
    if not h5py.is_hdf5(weight_file):  # no hdf5 signature at all: another kind of file
        raise ValueError(f"{weight_file} is not an hdf5 weight file (e.g. lm_weights.hdf5 or "
                         "weights.hdf5 of an official ELMo model)")
    try:
        return h5py.File(weight_file, "r")
    except OSError as error:  # truncated (a cut download), overwritten, not hdf5 at all
        raise DamagedFile(Path(weight_file), f"h5py: {str(error).splitlines()[0][:100]}", (
            "it is damaged or not an hdf5 file: download the weights again (a download cut "
            "short?), or give the .hdf5 file of an official ELMo model")) from None
