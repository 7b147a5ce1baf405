"""Checkpoints: atomic writes, exact resume, a crash mid-write, nothing unpickled but data."""

import json

import pytest
import torch
from _train_helpers import THREAD_SENSITIVE, micro_config

from elmo_tutorial.files.safe_files import atomic_write, atomic_write_text
from elmo_tutorial.model import checkpoint as ckpt
from elmo_tutorial.model.run_dir import load_run
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


def test_run_directory_has_the_documented_layout(reference_run):
    for name in ("config.json", "vocab.txt", "model.safetensors", "log.jsonl", "loss.png"):
        assert (reference_run / name).exists(), name
    assert ckpt.latest_checkpoint(reference_run).name == "step_000006"
    kept = sorted(p.name for p in (reference_run / "checkpoints").glob("step_*"))
    assert kept == ["step_000004", "step_000006"]  # keep_checkpoints = 2


def test_checkpoint_state_loads_with_weights_only(reference_run):
    state = torch.load(ckpt.latest_checkpoint(reference_run) / "state.pt", weights_only=True)
    assert state["step"] == 6 and state["world_size"] == 1
    assert {"optimizer", "scheduler", "rng", "epoch", "batch_in_epoch"} <= state.keys()
    assert {"python", "numpy", "torch"} <= state["rng"][0].keys()


def test_interrupted_and_resumed_run_ends_with_identical_weights(reference_run, tmp_path):
    Trainer(micro_config(tmp_path)).fit(stop_after=3)  # stops after step 3; newest ckpt: 2
    assert ckpt.latest_checkpoint(tmp_path).name == "step_000002"
    Trainer(micro_config(tmp_path), resume=True).fit()
    _assert_same_weights(_weights(tmp_path), _weights(reference_run))


def test_a_resumed_run_keeps_the_thread_count_its_config_records(tmp_path):
    """Another thread count adds large sums in another order: a resumed run without --threads
    trains on the count it started with, and ends with the weights of the run left alone."""
    threads = torch.get_num_threads()
    try:
        Trainer(micro_config(tmp_path / "alone", threads=1, **THREAD_SENSITIVE)).fit()
        Trainer(micro_config(tmp_path / "resumed", threads=1, **THREAD_SENSITIVE)).fit(
            stop_after=3)
        torch.set_num_threads(2)
        resumed = Trainer(micro_config(tmp_path / "resumed", threads=0, **THREAD_SENSITIVE),
                          resume=True)
        assert torch.get_num_threads() == 1, "the resumed run trains on its recorded count"
        resumed.fit()
    finally:
        torch.set_num_threads(threads)
    recorded = json.loads((tmp_path / "resumed" / "config.json").read_text())["train"]
    assert recorded["threads"] == 1
    _assert_same_weights(_weights(tmp_path / "resumed"), _weights(tmp_path / "alone"))


def test_crash_inside_a_checkpoint_write_keeps_the_previous_one(reference_run, tmp_path,
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
    assert ckpt.latest_checkpoint(tmp_path).name == "step_000002"
    assert not (root / "step_000004").exists()
    ckpt.load_checkpoint(root / "step_000002")  # intact and loadable
    Trainer(micro_config(tmp_path), resume=True).fit()
    _assert_same_weights(_weights(tmp_path), _weights(reference_run))
    left = [p.name for p in root.iterdir() if p.name.startswith(".")]
    assert not left, f"the crashed write's staging folder was not cleaned: {left}"


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


def test_load_run_gives_config_weights_vocabulary_and_training_settings(reference_run):
    from elmo_tutorial.model.lm import BidirectionalLM

    config, state, vocab, train = load_run(reference_run)
    assert config.vocab_size == len(vocab) and config.lstm_dim == 16
    assert train["out_dir"] == str(reference_run)  # what evaluate_run needs: no second read
    BidirectionalLM(config).load_state_dict(state)  # strict: every name and shape fits


def test_resume_without_a_checkpoint_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="no checkpoint to resume from"):
        Trainer(micro_config(tmp_path), resume=True)


def test_rng_state_round_trips():
    state = ckpt.rng_state()
    expected = (torch.rand(3), __import__("random").random(), __import__("numpy").random.rand())
    ckpt.set_rng_state(state)
    again = (torch.rand(3), __import__("random").random(), __import__("numpy").random.rand())
    assert torch.equal(expected[0], again[0]) and expected[1:] == again[1:]
