"""Each committed notebook is the executed form of its py:percent source, cell for cell."""

from pathlib import Path

import jupytext
import nbformat
import pytest

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
SOURCES = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.py"))


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_notebook_matches_its_source_and_was_executed_in_order(source):
    built = source.with_suffix(".ipynb")
    assert built.exists(), f"{built.name} is missing: run `make notebooks` and commit it"
    expected = [c.source for c in jupytext.read(source).cells]
    committed = nbformat.read(built, as_version=4)
    assert [c.source for c in committed.cells] == expected, (
        f"{built.name} differs from {source.name}: run `make notebooks` and commit both"
    )
    counts = [c.execution_count for c in committed.cells if c.cell_type == "code" and c.source]
    assert None not in counts and counts == sorted(counts), (
        f"{built.name} was not executed top to bottom: run `make notebooks`"
    )
