"""Stop signals outside ``train`` (whose own are tested in tests/files/test_no_lost_work.py
and tests/training/test_launch.py): Ctrl-C, a scheduler's SIGTERM and a closed terminal's
SIGHUP end every command with one line, exit 130, saying what was kept and how to go on;
no worker is left running and no file half-written."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from elmo_tutorial.commands.cli import main as cli

REPOSITORY = str(Path(__file__).resolve().parents[2])
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(
    [REPOSITORY, *filter(None, [os.environ.get("PYTHONPATH")])])}

# Arguments each command parses (the run is replaced: only the wrapper around it is tested)
ARGUMENTS = {"doctor": [], "data": ["list"], "evaluate": ["runs/x"], "embed": ["runs/x", "Hi"],
             "export": ["runs/x", "--copy", "out"], "layers": ["runs/x"], "tasks": ["runs/x"]}


def test_every_command_but_train_has_its_arguments_listed_here():
    from elmo_tutorial.commands.cli import COMMANDS

    assert set(ARGUMENTS) == set(COMMANDS) - {"train"}


@pytest.fixture
def stop_signals_as_in_a_terminal():
    """The stop signals' default handlers for the test: under nohup (SIGHUP) or as a background
    job (SIGINT) they arrive ignored, and a command rightly leaves an ignored signal alone."""
    names = ("SIGINT", "SIGTERM", "SIGHUP")
    previous = {n: signal.signal(getattr(signal, n), signal.SIG_DFL) for n in names}
    signal.signal(signal.SIGINT, signal.default_int_handler)  # Python's own, as at start-up
    yield
    for n, handler in previous.items():
        signal.signal(getattr(signal, n), handler)


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])
@pytest.mark.parametrize("command", sorted(ARGUMENTS))
def test_a_stop_signal_ends_any_command_with_one_line_not_a_silent_death(
        command, name, monkeypatch, capsys, stop_signals_as_in_a_terminal):
    import importlib

    module = importlib.import_module(f"elmo_tutorial.commands.{command}")
    monkeypatch.setattr(module, "run", lambda args: signal.raise_signal(getattr(signal, name)))
    assert cli([command, *ARGUMENTS[command]]) == 130
    err = capsys.readouterr().err
    assert err.startswith(f"elmo-tutorial {command}: interrupted") and err.count("\n") == 1, err
    assert "run the same command again" in err
    assert signal.getsignal(signal.SIGTERM) is not signal.default_int_handler  # handed back


# -- in a process of their own: the tasks' pool of workers, the layers' cache -----------------

def _default_handlers():  # whatever the tests run under (nohup, `&`) ignores
    for name in ("SIGINT", "SIGTERM", "SIGHUP"):
        signal.signal(getattr(signal, name), signal.SIG_DFL)


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry.name))
            except (OSError, ValueError, IndexError):
                pass
    return found


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


TASKS_SCRIPT = """
import sys, time
from elmo_tutorial.commands.cli import main
from elmo_tutorial.formats import allennlp_format
from elmo_tutorial.tasks import report, runs
from elmo_tutorial.tasks.runs import Job, RunStore

def slow_train(job, *state):  # a training run of the report, in a pool worker: two short first
    time.sleep(0.3 if job.seed < 2 else 60)
    return job, {{"score": float(job.seed)}}

def the_report(model, *, workers, store, **settings):
    report.run([Job("sst5", "baseline", seed) for seed in range(400)], store, (), workers)

report._train = slow_train
report.task_report = the_report
runs.open_run_store = lambda *args: RunStore({runs!r}, {{"test": 1}})
allennlp_format.load_model = lambda paths: None
sys.exit(main(["tasks", "no-model", "--workers", "2"]))
"""


@pytest.mark.slow  # a process with a pool of two workers, started and stopped
@pytest.mark.skipif(not Path("/proc").is_dir() or os.cpu_count() < 2, reason="Linux, 2 cores")
# SIGHUP takes SIGTERM's path (test_a_stop_signal_ends_any_command_with_one_line...); Ctrl-C
# reaches the workers too, SIGKILL leaves no time to stop them.
@pytest.mark.parametrize("how", ["SIGTERM", "Ctrl-C", "SIGKILL"])
def test_tasks_stopped_keeps_its_finished_runs_and_leaves_no_worker(tmp_path, how):
    from elmo_tutorial.tasks.runs import RunStore

    runs = tmp_path / "runs.jsonl"
    tasks = subprocess.Popen([sys.executable, "-c", TASKS_SCRIPT.format(runs=str(runs))],
                             stderr=subprocess.PIPE, text=True, env=ENV,
                             preexec_fn=_default_handlers, start_new_session=True)
    workers = []
    try:
        waited = 0.0
        while not (runs.exists() and runs.read_text().count("\n") >= 3):  # 2 runs finished
            assert tasks.poll() is None, tasks.communicate()[1]
            assert waited < 60, "no run finished"
            time.sleep(0.1)
            waited += 0.1
        workers = _children(tasks.pid)
        assert len(workers) == 2, workers
        if how == "Ctrl-C":  # a terminal sends it to the whole foreground process group
            os.killpg(tasks.pid, signal.SIGINT)
        else:
            tasks.send_signal(getattr(signal, how))
        _, err = tasks.communicate(timeout=60)
        waited = 0.0
        while [w for w in workers if _alive(w)] and waited < 20:  # a run takes 60 s
            time.sleep(0.1)
            waited += 0.1
        assert not [w for w in workers if _alive(w)], "a pool worker was left running"
    finally:
        for pid in [tasks.pid, *workers]:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
    kept = len(RunStore(runs, {"test": 1}))
    assert kept >= 2
    if how == "SIGKILL":
        assert tasks.returncode == -signal.SIGKILL
        return
    assert tasks.returncode == 130 and "Traceback" not in err, err
    assert err.strip().splitlines()[-1] == (
        f"elmo-tutorial tasks: interrupted; the {kept} runs finished so far are kept in "
        f"{runs}: run the same command again to continue from them")


LAYERS_SCRIPT = """
import sys, time
from elmo_tutorial import ELMo
from elmo_tutorial.analyses import layer_report
from elmo_tutorial.analyses.embedder import Embedder
from elmo_tutorial.analyses.embedding_cache import embed_corpus
from elmo_tutorial.commands.cli import main
from elmo_tutorial.formats import allennlp_format
from elmo_tutorial.model.config import MODEL_PRESETS

class SlowEmbedder(Embedder):
    def iter_batches(self, *args, **kwargs):
        for batch in super().iter_batches(*args, **kwargs):
            print("a batch", flush=True)
            time.sleep(0.2)
            yield batch

def the_report(model, **settings):
    embedder = SlowEmbedder(ELMo(MODEL_PRESETS["tiny"]))
    embed_corpus(embedder, [["Done", "before"]], "finished", progress=False)
    embed_corpus(embedder, [["the", "bank"]] * 4000, "cut", progress=False, batch_size=8)

layer_report.layer_report = the_report
allennlp_format.load_model = lambda paths: None
sys.exit(main(["layers", "no-model"]))
"""


@pytest.mark.slow  # a process that embeds, stopped halfway
def test_layers_stopped_leaves_no_half_written_cache_file_and_keeps_finished_ones(tmp_path):
    """SIGTERM; SIGHUP and Ctrl-C end a command the same way (a KeyboardInterrupt,
    test_a_stop_signal_ends_any_command_with_one_line_not_a_silent_death)."""
    env = {**ENV, "ELMO_TUTORIAL_CACHE": str(tmp_path / "cache")}
    layers = subprocess.Popen([sys.executable, "-c", LAYERS_SCRIPT], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=env,
                              preexec_fn=_default_handlers)
    try:
        for _ in range(3):  # the finished entry, then the one cut
            assert layers.stdout.readline() == "a batch\n", layers.communicate()[1]
        folder = tmp_path / "cache" / "embeddings"
        assert [p for p in folder.iterdir() if p.name.endswith(".tmp")]  # being written
        layers.send_signal(signal.SIGTERM)
        _, err = layers.communicate(timeout=60)
    finally:
        if layers.poll() is None:
            layers.kill()
    assert layers.returncode == 130 and "Traceback" not in err, err
    assert err.strip().splitlines()[-1] == (
        "elmo-tutorial layers: interrupted; the layers embedded so far are kept in the "
        f"embedding cache ({folder}) and read from there: run the same command again to "
        "continue")
    left = sorted(p.name.split("-")[0] + p.suffix for p in folder.iterdir())
    assert left == ["finished.npy"]  # nothing of the entry that was cut
