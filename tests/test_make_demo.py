"""`make demo` runs a second time: the second train resumes the first one's run, which a fresh
start would refuse to replace."""

import shlex
import shutil
import subprocess

from _train_helpers import MICRO_CLI

from elmo_tutorial.commands.cli import main as cli
from elmo_tutorial.runtime import REPOSITORY


def _demo_train(run) -> list[str]:
    """The arguments `make demo` gives `elmo-tutorial train` (the micro model into ``run``)."""
    config = " ".join(shlex.quote(flag) for flag in MICRO_CLI)
    printed = subprocess.run(
        ["make", "-n", "-s", "-C", str(REPOSITORY), "demo", f"DEMO_DIR={run}",
         f"DEMO_CONFIG={config}"], capture_output=True, text=True, check=True).stdout
    line = next(line for line in printed.splitlines() if "elmo-tutorial train" in line)
    return shlex.split(line)[1:]


def test_a_second_make_demo_resumes_the_first_run(finished_run, tmp_path):
    fresh = _demo_train(tmp_path / "new")
    assert "--resume" not in fresh and fresh[fresh.index("--out") + 1] == str(tmp_path / "new")
    run = shutil.copytree(finished_run, tmp_path / "run")
    again = _demo_train(run)
    assert "--resume" in again
    assert cli(again) == 0 and (run / "model.safetensors").exists()
