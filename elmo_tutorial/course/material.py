"""Course material made from the notebooks: student copies, slides and web pages.

The committed notebooks are the instructor's version: executed, with every exercise solved
(:mod:`elmo_tutorial.course.exercises` describes the conventions). A student copy replaces
each block between ``# BEGIN SOLUTION`` and ``# END SOLUTION`` lines with
``raise NotImplementedError("Exercise N: ...")`` and clears that cell's outputs, replaces each
model answer between ``<!-- BEGIN ANSWER -->`` and ``<!-- END ANSWER -->`` with a blank for the
student's answer, and clears the outputs that a *predict* exercise asks to predict; everything
else, outputs and figures included, stays as it is, so students can compare.

Usage (from a clone of the repository; ``make student`` and ``make slides`` call these)::

    python -m elmo_tutorial.course student student/          # one copy per notebook
    python -m elmo_tutorial.course slides slides/ [--reveal-prefix URL] [--mathjax-url URL]
    python -m elmo_tutorial.course html html/ [--mathjax-url URL]   # one page per notebook

A page (``html``) is the executed notebook as ``nbconvert --to html`` writes it, except that its
formulas load MathJax from ``mathjax/`` beside the pages by default, not from the web: a page
read offline would otherwise show its formulas as TeX source (the README says how to put
MathJax 2 there; ``--mathjax-url`` points elsewhere, e.g. to a CDN).

All three refuse to write into a folder they did not create, and refuse to overwrite a file that
was changed after they wrote it (a student's work), unless given ``--force``; then the changed
files are first moved to a ``backup-<time>/`` folder beside them, so nothing is lost
(:mod:`elmo_tutorial.course.generated` says how, crashes and saves during a run included).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import nbformat

from elmo_tutorial.course.exercises import (
    KINDS,
    CourseError,
    Exercise,
    ExerciseHeading,
    find_exercises,
    has_answer,
    list_exercises,
    strip_answers,
    stub_source,
    student_wording,
)
from elmo_tutorial.course.generated import MANIFEST, write_generated
from elmo_tutorial.course.slides import MATHJAX_CONFIG, deck
from elmo_tutorial.files.guarded_read import read_regular_file
from elmo_tutorial.files.safe_files import DiskFull
from elmo_tutorial.runtime import REPOSITORY

NOTEBOOKS = REPOSITORY / "notebooks"

__all__ = ["KINDS", "MANIFEST", "NOTEBOOKS", "CourseError", "Exercise", "ExerciseHeading",
           "find_exercises", "list_exercises", "main", "notebook_paths", "read_notebook",
           "strip_answers",
           "student_copy", "stub_source", "write_generated"]


def student_copy(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy of ``notebook`` for students: every solution block stubbed (its cell's outputs
    cleared), every model answer replaced by a blank, and the outputs of the cells that show
    what a *predict* exercise asks to predict cleared (the student runs them after predicting).
    """
    copy = nbformat.from_dict(json.loads(json.dumps(notebook)))  # deep copy, same class
    hidden = {index for heading in list_exercises(notebook) if heading.kind == "predict"
              for index in range(heading.cell, heading.end)}
    for exercise in find_exercises(notebook):
        cell = copy.cells[exercise.cell]
        cell.source = stub_source(cell.source, exercise.message, exercise.cell)
        hidden.add(exercise.cell)
        _tag(cell, "exercise")
    for index, cell in enumerate(copy.cells):
        if cell.cell_type == "markdown":
            cell.source = student_wording(cell.source)
        if has_answer(cell):
            cell.source = strip_answers(cell.source, index)
            _tag(cell, "answer")
        elif index in hidden and cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    return copy


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


MAX_NOTEBOOK_BYTES = 1 << 28  # the largest executed notebook, figures included, takes 3 MB


def read_notebook(path: Path) -> nbformat.NotebookNode:
    """The notebook at ``path`` (version 4), read through the guard of every input file.

    Raises:
        CourseError: naming the file: not a regular file, not JSON, not a notebook.
    """
    try:
        data = read_regular_file(path, MAX_NOTEBOOK_BYTES)
    except (OSError, ValueError) as error:  # what the path is, said by the guard
        raise CourseError(str(error)) from None
    try:
        return nbformat.reads(data.decode("utf-8"), as_version=4)
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        # nbformat's NotJSONError is a ValueError; a JSON list or string fails further in
        what = str(error).strip().splitlines()[0][:120] if str(error).strip() else ""
        raise CourseError(f"{path} cannot be read as a notebook ({type(error).__name__}"
                          f"{': ' + what if what else ''}); restore it with `git checkout -- "
                          f"{path.name}` in its folder, or fix it in Jupyter") from None
    except RecursionError:  # "[[[[..." deeper than Python's stack: no notebook nests so
        raise CourseError(f"{path} cannot be read as a notebook (its JSON is nested thousands "
                          "of levels deep, more than Python can read); restore it with `git "
                          f"checkout -- {path.name}` in its folder") from None


def _student(args: argparse.Namespace) -> str:
    files, count = {}, 0
    for path in notebook_paths(args.notebooks):
        notebook = read_notebook(path)
        try:
            copy = student_copy(notebook)
        except CourseError as error:
            raise CourseError(f"{path.name}: {error}") from None
        count += len(list_exercises(notebook)) or len(find_exercises(notebook))
        files[path.name] = nbformat.writes(copy).encode() + b"\n"
    write_generated(args.out, files, "student", force=args.force)
    return f"wrote {len(files)} student notebooks with {count} exercises to {args.out}/"


LOCAL_MATHJAX = "mathjax/MathJax.js?" + MATHJAX_CONFIG  # MathJax 2 beside the pages


def _html(args: argparse.Namespace) -> str:
    from nbconvert import HTMLExporter

    exporter = HTMLExporter(mathjax_url=args.mathjax_url or LOCAL_MATHJAX)
    files = {}
    for path in notebook_paths(args.notebooks):
        page, _ = exporter.from_notebook_node(read_notebook(path))
        files[f"{path.stem}.html"] = page.encode()
    write_generated(args.out, files, "html", force=args.force)
    return f"wrote {len(files)} pages to {args.out}/ (formulas need MathJax 2 in " \
           f"{args.out}/mathjax/ unless --mathjax-url says otherwise)"


def _slides(args: argparse.Namespace) -> str:
    files = {}
    for path in notebook_paths(args.notebooks):
        notebook = read_notebook(path)
        files[f"{path.stem}.slides.html"] = deck(notebook, args.reveal_prefix,
                                                    args.mathjax_url).encode()
    write_generated(args.out, files, "slides", force=args.force)
    return f"wrote {len(files)} reveal.js decks to {args.out}/"


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
            command.add_argument("--mathjax-url", default=None, metavar="URL",
                                 help="MathJax 2's MathJax.js?config=... (default: a CDN, or "
                                      "with a local --reveal-prefix, mathjax/ beside it)")
        if name == "html":
            command.add_argument("--mathjax-url", default=None, metavar="URL",
                                 help="MathJax 2's MathJax.js?config=... (default: mathjax/ "
                                      "beside the pages, for reading them offline)")
    args = parser.parse_args(argv)
    make = {"student": _student, "slides": _slides, "html": _html}[args.command]
    try:
        print(make(args))
    except (CourseError, DiskFull) as error:  # one line each; DiskFull: nothing was changed
        print(f"error: {error}", file=sys.stderr)
        return 1
    except PermissionError as error:  # a read-only folder: met staging the first file, before
        # any file is replaced
        print(f"error: permission denied on {error.filename or args.out}: {args.out} must be "
              "a folder you may write to; nothing was changed. Choose another folder, or make "
              "it writable", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
