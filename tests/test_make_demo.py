"""`make demo` runs a second time: its second train resumes the first one's finished run (a
fresh start would refuse to replace it), and evaluate and embed run again on it."""

import shlex
import subprocess

import pytest
from _train_helpers import MICRO_CLI

from elmo_tutorial.commands.cli import main as cli
from elmo_tutorial.runtime import REPOSITORY


def _demo_commands(run) -> list[list[str]]:
    """The elmo-tutorial commands `make demo` runs now (the micro model into ``run``)."""
    config = " ".join(shlex.quote(flag) for flag in MICRO_CLI)
    printed = subprocess.run(
        ["make", "-n", "-s", "-C", str(REPOSITORY), "demo", f"DEMO_DIR={run}",
         f"DEMO_CONFIG={config}"], capture_output=True, text=True, check=True).stdout
    return [shlex.split(line)[1:] for line in printed.splitlines()
            if line.split(" ")[0].endswith("/elmo-tutorial")]


@pytest.mark.slow  # two trainings, and two evaluations of the whole test split
def test_make_demo_runs_twice(tmp_path, capsys):
    run = tmp_path / "demo"
    for time in ("first", "second"):
        commands = _demo_commands(run)
        assert [c[0] for c in commands] == ["train", "evaluate", "embed"], commands
        assert ("--resume" in commands[0]) == (time == "second"), commands[0]
        for command in commands:
            assert cli(command) == 0, f"the {time} make demo: {command[0]} failed"
    assert (run / "model.safetensors").exists()
    assert "bank" in capsys.readouterr().out, "embed printed nothing about its sentences"
