"""Every notebook runs from any folder: a student copy written elsewhere (`make student
STUDENT_DIR=...`) must find the course's models and reports without a path relative to
`notebooks/`."""

import re
from pathlib import Path

import pytest

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
SOURCES = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.py"))
# "../data/...", Path("..") / "data", or Path("../...") in code (comments may show them)
RELATIVE = re.compile(r"""["']\.\./(data|runs)\b|Path\(\s*["']\.\.["']\s*\)""")


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_no_notebook_code_reads_the_repository_by_a_relative_path(source):
    code = [line.split("#", 1)[0] for line in source.read_text(encoding="utf-8").splitlines()
            if not line.lstrip().startswith("#")]
    found = [line.strip() for line in code if RELATIVE.search(line)]
    assert not found, (f"{source.name} reads {found}: use shipped_model('small') / "
                       "shipped_model('tiny') (elmo_tutorial.training.run_folder), which work "
                       "from any folder")
