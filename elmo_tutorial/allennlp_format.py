"""Official ELMo weights: read and write the bilm-tf / AllenNLP ``options.json`` + hdf5 format.

The released models (``elmo_2x4096_512_2048cnn_2xhighway``, the 5.5B one, the small ones) and
AllenNLP's test fixture store every TensorFlow variable of bilm-tf as one hdf5 dataset::

    char_embed                               (261, E)        no padding row (we add row 0)
    CNN/W_cnn_{i}, CNN/b_cnn_{i}             (1, w, E, n), (n,)     one per filter width
    CNN_high_{k}/W_carry, b_carry            (F, F), (F,)    gate of the *transform* branch
    CNN_high_{k}/W_transform, b_transform    (F, F), (F,)    the ReLU branch
    CNN_proj/W_proj, b_proj                  (F, P), (P,)    absent when F == P
    RNN_{d}/RNN/MultiRNNCell/Cell{l}/LSTMCell/W_0    (I + P, 4C)   d = 0 forward, 1 backward
                                          .../B      (4C,)
                                          .../W_P_0  (C, P)        the LSTM's projection

TensorFlow multiplies ``x @ W`` where PyTorch stores ``W`` as ``(out, in)``, so every matrix is
transposed. Beyond that, four conventions differ and are converted here, in both directions:

1. **Gate order.** TF's ``LSTMCell`` stacks ``(i, j, f, o)``; ``nn.LSTM`` stacks
   ``(i, f, g, o)`` with ``g`` = TF's ``j``: the 2nd and 3rd blocks swap.
2. **Forget bias.** TF adds a constant 1.0 to the forget gate at run time that is not in ``B``.
3. **Two biases.** ``nn.LSTM`` adds ``bias_ih`` and ``bias_hh`` where TF has one ``B``. Load
   puts ``B`` in ``bias_ih`` and TF's constant in ``bias_hh`` (1.0 on the forget gate, 0
   elsewhere): the sum is TF's effective bias, and each tensor says where its part came from.
   Save writes ``bias_ih + bias_hh − 1·forget``, computed as ``bias_ih + (bias_hh − 1·forget)``
   so that a file loaded and saved again comes back bit for bit.
4. **Highway gate.** bilm-tf's ``W_carry`` gates the transform branch; our ``Highway`` gates the
   carried input (AllenNLP's convention), so the gate rows are ``-W_carryᵀ``, ``-b_carry``.

Also: the convolution ``(1, w, E, n)`` becomes ``Conv1d``'s ``(n, E, w)``, and the file's 261
character rows become our 262 (row 0, for padded token positions, is zero). ``options.json``
says ``n_characters: 262`` for inference (bilm-tf refuses anything else at that stage).

Example:
    >>> model = load_allennlp("options.json", "lm_weights.hdf5")       # doctest: +SKIP
    >>> save_allennlp(model, "copy/options.json", "copy/weights.hdf5")  # doctest: +SKIP
"""

from __future__ import annotations

import io
import json
import warnings
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import h5py
import numpy as np
import torch

from .config import ModelConfig
from .elmo import ELMo
from .files.guarded_read import check_inside, check_regular_file, read_regular_file
from .files.safe_files import DamagedFile, atomic_write, atomic_write_text
from .weight_checks import check_hdf5_layout, check_options, float_weights, open_weight_file

MAX_OPTIONS_BYTES = 1 << 20  # an options.json is about 1 kB
MAX_WEIGHTS_BYTES = 1 << 36  # the largest released ELMo's weights take 0.7 GB
HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"

DIRECTIONS = ("forward_lstm", "backward_lstm")  # RNN_0, RNN_1


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
    """Read an official hdf5 weight file into a state dict of our ``BidirectionalLM`` encoder.

    Returns:
        ``{parameter name: tensor}`` with the names of ``BidirectionalLM`` (``char_cnn.*``,
        ``forward_lstm.layers.{l}.*``, ``backward_lstm.layers.{l}.*``), float32.

    Raises:
        FileNotFoundError, NotARegularFile: no regular file at ``weight_file``.
        DamagedFile: h5py cannot open it (cut short, not hdf5) or read a dataset.
        ValueError: a dataset missing, of another shape or dtype, or stored elsewhere.
    """
    E, P, C = config.char_embed_dim, config.projection_dim, config.lstm_dim
    F = config.n_filters
    out: dict[str, np.ndarray] = {}
    with open_weight_file(weight_file, MAX_WEIGHTS_BYTES) as file:
        layout = _layout(config, with_projection="CNN_proj" in file or F != P)
        check_hdf5_layout(file, str(weight_file), layout)
        try:
            w = {name: float_weights(f"{weight_file}: the dataset {name!r} ({why})", file[name])
                 for name, (_, why) in layout.items()}
        except OSError as error:  # the data itself is cut short
            raise DamagedFile.of(Path(weight_file), error) from None
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

    P = config.projection_dim
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
    assert datasets["CNN_proj/W_proj"].shape[1] == P

    def write(tmp: str) -> None:  # built in memory: h5py crashes when the disk fills
        buffer = io.BytesIO()
        with h5py.File(buffer, "w") as file:
            for name, value in datasets.items():
                file.create_dataset(name, data=np.ascontiguousarray(value, dtype=np.float32))
        Path(tmp).write_bytes(buffer.getbuffer())  # a full disk: an ordinary OSError

    atomic_write(weight_file, write)


def read_options(options_file: str | Path) -> ModelConfig:
    """Read an ``options.json`` (bilm-tf / AllenNLP) into a ``ModelConfig``.

    Raises:
        FileNotFoundError, NotARegularFile: no regular file of a sane size there.
        ValueError: not JSON, an hdf5 file (swapped arguments?), or a wrong field.
    """
    data = read_regular_file(options_file, MAX_OPTIONS_BYTES)
    if data.startswith(HDF5_SIGNATURE):
        raise ValueError(f"{options_file} is an hdf5 weight file, not options.json: are the "
                         "arguments swapped? It is load_allennlp(options_file, weight_file)")
    try:
        options = json.loads(data.decode("utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ValueError(f"{options_file} is not valid JSON: {error}") from None
    check_options(options, options_file)  # types and sizes, before anything is allocated
    return ModelConfig.from_options(options)


def load_allennlp(options_file: str | Path, weight_file: str | Path, **elmo_kwargs):
    """Build an ``ELMo`` from official (bilm-tf / AllenNLP) ``options.json`` + hdf5 weights.

    Args:
        options_file: the model's ``options.json``.
        weight_file: the matching ``*.hdf5`` weights.
        **elmo_kwargs: passed to ``ELMo`` (``do_layer_norm``, ``dropout``,
            ``keep_sentence_boundaries``, ...).

    Returns:
        An ``ELMo`` in eval mode. Its LSTMs clip as the options say, so they run the faithful
        step-by-step path whenever the model clips (the released models do).

    Raises:
        ValueError: naming the dataset that is missing, has the wrong shape or is stored
            elsewhere; :class:`DamagedFile` for a file h5py cannot read; ``NotARegularFile``
            for a FIFO, a device or a folder.
    """
    config = read_options(options_file)
    # the weights are read, and every dataset's shape checked, before the model is built: a
    # wrong options.json must not allocate gigabytes of parameters the file cannot fill
    state = read_bilm_weights(weight_file, config)
    model = ELMo(config, **elmo_kwargs)
    expected = set(model.bilm.state_dict())
    if set(state) != expected:  # a mismatch here is a bug in this file, not in the user's data
        raise RuntimeError(
            f"weight names do not match the model: missing {sorted(expected - set(state))}, "
            f"unexpected {sorted(set(state) - expected)}"
        )
    model.bilm.load_state_dict(state)
    return model.eval()


def load_model(paths: Sequence[str | Path]):
    """An ``ELMo`` from a run directory, a folder with ``options.json`` + ``*.hdf5``, or the pair.

    Args:
        paths: one directory (a run from ``elmo-tutorial train``, the shipped
            ``data/models/small``, or a folder holding one official ``options.json`` and one
            ``.hdf5`` file), or the two files of an official model in either order.

    Raises:
        ValueError: the paths are not a model, with what was found and what is expected.
    """
    paths = [Path(p) for p in paths]
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        raise ValueError(f"no such file or directory: {', '.join(missing)}")
    if len(paths) == 1 and paths[0].is_dir():
        folder = paths[0]
        if (folder / "config.json").exists():
            return ELMo.from_run(folder)
        options, weights = sorted(folder.glob("*options*.json")), sorted(folder.glob("*.hdf5"))
        if len(options) == 1 and len(weights) == 1:
            for path in (*options, *weights):  # the pair is read from this folder only
                check_inside(path, folder)
            return load_allennlp(options[0], weights[0])
        raise ValueError(f"{folder} is neither a run directory (no config.json) nor a folder "
                         "with exactly one *options*.json and one *.hdf5 file")
    if len(paths) == 2 and not any(p.is_dir() for p in paths):
        for path in paths:  # h5py.is_hdf5 would wait forever on a FIFO
            check_regular_file(path, MAX_WEIGHTS_BYTES)
        weights = [p for p in paths if h5py.is_hdf5(p)]
        if len(weights) != 1:
            raise ValueError(f"expected an options .json file and an .hdf5 weight file, got "
                             f"{paths[0]} and {paths[1]} ({len(weights)} of them hdf5)")
        options = paths[1] if weights[0] == paths[0] else paths[0]
        return load_allennlp(options, weights[0])
    raise ValueError("MODEL is a run directory, a folder with options.json + weights.hdf5, or "
                     f"the two files; got {len(paths)} path(s): {', '.join(map(str, paths))}")


def save_allennlp(model, options_file: str | Path, weight_file: str | Path) -> None:
    """Write ``model``'s biLM as ``options.json`` + hdf5 weights that AllenNLP's ``Elmo`` loads.

    Only the biLM is written (the format has no place for a scalar mix or a softmax); the
    options carry ``n_characters: 262`` and explicit ``cell_clip``/``proj_clip`` (``null`` when
    the model does not clip), both of which AllenNLP's loader expects.

    Args:
        model: an ``ELMo`` (anything with ``config`` and a ``bilm`` ``BidirectionalLM`` works).
        options_file, weight_file: paths to write; parent folders are created.
    """
    bilm = model.bilm
    config = replace(model.config, vocab_size=0)
    if not config.use_skip_connections:
        warnings.warn(
            "this model has no skip connections: bilm-tf loads it, AllenNLP's Elmo refuses it",
            stacklevel=2,
        )
    options = config.to_options()
    options["lstm"].setdefault("cell_clip", None)
    options["lstm"].setdefault("proj_clip", None)
    for path in (options_file, weight_file):
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(options_file, json.dumps(options, indent=2))
    state = {name: p for name, p in bilm.state_dict().items() if not name.startswith("softmax.")}
    write_bilm_weights(state, config, weight_file)


__all__ = ["load_allennlp", "load_model", "save_allennlp", "read_bilm_weights",
           "write_bilm_weights"]
