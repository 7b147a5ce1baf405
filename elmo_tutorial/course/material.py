"""Course material made from the notebooks: student copies and slides."""

from __future__ import annotations

import argparse
import os
import sys
import time
from copy import deepcopy
from pathlib import Path

import nbformat

from elmo_tutorial.course.exercises import (
    ANSWER_MARKER,
    CourseError,
    list_exercises,
    strip_answers,
    stub_source,
    student_wording,
)
from elmo_tutorial.course.slides import deck
from elmo_tutorial.runtime import REPOSITORY

NOTEBOOKS = REPOSITORY / "notebooks"
# A student copy trains the capstone (notebook 14) into a folder of its own: a student who ran
# the instructor's notebook "to look" must get neither its trained biLM nor its lock.
STUDENT_RUNS = {'RUNS / ("capstone-quick" if QUICK else "capstone")':
                'RUNS / ("student-capstone-quick" if QUICK else "student-capstone")',
                "runs/capstone": "runs/student-capstone"}  # the prose that names it


def student_copy(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy of ``notebook`` for students: every solution block stubbed (its cell's outputs
    cleared), every model answer blanked, the outputs of a *predict* exercise's cells cleared,
    and the capstone's run folder the student's own (:data:`STUDENT_RUNS`)."""
    copy = deepcopy(notebook)
    hidden = set()
    for exercise in list_exercises(notebook):
        if exercise.kind == "predict":
            hidden.update(range(exercise.cell, exercise.end))
        for index in exercise.solution_cells:
            cell = copy.cells[index]
            cell.source = stub_source(cell.source, exercise.message, index)
            hidden.add(index)
            _tag(cell, "exercise")
    for index, cell in enumerate(copy.cells):
        cell.source = student_run_folder(cell.source)
        if cell.cell_type == "markdown":
            cell.source = student_wording(cell.source)
            if ANSWER_MARKER.search(cell.source):
                cell.source = strip_answers(cell.source, index)
                _tag(cell, "answer")
        elif index in hidden and cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    return copy


def student_run_folder(source: str) -> str:
    """``source`` naming the student's capstone run folder where it names the instructor's."""
    for instructor, student in STUDENT_RUNS.items():
        source = source.replace(instructor, student)
    return source


def _tag(cell: nbformat.NotebookNode, tag: str) -> None:
    tags = cell.metadata.setdefault("tags", [])
    if tag not in tags:
        tags.append(tag)


def notebook_paths(folder: Path = NOTEBOOKS) -> list[Path]:
    """The course's executed notebooks, ``NN_name.ipynb``, in order."""
    paths = sorted(Path(folder).glob("[0-9][0-9]_*.ipynb"))
    if not paths:
        raise CourseError(f"no notebooks NN_*.ipynb in {folder}: run this from a clone of the "
                          f"repository (the notebooks are not part of the installed package), "
                          f"or pass --notebooks DIR")
    return paths


def made_from_notebooks(args: argparse.Namespace) -> dict[str, bytes]:
    """name → content of what ``args.command`` (student, slides) makes of each notebook."""
    files = {}
    for path in notebook_paths(args.notebooks):
        notebook = nbformat.read(path, as_version=4)
        try:
            if args.command == "student":
                files[path.name] = nbformat.writes(student_copy(notebook)).encode() + b"\n"
            else:
                files[f"{path.stem}.slides.html"] = deck(notebook, path.stem,
                                                            args.reveal_prefix).encode()
        except CourseError as error:
            raise CourseError(f"{path.name}: {error}") from None
    return files


def write_files(out: Path, files: dict[str, bytes], protect: bool, force: bool) -> None:
    """Write ``files`` (name → content) into ``out``, each whole. With ``protect``, files there
    that differ from their fresh content are somebody's work: without ``force`` nothing is
    written (:class:`CourseError`); with it, they first move to ``out/backup-<time>/``."""
    out.mkdir(parents=True, exist_ok=True)
    changed = [name for name, data in files.items() if protect and (out / name).is_file()
               and (out / name).read_bytes() != data]
    if changed and not force:
        raise CourseError(f"{', '.join(str(out / name) for name in changed)} differ from fresh "
                          f"copies (your work?); nothing was written. Move them away, write to "
                          f"another folder, or pass --force (FORCE=1) to move them to "
                          f"{out}/backup-<time>/ and write fresh copies")
    if changed:
        backup = out / time.strftime("backup-%Y%m%d-%H%M%S")
        backup.mkdir()
        for name in changed:
            os.replace(out / name, backup / name)
        print(f"moved {len(changed)} changed file(s) to {backup}", file=sys.stderr)
    for name, data in files.items():
        temporary = out / f".{name}.tmp"
        temporary.write_bytes(data)
        os.replace(temporary, out / name)


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
    commands.choices["student"].add_argument(
        "--force", action="store_true",
        help="replace changed copies (they move to a backup folder first)")
    commands.choices["slides"].add_argument(
        "--reveal-prefix", default=None, metavar="URL",
        help="where reveal.js is loaded from (default: a CDN); e.g. a local copy 'reveal.js' "
             "beside the decks, with MathJax 2 in 'mathjax' beside it, for offline use")
    args = parser.parse_args(argv)
    try:
        files = made_from_notebooks(args)
        student = args.command == "student"
        write_files(args.out, files, protect=student, force=student and args.force)
    except (CourseError, ValueError) as error:  # ValueError: a file that is not a notebook
        print(f"error: {error}", file=sys.stderr)
        return 1
    except OSError as error:  # a folder it may not write, a full disk: each file is whole
        print(f"error: {error.strerror or error} on {error.filename or args.out}: choose a "
              f"folder you may write to, with room for the files", file=sys.stderr)
        return 1
    made = "student notebooks" if args.command == "student" else "reveal.js decks"
    print(f"wrote {len(files)} {made} to {args.out}/")
    return 0
