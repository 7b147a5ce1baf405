"""Each module a notebook teaches says so at its top ("Taught in notebook NN"), as the README's
course table lists it: a reader of the code finds the lesson, a reader of the lesson the code."""

import ast
import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ROW = re.compile(r"\| `((\d\d)_\w+)` \|.*\| (.*?) \| \d+ \|$")


def course_table() -> tuple[dict[str, list[str]], dict[str, str]]:
    """``{module: [notebook numbers]}`` and ``{number: notebook name}`` from the README."""
    taught, names = {}, {}
    for line in (ROOT / "README.md").read_text(encoding="utf-8").splitlines():
        if match := ROW.match(line):
            names[match[2]] = match[1]
            for module in re.findall(r"`([\w.]+)`", match[3]):
                taught.setdefault(module, []).append(match[2])
    return taught, names


TAUGHT, NAMES = course_table()


def expected_sentence(numbers: list[str]) -> str:
    if len(numbers) == 1:
        return f"Taught in notebook {numbers[0]} (``{NAMES[numbers[0]]}``)."
    return f"Taught in notebooks {', '.join(numbers[:-1])} and {numbers[-1]}."


def test_the_readme_table_names_modules_of_every_notebook():
    assert len(NAMES) == 15 and len(TAUGHT) >= 30


@pytest.mark.parametrize("module", sorted(TAUGHT))
def test_a_taught_module_names_its_notebooks(module):
    doc = importlib.import_module(f"elmo_tutorial.{module}").__doc__ or ""
    said = expected_sentence(TAUGHT[module]).rstrip(".")  # a clause may follow it
    assert said in " ".join(doc.split("\n\n", 2)[1].split()), (
        f"elmo_tutorial.{module}'s docstring should say, in its second paragraph, "
        f"{expected_sentence(TAUGHT[module])!r}")


def test_no_module_claims_a_notebook_the_readme_does_not_list():
    package = ROOT / "elmo_tutorial"
    for path in sorted(package.rglob("*.py")):
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        if "Taught in notebook" in doc:
            parts = path.relative_to(package).with_suffix("").parts
            module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            folder = module.rpartition(".")[0]  # a folder listed whole covers its modules
            assert module in TAUGHT or folder in TAUGHT, (
                f"{path.name} says where it is taught; the README does not")
            if module not in TAUGHT:
                assert TAUGHT[folder][0] in doc, f"{path.name} names another notebook"
