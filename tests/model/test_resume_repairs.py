"""What ``--resume`` finds wrong it does not leave for the next resume: a damaged checkpoint is
set aside (``latest`` then names a good one), and an architecture edited in ``config.json`` is
refused as the same change given as an option is, never silently replaced."""

import json

import pytest
from _train_helpers import MICRO_CLI

from elmo_tutorial.commands.cli import main as cli
from elmo_tutorial.model import checkpoint as ckpt
from elmo_tutorial.training.train import Trainer
from elmo_tutorial.training.train_config import TrainConfig, apply_overrides


def _saved_config(run) -> TrainConfig:
    train = json.loads((run / "config.json").read_text())["train"]
    return apply_overrides(TrainConfig.from_dict(train), {"out_dir": str(run)})


def _damage(run, step: int = 4) -> None:
    (run / "checkpoints" / f"step_{step:06d}" / "state.pt").write_bytes(b"")


def test_a_damaged_checkpoint_is_set_aside_and_latest_names_the_one_resumed(run_copy, capsys):
    _damage(run_copy)
    Trainer(_saved_config(run_copy), resume=True)  # no step yet: a Ctrl-C here loses nothing
    checkpoints = run_copy / "checkpoints"
    assert (checkpoints / "latest").read_text().strip() == "step_000002"
    assert not (checkpoints / "step_000004").exists()
    assert (checkpoints / "step_000004.damaged" / "state.pt").read_bytes() == b""  # kept
    err = capsys.readouterr().err
    assert "step_000004 is renamed step_000004.damaged" in err and "delete it" in err


def test_the_resumed_run_saves_its_step_again_and_the_next_resume_goes_on_from_it(run_copy,
                                                                                   capsys):
    _damage(run_copy)
    assert cli(["train", "--out", str(run_copy), *MICRO_CLI, "--resume"]) == 0
    assert "renamed step_000004.damaged" in capsys.readouterr().err
    resaved = ckpt.latest_checkpoint(run_copy)
    assert resaved.name == "step_000004" and ckpt.load_checkpoint(resaved)[1]["step"] == 4
    assert cli(["train", "--out", str(run_copy), *MICRO_CLI, "--resume", "--max_steps=6"]) == 0
    assert "warning" not in capsys.readouterr().err  # nothing skipped: it went on from step 4
    assert ckpt.latest_checkpoint(run_copy).name == "step_000006"


def test_a_checkpoint_set_aside_twice_keeps_both(run_copy, capsys):
    for _ in range(2):
        _damage(run_copy)
        assert cli(["train", "--out", str(run_copy), *MICRO_CLI, "--resume"]) == 0
    names = sorted(p.name for p in (run_copy / "checkpoints").iterdir())
    assert {"step_000004.damaged", "step_000004.damaged-2", "step_000004"} <= set(names)


def test_set_aside_orders_checkpoints_by_step_not_by_name(tmp_path):
    root = tmp_path / "checkpoints"
    for name in ("step_999999", "step_1000000"):
        (root / name).mkdir(parents=True)
    ckpt.set_aside(tmp_path, root / "step_999999", ["step_1000000/state.pt is damaged"])
    assert (root / "step_1000000.damaged").is_dir() and (root / "step_999999").is_dir()


# -- config.json edited between runs ---------------------------------------------------------

@pytest.mark.parametrize("field, edited", [("lstm_dim", 12), ("n_highway", 0),
                                           ("filters", [[1, 4]]), ("activation", "tanh")])
def test_an_architecture_edited_in_config_json_is_refused_naming_both_values(run_copy, capsys,
                                                                              field, edited):
    path = run_copy / "config.json"
    payload = json.loads(path.read_text())
    was = payload["model"][field]
    payload["model"][field] = edited
    path.write_text(json.dumps(payload))
    before = path.read_bytes()
    assert cli(["train", "--out", str(run_copy), *MICRO_CLI, "--resume"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    assert f"model.{field}" in lines[0] and "config.json" in lines[0]
    assert json.dumps(edited) in lines[0] or str(edited) in lines[0]
    assert json.dumps(was) in lines[0] or str(was) in lines[0]
    assert "restore" in lines[0] and "--out" in lines[0]  # how to go on, either way
    assert path.read_bytes() == before, "the edit was overwritten"


def test_a_config_json_left_as_written_resumes(run_copy):
    assert cli(["train", "--out", str(run_copy), *MICRO_CLI, "--resume", "--max_steps=6"]) == 0
