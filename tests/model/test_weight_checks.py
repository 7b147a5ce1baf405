"""Weights and options.json read from files: wrong dtypes, NaN, shapes and field types are
one-line errors naming the file and the tensor or field, before anything is allocated."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import h5py
import numpy as np
import pytest
import torch
from safetensors.torch import load_file, save_file

from elmo_tutorial.commands.cli import main as cli
from elmo_tutorial.formats.allennlp_format import load_allennlp, read_options, save_allennlp
from elmo_tutorial.model.config import MODEL_PRESETS
from elmo_tutorial.model.elmo import ELMo

TINY = Path(__file__).resolve().parents[2] / "data" / "models" / "tiny"
TENSOR = "forward_lstm.layers.0.weight_ih_l0"


def _damaged(state: dict, damage: str) -> dict:
    tensor = state[TENSOR]
    state[TENSOR] = {
        "int32": lambda: tensor.to(torch.int32),
        "bool": lambda: tensor > 0,
        "nan": lambda: tensor.clone().index_fill_(0, torch.tensor([3]), float("nan")),
        "inf": lambda: tensor.clone().index_fill_(0, torch.tensor([3]), float("inf")),
        "transposed": lambda: tensor.T.contiguous(),
        "other shape": lambda: tensor[:-4].contiguous(),
        "huge": lambda: tensor.clone().index_fill_(0, torch.tensor([3]), 3e4),  # finite (float16)
    }[damage]()
    return state


EXPECTED = {"int32": "is int32, but weights are floating point",
            "bool": "is bool, but weights are floating point",
            "nan": "holds 64 NaN or infinite values", "inf": "holds 64 NaN or infinite values",
            "transposed": "(transposed?)", "other shape": "are the weights and the config",
            "huge": "holds values as large as"}


@pytest.mark.parametrize("damage", list(EXPECTED))
def test_damaged_safetensors_weights_are_one_line_errors_naming_file_and_tensor(
        tmp_path, capsys, damage):
    run = shutil.copytree(TINY, tmp_path / "run")
    (run / "SHA256SUMS").unlink()  # damaged consistently: only the checks here can tell
    save_file(_damaged(load_file(run / "model.safetensors"), damage),
              run / "model.safetensors")
    with pytest.raises(ValueError, match=TENSOR) as error:
        ELMo.from_run(run)
    message = str(error.value)
    assert str(run) in message and EXPECTED[damage] in message and "\n" not in message
    assert cli(["evaluate", str(run), "--max-sentences", "2", "--no-ngram"]) == 2
    err = capsys.readouterr().err
    assert TENSOR in err and err.count("\n") == 1, err


@pytest.mark.parametrize("damage", ["int32", "nan"])
def test_damaged_hdf5_weights_are_one_line_errors_naming_file_and_dataset(tmp_path, damage):
    save_allennlp(ELMo(MODEL_PRESETS["tiny"]), tmp_path / "options.json", tmp_path / "w.hdf5")
    with h5py.File(tmp_path / "w.hdf5", "r+") as f:
        name = "RNN_0/RNN/MultiRNNCell/Cell0/LSTMCell/W_0"
        values = f[name][...]
        del f[name]
        if damage == "nan":
            values[0, 0] = np.nan
        f.create_dataset(name, data=values.astype(np.int32) if damage == "int32" else values)
    expected = "is int32, but weights" if damage == "int32" else "holds 1 NaN or infinite"
    with pytest.raises(ValueError, match=f"w.hdf5: the dataset '{name}' .*{expected}"):
        load_allennlp(tmp_path / "options.json", tmp_path / "w.hdf5")


@pytest.mark.parametrize("field, value, expected", [
    ("lstm.dim", 256.5, "lstm.dim must be a whole number between 1 and 32768, got 256.5"),
    ("lstm.dim", "256", "lstm.dim must be a whole number between 1 and 32768, got '256'"),
    ("lstm.projection_dim", True, "lstm.projection_dim must be a whole number"),
    ("lstm.dim", 10**7, "lstm.dim must be a whole number between 1 and 32768, got 10000000"),
    ("char_cnn.n_highway", 10**6, "char_cnn.n_highway must be a whole number between 0 and 16"),
    ("n_tokens_vocab", 10**12, "n_tokens_vocab must be a whole number between 0 and"),
    ("lstm", [1, 2], "lstm must be an object"),
    ("char_cnn.filters", {"1": 32}, "char_cnn.filters must be a list of [width, count] pairs"),
    ("char_cnn.filters", [[1, 32], [2]], "char_cnn.filters[1] must be a [width, count] pair"),
    ("lstm.cell_clip", "3", "lstm.cell_clip must be a number or null"),
    ("lstm.n_layers", 16, "encoder of"),  # each size allowed, all of them together absurd
])
def test_options_of_wrong_types_or_absurd_sizes_are_refused_naming_the_field(
        tmp_path, field, value, expected):
    save_allennlp(ELMo(MODEL_PRESETS["tiny"]), tmp_path / "options.json", tmp_path / "w.hdf5")
    options = json.loads((tmp_path / "options.json").read_text())
    *parents, key = field.split(".")
    where = options
    for parent in parents:
        where = where[parent]
    where[key] = value
    if field == "lstm.n_layers":
        options["lstm"].update(dim=32768, projection_dim=32768)
    (tmp_path / "options.json").write_text(json.dumps(options))
    with pytest.raises(ValueError) as error:
        read_options(tmp_path / "options.json")
    message = str(error.value)
    assert message.startswith(f"{tmp_path / 'options.json'}: ") and expected in message, message
    assert "\n" not in message
