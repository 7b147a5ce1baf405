"""Official ELMo weights: read and write the bilm-tf / AllenNLP ``options.json`` + hdf5 format.

Taught in notebook 11 (``11_pretrained_and_scale``).

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

The conversions live in :mod:`elmo_tutorial.formats.bilm_hdf5`; this module reads
``options.json``, builds the model, finds a model folder's files (:func:`load_model`) and
writes both files (:func:`save_allennlp`).

Example:
    >>> model = load_allennlp("options.json", "lm_weights.hdf5")       # doctest: +SKIP
    >>> save_allennlp(model, "copy/options.json", "copy/weights.hdf5")  # doctest: +SKIP
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import h5py

from elmo_tutorial.files.safe_files import atomic_write_text

# the hdf5 weight file's datasets and their conversion; their names stay importable from here
from elmo_tutorial.formats.bilm_hdf5 import read_bilm_weights, write_bilm_weights
from elmo_tutorial.formats.weight_checks import check_options
from elmo_tutorial.model.config import ModelConfig
from elmo_tutorial.model.elmo import ELMo
from elmo_tutorial.training.run_folder import load_elmo

HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"


def read_options(options_file: str | Path) -> ModelConfig:
    """Read an ``options.json`` (bilm-tf / AllenNLP) into a ``ModelConfig``; ``ValueError``
    if it is not JSON, an hdf5 file (swapped arguments?), or has a wrong field."""
    data = Path(options_file).read_bytes()
    if data.startswith(HDF5_SIGNATURE):
        raise ValueError(f"{options_file} is an hdf5 weight file, not options.json: are the "
                         "arguments swapped? It is load_allennlp(options_file, weight_file)")
    try:  # a file from elsewhere: also JSON nested deeper than Python's stack
        options = json.loads(data)
    except (ValueError, RecursionError) as error:
        raise ValueError(f"{options_file} is not valid JSON ({str(error)[:100]}); is it the "
                         "options.json of an ELMo model, and whole?") from None
    check_options(options, options_file)  # its structure; ModelConfig checks types and sizes
    try:
        return ModelConfig.from_options(options)
    except ValueError as error:
        raise ValueError(f"{options_file}: {error}") from None


def load_allennlp(options_file: str | Path, weight_file: str | Path, **elmo_kwargs):
    """Build an ``ELMo`` from official (bilm-tf / AllenNLP) ``options.json`` + hdf5 weights.

    ``elmo_kwargs`` go to ``ELMo`` (``do_layer_norm``, ``dropout``...). Returns an ``ELMo`` in
    eval mode, its LSTMs clipping as the options say (the released models do), so that they run
    the faithful step-by-step path. A wrong dataset is one ``ValueError`` naming it; a file h5py
    cannot read, a :class:`~elmo_tutorial.files.safe_files.DamagedFile`.
    """
    config = read_options(options_file)
    # the weights are read, and every dataset's shape checked, before the model is built: a
    # wrong options.json must not allocate gigabytes of parameters the file cannot fill
    state = read_bilm_weights(weight_file, config)
    model = ELMo(config, **elmo_kwargs)
    model.bilm.load_state_dict(state)  # strict: every name, which read_bilm_weights gives
    return model.eval()


def load_model(paths: str | Path | Sequence[str | Path]):
    """An ``ELMo`` from a run directory, a folder with ``options.json`` + ``*.hdf5``, or the pair.

    ``paths``: one directory (a run from ``elmo-tutorial train``, the shipped
    ``data/models/small``, or a folder holding one official ``options.json`` and one ``.hdf5``
    file), or the two files of an official model in either order. ``ValueError`` if they are
    not a model, with what was found and what is expected.
    """
    if isinstance(paths, (str, Path)):  # one path, not its characters
        paths = [paths]
    paths = [Path(p) for p in paths]
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        raise ValueError(f"no such file or directory: {', '.join(missing)}")
    if len(paths) == 1 and paths[0].is_dir():
        folder = paths[0]
        if (folder / "config.json").exists():
            return load_elmo(folder)
        options, weights = sorted(folder.glob("*options*.json")), sorted(folder.glob("*.hdf5"))
        if len(options) == 1 and len(weights) == 1:
            return load_allennlp(options[0], weights[0])
        raise ValueError(f"{folder} is neither a run directory (no config.json) nor a folder "
                         "with exactly one *options*.json and one *.hdf5 file")
    if len(paths) == 2 and not any(p.is_dir() for p in paths):
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

    Only the biLM is written (the format has no place for a scalar mix or a softmax), each file
    atomically; the options carry ``n_characters: 262`` and explicit ``cell_clip``/``proj_clip``
    (``null`` when the model does not clip), which AllenNLP's loader expects.
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
    atomic_write_text(options_file, json.dumps(options, indent=2))
    state = {name: p for name, p in bilm.state_dict().items() if not name.startswith("softmax.")}
    write_bilm_weights(state, config, weight_file)


__all__ = ["load_allennlp", "load_model", "save_allennlp", "read_bilm_weights",
           "write_bilm_weights"]
