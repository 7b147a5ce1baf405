"""Course material made from the notebooks: student copies and slides.

The committed notebooks are the instructor's version: executed, with every exercise solved
between ``# BEGIN SOLUTION`` and ``# END SOLUTION`` lines. A student copy replaces each such
block with ``raise NotImplementedError("Exercise N: ...")`` and clears that cell's outputs;
everything else, outputs and figures included, stays as it is, so students can compare.

Usage (from a clone of the repository; ``make student`` and ``make slides`` call these)::

    python -m elmo_tutorial.course student student/          # one copy per notebook
    python -m elmo_tutorial.course slides slides/ [--reveal-prefix URL]

Both refuse to write into a folder they did not create, and refuse to overwrite a file that
was changed after they wrote it (a student's work), unless given ``--force``; then the changed
files are first moved to a ``backup-<time>/`` folder beside them, so nothing is lost.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import nbformat

from .runtime import REPOSITORY
from .safe_files import atomic_write_bytes, atomic_write_text

NOTEBOOKS = REPOSITORY / "notebooks"
MANIFEST = ".elmo-tutorial-generated.json"

_BEGIN = re.compile(r"^(?P<indent>[ \t]*)# BEGIN SOLUTION[ \t]*$")
_END = re.compile(r"^[ \t]*# END SOLUTION[ \t]*$")
_DEF = re.compile(r"^[ \t]*def (?P<name>\w+)\s*\(")
# "### Exercise 2: the targets of one sentence", "## 5. Exercise: the joint loss"
_HEADING = re.compile(r"^#+\s*(?:\d+\.\s*)?Exercise(?:\s+(?P<number>\d+))?\s*[:.]\s*(?P<task>.+)$",
                      re.MULTILINE)
# "**Exercise.** Write `f(x)`: ..." (an exercise announced inside a paragraph)
_INLINE = re.compile(r"\*\*Exercise[^*]*\*\*\s*(?P<task>[^:.\n]+)")


class CourseError(Exception):
    """A notebook or an output folder that the course tools cannot work with, and why."""


@dataclass(frozen=True)
class Exercise:
    """One exercise cell of a notebook.

    Attributes:
        cell: index of the code cell holding the solution block(s).
        number: 1, 2, ... in the order of the notebook.
        function: the function the solution sits in (None if it is at top level).
        task: what to do, from the exercise's heading (``"write layer norm"``).
        heading_number: the number the notebook's heading gives it, if any.
    """

    cell: int
    number: int
    function: str | None
    task: str
    heading_number: int | None = None

    @property
    def message(self) -> str:
        """The text of the stub's NotImplementedError."""
        return f"Exercise {self.number}: {self.task}. Replace this line with your code."


def _announcement(cells: list, index: int) -> tuple[str | None, int | None]:
    """The task and number of the exercise announced in the markdown above cell ``index``."""
    for cell in reversed(cells[:index]):
        if cell.cell_type == "code":
            break
        if cell.cell_type == "markdown":
            heading = _HEADING.search(cell.source)
            if heading:
                number = heading["number"]
                return heading["task"].strip().rstrip("."), int(number) if number else None
            inline = _INLINE.search(cell.source)
            if inline:
                return inline["task"].strip(), None
    return None, None


def find_exercises(notebook: nbformat.NotebookNode) -> list[Exercise]:
    """Every code cell with a ``# BEGIN SOLUTION`` block, numbered in order.

    Raises:
        CourseError: for a block that is not closed, or an END without a BEGIN.
    """
    exercises = []
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type != "code" or not re.search(r"# (BEGIN|END) SOLUTION", cell.source):
            continue
        function = None
        lines = cell.source.splitlines()
        for line in lines:
            if _DEF.match(line):
                function = _DEF.match(line)["name"]
            if _BEGIN.match(line):
                break
        _solution_blocks(lines, index)  # validates the markers
        task, heading_number = _announcement(notebook.cells, index)
        if task is None:
            task = f"write the body of `{function}`" if function else "write the missing code"
        exercises.append(Exercise(index, len(exercises) + 1, function, task, heading_number))
    return exercises


def _solution_blocks(lines: list[str], cell: int) -> list[tuple[int, int, str]]:
    """(first line, last line, indentation) of each BEGIN ... END block, markers included."""
    blocks, begin, indent = [], None, ""
    for number, line in enumerate(lines):
        if _BEGIN.match(line):
            if begin is not None:
                raise CourseError(f"cell {cell}: '# BEGIN SOLUTION' on line {number + 1} inside "
                                  f"another solution block; close the first with '# END SOLUTION'")
            begin, indent = number, _BEGIN.match(line)["indent"]
        elif _END.match(line):
            if begin is None:
                raise CourseError(f"cell {cell}: '# END SOLUTION' on line {number + 1} has no "
                                  f"'# BEGIN SOLUTION' before it")
            blocks.append((begin, number, indent))
            begin = None
    if begin is not None:
        raise CourseError(f"cell {cell}: '# BEGIN SOLUTION' on line {begin + 1} is never closed "
                          f"by '# END SOLUTION'")
    return blocks


def stub_source(source: str, message: str, cell: int = 0) -> str:
    """``source`` with each solution block replaced by ``raise NotImplementedError(message)``.

    >>> print(stub_source("def f(x):\\n    # BEGIN SOLUTION\\n    return x\\n    # END SOLUTION",
    ...                   "Exercise 1: return x"))
    def f(x):
        raise NotImplementedError("Exercise 1: return x")
    """
    lines = source.splitlines()
    for first, last, indent in reversed(_solution_blocks(lines, cell)):
        stub = f"{indent}raise NotImplementedError({json.dumps(message, ensure_ascii=False)})"
        lines[first:last + 1] = [stub]
    return "\n".join(lines)


def student_copy(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy of ``notebook`` with every exercise stubbed and its outputs cleared."""
    copy = nbformat.from_dict(json.loads(json.dumps(notebook)))  # deep copy, same class
    for exercise in find_exercises(notebook):
        cell = copy.cells[exercise.cell]
        cell.source = stub_source(cell.source, exercise.message, exercise.cell)
        cell.outputs = []
        cell.execution_count = None
        tags = cell.metadata.setdefault("tags", [])
        if "exercise" not in tags:
            tags.append("exercise")
    return copy


def notebook_paths(folder: Path = NOTEBOOKS) -> list[Path]:
    """The course's executed notebooks, ``NN_name.ipynb``, in order."""
    paths = sorted(Path(folder).glob("[0-9][0-9]_*.ipynb"))
    if not paths:
        raise CourseError(f"no notebooks NN_*.ipynb in {folder}: run this from a clone of the "
                          f"repository (the notebooks are not part of the installed package), "
                          f"or pass --notebooks DIR")
    return paths


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write_generated(out: Path, files: dict[str, bytes], kind: str, force: bool = False) -> None:
    """Write generated ``files`` (name → content) into ``out`` without losing anybody's work.

    ``out`` may be new, empty, or a folder this function wrote before for the same ``kind``
    (it keeps a manifest of what it wrote, with checksums). A file there that differs from what
    was written (edited, executed, saved) is never silently overwritten: without ``force`` the
    call refuses and writes nothing; with ``force`` such files move to ``out/backup-<time>/``.
    Other files in ``out`` are left alone.

    Raises:
        CourseError: saying what is in the way and how to proceed.
    """
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise CourseError(f"{out} is a file, not a folder: choose a folder to write into")
    manifest_path = out / MANIFEST
    written: dict[str, str] = {}
    if manifest_path.exists():
        manifest = json.loads(manifest_path.read_text())
        if manifest.get("kind") != kind:
            raise CourseError(f"{out} holds generated {manifest.get('kind')}, not {kind}: "
                              f"choose another folder")
        written = manifest.get("files", {})
    elif out.exists() and any(not p.name.startswith(".") for p in out.iterdir()) and not force:
        raise CourseError(f"{out} already exists and was not made by `make {kind}`; nothing was "
                          f"written. Choose a new or empty folder, or pass --force (FORCE=1) to "
                          f"write into it (files in the way move to a backup folder first)")
    changed = [name for name in files if (out / name).exists()
               and _sha256((out / name).read_bytes()) != written.get(name)]
    if changed and not force:
        listing = ", ".join(str(out / name) for name in changed)
        raise CourseError(f"changed since `make {kind}` wrote them (your work?): {listing}. "
                          f"Nothing was written. Move them away, write to another folder, or "
                          f"pass --force (FORCE=1) to move them to {out}/backup-<time>/ and "
                          f"write fresh copies")
    out.mkdir(parents=True, exist_ok=True)
    if changed:
        backup = out / time.strftime("backup-%Y%m%d-%H%M%S")
        while backup.exists():  # two runs within a second
            backup = backup.with_name(backup.name + "+")
        backup.mkdir()
        for name in changed:
            os.replace(out / name, backup / name)
        print(f"moved {len(changed)} changed file(s) to {backup}", file=sys.stderr)
    for name, data in files.items():
        atomic_write_bytes(out / name, data)  # never a half-written notebook
        written[name] = _sha256(data)
    atomic_write_text(manifest_path, json.dumps({"kind": kind, "files": written}, indent=1) + "\n")


def _student(args: argparse.Namespace) -> str:
    files, count = {}, 0
    for path in notebook_paths(args.notebooks):
        notebook = nbformat.read(path, as_version=4)
        try:
            copy = student_copy(notebook)
        except CourseError as error:
            raise CourseError(f"{path.name}: {error}") from None
        count += len(find_exercises(notebook))
        files[path.name] = nbformat.writes(copy).encode() + b"\n"
    write_generated(args.out, files, "student", force=args.force)
    return f"wrote {len(files)} student notebooks with {count} exercises to {args.out}/"


def _slides(args: argparse.Namespace) -> str:
    from .slides import deck  # nbconvert is imported only when slides are made

    files = {}
    for path in notebook_paths(args.notebooks):
        notebook = nbformat.read(path, as_version=4)
        files[f"{path.stem}.slides.html"] = deck(notebook, args.reveal_prefix).encode()
    write_generated(args.out, files, "slides", force=args.force)
    return f"wrote {len(files)} reveal.js decks to {args.out}/"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m elmo_tutorial.course",
                                     description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    for name, summary in [("student", "student copies: exercises stubbed, their outputs cleared"),
                          ("slides", "one reveal.js deck per notebook (.slides.html)")]:
        command = commands.add_parser(name, help=summary, description=summary)
        command.add_argument("out", type=Path, help="the folder to write into")
        command.add_argument("--notebooks", type=Path, default=NOTEBOOKS,
                             help="the executed NN_*.ipynb notebooks (default: %(default)s)")
        command.add_argument("--force", action="store_true",
                             help="write even over changed files (they are backed up first)")
        if name == "slides":
            command.add_argument("--reveal-prefix", default=None, metavar="URL",
                                 help="where reveal.js is loaded from (default: a CDN); e.g. a "
                                      "local copy 'reveal.js' beside the decks, for offline use")
    args = parser.parse_args(argv)
    try:
        print((_student if args.command == "student" else _slides)(args))
    except CourseError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
