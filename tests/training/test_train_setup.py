"""``--resume`` takes the settings a run was trained with from its checkpoint, not from
config.json, a file anyone may edit: a setting that the checkpoint cannot continue under and
that config.json was edited to say otherwise is refused in one line naming both values, and
config.json is left as the user made it."""

import json

import pytest
import torch
from _folder_helpers import one_line
from _train_helpers import MICRO_CLI

from elmo_tutorial.commands.cli import main as cli

# Settings a checkpoint cannot continue under, edited in config.json's "train" table
# (the MICRO_CLI run has corpus embedded, batch_size 8, seed 0).
EDITS = {"corpus": "english_mix", "batch_size": 16, "seed": 7, "max_sentence_words": 5}


def _edit(run, **train) -> bytes:
    path = run / "config.json"
    payload = json.loads(path.read_text())
    payload["train"].update(train)
    path.write_text(json.dumps(payload, indent=2))
    return path.read_bytes()


@pytest.mark.parametrize("key", EDITS)
def test_a_fixed_setting_edited_in_config_json_is_refused_naming_the_checkpoints_value(
        run_copy, capsys, key):
    (run_copy / "model.safetensors").unlink()  # the run is still training
    trained = json.loads((run_copy / "config.json").read_text())["train"][key]
    edited = _edit(run_copy, **{key: EDITS[key], "max_steps": 8})
    # resumed with the flags the refusal of a changed setting advises: the run's own
    assert cli(["train", "--out", str(run_copy), *MICRO_CLI, "--resume"]) == 2
    line = one_line(capsys.readouterr().err)
    assert "config.json does not describe the run its checkpoint holds" in line, line
    assert f"{key} is {EDITS[key]} there, but {trained} in its checkpoint step_000004" in line
    assert f"Restore {key} to {trained}" in line
    assert (run_copy / "config.json").read_bytes() == edited, "the edit was overwritten"
    assert not (run_copy / "model.safetensors").exists(), "it trained"


def test_the_edited_value_given_as_a_flag_too_is_refused(run_copy, capsys):
    """The attack: corpus edited to english_mix, resumed with --corpus=english_mix: it trained
    on English with the embedded corpus's 599 words (train perplexity 26 → 1,243)."""
    (run_copy / "model.safetensors").unlink()
    edited = _edit(run_copy, corpus="english_mix", max_steps=8)
    given = [f for f in MICRO_CLI if not f.startswith("--max_steps")]
    assert cli(["train", "--out", str(run_copy), *given, "--corpus=english_mix",
                "--max_steps=8", "--resume"]) == 2
    line = one_line(capsys.readouterr().err)
    assert "corpus is english_mix there, but embedded in its checkpoint" in line
    assert (run_copy / "config.json").read_bytes() == edited


def test_a_changeable_setting_edited_in_config_json_is_not_taken_for_the_runs(run_copy,
                                                                              capsys):
    """max_steps is the run's to change, by a flag; an edit in config.json changes nothing."""
    _edit(run_copy, max_steps=8, lr=0.5)
    given = [f for f in MICRO_CLI if not f.startswith("--max_steps")]
    assert cli(["train", "--out", str(run_copy), *given, "--max_steps=6", "--resume"]) == 0
    err = capsys.readouterr().err
    assert "max_steps: 4 → 6" in err and "lr:" not in err, err  # compared with the checkpoint
    train = json.loads((run_copy / "config.json").read_text())["train"]
    assert train["max_steps"] == 6 and train["lr"] != 0.5, "config.json describes the run again"


def test_a_checkpoint_that_cannot_be_read_leaves_the_next_one_as_the_authority(run_copy,
                                                                              capsys):
    (run_copy / "model.safetensors").unlink()
    (run_copy / "checkpoints" / "step_000004" / "state.pt").write_bytes(b"")
    _edit(run_copy, corpus="english_mix")
    assert cli(["train", "--out", str(run_copy), *MICRO_CLI, "--resume"]) == 2
    assert "but embedded in its checkpoint step_000002" in one_line(capsys.readouterr().err)


def test_a_checkpoint_that_records_no_settings_leaves_config_json_the_authority(run_copy,
                                                                                capsys):
    """Checkpoints are compared only where they record the settings."""
    for state_file in (run_copy / "checkpoints").glob("step_*/state.pt"):
        state = torch.load(state_file, weights_only=True)
        del state["train"]
        torch.save(state, state_file)
    (run_copy / "model.safetensors").unlink()
    _edit(run_copy, corpus="english_mix")
    assert cli(["train", "--out", str(run_copy), *MICRO_CLI, "--resume"]) == 2
    line = one_line(capsys.readouterr().err)
    assert "corpus: english_mix → embedded" in line and "cannot continue" in line


def test_without_config_json_the_checkpoint_still_decides(run_copy, capsys):
    """config.json (and vocab.txt) deleted: the flags are still checked, against the
    checkpoint, instead of being taken for the run's settings."""
    for name in ("model.safetensors", "config.json", "vocab.txt"):
        (run_copy / name).unlink()
    assert cli(["train", "--out", str(run_copy), *MICRO_CLI, "--corpus=english_mix",
                "--resume"]) == 2
    line = one_line(capsys.readouterr().err)
    assert "corpus: embedded → english_mix" in line and "cannot continue" in line
    assert not (run_copy / "config.json").exists()
