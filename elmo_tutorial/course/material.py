"""Course material made from the notebooks: student copies, slides and web pages.

The committed notebooks are the instructor's version: executed, every exercise solved
(:mod:`elmo_tutorial.course.exercises`). A student copy stubs each solution block and clears
that cell's outputs, blanks each model answer, and clears the outputs a *predict* exercise asks
to predict; everything else, figures included, stays, so students can compare. ``make
student``, ``make slides`` and ``make html`` run::

    python -m elmo_tutorial.course student student/
    python -m elmo_tutorial.course slides slides/ [--reveal-prefix URL] [--mathjax-url URL]
    python -m elmo_tutorial.course html html/ [--mathjax-url URL]

A page is the executed notebook as ``nbconvert --to html`` writes it, its formulas from MathJax 2
in ``mathjax/`` beside the pages (readable offline). No command overwrites a file changed since
it wrote it without ``--force`` (:mod:`elmo_tutorial.course.generated`).
"""

from __future__ import annotations

import argparse
import json
import sys
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
from elmo_tutorial.course.generated import write_generated
from elmo_tutorial.course.slides import MATHJAX_CONFIG, deck
from elmo_tutorial.runtime import REPOSITORY

NOTEBOOKS = REPOSITORY / "notebooks"
# A student copy trains the capstone (notebook 14) into a folder of its own: a student who ran
# the instructor's notebook "to look" must get neither its trained biLM nor its lock.
STUDENT_RUNS = {'RUNS / ("capstone-quick" if QUICK else "capstone")':
                'RUNS / ("student-capstone-quick" if QUICK else "student-capstone")',
                "runs/capstone": "runs/student-capstone"}  # the prose that names it


def student_copy(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy of ``notebook`` for students: every solution block stubbed (its cell's outputs
    cleared), every model answer replaced by a blank, and the outputs of the cells that show
    what a *predict* exercise asks to predict cleared (the student runs them after predicting);
    the capstone's run folder is the student's own (:data:`STUDENT_RUNS`).
    """
    copy = nbformat.from_dict(json.loads(json.dumps(notebook)))  # deep copy, same class
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


def read_notebook(path: Path) -> nbformat.NotebookNode:
    """The notebook at ``path`` (version 4). Raises :class:`CourseError` naming a file that
    is not a notebook."""
    try:
        return nbformat.read(path, as_version=4)
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as error:
        raise CourseError(f"{path} cannot be read as a notebook ({type(error).__name__}); "
                          f"restore it with `git checkout -- {path.name}` in its folder, or "
                          f"fix it in Jupyter") from None


LOCAL_MATHJAX = "mathjax/MathJax.js?" + MATHJAX_CONFIG  # MathJax 2 beside the pages


def made_from_notebooks(args: argparse.Namespace) -> dict[str, bytes]:
    """name → content of what ``args.command`` (student, slides, html) makes of each notebook."""
    from nbconvert import HTMLExporter

    pages = HTMLExporter(mathjax_url=getattr(args, "mathjax_url", None) or LOCAL_MATHJAX)
    files = {}
    for path in notebook_paths(args.notebooks):
        notebook = read_notebook(path)
        try:
            if args.command == "student":
                files[path.name] = nbformat.writes(student_copy(notebook)).encode() + b"\n"
            elif args.command == "slides":
                files[f"{path.stem}.slides.html"] = deck(notebook, args.reveal_prefix,
                                                            args.mathjax_url).encode()
            else:
                files[f"{path.stem}.html"] = pages.from_notebook_node(notebook)[0].encode()
        except CourseError as error:
            raise CourseError(f"{path.name}: {error}") from None
    return files


DONE = {"student": "wrote {n} student notebooks to {out}/",
        "slides": "wrote {n} reveal.js decks to {out}/",
        "html": "wrote {n} pages to {out}/ (formulas need MathJax 2 in {out}/mathjax/ unless "
                "--mathjax-url says otherwise)"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m elmo_tutorial.course",
                                     description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    for name, summary in [("student", "student copies: exercises stubbed, their outputs cleared"),
                          ("slides", "one reveal.js deck per notebook (.slides.html)"),
                          ("html", "one web page per executed notebook (.html), MathJax local")]:
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
        if name != "student":
            command.add_argument("--mathjax-url", default=None, metavar="URL",
                                 help="MathJax 2's MathJax.js?config=... (default: for pages, "
                                      "mathjax/ beside them; for slides a CDN, or mathjax/ "
                                      "beside a local --reveal-prefix)")
    args = parser.parse_args(argv)
    try:
        files = made_from_notebooks(args)
        write_generated(args.out, files, args.command, force=args.force)
    except CourseError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except OSError as error:  # a folder it may not write, a full disk: each file is whole
        print(f"error: {error.strerror or error} on {error.filename or args.out}: choose a "
              f"folder you may write to, with room for the files", file=sys.stderr)
        return 1
    print(DONE[args.command].format(n=len(files), out=args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
