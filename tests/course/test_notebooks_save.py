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
