"""Checkpoints: written whole, loaded without unpickling, resumed to the same bits; one that
is damaged or does not fit the model is named, passed over and written again."""

import json
import shutil

import pytest
import torch
from _train_helpers import MICRO_CLI, THREAD_SENSITIVE, micro_config
from safetensors.torch import save_file

from elmo_tutorial.commands.cli import main as cli
from elmo_tutorial.files.safe_files import atomic_write, atomic_write_text
from elmo_tutorial.model.lm import BidirectionalLM
from elmo_tutorial.training import checkpoints as ckpt
from elmo_tutorial.training.run_folder import read_run_config
from elmo_tutorial.training.train import Trainer


def _weights(run_dir):
    return ckpt.load_weights(run_dir / "model.safetensors")


def _assert_same_weights(a, b):
    assert a.keys() == b.keys()
    for name in a:
        assert torch.equal(a[name], b[name]), f"{name} differs after resuming"


@pytest.fixture(scope="module")
def reference_run(tmp_path_factory):
    """An uninterrupted 6-step run (checkpoints at steps 2, 4, 6)."""
    out = tmp_path_factory.mktemp("reference")
    Trainer(micro_config(out)).fit()
    return out


def test_a_run_keeps_its_newest_checkpoints_and_their_state_loads_with_weights_only(
        reference_run):
    assert ckpt.latest_checkpoint(reference_run).name == "step_000006"
    kept = sorted(p.name for p in (reference_run / "checkpoints").iterdir())
    assert kept == ["step_000004", "step_000006"]  # keep_checkpoints = 2
    state = torch.load(ckpt.latest_checkpoint(reference_run) / "state.pt", weights_only=True)
    assert state["step"] == 6 and state["world_size"] == 1
    assert {"optimizer", "scheduler", "rng", "epoch", "batch_in_epoch"} <= state.keys()
    assert {"python", "numpy", "torch"} <= state["rng"][0].keys()


def test_interrupted_and_resumed_run_ends_with_identical_weights(reference_run, tmp_path):
    Trainer(micro_config(tmp_path)).fit(stop_after=3)  # stops after step 3; newest ckpt: 2
    assert ckpt.latest_checkpoint(tmp_path).name == "step_000002"
    Trainer(micro_config(tmp_path), resume=True).fit()
    _assert_same_weights(_weights(tmp_path), _weights(reference_run))


def test_a_crash_inside_a_checkpoint_write_keeps_the_previous_one(reference_run, tmp_path,
                                                                 monkeypatch):
    real_write = ckpt._write_state

    def crash_at_step_4(path, state):
        if state["step"] == 4:
            with open(path, "wb") as f:
                f.write(b"half a checkpoint")  # what a killed process would leave
            raise KeyboardInterrupt("killed during the checkpoint write")
        real_write(path, state)

    monkeypatch.setattr(ckpt, "_write_state", crash_at_step_4)
    with pytest.raises(KeyboardInterrupt):
        Trainer(micro_config(tmp_path)).fit()
    monkeypatch.setattr(ckpt, "_write_state", real_write)
    root = tmp_path / "checkpoints"
    assert [p.name for p in root.iterdir()] == ["step_000002"], "a staging folder was left"
    Trainer(micro_config(tmp_path), resume=True).fit()
    _assert_same_weights(_weights(tmp_path), _weights(reference_run))


def test_atomic_write_leaves_the_old_file_when_the_writer_fails(tmp_path):
    target = tmp_path / "file.txt"
    atomic_write_text(target, "old")

    def failing(tmp):
        open(tmp, "w").write("partial")
        raise OSError("disk full")

    with pytest.raises(OSError):
        atomic_write(target, failing)
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["file.txt"]


def test_resume_without_a_checkpoint_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="no checkpoint to resume from"):
        Trainer(micro_config(tmp_path), resume=True)


def test_rng_state_round_trips():
    import random

    import numpy as np

    state = ckpt.rng_state()
    expected = (torch.rand(3), random.random(), np.random.rand())
    ckpt.set_rng_state(state)
    again = (torch.rand(3), random.random(), np.random.rand())
    assert torch.equal(expected[0], again[0]) and expected[1:] == again[1:]


# -- threads: part of the run, like its seed --------------------------------------------------

def test_a_resumed_run_keeps_the_thread_count_its_config_records(tmp_path, keep_threads):
    """Another thread count adds large sums in another order: a resumed run without --threads
    trains on the count it started with, and ends with the weights of the run left alone."""
    Trainer(micro_config(tmp_path / "alone", threads=1, **THREAD_SENSITIVE)).fit()
    Trainer(micro_config(tmp_path / "resumed", threads=1, **THREAD_SENSITIVE)).fit(stop_after=3)
    torch.set_num_threads(2)
    resumed = Trainer(micro_config(tmp_path / "resumed", threads=0, **THREAD_SENSITIVE),
                      resume=True)
    assert torch.get_num_threads() == 1, "the resumed run trains on its recorded count"
    resumed.fit()
    _assert_same_weights(_weights(tmp_path / "resumed"), _weights(tmp_path / "alone"))


def _resume(run, *flags) -> int:
    """``train --resume`` of a MICRO_CLI run for 2 more steps, without --threads unless
    ``flags`` gives it: the preset's count, 2, is not a request."""
    given = [f for f in MICRO_CLI if not f.startswith(("--threads", "--max_steps"))]
    return cli(["train", "--out", str(run), *given, "--max_steps=6", *flags, "--resume"])


def _recorded_threads(run) -> int:
    return json.loads((run / "config.json").read_text())["train"]["threads"]


def test_resume_keeps_the_runs_thread_count_or_warns_of_another(run_copy, capsys, monkeypatch,
                                                                keep_threads):
    import elmo_tutorial.training.train

    assert _resume(run_copy) == 0 and "threads" not in capsys.readouterr().err
    assert _recorded_threads(run_copy) == 1
    monkeypatch.setattr(elmo_tutorial.training.train, "available_cores", lambda: 4)
    assert _resume(run_copy, "--threads=2") == 0  # complete at step 6: no step on 2 threads
    err = " ".join(capsys.readouterr().err.split())
    assert "warning: training on 2 CPU threads instead of the 1 this run was started with" in err
    assert "differ from those of the run left alone" in err
    assert _recorded_threads(run_copy) == 2


# -- checkpoints that do not load or do not fit ------------------------------------------------

def test_a_damaged_checkpoint_is_deleted_its_step_written_again_and_resumed_from(run_copy,
                                                                                capsys):
    (run_copy / "checkpoints" / "step_000004" / "state.pt").write_bytes(b"")
    assert cli(["train", "--out", str(run_copy), *MICRO_CLI, "--resume"]) == 0
    err = capsys.readouterr().err
    assert "state.pt" in err and "resuming from" in err and "deleting step_000004" in err
    resaved = ckpt.latest_checkpoint(run_copy)
    assert resaved.name == "step_000004" and ckpt.load_checkpoint(resaved)[1]["step"] == 4
    assert cli(["train", "--out", str(run_copy), *MICRO_CLI, "--resume", "--max_steps=6"]) == 0
    assert "warning" not in capsys.readouterr().err  # nothing passed over: on from step 4


WRONG = {
    "int32 weights": (lambda k, v: v.to(torch.int32), "is int32, but weights are floating"),
    "transposed": (lambda k, v: v.t() if v.dim() == 2 and v.shape[0] != v.shape[1] else v,
                   "(transposed?)"),
    "another model's": (lambda k, v: torch.zeros(v.shape[0] + 1, *v.shape[1:])
                        if k == "softmax.weight" else v, "(the weights of another model?)"),
    "NaN": (lambda k, v: torch.full_like(v, float("nan")) if k == "softmax.weight" else v,
            "NaN or infinite"),
    "other names": (None, "not those of the model"),
}


def _rewrite_weights(path, wrong: str) -> None:
    change = WRONG[wrong][0]
    weights = ckpt.load_weights(path, dtype=None)
    if change is None:
        weights["extra"] = torch.zeros(1)
    else:
        weights = {k: change(k, v) for k, v in weights.items()}
    save_file({k: v.contiguous() for k, v in weights.items()}, str(path))


@pytest.mark.parametrize("wrong", WRONG)
def test_a_newest_checkpoint_that_loads_but_does_not_fit_is_passed_over(run_copy, capsys,
                                                                        wrong):
    expected = BidirectionalLM(read_run_config(run_copy)[0]).state_dict()
    broken = run_copy / "checkpoints" / "step_000004" / "model.safetensors"
    _rewrite_weights(broken, wrong)
    path, _, state = ckpt.load_latest_checkpoint(run_copy, expected)
    assert path.name == "step_000002" and state["step"] == 2
    err = capsys.readouterr().err
    assert f"warning: {broken}" in err and WRONG[wrong][1] in err and "--force" not in err
    assert not broken.exists()  # out of the way of the step the resumed run writes again ...
    aside = run_copy / "checkpoints" / "unfit-step_000004" / "model.safetensors"
    assert "moving step_000004 to unfit-step_000004" in err
    assert aside.exists() and ckpt.checkpoints(run_copy)[0].name == "step_000002"  # ... kept


def test_when_no_checkpoint_fits_the_one_line_names_each_and_config_json(run_copy, capsys):
    for weights in (run_copy / "checkpoints").glob("step_*/model.safetensors"):
        _rewrite_weights(weights, "int32 weights")
    assert cli(["train", "--out", str(run_copy), *MICRO_CLI, "--resume"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "no intact checkpoint" in lines[0] and "config.json" in lines[0]
    assert "step_000002" in lines[0] and "step_000004" in lines[0]
    assert len(list((run_copy / "checkpoints").iterdir())) == 2, "nothing deleted"


def test_a_complete_run_whose_checkpoints_were_deleted_is_loaded_not_trained_again(run_copy):
    """A student deletes checkpoints/ to save space; --resume takes the final weights."""
    shutil.rmtree(run_copy / "checkpoints")
    before = (run_copy / "model.safetensors").read_bytes()
    assert cli(["train", "--out", str(run_copy), *MICRO_CLI, "--resume"]) == 0
    assert (run_copy / "model.safetensors").read_bytes() == before
    assert not (run_copy / "checkpoints").exists(), "a checkpoint without its optimiser state"
