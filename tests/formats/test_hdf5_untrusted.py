"""An hdf5 weight file is untrusted input (issue 27, class 2).

A valid file of a tiny model is written with ``save_allennlp`` and then tampered with: a
dataset whose values live in another file (external storage: ``/etc/passwd``, a FIFO), links
to other files or within the file, a virtual dataset, a download cut short, and options whose
model the weights cannot fill. Each is refused in one line naming the file, before a value is
read from elsewhere and before the model is built.
"""

from __future__ import annotations

import json
import os

import h5py
import numpy as np
import pytest

from elmo_tutorial import ELMo, load_allennlp, save_allennlp
from elmo_tutorial.model.config import MODEL_PRESETS

CHAR = "char_embed"  # a dataset every file has


@pytest.fixture
def official(tmp_path):
    options, weights = tmp_path / "options.json", tmp_path / "weights.hdf5"
    save_allennlp(ELMo(MODEL_PRESETS["tiny"]), options, weights)
    return options, weights


def _replace_dataset(weights, name, make):
    """Delete ``name`` and let ``make(file, name, shape, dtype)`` put something there."""
    with h5py.File(weights, "r+") as file:
        shape, dtype = file[name].shape, file[name].dtype
        del file[name]
        make(file, name, shape, dtype)


def _external(source):
    def make(file, name, shape, dtype):
        file.create_dataset(name, shape=shape, dtype=dtype,
                            external=[(str(source), 0, h5py.h5f.UNLIMITED)])
    return make


def _external_link(file, name, shape, dtype):
    file[name] = h5py.ExternalLink("/nonexistent/other.hdf5", "/char_embed")


def _soft_link(file, name, shape, dtype):
    file.create_dataset("elsewhere", data=np.zeros(shape, dtype))
    file[name] = h5py.SoftLink("/elsewhere")


def _virtual(tmp_path):
    def make(file, name, shape, dtype):
        source = tmp_path / "source.hdf5"
        with h5py.File(source, "w") as other:
            other.create_dataset("data", data=np.zeros(shape, dtype))
        layout = h5py.VirtualLayout(shape=shape, dtype=dtype)
        layout[...] = h5py.VirtualSource(str(source), "data", shape=shape)
        file.create_virtual_dataset(name, layout)
    return make


def _passwd_sized(tmp_path):
    """A stand-in for /etc/passwd: a local text file holding exactly the dataset's bytes."""
    path = tmp_path / "passwd"
    path.write_bytes(b"root:x:0:0:root:/root:/bin/bash\n" * 10_000)
    return path


@pytest.mark.parametrize("tamper", ["external storage", "external storage in a FIFO",
                                    "external storage /etc/passwd", "external link",
                                    "soft link", "virtual dataset"])
def test_a_dataset_that_reads_elsewhere_is_refused(official, tmp_path, tamper, alarm):
    options, weights = official
    if tamper == "external storage":
        make = _external(_passwd_sized(tmp_path))
    elif tamper == "external storage /etc/passwd":
        make = _external("/etc/passwd")
    elif tamper == "external storage in a FIFO":
        os.mkfifo(tmp_path / "pipe")
        make = _external(tmp_path / "pipe")
    elif tamper == "external link":
        make = _external_link
    elif tamper == "soft link":
        make = _soft_link
    else:
        make = _virtual(tmp_path)
    _replace_dataset(weights, CHAR, make)
    with pytest.raises(ValueError, match=rf"^{weights}: .*(external|link|virtual|other files)"):
        load_allennlp(options, weights)


@pytest.mark.parametrize("cut", [0.5, 0.02])
def test_a_weight_file_cut_short_is_damaged_not_a_traceback(official, cut):
    options, weights = official
    data = weights.read_bytes()
    weights.write_bytes(data[:int(len(data) * cut)])
    with pytest.raises(ValueError, match=rf"^{weights} is damaged .*download the weights again"):
        load_allennlp(options, weights)


def test_a_file_that_is_not_hdf5_at_all_says_so(official):
    options, weights = official
    weights.write_text("<html>404 Not Found</html>\n")
    with pytest.raises(ValueError, match=rf"^{weights} is not an hdf5 weight file"):
        load_allennlp(options, weights)


@pytest.mark.parametrize("field", ["shape", "dtype", "missing"])
def test_every_dataset_is_checked_before_a_value_is_read(official, field):
    options, weights = official
    last = "RNN_1/RNN/MultiRNNCell/Cell1/LSTMCell/W_P_0"  # the last one read
    with h5py.File(weights, "r+") as file:
        shape = file[last].shape
        del file[last]
        if field == "shape":
            file.create_dataset(last, data=np.zeros(shape[::-1], "f4"))
        elif field == "dtype":
            file.create_dataset(last, data=np.zeros(shape, "i4"))
    with pytest.raises(ValueError, match={"shape": "has shape", "dtype": "is int32",
                                          "missing": "is missing"}[field]):
        load_allennlp(options, weights)


def test_large_options_are_refused_before_the_model_is_built(official, monkeypatch):
    """Options of a 4.85 GB model beside a tiny model's weights: refused from the shapes,
    before a single parameter is allocated."""
    import elmo_tutorial.formats.allennlp_format as allennlp_format

    options, weights = official
    settings = json.loads(options.read_text())
    settings["lstm"]["dim"], settings["lstm"]["projection_dim"] = 8_192, 4_096
    options.write_text(json.dumps(settings))

    def built(*args, **kwargs):
        raise AssertionError("the model was built before the weights' shapes were checked")

    monkeypatch.setattr(allennlp_format, "ELMo", built)
    with pytest.raises(ValueError, match="has shape .* but options.json implies"):
        load_allennlp(options, weights)


def test_absurd_options_say_the_size_in_words(official):
    options, weights = official
    settings = json.loads(options.read_text())
    settings["lstm"]["n_layers"], settings["lstm"]["dim"] = 16, 32_768
    settings["lstm"]["projection_dim"] = 16_384
    options.write_text(json.dumps(settings))
    with pytest.raises(ValueError, match=r"parameters, more than .* GB"):
        load_allennlp(options, weights)


def test_an_untampered_file_still_loads_the_same_model(official):
    options, weights = official
    model = load_allennlp(options, weights)
    assert model.config.lstm_dim == MODEL_PRESETS["tiny"].lstm_dim


# -- plausible-looking garbage: storage never written, values no training gives --------------

LSTM_W = "RNN_0/RNN/MultiRNNCell/Cell0/LSTMCell/W_0"  # (2P, 4C): 128 rows


@pytest.mark.parametrize("fill", [0.0, 0.01])
def test_chunks_never_written_are_refused_whatever_their_fill_value(official, fill):
    """h5py reads an unwritten chunk as the fill value without a word: rows of zeros (or of
    a planted, plausible 0.01) would load as weights."""
    options, weights = official

    def make(file, name, shape, dtype):
        data = file.create_dataset(name, shape=shape, dtype=dtype, chunks=(8, shape[1]),
                                   fillvalue=fill)
        data[:16] = 0.05  # the first two of its sixteen chunks

    _replace_dataset(weights, LSTM_W, make)
    with pytest.raises(ValueError, match=rf"^{weights}: the dataset '{LSTM_W}' .* holds 2 of "
                                         rf"its 16 chunks, which would read as its fill value"):
        load_allennlp(options, weights)


def test_a_dataset_never_written_at_all_is_refused(official):
    options, weights = official
    _replace_dataset(weights, LSTM_W, lambda file, name, shape, dtype: file.create_dataset(
        name, shape=shape, dtype=dtype))
    with pytest.raises(ValueError, match=rf"'{LSTM_W}' .* has no storage written at all"):
        load_allennlp(options, weights)


def test_a_matrix_of_one_number_is_refused_as_unwritten(official):
    options, weights = official
    _replace_dataset(weights, LSTM_W, lambda file, name, shape, dtype: file.create_dataset(
        name, data=np.full(shape, 0.0, dtype)))
    with pytest.raises(ValueError, match=rf"'{LSTM_W}' .* is 0 everywhere: a matrix of one "
                                         "number is storage that was never written"):
        load_allennlp(options, weights)


@pytest.mark.parametrize("scale", [1e15, -1e6])
def test_finite_values_no_training_gives_are_refused(official, scale):
    """The issue's case: finite garbage passes a NaN/inf check and every output is 1e29."""
    options, weights = official
    with h5py.File(weights, "r+") as file:
        file[LSTM_W][3] = file[LSTM_W][3] * 0 + scale  # one row
    with pytest.raises(ValueError, match=rf"^{weights}: the dataset '{LSTM_W}' .*holds values "
                                         r"as large as .*, where trained weights stay far below"):
        load_allennlp(options, weights)


def _metadata_offsets(weights) -> list[int]:
    """Byte offsets outside every dataset's values: the superblock, object headers, B-trees
    and heaps that say where things are."""
    spans = []
    with h5py.File(weights, "r") as file:
        file.visititems(lambda name, obj: spans.append(
            (obj.id.get_offset(), obj.id.get_storage_size()))
            if isinstance(obj, h5py.Dataset) and obj.id.get_offset() is not None else None)
    size = weights.stat().st_size
    inside = np.zeros(size, bool)
    for offset, length in spans:
        inside[offset:offset + length] = True
    return np.flatnonzero(~inside).tolist()


def test_damaged_metadata_is_one_line_damaged_never_an_h5py_traceback(official):
    """Sixty files with a few bytes of their metadata changed (the issue's fuzzing: 22 of 60
    ended in KeyError or RuntimeError tracebacks from h5py). Each either loads (bytes that
    mattered to nothing), or is refused in one line naming the file."""
    import random

    from elmo_tutorial.files.safe_files import DamagedFile

    options, weights = official
    good = weights.read_bytes()
    offsets = _metadata_offsets(weights)
    rng, damaged = random.Random(0), 0
    for _ in range(60):
        raw = bytearray(good)
        for _ in range(rng.choice([1, 2, 4, 8])):
            raw[rng.choice(offsets)] = rng.randrange(256)
        weights.write_bytes(bytes(raw))
        try:
            load_allennlp(options, weights)
        except ValueError as error:  # DamagedFile, or a check's own line
            message = str(error)
            assert message.startswith(str(weights)) and "\n" not in message, message
            damaged += isinstance(error, DamagedFile)
    assert damaged >= 10  # the h5py errors are among them, said as damage
