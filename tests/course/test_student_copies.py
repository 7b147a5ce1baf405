"""Student copies: exercises stubbed, nothing else changed, and they behave as a student meets them.

Every notebook's copy is compared with the solved notebook cell by cell. The execution test
runs, for a few notebooks holding every kind of stub, the exercise cells and the cells they
need or that need them (see ``_notebook_slices``), first as the student gets them, then with
the solutions put back. nbval runs every solved notebook.
"""

from __future__ import annotations

import ast
import copy
import re
from pathlib import Path

import nbformat
import pytest
from _notebook_helpers import make_notebook
from _notebook_slices import defined_and_read, dependents, exercise_slice
from nbclient import NotebookClient

from elmo_tutorial.course.exercises import (
    SOLUTION_MARKER,
    STUB_ADVICE,
    CourseError,
    list_exercises,
    marker_blocks,
    strip_answers,
    stub_source,
    student_wording,
)
from elmo_tutorial.course.material import (
    main,
    notebook_paths,
    student_copy,
    student_run_folder,
    write_files,
)

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
PATHS = notebook_paths(NOTEBOOKS)


EXAMPLE = make_notebook(
    ("code", "import math"),
    ("md", "### Exercise 1 (implement): double it\n\nWrite `double(x)`."),
    ("code", "def double(x):\n    # BEGIN SOLUTION\n    y = 2 * x\n    return y\n"
             "    # END SOLUTION\n\n\nprint(double(2))"),
    ("md", "### Exercise 2 (implement): halve it."),
    ("code", "def half(x):\n    # BEGIN SOLUTION\n    return x / 2\n    # END SOLUTION"),
)


def test_stub_replaces_each_solution_block_and_keeps_the_rest():
    source = "def f(x):\n    a = 1\n    # BEGIN SOLUTION\n    return x\n    # END SOLUTION\n\nf(1)"
    assert stub_source(source, 'Exercise 3: say "x"') == (
        'def f(x):\n    a = 1\n    raise NotImplementedError("Exercise 3: say \\"x\\"")\n\nf(1)')


def test_an_exercise_s_stub_message_gives_its_number_and_task():
    exercises = list_exercises(EXAMPLE)
    assert [(e.number, e.task, e.solution_cells) for e in exercises] == [
        (1, "double it", [2]), (2, "halve it", [4])]
    assert exercises[0].message == "Exercise 1: double it. " + STUB_ADVICE


def test_stub_messages_are_plain_text_without_math_or_markdown_markup():
    notebook = make_notebook(
        ("md", "### Exercise 4 (implement): which $w$ gives the mix you want?"),
        ("code", "def f():\n    # BEGIN SOLUTION\n    pass\n    # END SOLUTION"),
        ("md", "### Exercise 5 (implement): `my_mix` of $\\gamma$ and $\\mathrm{ELMo}_k$"),
        ("code", "def g():\n    # BEGIN SOLUTION\n    pass\n    # END SOLUTION"))
    first, second = list_exercises(notebook)
    assert first.message == "Exercise 4: which w gives the mix you want? " + STUB_ADVICE
    assert second.message == "Exercise 5: my_mix of gamma and ELMo_k. " + STUB_ADVICE
    stubbed = {}
    exec(student_copy(notebook).cells[1].source, stubbed)  # the stub, wrapped to fit the editor
    with pytest.raises(NotImplementedError) as raised:
        stubbed["f"]()
    assert str(raised.value) == first.message


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.stem)
def test_no_stub_message_of_the_course_shows_markup(path):
    for exercise in list_exercises(nbformat.read(path, as_version=4)):
        assert not set("$\\`*{}") & set(exercise.message), exercise.message
        assert "?." not in exercise.message and ".." not in exercise.message, exercise.message


def test_student_copy_clears_only_the_exercise_cells_outputs():
    notebook = copy.deepcopy(EXAMPLE)
    for cell in notebook.cells[::2]:
        cell.outputs = [nbformat.v4.new_output("stream", text="out\n")]
        cell.execution_count = 1
    student = student_copy(notebook)
    assert student.cells[0] == notebook.cells[0]
    assert student.cells[2].outputs == [] and student.cells[2].execution_count is None
    assert "BEGIN SOLUTION" not in student.cells[2].source
    assert "exercise" in student.cells[2].metadata.tags
    assert "BEGIN SOLUTION" in notebook.cells[2].source, "the original must not change"


@pytest.mark.parametrize("broken", [
    "def f():\n    # BEGIN SOLUTION\n    return 1\n",
    "def f():\n    return 1\n    # END SOLUTION\n",
    "# BEGIN SOLUTION\n# BEGIN SOLUTION\n# END SOLUTION\n",
])
def test_unbalanced_markers_are_a_clear_error(broken):
    with pytest.raises(CourseError, match="SOLUTION"):
        list_exercises(make_notebook(("md", "### Exercise 1 (implement): f"), ("code", broken)))


def _solutions_put_back(student: str, solved: str) -> tuple[str, list[str]]:
    """The student copy's source with each stub put back to the solution block it stands for
    (``solved``'s, markers included), and the messages the stubs raise."""
    lines, solution, messages = student.splitlines(), solved.splitlines(), []
    # In order: the lines above are put back already, so each block starts where it did.
    for first, last, indent in marker_blocks(solution, SOLUTION_MARKER, 0):
        start = end = first
        assert lines[start].startswith(f"{indent}raise NotImplementedError("), lines[start]
        while not lines[end].endswith(")"):
            end += 1
        stub = ast.parse("\n".join(line[len(indent):] for line in lines[start:end + 1]))
        messages.append(stub.body[0].exc.args[0].value)
        lines[start:end + 1] = solution[first:last + 1]
    return "\n".join(lines), messages


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.stem)
def test_student_copy_of_each_notebook_differs_only_in_its_exercises(path):
    """Every cell is the solved notebook's, except that each solution block is a stub raising
    its exercise's message (putting the solutions back gives the solved source), the outputs a
    student is to produce or predict are cleared, and the answers are blanks."""
    notebook = nbformat.read(path, as_version=4)
    student = student_copy(notebook)
    exercises = {cell: e for e in list_exercises(notebook) for cell in e.solution_cells}
    predicted = {index for e in list_exercises(notebook) if e.kind == "predict"
                 for index in range(e.cell, e.end) if notebook.cells[index].cell_type == "code"}
    assert len(student.cells) == len(notebook.cells)
    for index, (mine, theirs) in enumerate(zip(student.cells, notebook.cells, strict=True)):
        theirs = nbformat.from_dict({**theirs, "source": student_run_folder(theirs.source)})
        if theirs.cell_type == "markdown":  # no pointer to an answer the copy lacks
            assert "open the model answer" not in mine.source
            assert "instructor's answer" not in mine.source.replace("\n", " ")
        if "ANSWER" in theirs.source and theirs.cell_type == "markdown":
            assert mine.source == student_wording(strip_answers(theirs.source))
            assert "ANSWER" not in mine.source
            continue
        if theirs.cell_type == "markdown" and mine.source != theirs.source:
            assert mine.source == student_wording(theirs.source)
            mine = nbformat.from_dict({**mine, "source": theirs.source})
        if index in predicted and index not in exercises:
            assert mine.source == theirs.source and mine.outputs == []
            continue
        if index not in exercises:
            assert mine == theirs, f"cell {index} changed, but it holds no exercise"
            continue
        exercise = exercises[index]
        assert "SOLUTION" not in mine.source and mine.outputs == []
        put_back, messages = _solutions_put_back(mine.source, theirs.source)
        assert put_back == theirs.source.rstrip("\n"), f"cell {index}: more than its stubs differ"
        assert messages and set(messages) == {exercise.message}, messages
        assert max(len(line) for line in mine.source.splitlines()) <= 100, "past the edge"
        # nbval reruns the solved notebook against these outputs: its self-check passed there
        printed = "".join(o.get("text", "") for o in theirs.outputs)
        assert "✓" in printed, f"exercise {exercise.number}: no ✓ in the solved cell's output"


def test_slices_see_globals_read_inside_functions_but_not_their_locals():
    defined, read = defined_and_read("import torch as t\ndef f(x):\n    y = g(x)\n    return y\n"
                                     "z = [w for w in range(3)]\n%time f(1)\n")
    assert defined == {"t", "f", "z"}
    assert {"g", "range"} <= read and not {"x", "y", "w"} & read


def test_a_slice_holds_what_an_exercise_needs_and_what_needs_it():
    notebook = make_notebook(
        ("code", "a = 1"), ("code", "b = 2  # slow, unrelated"), ("code", "c = a + 1"),
        ("code", "def f():\n    # BEGIN SOLUTION\n    return c\n    # END SOLUTION"),
        ("code", "d = f()"), ("code", "print(b)"), ("code", "print(d)"))
    assert exercise_slice(notebook, [3]) == [0, 2, 3, 4, 6]
    assert dependents(notebook, [3]) == [3, 4, 6]


# --- the output folder: never lose a student's work -----------------------------------------

def test_a_changed_copy_is_never_overwritten_without_force(tmp_path):
    out = tmp_path / "out"
    write_files(out, {"a.ipynb": b"one", "b.ipynb": b"two"}, protect=True, force=False)
    write_files(out, {"a.ipynb": b"one", "b.ipynb": b"two"}, protect=True, force=False)
    (out / "a.ipynb").write_bytes(b"the student's answers")
    with pytest.raises(CourseError, match=r"a\.ipynb.*differ from fresh copies.*nothing was"):
        write_files(out, {"a.ipynb": b"new", "b.ipynb": b"new"}, protect=True, force=False)
    assert (out / "a.ipynb").read_bytes() == b"the student's answers"
    assert (out / "b.ipynb").read_bytes() == b"two"

    write_files(out, {"a.ipynb": b"new", "b.ipynb": b"new"}, protect=True, force=True)
    assert (out / "a.ipynb").read_bytes() == b"new"
    backups = list(out.glob("backup-*/*.ipynb"))
    assert sorted(b.read_bytes() for b in backups) == [b"the student's answers", b"two"]
    assert not list(out.glob(".*.tmp"))


def test_command_writes_one_student_copy_per_notebook(tmp_path, capsys):
    assert main(["student", str(tmp_path / "student")]) == 0
    written = sorted(p.name for p in (tmp_path / "student").glob("*.ipynb"))
    assert written == [p.name for p in PATHS]
    assert "student notebooks" in capsys.readouterr().out
    assert main(["student", str(tmp_path / "student")]) == 0, "unchanged copies: regenerate"
    (tmp_path / "student" / written[0]).write_text("{}")
    assert main(["student", str(tmp_path / "student")]) == 1
    assert "differ from fresh copies" in capsys.readouterr().err


# --- executing the copies -------------------------------------------------------------------

def _run(*passes: tuple[nbformat.NotebookNode, list[int]]) -> list[dict[int, list]]:
    """Run each pass's cells of its notebook, one pass after the other in one kernel (which
    takes seconds to start); the error outputs of each cell."""
    client = NotebookClient(passes[0][0], timeout=600, kernel_name="python3", allow_errors=True,
                            resources={"metadata": {"path": str(NOTEBOOKS)}})
    errors = []
    with client.setup_kernel():
        for notebook, cells in passes:
            for index in cells:
                client.execute_cell(notebook.cells[index], index)
            errors.append({i: [o for o in notebook.cells[i].outputs if o.output_type == "error"]
                           for i in cells})
    return errors


def _stopped_at_stub(ename: str, evalue: str, exercises) -> bool:
    """Whether an error is one of the exercises' stubs: the stub's NotImplementedError, or a
    self-check's one-line report that the exercise's function still raises it."""
    return any((ename, evalue) == ("NotImplementedError", e.message)
               or (ename == "NotWrittenYet" and evalue.startswith(f"Exercise {e.number} ("))
               for e in exercises)


# Executed: the two cheapest notebooks that hold every kind of stub between them: in a function
# that a self-check calls (06, 07), straight in a cell (07), and a cell that waits on an
# exercise's results through `checks.exercise_done` (06, 07). Every notebook's copy is checked
# statically above (its stubs are its solution blocks); nbval runs every solved notebook.
EXECUTED = ["06_bilm_training", "07_scalar_mix"]


@pytest.mark.slow
@pytest.mark.parametrize("name", EXECUTED)
def test_student_copy_fails_only_at_its_stubs_and_passes_with_the_solutions(name):
    path = NOTEBOOKS / f"{name}.ipynb"
    notebook = nbformat.read(path, as_version=4)
    exercises = [e for e in list_exercises(notebook) if e.solution_cells]
    assert exercises, f"{path.name} has no exercise with a solution block: choose another"
    stubbed = [cell for e in exercises for cell in e.solution_cells]
    cells = exercise_slice(notebook, stubbed)

    # The student's run, then, in the same kernel, the exercise cells with their solutions put
    # back and the cells that use their results (what they need is defined by the first run).
    solved = copy.deepcopy(notebook)
    again = dependents(notebook, stubbed)
    for index in again:
        solved.cells[index].outputs = []  # the committed outputs must not pass for new ones
    errors, solved_errors = _run((student_copy(notebook), cells), (solved, again))
    for exercise in exercises:
        for cell in exercise.solution_cells:
            raised = [(o.ename, o.evalue) for o in errors[cell]]
            assert len(raised) == 1 and _stopped_at_stub(*raised[0], [exercise]), (
                f"{path.name}, exercise {exercise.number} (cell {cell}) should stop at its "
                f"stub, but raised {raised}")
            shown = errors[cell][0].traceback  # in a function or straight in the cell
            assert len(shown) == 1, (f"{path.name}, exercise {exercise.number}: the stub shows "
                                     f"a {len(shown)}-line traceback, not its one-line message")
    for index, outputs in errors.items():
        for output in outputs:
            assert _stopped_at_stub(output.ename, output.evalue, exercises), (
                f"{path.name}, cell {index} fails in the student copy with {output.ename}: "
                f"{output.evalue}. A cell after an exercise must work, or fail only at the "
                f"exercise's stub; make it independent of the exercise's result.")

    assert not any(solved_errors.values()), f"{path.name} with the solutions: {solved_errors}"
    for exercise in exercises:
        for cell in exercise.solution_cells:
            printed = "".join(o.get("text", "") for o in solved.cells[cell].outputs)
            assert "✓" in printed, (
                f"{path.name}, exercise {exercise.number}: the self-check printed no ✓ with "
                f"the solution in place: {printed!r}")


POINTERS = re.compile(r"\b(?:open|opening|see|read|reading)\s+the\s+(?:(?:model|instructor's)\s+)?"
                      r"answer\b|\b(?:model\s+)?answer\s+below\b", re.IGNORECASE)


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.stem)
def test_no_student_copy_points_to_an_answer_it_does_not_hold(path):
    """"Write your interpretation before opening the answer" sent students to an answer their
    copy does not have; every such pointer reads "compare with the instructor's notebook"."""
    student = student_copy(nbformat.read(path, as_version=4))
    pointers = [(i, m.group(0)) for i, cell in enumerate(student.cells)
                if cell.cell_type == "markdown" for m in POINTERS.finditer(cell.source)]
    assert not pointers, f"{path.name}: {pointers}"
