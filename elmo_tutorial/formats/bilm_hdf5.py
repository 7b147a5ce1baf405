"""The hdf5 weight file of bilm-tf / AllenNLP, read into and written from the state dict of our
``BidirectionalLM`` encoder.

The datasets and the four conventions converted (gate order, TensorFlow's constant forget bias,
one bias for two, the highway gate's sign) are described in
:mod:`elmo_tutorial.formats.allennlp_format`, the module to call. Every dataset's shape is
checked against ``options.json`` before a byte of data is read (:func:`_layout`).

Example:
    >>> from elmo_tutorial.model.config import MODEL_PRESETS
    >>> state = read_bilm_weights("lm_weights.hdf5", MODEL_PRESETS["tiny"])  # doctest: +SKIP
"""

from __future__ import annotations

import io
from pathlib import Path

import h5py
import numpy as np
import torch

from elmo_tutorial.files.safe_files import DamagedFile, atomic_write
from elmo_tutorial.formats.weight_checks import check_hdf5_layout, float_weights
from elmo_tutorial.model.config import ModelConfig

__all__ = ["read_bilm_weights", "write_bilm_weights"]

DIRECTIONS = ("forward_lstm", "backward_lstm")  # RNN_0, RNN_1
# What h5py raises, besides our own ValueErrors, where a file's metadata is damaged: KeyError
# ("address of object past end of allocation"), RuntimeError ("bad local heap signature"),
# OSError (data cut short), and the rest of what a library may raise on bytes it cannot parse.
H5PY_DAMAGE = (KeyError, RuntimeError, OSError, TypeError, IndexError, OverflowError,
               AttributeError, SystemError)
DAMAGED_HINT = ("it is damaged or not an ELMo weight file: download the weights again (a "
                "download cut short?), or give the .hdf5 file of an official ELMo model")


def _lstm_root(direction: int, layer: int) -> str:
    return f"RNN_{direction}/RNN/MultiRNNCell/Cell{layer}/LSTMCell"


def _swap_gates(x: np.ndarray) -> np.ndarray:
    """Swap the 2nd and 3rd of four gate blocks along axis 0: (i, j, f, o) ↔ (i, f, j, o)."""
    i, j, f, o = np.split(x, 4, axis=0)
    return np.concatenate([i, f, j, o], axis=0)


def _forget_bias(cell_size: int) -> np.ndarray:
    """``(4C,)`` zeros with 1.0 on the forget gate (torch order): TF's ``forget_bias``."""
    bias = np.zeros(4 * cell_size, dtype=np.float32)
    bias[cell_size : 2 * cell_size] = 1.0
    return bias


def _layout(config: ModelConfig, with_projection: bool) -> dict[str, tuple[tuple, str]]:
    """``{dataset: (shape, what it holds)}``: every dataset ``options.json`` implies."""
    E, P, C, F = config.char_embed_dim, config.projection_dim, config.lstm_dim, config.n_filters
    layout = {"char_embed": ((config.n_characters - 1, E), "character embeddings")}
    for i, (width, count) in enumerate(config.filters):
        layout[f"CNN/W_cnn_{i}"] = ((1, width, E, count), f"filter width {width}")
        layout[f"CNN/b_cnn_{i}"] = ((count,), "conv bias")
    for k in range(config.n_highway):
        for part, why in (("transform", "highway transform"), ("carry", "highway gate")):
            layout[f"CNN_high_{k}/W_{part}"] = ((F, F), why)
            layout[f"CNN_high_{k}/b_{part}"] = ((F,), f"{why} bias")
    if with_projection:
        layout["CNN_proj/W_proj"] = ((F, P), "projection")
        layout["CNN_proj/b_proj"] = ((P,), "projection bias")
    for d, direction in enumerate(DIRECTIONS):
        for layer in range(config.n_layers):
            root, what = _lstm_root(d, layer), f"{direction} layer {layer}"
            layout[f"{root}/W_0"] = ((P + P, 4 * C), f"{what}, input and recurrent weights")
            layout[f"{root}/B"] = ((4 * C,), f"{what}, bias")
            layout[f"{root}/W_P_0"] = ((C, P), f"{what}, proj")
    return layout


def read_bilm_weights(weight_file: str | Path, config: ModelConfig) -> dict[str, torch.Tensor]:
    """Read an official hdf5 weight file into ``{parameter name: float32 tensor}`` with the
    names of ``BidirectionalLM`` (``char_cnn.*``, ``forward_lstm.layers.{l}.*``, ...).

    Raises:
        DamagedFile: h5py cannot open it (cut short), find its way through it (damaged
            metadata) or read a dataset.
        ValueError: a dataset missing, of another shape or dtype, stored elsewhere, never
            written, or holding values no training gives.
    """
    E, P, C = config.char_embed_dim, config.projection_dim, config.lstm_dim
    F = config.n_filters
    out: dict[str, np.ndarray] = {}
    if not Path(weight_file).exists():
        raise FileNotFoundError(f"{weight_file} not found")
    if not h5py.is_hdf5(weight_file):  # no hdf5 signature at all: another kind of file
        raise ValueError(f"{weight_file} is not an hdf5 weight file (e.g. lm_weights.hdf5 or "
                         "weights.hdf5 of an official ELMo model)")
    try:
        with h5py.File(weight_file, "r") as file:
            layout = _layout(config, with_projection="CNN_proj" in file or F != P)
            check_hdf5_layout(file, str(weight_file), layout)
            w = {name: float_weights(f"{weight_file}: the dataset {name!r} ({why})", file[name])
                 for name, (_, why) in layout.items()}
    except (FileNotFoundError, PermissionError):  # said by Python before h5py reads a byte
        raise
    except H5PY_DAMAGE as error:  # the HDF5 library's own words for a damaged file
        raise DamagedFile.of(Path(weight_file), error, DAMAGED_HINT) from None
    out["char_cnn.char_embedding.weight"] = np.concatenate([np.zeros((1, E), "f4"),
                                                            w["char_embed"]])
    for i, _ in enumerate(config.filters):
        out[f"char_cnn.convs.{i}.weight"] = w[f"CNN/W_cnn_{i}"][0].transpose(2, 1, 0)  # (n,E,w)
        out[f"char_cnn.convs.{i}.bias"] = w[f"CNN/b_cnn_{i}"]
    for k in range(config.n_highway):
        group = f"CNN_high_{k}"
        # rows [:F] → the ReLU branch h; rows [F:] → our carry gate g = 1 - TF's gate.
        out[f"char_cnn.highway.layers.{k}.weight"] = np.concatenate(
            [w[f"{group}/W_transform"].T, -w[f"{group}/W_carry"].T])
        out[f"char_cnn.highway.layers.{k}.bias"] = np.concatenate(
            [w[f"{group}/b_transform"], -w[f"{group}/b_carry"]])
    if "CNN_proj/W_proj" in w:
        out["char_cnn.projection.weight"] = w["CNN_proj/W_proj"].T
        out["char_cnn.projection.bias"] = w["CNN_proj/b_proj"]
    else:  # bilm-tf stores no projection when the filters already have width P
        out["char_cnn.projection.weight"] = np.eye(P, dtype="f4")
        out["char_cnn.projection.bias"] = np.zeros(P, "f4")
    for d, direction in enumerate(DIRECTIONS):
        for layer in range(config.n_layers):
            root, name = _lstm_root(d, layer), f"{direction}.layers.{layer}"
            weights = _swap_gates(w[f"{root}/W_0"].T)  # (4C, P + P), torch gate order
            out[f"{name}.weight_ih_l0"] = weights[:, :P]  # the input x_t (width P every layer)
            out[f"{name}.weight_hh_l0"] = weights[:, P:]  # the previous output h_{t-1}
            out[f"{name}.bias_ih_l0"] = _swap_gates(w[f"{root}/B"])
            out[f"{name}.bias_hh_l0"] = _forget_bias(C)  # TF's constant, made explicit
            out[f"{name}.weight_hr_l0"] = w[f"{root}/W_P_0"].T
    return {key: torch.from_numpy(np.ascontiguousarray(value)) for key, value in out.items()}


def write_bilm_weights(state: dict[str, torch.Tensor], config: ModelConfig, weight_file) -> None:
    """Write a ``BidirectionalLM`` encoder state dict as an official hdf5 weight file.

    The inverse of :func:`read_bilm_weights` (character row 0 is dropped; a projection is
    always written, which bilm-tf ignores when ``n_filters == projection_dim``).
    """

    def get(name: str) -> np.ndarray:
        return state[name].detach().to("cpu", torch.float32).numpy()

    datasets: dict[str, np.ndarray] = {"char_embed": get("char_cnn.char_embedding.weight")[1:]}
    for i, _ in enumerate(config.filters):
        datasets[f"CNN/W_cnn_{i}"] = get(f"char_cnn.convs.{i}.weight").transpose(2, 1, 0)[None]
        datasets[f"CNN/b_cnn_{i}"] = get(f"char_cnn.convs.{i}.bias")
    F = config.n_filters
    for k in range(config.n_highway):
        weight = get(f"char_cnn.highway.layers.{k}.weight")  # (2F, F)
        bias = get(f"char_cnn.highway.layers.{k}.bias")  # (2F,)
        datasets[f"CNN_high_{k}/W_transform"] = weight[:F].T
        datasets[f"CNN_high_{k}/W_carry"] = -weight[F:].T
        datasets[f"CNN_high_{k}/b_transform"] = bias[:F]
        datasets[f"CNN_high_{k}/b_carry"] = -bias[F:]
    datasets["CNN_proj/W_proj"] = get("char_cnn.projection.weight").T
    datasets["CNN_proj/b_proj"] = get("char_cnn.projection.bias")
    for d, direction in enumerate(DIRECTIONS):
        for layer in range(config.n_layers):
            root, name = _lstm_root(d, layer), f"{direction}.layers.{layer}"
            w = np.concatenate([get(f"{name}.weight_ih_l0"), get(f"{name}.weight_hh_l0")], axis=1)
            # TF adds its forget_bias of 1.0 at run time; subtracting it from bias_hh first
            # keeps a load → save round trip bit-exact (bias_hh is exactly that constant then).
            b_hh = get(f"{name}.bias_hh_l0") - _forget_bias(config.lstm_dim)
            b = _swap_gates(get(f"{name}.bias_ih_l0") + b_hh)  # (4C,), TF order (i, j, f, o)
            datasets[f"{root}/W_0"] = _swap_gates(w).T  # (P + P, 4C)
            datasets[f"{root}/B"] = b
            datasets[f"{root}/W_P_0"] = get(f"{name}.weight_hr_l0").T  # (C, P)

    def write(tmp: str) -> None:  # built in memory: h5py crashes when the disk fills
        buffer = io.BytesIO()
        with h5py.File(buffer, "w") as file:
            for name, value in datasets.items():
                file.create_dataset(name, data=np.ascontiguousarray(value, dtype=np.float32))
        Path(tmp).write_bytes(buffer.getbuffer())  # a full disk: an ordinary OSError

    atomic_write(weight_file, write)
