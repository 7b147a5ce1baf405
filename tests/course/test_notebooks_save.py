"""Notebooks save in JupyterLab: opened, edited and saved through jupytext's contents manager.

JupyterLab talks to the server's contents manager, which `jupytext` replaces with one that
pairs each ``.ipynb`` with the ``.py`` script named in ``jupytext.toml``. A script header that
names other formats than the configuration makes every save fail ("File Save Error": the path
matches none of the export formats) and the instructor loses the edit. These tests do what
JupyterLab does on Ctrl+S, for every instructor notebook and for a student copy.
"""

import asyncio
import shutil
from pathlib import Path

import jupytext
import nbformat
import pytest

from elmo_tutorial.course.material import student_copy

pytest.importorskip("jupyter_server")
from jupytext import AsyncTextFileContentsManager  # noqa: E402  (needs jupyter_server)

REPOSITORY = Path(__file__).resolve().parents[2]
NOTEBOOKS = REPOSITORY / "notebooks"
SOURCES = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.py"))
EDIT = "A note an instructor added."


def _open_edit_save(root: Path, path: str) -> None:
    """Open ``path`` like JupyterLab, append a markdown cell, save it like Ctrl+S does."""
    async def run() -> None:
        manager = AsyncTextFileContentsManager(root_dir=str(root))
        model = await manager.get(path)
        model["content"].cells.append(nbformat.v4.new_markdown_cell(EDIT))
        await manager.save(model, path)
    asyncio.run(run())


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_instructor_notebook_saves_and_stays_paired(source, tmp_path):
    shutil.copy(REPOSITORY / "jupytext.toml", tmp_path)
    folder = tmp_path / "notebooks"
    folder.mkdir()
    for suffix in (".py", ".ipynb"):
        shutil.copy(source.with_suffix(suffix), folder)
    outputs_before = sum(len(c.get("outputs", [])) for c in
                         nbformat.read(source.with_suffix(".ipynb"), as_version=4).cells)

    _open_edit_save(tmp_path, f"notebooks/{source.stem}.ipynb")

    saved = nbformat.read(folder / f"{source.stem}.ipynb", as_version=4)
    script = jupytext.read(folder / source.name)
    assert saved.cells[-1].source == EDIT, "the edit did not reach the .ipynb"
    assert script.cells[-1].source == EDIT, "the edit did not reach the paired .py script"
    assert [c.source for c in saved.cells] == [c.source for c in script.cells]
    assert sum(len(c.get("outputs", [])) for c in saved.cells) == outputs_before, (
        "saving lost outputs")


def test_student_copy_saves(tmp_path):
    """A student copy (``make student`` writes it inside the repository) saves as well."""
    shutil.copy(REPOSITORY / "jupytext.toml", tmp_path)
    folder = tmp_path / "student"
    folder.mkdir()
    source = NOTEBOOKS / "07_scalar_mix.ipynb"
    nbformat.write(student_copy(nbformat.read(source, as_version=4)), folder / source.name)

    _open_edit_save(tmp_path, f"student/{source.name}")

    saved = nbformat.read(folder / source.name, as_version=4)
    assert saved.cells[-1].source == EDIT
    assert any("NotImplementedError" in c.source for c in saved.cells), (
        "the stubs of the student copy were lost on save")


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_a_save_from_make_lab_reaches_both_files_even_after_a_checkout(source, tmp_path):
    """`make lab` opens notebooks/00_...ipynb, so the server's root is notebooks/ and jupytext
    never reads the repository's jupytext.toml: notebooks/ has its own. After a checkout the
    .ipynb may be newer than its script; it still opens. The kernel name stays as committed."""
    import os
    import time

    shutil.copy(REPOSITORY / "jupytext.toml", tmp_path)
    folder = tmp_path / "notebooks"
    folder.mkdir()
    shutil.copy(NOTEBOOKS / "jupytext.toml", folder)
    for suffix in (".py", ".ipynb"):
        shutil.copy(source.with_suffix(suffix), folder)
    older = time.time() - 600
    os.utime(folder / source.name, (older, older))  # the script older than the notebook

    _open_edit_save(folder, f"{source.stem}.ipynb")  # the server's root: notebooks/

    saved = nbformat.read(folder / f"{source.stem}.ipynb", as_version=4)
    script = jupytext.read(folder / source.name)
    assert saved.cells[-1].source == EDIT and script.cells[-1].source == EDIT
    from ipykernel.kernelspec import get_kernel_dict

    assert saved.metadata.kernelspec.display_name == get_kernel_dict()["display_name"], (
        "the committed kernel name is not the one a save writes: every save would change it")


def test_a_save_without_an_edit_leaves_both_files_as_committed(tmp_path):
    """`make lab` serves notebooks/: opening a notebook and saving it unedited rewrites its
    .ipynb and its script; both must come out byte for byte as committed (jupytext's
    metadata and the widgets' state included), or every save dirties `git status`."""
    folder = tmp_path / "notebooks"
    folder.mkdir()
    shutil.copy(NOTEBOOKS / "jupytext.toml", folder)
    for source in SOURCES:
        for suffix in (".py", ".ipynb"):
            shutil.copy(source.with_suffix(suffix), folder)

    async def save_all() -> None:
        manager = AsyncTextFileContentsManager(root_dir=str(folder))
        for source in SOURCES:
            model = await manager.get(f"{source.stem}.ipynb")
            await manager.save(model, f"{source.stem}.ipynb")
    asyncio.run(save_all())

    changed = [f"{source.stem}{suffix}" for source in SOURCES for suffix in (".py", ".ipynb")
               if (folder / f"{source.stem}{suffix}").read_bytes()
               != source.with_suffix(suffix).read_bytes()]
    assert not changed, f"a save without an edit rewrites {changed}"


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _save_all_through_jupyterlab(root: Path, folder: Path) -> list[str]:
    """Start `jupyter lab FOLDER/first.ipynb` in ``root`` as `make lab` does, open every
    numbered notebook of ``folder`` through the server's contents API, append a cell and save
    it as JupyterLab's Ctrl+S does; the names saved."""
    import json
    import subprocess
    import sys
    import time
    import urllib.request

    port, token = _free_port(), "elmo-tutorial-test"
    first = sorted(folder.glob("[0-9][0-9]_*.ipynb"))[0].relative_to(root)
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyter", "lab", "--no-browser", f"--port={port}",
         f"--IdentityProvider.token={token}", "--allow-root", str(first)],
        cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)

    def call(method: str, path: str, body: dict | None = None) -> dict:
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/api/contents/{path}", method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={"Authorization": f"token {token}", "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.loads(response.read())

    try:
        for _ in range(120):  # the server starts in a few seconds
            try:
                listing = call("GET", "")
                break
            except OSError:
                if server.poll() is not None:
                    pytest.fail(f"jupyter lab did not start: {server.stderr.read()[-2000:]}")
                time.sleep(0.5)
        else:
            pytest.fail("jupyter lab did not answer within a minute")
        names = sorted(item["name"] for item in listing["content"]
                       if item["name"].endswith(".ipynb") and item["name"][:2].isdigit())
        assert len(names) == len(SOURCES), f"the server's root is not {folder.name}/: {names}"
        for name in names:
            model = call("GET", f"{name}?content=1&type=notebook")
            model["content"]["cells"].append(nbformat.v4.new_markdown_cell(EDIT))
            call("PUT", name, {"type": "notebook", "format": "json",
                               "content": model["content"]})
    finally:
        server.terminate()
        server.wait(timeout=30)
    return names


@pytest.mark.slow
def test_a_jupyterlab_started_as_make_lab_saves_every_notebook_into_both_files(tmp_path):
    """The real thing: `jupyter lab notebooks/00_....ipynb` started from a copy of the
    repository as `make lab` starts it, every notebook opened and saved through the server's
    contents API (what JupyterLab's Ctrl+S sends), the .ipynb newer than its script as after
    a checkout; both files get the edit, and each pair stays in sync."""
    import os
    import time

    shutil.copy(REPOSITORY / "jupytext.toml", tmp_path)
    folder = tmp_path / "notebooks"
    shutil.copytree(NOTEBOOKS, folder, ignore=shutil.ignore_patterns("__pycache__", ".*"))
    older = time.time() - 600
    for script in folder.glob("[0-9][0-9]_*.py"):
        os.utime(script, (older, older))  # as after a checkout: the notebooks are newer
    for name in _save_all_through_jupyterlab(tmp_path, folder):
        saved = nbformat.read(folder / name, as_version=4)
        script = jupytext.read(folder / name.replace(".ipynb", ".py"))
        assert saved.cells[-1].source == EDIT, f"{name}: the edit did not reach the .ipynb"
        assert script.cells[-1].source == EDIT, f"{name}: the edit did not reach its .py"
        assert [c.source for c in saved.cells] == [c.source for c in script.cells], name


@pytest.mark.slow
def test_a_jupyterlab_started_as_make_student_lab_saves_every_student_copy(tmp_path):
    """`make student-lab` serves the student copies the same way: every one saves, its stubs
    kept."""
    from elmo_tutorial.course.material import main

    shutil.copy(REPOSITORY / "jupytext.toml", tmp_path)
    folder = tmp_path / "student"
    assert main(["student", str(folder)]) == 0
    for name in _save_all_through_jupyterlab(tmp_path, folder):
        saved = nbformat.read(folder / name, as_version=4)
        assert saved.cells[-1].source == EDIT, f"{name}: the edit was not saved"
        assert any("NotImplementedError" in c.source for c in saved.cells), (
            f"{name}: its stubs were lost on save")
