"""Fine-tuning a trained biLM on domain text (``elmo_tutorial.training.finetune``), on the
shipped tiny model: a new run, the source untouched, perplexity down, the encoder frozen where it
should be; the report's markdown, and the command's outputs and advice."""

import hashlib
import json
import shutil
from dataclasses import replace

import pytest
import torch

from elmo_tutorial.model.vocab import SPECIALS
from elmo_tutorial.training.checkpoints import save_weights
from elmo_tutorial.training.finetune import FineTuner, finetune, finetune_config
from elmo_tutorial.training.run_folder import load_elmo, load_run, shipped_model, write_run_config

# A "domain": sentences the tiny model never read, in words it mostly knows.
DOMAIN = [["the", "man", "sat", "on", "the", "bank", "."],
          ["she", "saw", "the", "river", "and", "the", "bank", "."],
          ["the", "bank", "raised", "its", "rates", "."],
          ["he", "walked", "to", "the", "river", "."]] * 4
FAST = {"threads": 1, "progress": False, "batch_size": 8}


def _digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _encoder(run):
    return {k: v for k, v in run.state.items() if not k.startswith("softmax.")}


@pytest.fixture
def encoder_only(tmp_path):
    """The tiny model without its softmax and vocabulary, like the shipped ``small``."""
    run = load_run(shipped_model("tiny"))
    folder = tmp_path / "encoder"
    folder.mkdir()
    write_run_config(folder, replace(run.config, vocab_size=0), {})
    save_weights(folder / "model.safetensors", _encoder(run))
    return folder


def test_finetuning_writes_a_new_run_leaves_the_source_and_lowers_perplexity(tmp_path,
                                                                             one_thread):
    source = shipped_model("tiny")
    before_files = {p.name: _digest(p) for p in source.iterdir() if p.is_file()}
    result = finetune(source, DOMAIN, DOMAIN[:4], tmp_path / "tuned", steps=20, lr=1e-2, **FAST)
    assert {p.name: _digest(p) for p in source.iterdir() if p.is_file()} == before_files
    assert result["after"]["avg_ppl"] < 0.5 * result["before"]["avg_ppl"]
    saved = json.loads((tmp_path / "tuned" / "finetune.json").read_text())
    assert saved["after"]["avg_ppl"] == pytest.approx(result["after"]["avg_ppl"])
    assert load_run(tmp_path / "tuned").config == load_run(source).config
    load_elmo(tmp_path / "tuned")  # a run like any other


def test_the_encoder_changes_unless_frozen(tmp_path):
    """A frozen encoder stays as it was, and the softmax above it still learns."""
    source = shipped_model("tiny")
    original = _encoder(load_run(source))
    for frozen in (False, True):
        out = tmp_path / f"frozen-{frozen}"
        finetune(source, DOMAIN, DOMAIN[:4], out, steps=5, freeze_encoder=frozen, lr=1e-2,
                 **FAST)
        tuned = load_run(out)
        same = all(torch.equal(original[k], tuned.state[k]) for k in original)
        assert same == frozen, f"freeze_encoder={frozen}"
        softmax_changed = not torch.equal(tuned.state["softmax.weight"],
                                          load_run(source).state["softmax.weight"])
        assert softmax_changed


def test_an_encoder_only_run_gets_a_softmax_trained_on_its_frozen_encoder(encoder_only,
                                                                         tmp_path, one_thread):
    with pytest.raises(ValueError, match="head_steps"):
        finetune(encoder_only, DOMAIN, DOMAIN[:4], tmp_path / "no-head", steps=2, **FAST)
    config = finetune_config(encoder_only, tmp_path / "head", steps=2, **FAST)
    tuner = FineTuner(encoder_only, DOMAIN, DOMAIN[:4], config)
    untrained = tuner.evaluate()["avg_ppl"]
    tuner.fit_softmax(100)
    trained = tuner.evaluate()["avg_ppl"]
    assert trained < 0.5 * untrained
    original = load_run(encoder_only).state
    assert all(torch.equal(original[k], v.cpu()) for k, v in tuner.model.state_dict().items()
               if not k.startswith("softmax."))  # the head's steps leave the encoder alone
    assert set(tuner.vocab) - set(SPECIALS) == {w for s in DOMAIN for w in s}  # the domain's


def test_fine_tuning_never_writes_over_its_source(encoder_only):
    config = finetune_config(encoder_only, encoder_only, steps=2, **FAST)
    with pytest.raises(ValueError, match="over its source run"):
        FineTuner(encoder_only, DOMAIN, DOMAIN, config)
    with pytest.raises(ValueError, match="steps ≥ 1"):
        finetune_config(encoder_only, encoder_only / "x", steps=0)


def _report(source, original, finetuned, **tuned):
    """A fine-tuning report of three seeds with these SST-2 accuracies (the baseline below)."""
    from elmo_tutorial.tasks.finetune_report import FinetuneReport

    ppl = {"fwd_ppl": 41.0, "bwd_ppl": 39.0, "avg_ppl": 40.0, "fwd_nll": 3.7, "bwd_nll": 3.66,
           "n_tokens": 1000}
    tuned = {"source": source, "out_dir": "runs/tuned", "steps": 40, "head_steps": 300,
             "freeze_encoder": False, "vocab_size": 1700, "vocab_min_count": 3, "lr": 1e-3,
             "batch_size": 16, "train_sentences": 2000, "valid_sentences": 300,
             "before": {**ppl, "avg_ppl": 45.0}, "after": ppl, "seconds": 60.0, **tuned}

    def arm(runs):
        return {"mean": sum(runs) / len(runs), "std": 1.0, "runs": runs}

    return FinetuneReport.from_dict({
        "source": source, "out_dir": "runs/tuned", "finetune": tuned, "seeds": [0, 1, 2],
        "sizes": {"train": 600, "valid": 200, "test": 500},
        "accuracy": {"baseline": arm([60.0, 61.0, 62.0]), "original": arm(original),
                     "finetuned": arm(finetuned)},
        "seconds": {"finetune": 60.0, "tasks": 120.0}})


def test_the_finetune_report_compares_the_two_biLMs_seed_by_seed():
    from elmo_tutorial.tasks.finetune_report import to_markdown

    text = to_markdown(_report("data/models/small", [63.0, 64.0, 65.0], [64.0, 65.5, 66.0]))
    assert "Fine-tuned − original biLM, paired by seed: +1.2 points" in text
    assert "higher: the interval excludes 0" in text
    mixed = _report("data/models/small", [63.0, 64.0, 65.0], [62.0, 66.0, 65.0])
    assert "no difference shown: the interval includes 0" in to_markdown(mixed)
    assert "+ ELMo at the BiLSTM's input" in text


# -- the command's outputs and its advice ---------------------------------------------------------

def _canned_result():
    return _report("data/models/tiny", [59.0, 60.0, 61.0], [59.0, 60.0, 61.0], head_steps=0,
                   vocab_size=600, steps=5, train_sentences=16, batch_size=8,
                   valid_sentences=4)


def _finetune_cli(tmp_path, *extra):
    from elmo_tutorial.commands.cli import main as cli

    return cli(["finetune", str(shipped_model("tiny")), "--out", str(tmp_path / "tuned"),
                *map(str, extra)])


def test_a_report_file_written_meanwhile_by_another_run_is_kept(tmp_path, monkeypatch, capsys):
    report = tmp_path / "FINETUNE.md"

    def other_run_finishes_first(*args, **kwargs):
        report.write_text("the other run's report\n")
        return _canned_result()

    monkeypatch.setattr("elmo_tutorial.tasks.finetune_report.finetune_report",
                        other_run_finishes_first)
    assert _finetune_cli(tmp_path, "--markdown", report) == 2
    assert report.read_text() == "the other run's report\n"
    out, err = capsys.readouterr()
    assert "# Fine-tuning the biLM on the task's text" in out  # this run's results, printed
    assert "already exists" in err and "--force" in err


def test_a_full_disk_loses_no_result_it_is_printed_first(tmp_path, monkeypatch, capsys):
    import errno

    from elmo_tutorial.files import safe_files as safe_files

    def full():  # called by every atomic write once its content is written
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("elmo_tutorial.tasks.finetune_report.finetune_report",
                        lambda *a, **k: _canned_result())
    monkeypatch.setattr(safe_files, "_umask", full)
    assert _finetune_cli(tmp_path, "--json", tmp_path / "r.json") == 1  # failed on the way
    out, err = capsys.readouterr()
    assert "# Fine-tuning the biLM on the task's text" in out
    assert "No space left" in err and len(err.strip().splitlines()) == 1


def test_an_out_folder_holding_a_run_is_refused_without_offering_a_resume(tmp_path,
                                                                         monkeypatch, capsys):
    tuned = tmp_path / "tuned"
    tuned.mkdir()
    (tuned / "model.safetensors").write_bytes(b"weights of an earlier fine-tuning")
    shutil.copy(shipped_model("tiny") / "config.json", tuned)  # a run of this package
    monkeypatch.setattr("elmo_tutorial.tasks.finetune_report.finetune_report",
                        lambda *a, **k: pytest.fail("it went on"))
    assert _finetune_cli(tmp_path) == 2
    err = capsys.readouterr().err
    assert "already holds a run" in err and "--force" in err and "--resume" not in err
    config = finetune_config(shipped_model("tiny"), tuned, steps=2, **FAST)
    with pytest.raises(FileExistsError) as refused:  # the Python API says the same
        FineTuner(shipped_model("tiny"), DOMAIN, DOMAIN, config)
    assert "--resume" not in str(refused.value)


def test_ctrl_c_while_fine_tuning_says_how_to_start_again_not_to_resume(tmp_path, monkeypatch,
                                                                        one_thread):
    import os
    import signal

    from elmo_tutorial.training.train import TrainingInterrupted

    one_step = FineTuner.train_step

    def step_then_ctrl_c(self, global_batch):
        stats = one_step(self, global_batch)
        os.kill(os.getpid(), signal.SIGINT)  # a request to stop after this step
        return stats

    monkeypatch.setattr(FineTuner, "train_step", step_then_ctrl_c)
    # Ctrl-C as in a terminal, even when the tests run in the background (where the shell has
    # set SIGINT to be ignored, which training rightly leaves as it is)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(TrainingInterrupted) as stopped:
            finetune(shipped_model("tiny"), DOMAIN, DOMAIN[:4], tmp_path / "tuned", steps=5,
                     **FAST)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert "--resume" not in str(stopped.value) and "--force" in str(stopped.value)


def test_a_loss_that_is_not_finite_names_finetunes_own_setting(tmp_path, monkeypatch,
                                                               one_thread):
    from elmo_tutorial.training.train import Trainer

    def diverged(self, global_batch):
        raise FloatingPointError("the loss is nan at step 1; ... then resume from the last "
                                 "checkpoint with --resume.")

    monkeypatch.setattr(Trainer, "compute_gradients", diverged)
    with pytest.raises(FloatingPointError) as error:
        finetune(shipped_model("tiny"), DOMAIN, DOMAIN[:4], tmp_path / "tuned", steps=2, **FAST)
    assert "--lr" in str(error.value) and "--resume" not in str(error.value)


# -- what fine-tuning trains on, and with how many threads ----------------------------------------

def test_fine_tuning_trains_on_a_fixed_thread_count(tmp_path, capsys):
    """Another count gives other weights (SST-2 60.76 vs 60.16 for the same command): the
    count is fixed, whatever the machine."""
    expected = 1
    config = finetune_config(shipped_model("tiny"), tmp_path / "tuned", steps=1,
                             progress=False)
    assert config.threads == expected
    threads = torch.get_num_threads()
    try:
        FineTuner(shipped_model("tiny"), DOMAIN, DOMAIN, config).release()
        assert torch.get_num_threads() == expected
    finally:
        torch.set_num_threads(threads)
    err = capsys.readouterr().err
    assert "--threads" not in err and "--resume" not in err, err


def test_the_threads_option_is_checked_and_reaches_the_run(tmp_path, monkeypatch, capsys):
    with pytest.raises(SystemExit):
        _finetune_cli(tmp_path, "--threads", 0)
    assert "argument --threads: must be ≥ 1, got 0" in capsys.readouterr().err
    given = {}

    def report(*args, **kwargs):
        given.update(kwargs)
        return _canned_result()

    monkeypatch.setattr("elmo_tutorial.tasks.finetune_report.finetune_report", report)
    assert _finetune_cli(tmp_path, "--threads", 1) == 0
    assert given["threads"] == 1


@pytest.mark.parametrize("which", ["training", "held-out"])
def test_blank_text_is_refused_before_anything_is_written(tmp_path, which):
    blank = [[" ", ""], ["\t"], []]
    train, valid = (blank, DOMAIN) if which == "training" else (DOMAIN, blank)
    config = finetune_config(shipped_model("tiny"), tmp_path / "tuned", steps=2, **FAST)
    with pytest.raises(ValueError, match="needs training and held-out sentences with words"):
        FineTuner(shipped_model("tiny"), train, valid, config)
    assert not (tmp_path / "tuned").exists()


def test_a_new_softmax_without_a_word_is_refused(encoder_only, tmp_path):
    """An encoder-only source gets a softmax over the words seen vocab_min_count times: none
    would mean a vocabulary of <S> </S> <UNK>."""
    config = finetune_config(encoder_only, tmp_path / "tuned", steps=2, vocab_min_count=1000,
                             **FAST)
    with pytest.raises(ValueError, match="vocab_min_count=1000 keeps no word of the training"):
        FineTuner(encoder_only, DOMAIN, DOMAIN, config)
    assert not (tmp_path / "tuned").exists()
