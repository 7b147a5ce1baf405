"""TrainConfig presets and overrides: names, types and the errors users see."""

import pytest

from elmo_tutorial.model.config import MODEL_PRESETS
from elmo_tutorial.training.train_config import (
    TRAIN_PRESETS,
    TrainConfig,
    apply_overrides,
    load_toml,
)


def test_every_preset_builds_its_model_config():
    for name, preset in TRAIN_PRESETS.items():
        config = preset.model_config(vocab_size=100)
        assert config.vocab_size == 100 and config.dropout == preset.dropout, name


def test_paper_preset_has_bilm_tf_optimiser_and_architecture():
    paper = TrainConfig.preset("paper")
    assert (paper.optimizer, paper.lr, paper.adagrad_initial_accumulator) == ("adagrad", 0.2, 1.0)
    assert (paper.grad_clip, paper.dropout, paper.sampled_softmax) == (10.0, 0.1, 8192)
    m = paper.model_config(vocab_size=10)
    assert (m.n_layers, m.lstm_dim, m.projection_dim, m.n_filters, m.n_highway) == \
        (2, 4096, 512, 2048, 2)


def test_preset_returns_a_copy_that_does_not_change_the_preset():
    config = TrainConfig.preset("tiny")
    config.model_overrides["lstm_dim"] = 8
    assert TRAIN_PRESETS["tiny"].model_overrides == {}


def test_overrides_change_train_and_model_fields():
    config = apply_overrides(TrainConfig.preset("tiny"),
                             {"lr": 1, "model.lstm_dim": 128, "model.filters": [[1, 4], [2, 8]]})
    assert config.lr == 1.0 and isinstance(config.lr, float)
    model = config.model_config(vocab_size=50)
    assert model.lstm_dim == 128 and model.filters == ((1, 4), (2, 8))
    assert model.projection_dim == MODEL_PRESETS["tiny"].projection_dim


def test_toml_file_with_model_table(tmp_path):
    path = tmp_path / "run.toml"
    path.write_text('optimizer = "adagrad"\nlr = 0.2\n[model]\npreset = "small"\nn_layers = 1\n')
    config = apply_overrides(TrainConfig.preset("tiny"), load_toml(path))
    assert (config.optimizer, config.model) == ("adagrad", "small")
    assert config.model_config(vocab_size=10).n_layers == 1


def test_unknown_key_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown training key 'learning_rate'.*lr"):
        apply_overrides(TrainConfig(), {"learning_rate": 0.1})
    with pytest.raises(ValueError, match="unknown model key 'cells'"):
        apply_overrides(TrainConfig(), {"model.cells": 10})


def test_wrong_type_is_a_clear_error():
    with pytest.raises(ValueError, match="'batch_size' expects int, got 'many'"):
        apply_overrides(TrainConfig(), {"batch_size": "many"})
    with pytest.raises(ValueError, match="'amp' expects"):
        apply_overrides(TrainConfig(), {"amp": 1})
    with pytest.raises(ValueError, match="'lstm_dim' expects"):
        apply_overrides(TrainConfig(), {"model.lstm_dim": 1.5})


def test_invalid_choices_and_architectures_are_rejected():
    with pytest.raises(ValueError, match="optimizer must be one of"):
        apply_overrides(TrainConfig(), {"optimizer": "sgd"})
    with pytest.raises(ValueError, match="invalid ModelConfig"):
        apply_overrides(TrainConfig(), {"model.lstm_dim": 0})


def test_bad_toml_is_a_clear_error(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("lr = = 1")
    with pytest.raises(ValueError, match="not valid TOML"):
        load_toml(bad)


def test_train_command_collects_key_value_overrides():
    from elmo_tutorial.commands.cli import build_parser
    from elmo_tutorial.commands.train import resolve_config

    args = build_parser("train").parse_args(["train", "--config", "tiny", "--out", "x",
                                             "--lr=0.25", "--model.n_layers=1"])
    config = resolve_config(args)
    assert (config.lr, config.out_dir, config.model_overrides) == (0.25, "x", {"n_layers": 1})
