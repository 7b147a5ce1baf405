"""What the README tells a new user agrees with the files that decide it."""

import re
import tomllib
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parent.parent
README = (REPOSITORY / "README.md").read_text(encoding="utf-8")


def test_the_python_version_is_the_one_the_package_requires():
    required = tomllib.loads((REPOSITORY / "pyproject.toml").read_text())["project"][
        "requires-python"]
    conda = re.search(r"^\s*- python(\S+)", (REPOSITORY / "environment.yml").read_text(),
                      re.MULTILINE)[1]
    said = re.search(r"Python ≥ ([\d.]+)", README)[1]
    assert required == f">={said}" == conda, (required, conda, said)


def test_the_data_folders_named_are_the_ones_the_course_reads():
    """Every dataset the labelled-data readers (notebooks 09, 10, 12; `layers`, `tasks`) open,
    and the parity fixture, is in the README's list of offline folders."""
    from elmo_tutorial.data.registry import get_dataset

    readers = (REPOSITORY / "elmo_tutorial" / "data" / "annotated.py").read_text()
    names = set(re.findall(r'locate\("([\w-]+)"\)', readers)) | {"allennlp-elmo-fixture"}
    assert {"sst", "wnut17", "ud-english-ewt"} <= names, names
    listed = re.search(r"a folder holding(.*?)each\s+laid out", README, re.S)[1]
    for name in sorted(names):
        folder = get_dataset(name).folder
        assert f"`{folder}/`" in listed, f"the README's Data section does not name {folder}/"


def test_what_the_readmes_examples_write_is_ignored_by_git():
    ignored = (REPOSITORY / ".gitignore").read_text().split()
    for folder in re.findall(r"elmo-tutorial export \S+ --allennlp (\w+)/", README):
        assert f"/{folder}/" in ignored or f"{folder}/" in ignored, folder
