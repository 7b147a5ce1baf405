"""What loads "the newest checkpoint" (evaluate --checkpoint, ELMo.from_run(checkpoint=True),
train --resume) names every newer one it passes over and the step it takes instead."""

import json
import shutil

import pytest
from _train_helpers import MICRO_CLI

from elmo_tutorial.commands.cli import main as cli
from elmo_tutorial.model.checkpoint import chosen_checkpoint, newest_complete
from elmo_tutorial.model.elmo import ELMo


def _missing(step):
    shutil.rmtree(step)  # `latest` still names it


def _empty(step):
    shutil.rmtree(step)
    step.mkdir()


def _half(step):
    (step / "state.pt").unlink()


def _file(step):
    shutil.rmtree(step)
    step.write_text("not a checkpoint")


PASSED_OVER = {"missing": (_missing, "is missing (checkpoints/latest names it)"),
               "an empty folder": (_empty, "is empty (it lacks model.safetensors and state.pt)"),
               "incomplete": (_half, "is incomplete (it lacks state.pt)"),
               "a file": (_file, "is not a checkpoint folder")}


def _evaluate(run, capsys, *flags):
    code = cli(["evaluate", str(run), "--no-ngram", "--max-sentences", "5", "--json", *flags])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if code == 0 else None), err


@pytest.mark.parametrize(("damage", "says"), PASSED_OVER.values(), ids=PASSED_OVER.keys())
def test_evaluate_checkpoint_names_the_newest_passed_over_and_the_step_scored(run_copy, capsys,
                                                                             damage, says):
    code, reference, _ = _evaluate(run_copy, capsys, "--checkpoint")
    assert code == 0 and reference["weights"] == "checkpoints/step_000004"
    damage(run_copy / "checkpoints" / "step_000004")
    code, result, err = _evaluate(run_copy, capsys, "--checkpoint")
    assert code == 0 and result["weights"] == "checkpoints/step_000002"
    assert f"step_000004 {says}; scoring step_000002, the newest complete checkpoint" in err
    assert result["bilm"]["avg_ppl"] != reference["bilm"]["avg_ppl"]  # another step's weights


def test_evaluate_names_the_final_weights_it_scores(run_copy, capsys):
    code, result, err = _evaluate(run_copy, capsys)
    assert code == 0 and result["weights"] == "model.safetensors" and "warning" not in err


def test_a_run_still_training_is_scored_from_its_checkpoint_and_says_which(run_copy, capsys):
    (run_copy / "model.safetensors").unlink()
    _empty(run_copy / "checkpoints" / "step_000004")
    code = cli(["evaluate", str(run_copy), "--no-ngram", "--max-sentences", "5"])
    out, err = capsys.readouterr()
    assert code == 0 and f"{run_copy} (checkpoints/step_000002):" in out
    assert "step_000004 is empty" in err


def test_from_run_with_checkpoint_warns_the_same(run_copy, capsys):
    _missing(run_copy / "checkpoints" / "step_000004")
    ELMo.from_run(run_copy, checkpoint=True)
    assert "step_000004 is missing" in capsys.readouterr().err


def test_no_complete_checkpoint_is_a_clear_error(run_copy, capsys):
    for step in ("step_000002", "step_000004"):
        _empty(run_copy / "checkpoints" / step)
    code, _, err = _evaluate(run_copy, capsys, "--checkpoint")
    assert code == 2 and "has no complete checkpoint" in err and "step_000002 is empty" in err
    assert len(err.strip().splitlines()) == 1


def test_the_newest_complete_checkpoint_by_step_not_by_name(tmp_path):
    for step in ("step_999999", "step_1000000"):
        (tmp_path / "checkpoints" / step).mkdir(parents=True)
        for name in ("model.safetensors", "state.pt"):
            (tmp_path / "checkpoints" / step / name).write_bytes(b"x")
    assert newest_complete(tmp_path) == (tmp_path / "checkpoints" / "step_1000000", [])
    assert chosen_checkpoint(tmp_path).name == "step_1000000"


def test_train_resume_names_a_checkpoint_latest_names_but_that_is_gone(run_copy, capsys):
    (run_copy / "model.safetensors").unlink()
    _missing(run_copy / "checkpoints" / "step_000004")
    assert cli(["train", "--out", str(run_copy), *MICRO_CLI, "--resume"]) == 0
    err = capsys.readouterr().err
    assert "step_000004 is missing (checkpoints/latest names it); resuming from" in err
    assert (run_copy / "checkpoints" / "step_000004" / "state.pt").exists(), "written again"
