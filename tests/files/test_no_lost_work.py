"""No lost work: the commands refuse to delete or overwrite a user's files unless told to,
resume only where a checkpoint can continue, and survive a damaged checkpoint."""

import json
import random

import pytest
import torch
from _folder_helpers import snapshot
from _train_helpers import MICRO_CLI, MICRO_CLI_OPEN, start_endless_training

from elmo_tutorial.commands.cli import main as cli
from elmo_tutorial.model.config import ModelConfig
from elmo_tutorial.training import checkpoints as ckpt
from elmo_tutorial.training.run_folder import load_elmo
from elmo_tutorial.training.train import Trainer, _lr_factor
from elmo_tutorial.training.train_config import TrainConfig, apply_overrides


def _saved_config(run, **changes) -> TrainConfig:
    train = json.loads((run / "config.json").read_text())["train"]
    return apply_overrides(TrainConfig.from_dict(train), {"out_dir": str(run), **changes})


# -- train --out on an existing run ------------------------------------------------------------

def test_train_refuses_to_replace_a_finished_run_and_says_what_it_holds(run_copy, capsys):
    before = snapshot(run_copy)
    assert cli(["train", "--out", str(run_copy), *MICRO_CLI]) == 2
    err = capsys.readouterr().err
    assert "4 steps trained" in err and "2 checkpoints" in err and "model.safetensors" in err
    assert "--force" in err and "--resume" in err
    assert snapshot(run_copy) == before, "a refused command changed the run"


def test_train_with_force_replaces_the_run(run_copy, capsys):
    assert cli(["train", "--out", str(run_copy), *MICRO_CLI, "--max_steps=2", "--force"]) == 0
    assert "replacing" in capsys.readouterr().err
    assert sorted(p.name for p in (run_copy / "checkpoints").glob("step_*")) == ["step_000002"]


def test_train_with_several_processes_refuses_before_starting_them(run_copy, capsys,
                                                                      monkeypatch):
    monkeypatch.setattr("subprocess.call", lambda *a, **k: pytest.fail("torchrun started"))
    assert cli(["train", "--out", str(run_copy), *MICRO_CLI, "--nproc", "2"]) == 2
    assert "--force" in capsys.readouterr().err


def test_train_into_a_folder_without_trained_weights_needs_no_force(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    (tmp_path / "log.jsonl").write_text("")  # a run stopped before its first checkpoint
    assert cli(["train", "--out", str(tmp_path), *MICRO_CLI, "--max_steps=2"]) == 0
    assert (tmp_path / "notes.txt").read_text() == "mine"


# -- export into existing folders ---------------------------------------------------------------

def test_export_encoder_refuses_to_overwrite_a_model_without_force(finished_run, tmp_path,
                                                                    capsys):
    out = tmp_path / "shipped"
    assert cli(["export", str(finished_run), "--encoder", str(out)]) == 0
    before = snapshot(out)
    assert cli(["export", str(finished_run), "--encoder", str(out), "--float16"]) == 2
    err = capsys.readouterr().err
    assert "model.safetensors" in err and "--force" in err
    assert snapshot(out) == before
    assert cli(["export", str(finished_run), "--encoder", str(out), "--float16", "--force"]) == 0
    assert snapshot(out) != before


def test_export_allennlp_refuses_a_non_empty_folder_without_force(finished_run, tmp_path,
                                                                   capsys):
    out = tmp_path / "exported"
    out.mkdir()
    (out / "weights.hdf5").write_bytes(b"someone's weights")
    assert cli(["export", str(finished_run), "--allennlp", str(out)]) == 2
    err = capsys.readouterr().err
    assert "weights.hdf5" in err and "--force" in err
    assert (out / "weights.hdf5").read_bytes() == b"someone's weights"
    assert cli(["export", str(finished_run), "--allennlp", str(out), "--force"]) == 0
    assert (out / "options.json").exists()


def test_export_into_a_file_is_a_clear_error(finished_run, tmp_path, capsys):
    target = tmp_path / "a_file"
    target.write_text("mine")
    assert cli(["export", str(finished_run), "--allennlp", str(target), "--force"]) == 2
    assert "is a file" in capsys.readouterr().err
    assert target.read_text() == "mine"


# -- resume with changed settings --------------------------------------------------------------

@pytest.mark.parametrize("flag, shown", [
    ("--model.lstm_dim=32", "model.lstm_dim: 16 → 32"),
    ("--batch_size=4", "batch_size: 8 → 4"),
    ("--vocab_min_count=2", "vocab_min_count: 1 → 2"),
    ("--optimizer=adagrad", "optimizer: adam → adagrad"),
])
def test_resume_refuses_an_incompatible_change_in_one_line(run_copy, capsys, flag, shown):
    before = snapshot(run_copy)
    assert cli(["train", "--out", str(run_copy), *MICRO_CLI, flag, "--resume"]) == 2
    err = capsys.readouterr().err
    assert shown in err and "size mismatch" not in err
    assert len(err.strip().splitlines()) == 1, err
    assert snapshot(run_copy) == before


def test_resume_accepts_compatible_changes_with_a_notice(run_copy, capsys):
    assert cli(["train", "--out", str(run_copy), *MICRO_CLI, "--max_steps=6", "--lr=0.001",
                "--eval_interval=3", "--resume"]) == 0
    err = capsys.readouterr().err
    assert "max_steps: 4 → 6" in err and "lr: 0.01 → 0.001" in err
    assert "eval_interval: 200 → 3" in err
    assert ckpt.latest_checkpoint(run_copy).name == "step_000006"
    assert json.loads((run_copy / "config.json").read_text())["train"]["lr"] == 0.001


def test_a_changed_learning_rate_and_weight_decay_take_effect_on_resume(run_copy):
    config = _saved_config(run_copy, lr=0.001, weight_decay=0.01, max_steps=8)
    trainer = Trainer(config, resume=True)
    expected = 0.001 * _lr_factor(config, trainer.total_steps)(trainer.step)
    for group in trainer.optimizer.param_groups:
        assert group["lr"] == pytest.approx(expected)
        assert group["weight_decay"] == 0.01


def test_every_setting_has_a_resume_rule():
    from elmo_tutorial.training.train_config import CHANGEABLE_ON_RESUME, FIXED_ON_RESUME

    train = {f for f in TrainConfig.__dataclass_fields__ if f not in ("model", "model_overrides")}
    # vocab_size comes from the run's vocab.txt, model.dropout from the training dropout
    model = {f"model.{f}" for f in ModelConfig.__dataclass_fields__} - {"model.vocab_size",
                                                                        "model.dropout"}
    assert not set(CHANGEABLE_ON_RESUME) & set(FIXED_ON_RESUME)
    assert set(CHANGEABLE_ON_RESUME) | set(FIXED_ON_RESUME) == train | model


# -- damaged checkpoints ------------------------------------------------------------------------

DAMAGE = {
    "truncated": lambda data: data[: len(data) // 2],
    "empty": lambda data: b"",
    "random bytes": lambda data: random.Random(0).randbytes(len(data)),
}


@pytest.mark.parametrize("damage", DAMAGE)
@pytest.mark.parametrize("name", ["state.pt", "model.safetensors"])
def test_a_damaged_latest_checkpoint_is_named_and_the_one_before_it_used(run_copy, capsys,
                                                                         name, damage):
    broken = run_copy / "checkpoints" / "step_000004" / name
    broken.write_bytes(DAMAGE[damage](broken.read_bytes()))
    trainer = Trainer(_saved_config(run_copy), resume=True)
    assert trainer.step == 2
    err = capsys.readouterr().err
    assert str(broken) in err and "step_000002" in err


def test_resuming_past_a_damaged_checkpoint_ends_with_the_same_weights(finished_run, run_copy,
                                                                       capsys):
    (run_copy / "checkpoints" / "step_000004" / "state.pt").write_bytes(b"")
    (run_copy / "checkpoints" / "latest").write_bytes(bytes(range(256)))  # pointer damaged too
    (run_copy / "model.safetensors").unlink()
    assert cli(["train", "--out", str(run_copy), *MICRO_CLI, "--resume"]) == 0
    assert "state.pt" in capsys.readouterr().err
    resumed = ckpt.load_weights(run_copy / "model.safetensors")
    original = ckpt.load_weights(finished_run / "model.safetensors")
    assert resumed.keys() == original.keys()
    assert all(torch.equal(resumed[k], original[k]) for k in original)


def test_when_no_checkpoint_is_intact_resume_is_a_clear_error(run_copy, capsys):
    for state in (run_copy / "checkpoints").glob("step_*/state.pt"):
        state.write_bytes(b"")
    assert cli(["train", "--out", str(run_copy), *MICRO_CLI, "--resume"]) == 2
    err = capsys.readouterr().err
    assert "no intact checkpoint" in err and "step_000002" in err and "step_000004" in err


def test_a_log_cut_mid_line_by_a_crash_does_not_stop_a_resume(run_copy, capsys):
    with open(run_copy / "log.jsonl", "a") as log:
        log.write('{"kind": "train", "st')  # a process killed while appending
    assert cli(["train", "--out", str(run_copy), *MICRO_CLI, "--max_steps=6", "--resume"]) == 0
    events = [json.loads(line) for line in (run_copy / "log.jsonl").read_text().splitlines()]
    assert events[-1]["step"] == 6


def test_from_run_on_truncated_weights_names_the_file_and_the_checksum_check(finished_run,
                                                                             tmp_path, capsys):
    shipped = tmp_path / "shipped"
    assert cli(["export", str(finished_run), "--encoder", str(shipped)]) == 0
    weights = shipped / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:1000])  # an interrupted download
    with pytest.raises(ValueError, match="sha256sum -c SHA256SUMS") as error:
        load_elmo(shipped)
    assert str(weights) in str(error.value)
    capsys.readouterr()
    assert cli(["embed", str(shipped), "The bank ."]) == 2
    assert "sha256sum -c SHA256SUMS" in capsys.readouterr().err


def test_pruning_keeps_the_newest_checkpoint_past_step_999999(tmp_path):
    state = {"step": 0, "epoch": 0, "batch_in_epoch": 0, "optimizer": {}, "scheduler": {},
             "rng": []}
    for step in (999_999, 1_000_000):
        ckpt.save_checkpoint(tmp_path, step, {"w": torch.zeros(1)}, {**state, "step": step},
                             keep=1)
    assert [p.name for p in (tmp_path / "checkpoints").glob("step_*")] == ["step_1000000"]
    assert ckpt.latest_checkpoint(tmp_path).name == "step_1000000"


@pytest.mark.slow  # three training processes, each started, stopped and resumed
@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM", "SIGHUP"])
def test_a_stop_signal_during_train_saves_the_step_it_stopped_at_and_names_resume(tmp_path,
                                                                               name):
    """Ctrl-C (SIGINT), a scheduler's SIGTERM and a closed terminal's SIGHUP all stop
    training at the end of a step, with a checkpoint there, the lock released, exit 130."""
    import signal
    import time

    from elmo_tutorial.training.train_log import read_log

    if not hasattr(signal, name):
        pytest.skip(f"no {name} on this system")
    signum = getattr(signal, name)

    def default_handlers():  # whatever the tests run under (nohup, `&`) ignores
        for each in (signal.SIGINT, signal.SIGTERM, getattr(signal, "SIGHUP", None)):
            if each is not None:
                signal.signal(each, signal.SIG_DFL)

    run = tmp_path / "run"
    train = start_endless_training(run, preexec_fn=default_handlers)
    try:
        waited = 0.0
        while not [e for e in read_log(run) if e["kind"] == "train"]:  # training has begun
            assert train.poll() is None, train.communicate()[1]
            assert waited < 120, "training did not start"
            time.sleep(0.2)
            waited += 0.2
        train.send_signal(signum)
        _, err = train.communicate(timeout=120)
    finally:
        if train.poll() is None:
            train.kill()
    assert train.returncode == 130, err
    assert "Traceback" not in err and "--resume" in err, err
    saved = ckpt.latest_checkpoint(run)
    assert saved is not None, f"no checkpoint was saved on stopping: {err}"
    step = ckpt.load_checkpoint(saved)[1]["step"]
    assert step >= max(e["step"] for e in read_log(run)), "steps after the checkpoint are lost"
    assert f"stopped by {name} at step {step} of" in err and str(saved) in err
    assert not (run / ".lock").exists(), "the run folder's lock was left behind"
    assert cli(["train", "--out", str(run), *MICRO_CLI_OPEN, f"--max_steps={step + 1}",
                "--resume"]) == 0
    assert ckpt.load_checkpoint(ckpt.latest_checkpoint(run))[1]["step"] == step + 1


# -- exports are written whole or not at all -----------------------------------------------------

def _no_space(*args, **kwargs):
    raise OSError(28, "No space left on device")


@pytest.mark.parametrize("kind", ["--allennlp", "--encoder", "--copy"])
def test_an_export_on_a_full_disk_keeps_the_previous_one(finished_run, tmp_path, monkeypatch,
                                                        capsys, kind):
    import h5py

    out = tmp_path / "exported"
    assert cli(["export", str(finished_run), kind, str(out)]) == 0
    before = snapshot(out)

    def h5py_fills_the_disk(name, mode="r", **kwargs):
        _no_space()

    def safetensors_fills_the_disk(tensors, metadata=None):
        _no_space()

    monkeypatch.setattr(h5py, "File", h5py_fills_the_disk)
    monkeypatch.setattr(ckpt, "save_safetensors", safetensors_fills_the_disk)
    assert cli(["export", str(finished_run), kind, str(out), "--force"]) != 0
    err = capsys.readouterr().err
    assert "No space left" in err and err.count("\n") == 1, err
    assert snapshot(out) == before
    assert sorted(p.name for p in out.iterdir()) == sorted(before)  # no temporary file left


def test_export_copy_replaces_a_symlink_in_the_folder_instead_of_writing_through_it(
        finished_run, tmp_path):
    outside = tmp_path / "outside.json"
    outside.write_text("not yours to overwrite")
    out = tmp_path / "copy"
    out.mkdir()
    (out / "config.json").symlink_to(outside)
    assert cli(["export", str(finished_run), "--copy", str(out), "--force"]) == 0
    assert outside.read_text() == "not yours to overwrite"
    assert not (out / "config.json").is_symlink()
    assert (out / "config.json").read_bytes() == (finished_run / "config.json").read_bytes()
