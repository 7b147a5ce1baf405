"""Official weights and options.json (``formats.weight_checks``): wrong dtypes, NaN and field
types are one-line errors naming the file and the dataset or field, before anything is
allocated. (The package's own safetensors weights: tests/training/test_run_folder.py.)"""

from __future__ import annotations

import json

import h5py
import numpy as np
import pytest

from elmo_tutorial.formats.allennlp_format import load_allennlp, read_options, save_allennlp
from elmo_tutorial.model.config import MODEL_PRESETS
from elmo_tutorial.model.elmo import ELMo


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


@pytest.mark.parametrize("field, value, expected", [  # sizes and types: ModelConfig's checks
    ("lstm.dim", 256.5, "lstm_dim must be int, got 256.5"),
    ("lstm.dim", "256", "lstm_dim must be int, got '256'"),
    ("lstm.projection_dim", True, "projection_dim must be int, got True"),
    ("lstm.dim", 10**7, "lstm_dim is 10,000,000, more than any ELMo needs"),
    ("char_cnn.n_highway", 10**6, "n_highway is 1,000,000, more than any ELMo needs"),
    ("n_tokens_vocab", 10**12, "vocab_size is 1,000,000,000,000, more than any ELMo needs"),
    ("lstm", [1, 2], "lstm must be an object"),
    ("char_cnn.filters", {"1": 32}, "char_cnn.filters must be a list of [width, count] pairs"),
    ("char_cnn.filters", [[1, 32], [2]], "filters must be tuple[tuple[int, int], ...]"),
    ("lstm.cell_clip", "3", "cell_clip must be float | None"),
    ("lstm.n_layers", 16, "parameters, more than"),  # each size allowed, all together absurd
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
        options["lstm"].update(dim=16384, projection_dim=16384)
    (tmp_path / "options.json").write_text(json.dumps(options))
    with pytest.raises(ValueError) as error:
        read_options(tmp_path / "options.json")
    message = str(error.value)
    assert message.startswith(f"{tmp_path / 'options.json'}: ") and expected in message, message
    assert "\n" not in message
