"""Bad input gets a one-line error that names the problem and the fix, a nonzero exit from the
command line, no Python traceback, and no file lost."""

import json
import shutil

import pytest
from _folder_helpers import one_line
from _train_helpers import MICRO_CLI

from elmo_tutorial import Embedder, load_allennlp
from elmo_tutorial.commands.cli import main as cli
from elmo_tutorial.model.config import MODEL_PRESETS, ModelConfig
from elmo_tutorial.model.elmo import ELMo
from elmo_tutorial.runtime import REPOSITORY
from elmo_tutorial.training.run_folder import load_elmo
from elmo_tutorial.training.train_config import TrainConfig, apply_overrides, load_toml


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """A finished 2-step micro run."""
    out = tmp_path_factory.mktemp("bad_input") / "run"
    assert cli(["train", "--out", str(out), *MICRO_CLI, "--max_steps=2"]) == 0
    return out


# -- train ---------------------------------------------------------------------------------------

def test_negative_max_steps_is_refused_before_anything_is_written(tmp_path, capsys):
    out = tmp_path / "run"
    assert cli(["train", "--out", str(out), *MICRO_CLI, "--max_steps=-5"]) == 2
    assert "max_steps must be ≥ 0" in one_line(capsys.readouterr().err)
    assert not out.exists()


@pytest.mark.parametrize("key, value", [
    ("threads", -1), ("eval_interval", -1), ("checkpoint_interval", -1), ("warmup_steps", -1),
    ("grad_clip", -1.0), ("sampled_softmax", -1), ("eval_sentences", -1), ("vocab_max_size", -1),
    ("max_sentence_words", 0), ("weight_decay", -0.1), ("loss_multiplier", 0.0),
    ("lr", float("nan")), ("adagrad_initial_accumulator", -1.0), ("vocab_min_count", -1),
])
def test_out_of_range_settings_are_refused_by_name(key, value):
    with pytest.raises(ValueError, match=f"{key} must be"):
        apply_overrides(TrainConfig(), {key: value})


def test_nproc_zero_is_refused(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        cli(["train", "--out", str(tmp_path / "run"), *MICRO_CLI, "--nproc", "0"])
    assert exit_.value.code == 2
    assert "argument --nproc: must be ≥ 1, got 0" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


def test_out_naming_a_file_is_refused_and_the_file_kept(tmp_path, capsys):
    target = tmp_path / "notes.txt"
    target.write_text("mine")
    assert cli(["train", "--out", str(target), *MICRO_CLI]) == 2
    assert "is a file" in one_line(capsys.readouterr().err)
    assert target.read_text() == "mine"


@pytest.mark.parametrize("spelling", [["--max_steps", "10"], ["--max-steps=10"],
                                      ["--max-steps", "10"], ["--max_steps=10"]])
def test_a_setting_takes_dashes_or_its_field_name_and_a_space_or_equals(capsys, spelling):
    assert cli(["train", "--out", "unused", *spelling, "--print-config"]) == 0
    assert json.loads(capsys.readouterr().out)["max_steps"] == 10


@pytest.mark.parametrize("typo, nearest", [
    (["--confg", "tiny"], "--config"), (["--confg=tiny"], "--config"),
    (["--max_step=10"], "--max_steps"), (["--model.lstm_dm=8"], "--model.lstm_dim"),
])
def test_a_misspelt_option_is_named_with_the_nearest_one(capsys, typo, nearest):
    with pytest.raises(SystemExit) as exit_:
        cli(["train", "--out", "unused", *typo])
    assert exit_.value.code == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert f"unrecognized arguments: {' '.join(typo)}" in error
    assert f"did you mean {nearest}?" in error


def test_train_help_lists_every_preset_and_setting_with_its_comment(capsys):
    from dataclasses import fields

    from elmo_tutorial.training.train_config import TRAIN_PRESETS

    with pytest.raises(SystemExit):
        cli(["train", "--help"])
    listed = capsys.readouterr().out
    keys = [f.name for f in fields(TrainConfig) if f.name not in ("model_overrides", "out_dir")]
    keys += [f"model.{f.name}" for f in fields(ModelConfig)]
    missing = [key for key in keys if f"--{key} " not in listed]
    assert not missing, f"train --help does not list {missing}"
    assert "peak learning rate" in listed
    assert all(f"\n  {name} " in listed for name in TRAIN_PRESETS), listed


def test_a_sampled_softmax_larger_than_the_vocabulary_says_it_trains_the_full_one(tmp_path,
                                                                                   capsys):
    assert cli(["train", "--out", str(tmp_path / "run"), *MICRO_CLI, "--max_steps=1",
                "--sampled_softmax=100000"]) == 0
    assert "sampled_softmax=100000 is not below" in capsys.readouterr().err


def test_a_gpu_asked_for_on_a_machine_without_one_is_a_clear_error(tmp_path, capsys,
                                                                  monkeypatch):
    monkeypatch.setattr("torch.cuda.is_available", lambda: False)
    flags = [a for a in MICRO_CLI if not a.startswith("--device")]
    assert cli(["train", "--out", str(tmp_path / "run"), *flags, "--device=cuda"]) == 2
    assert "--device=cpu" in one_line(capsys.readouterr().err)


def test_an_unavailable_corpus_is_a_clear_error(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("ELMO_TUTORIAL_DATA", str(tmp_path / "nothing"))
    monkeypatch.setenv("ELMO_TUTORIAL_CACHE", str(tmp_path / "cache"))
    assert cli(["train", "--out", str(tmp_path / "run"), *MICRO_CLI,
                "--corpus=wikitext2"]) != 0
    assert "data download wikitext-2" in one_line(capsys.readouterr().err)


def test_toml_filters_without_a_count_are_a_clear_error(tmp_path):
    toml = tmp_path / "my.toml"
    toml.write_text("[model]\nfilters = [[1], [2, 8]]\n")
    with pytest.raises(ValueError, match=r"filters.*\(width, count\)"):
        apply_overrides(TrainConfig(), load_toml(toml))
    with pytest.raises(ValueError, match=r"filters.*\(width, count\)"):
        ModelConfig(filters=((1,), (2, 8)))


def test_a_preset_name_typo_lists_the_presets(capsys):
    with pytest.raises(SystemExit) as exit_:
        cli(["train", "--config", "smal"])
    assert exit_.value.code == 2
    assert "invalid choice: 'smal' (choose from 'tiny'," in capsys.readouterr().err


def test_a_value_of_the_wrong_type_names_the_expected_type(capsys):
    assert cli(["train", "--lr=abc"]) == 2
    assert "'lr' expects float, got 'abc'" in one_line(capsys.readouterr().err)


def test_a_missing_config_file_is_named(tmp_path, capsys):
    assert cli(["train", "--config-file", str(tmp_path / "my.toml"), *MICRO_CLI]) == 2
    assert "my.toml" in one_line(capsys.readouterr().err)


# -- run directories ----------------------------------------------------------------------------

def test_a_broken_config_json_is_named(run, tmp_path, capsys):
    broken = shutil.copytree(run, tmp_path / "run")
    (broken / "config.json").write_text('{"model": {"lstm_dim": 16,')
    with pytest.raises(ValueError, match="config.json") as error:
        load_elmo(broken)
    assert str(broken / "config.json") in str(error.value)
    assert cli(["embed", str(broken), "The bank ."]) == 2
    assert "config.json" in one_line(capsys.readouterr().err)


def test_a_config_json_that_is_not_a_run_config_is_named(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"hidden_size": 768}))
    with pytest.raises(ValueError, match="not the config.json of a run"):
        load_elmo(tmp_path)


def test_a_file_given_as_run_directory_is_a_clear_error(run, capsys):
    assert cli(["embed", str(run / "model.safetensors"), "The bank ."]) == 2
    assert "is a file, not a run directory" in one_line(capsys.readouterr().err)


def test_a_damaged_vocabulary_is_named(run, tmp_path, capsys):
    broken = shutil.copytree(run, tmp_path / "run")
    (broken / "vocab.txt").write_bytes(b"\xff\xfe\x00")
    assert cli(["evaluate", str(broken), "--no-ngram"]) == 2
    assert "vocab.txt is not a UTF-8 text file" in one_line(capsys.readouterr().err)


def test_a_path_that_does_not_exist_is_called_wrong_not_untrained(tmp_path, monkeypatch,
                                                                   capsys):
    """A notebook copied to another folder finds no "../data/models/small": the message says
    the path is wrong and where the course's models are (a path the shell user can type, and
    the function for Python), not that a model must be trained."""
    monkeypatch.chdir(tmp_path)
    assert cli(["evaluate", "nothere"]) == 2
    assert f"{REPOSITORY}/data/models/small" in one_line(capsys.readouterr().err)
    with pytest.raises(FileNotFoundError) as error:
        load_elmo("../data/models/small")
    message = str(error.value)
    assert "does not exist" in message and str(tmp_path) in message
    assert "shipped_model('small')" in message and "train" not in message
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="is not a run directory. Train one"):
        load_elmo(tmp_path / "empty")


def test_a_folder_of_official_weights_points_to_load_allennlp(tmp_path):
    (tmp_path / "options.json").write_text("{}")
    with pytest.raises(FileNotFoundError, match="load_allennlp"):
        load_elmo(tmp_path)


# -- embed, evaluate -------------------------------------------------------------------------------

def test_embed_an_empty_sentence_is_refused(run, capsys):
    assert cli(["embed", str(run), ""]) == 2
    assert "empty" in one_line(capsys.readouterr().err)


def test_embed_dims_must_be_positive(run, capsys):
    with pytest.raises(SystemExit):
        cli(["embed", str(run), "The bank .", "--dims", "-1"])
    assert "--dims" in capsys.readouterr().err


def test_evaluate_negative_max_sentences_is_refused(run, capsys):
    with pytest.raises(SystemExit):
        cli(["evaluate", str(run), "--max-sentences", "-1"])
    assert "--max-sentences" in capsys.readouterr().err


def test_evaluate_on_a_gpu_that_is_not_there_is_a_clear_error(run, capsys, monkeypatch):
    monkeypatch.setattr("torch.cuda.is_available", lambda: False)
    assert cli(["evaluate", str(run), "--device", "cuda", "--no-ngram"]) == 2
    assert "--device=cpu" in one_line(capsys.readouterr().err)


@pytest.mark.parametrize("device", ["mps", "cuda:1", "gpu", "tpu"])
def test_evaluate_on_a_device_it_cannot_use_is_refused_not_run_on_the_cpu(run, capsys,
                                                                          monkeypatch, device):
    monkeypatch.setattr("torch.cuda.is_available", lambda: False)
    monkeypatch.setattr("torch.backends.mps.is_available", lambda: False)
    assert cli(["evaluate", str(run), "--device", device, "--no-ngram"]) == 2
    assert repr(device) in one_line(capsys.readouterr().err)


# -- the numeric options of every command but train -------------------------------------------

def _numeric_options():
    """``(command, option, parser)`` for each option with a value type, train's excepted."""
    import argparse

    from elmo_tutorial.commands.cli import COMMANDS, build_parser

    def walk(command, parser):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    yield from walk(command, sub)
            elif action.type is not None and action.option_strings:
                yield command, action.option_strings[-1], parser

    for command in COMMANDS:
        if command != "train":
            top = build_parser(command)
            yield from walk(command, top._subparsers._group_actions[0].choices[command])


def _refusal(parser, option, value, capsys) -> str:
    """The error line the parser gives ``option value`` ("" if it takes it)."""
    required = [a for a in parser._actions if a.required and a.option_strings]
    argv = [*(x for a in required for x in (a.option_strings[0], "x")), option, value]
    positional = [a for a in parser._actions if not a.option_strings and a.dest != "help"]
    argv = [*("x" for _ in positional), *argv]
    try:
        parser.parse_args(argv)
    except SystemExit:
        return capsys.readouterr().err.strip().splitlines()[-1]
    return ""


def test_every_numeric_option_refuses_a_negative_value_by_name(capsys):
    options = list(_numeric_options())
    assert len(options) >= 4, options
    accepted = [f"{command} {option}" for command, option, parser in options
                if f"argument {option}: must be" not in _refusal(parser, option, "-1", capsys)]
    assert not accepted, f"these take -1: {accepted}"


# -- the Python API -------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def embedder():
    return Embedder(ELMo(MODEL_PRESETS["tiny"]))


def test_embed_sentences_with_one_level_too_many_names_the_token(embedder):
    with pytest.raises(TypeError, match=r"sentence 0, token 0 .*str.*list"):
        embedder.embed_sentences([[["a", "b"]]])


@pytest.mark.parametrize("batch_size", ["8", 2.5, None])
def test_embed_sentences_batch_size_must_be_an_int(embedder, batch_size):
    with pytest.raises(TypeError, match="batch_size must be an int"):
        embedder.embed_sentences([["a"]], batch_size=batch_size)


def test_embed_sentences_takes_any_iterable_of_sentences(embedder):
    vectors = embedder.embed_sentences(s for s in [["a", "b"], ["c"]])
    assert [v.shape[1] for v in vectors] == [2, 1]


def test_embed_sentences_of_none_is_a_clear_error(embedder):
    with pytest.raises(TypeError, match="list of token lists"):
        embedder.embed_sentences(None)


def test_an_embedder_of_a_path_instead_of_a_model_says_what_it_takes():
    with pytest.raises(TypeError, match=r"Embedder\(load_elmo\(run_dir\)\)"):
        Embedder("runs/tiny")


def test_load_allennlp_with_its_arguments_swapped_says_so(tmp_path):
    weights = tmp_path / "weights.hdf5"
    weights.write_bytes(b"\x89HDF\r\n\x1a\n" + bytes(100))  # an hdf5 file's signature
    options = tmp_path / "options.json"
    options.write_text(json.dumps(MODEL_PRESETS["tiny"].to_options()))
    with pytest.raises(ValueError, match=r"swapped.*load_allennlp\(options_file, weight_file\)"):
        load_allennlp(weights, options)


def test_load_allennlp_with_a_broken_options_file_names_it(tmp_path):
    options = tmp_path / "options.json"
    options.write_text('{"lstm": ')
    with pytest.raises(ValueError, match="options.json"):
        load_allennlp(options, tmp_path / "weights.hdf5")


def test_load_allennlp_with_weights_that_are_not_hdf5_names_them(tmp_path):
    options = tmp_path / "options.json"
    options.write_text(json.dumps(MODEL_PRESETS["tiny"].to_options()))
    weights = tmp_path / "weights.hdf5"
    weights.write_text("not hdf5")
    with pytest.raises(ValueError, match="weights.hdf5 is not an hdf5 weight file"):
        load_allennlp(options, weights)


@pytest.mark.parametrize("field, value", [("cell_clip", -3.0), ("proj_clip", 0.0),
                                          ("n_highway", -1)])
def test_architectures_that_cannot_work_are_refused_by_name(field, value):
    with pytest.raises(ValueError, match=f"{field} must be"):
        ModelConfig(**{field: value})
