"""A notebook opened in a kernel without the package says how to get it, not a bare import error."""

import sys
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("[0-9][0-9]_*.py"))


def first_code_cell(source: Path) -> str:
    cells = source.read_text(encoding="utf-8").split("\n# %%")
    return next(cell.split("\n", 1)[1] for cell in cells[1:] if not cell.startswith(" [markdown]"))


@pytest.mark.parametrize("source", NOTEBOOKS, ids=lambda p: p.stem)
def test_first_cell_without_the_package_says_to_run_make_lab(source, monkeypatch):
    for name in [m for m in sys.modules if m == "elmo_tutorial" or m.startswith("elmo_tutorial.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "elmo_tutorial", None)  # import elmo_tutorial now fails
    with pytest.raises(ModuleNotFoundError, match=r"cannot import elmo_tutorial.*`make lab`"):
        exec(first_code_cell(source), {})
