"""Workers that stop with the process that started them (``elmo_tutorial.training.workers``):
a worker ends, once, with its parent."""

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

REPOSITORY = str(Path(__file__).resolve().parents[2])
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(
    [REPOSITORY, *filter(None, [os.environ.get("PYTHONPATH")])])}


def _wait_for(path: Path, seconds: float = 30) -> str:
    waited = 0.0
    while not (path.exists() and path.read_text().strip()):
        assert waited < seconds, f"{path} was not written"
        time.sleep(0.05)
        waited += 0.05
    return path.read_text()


def test_a_worker_gets_one_sigterm_when_its_parent_is_killed_outright(tmp_path):
    """A parent killed with SIGKILL says nothing to its child; the child's watcher does, once
    (a second stop signal would mean "stop at once", without a checkpoint)."""
    child_script = textwrap.dedent(f"""
        import os, pathlib, signal, time
        from elmo_tutorial.training.workers import die_with_parent
        received = []
        signal.signal(signal.SIGTERM, lambda *a: received.append(1))
        die_with_parent(interval=0.05)
        pathlib.Path({str(tmp_path / "pid")!r}).write_text(str(os.getpid()))
        for _ in range(400):  # 20 s at most
            time.sleep(0.05)
            if received:
                break
        time.sleep(1)  # any second signal arrives meanwhile
        pathlib.Path({str(tmp_path / "count")!r}).write_text(str(len(received)))
    """)
    parent_script = textwrap.dedent(f"""
        import subprocess, sys, threading, time
        threading.Thread(target=time.sleep, args=(60,), daemon=True).start()  # a thread more
        subprocess.Popen([sys.executable, "-c", {child_script!r}])
        time.sleep(60)
    """)
    parent = subprocess.Popen([sys.executable, "-c", parent_script], env=ENV)
    try:
        _wait_for(tmp_path / "pid")
        parent.kill()
        parent.wait()
        assert _wait_for(tmp_path / "count") == "1"
    finally:
        if parent.poll() is None:
            parent.kill()
