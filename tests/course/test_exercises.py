"""Exercise headings, kinds and model answers, on small synthetic notebooks."""

import nbformat
import pytest
from _notebook_helpers import make_notebook

from elmo_tutorial.course.exercises import CourseError, list_exercises, strip_answers
from elmo_tutorial.course.material import main, student_copy

ANSWER = "**Model answer.**\n<!-- BEGIN ANSWER -->\nBecause {}.\nTwo lines.\n<!-- END ANSWER -->"

FOUR_KINDS = make_notebook(
    ("md", "# 01 · Title"),
    ("md", "### Exercise 1 (implement): double it\n\nWrite `double(x)`."),
    ("code", "def double(x):\n    # BEGIN SOLUTION\n    return 2 * x\n    # END SOLUTION"),
    ("code", "check_double(double)"),
    ("md", "### Exercise 2 (predict): which is larger?\n\nWrite it down first."),
    ("md", ANSWER.replace("**Model answer.**", "**Prediction.**").format("b")),
    ("code", "print(max(1, 2))"),
    ("md", "## 2. More\n\n### Exercise 3 (experiment): halve the data"),
    ("code", "n = 10\n# BEGIN SOLUTION\nn = n // 2\n# END SOLUTION\nprint(n)"),
    ("md", "### Exercise 4 (explain): why a residual?"),
    ("md", ANSWER.format("gradients flow")),
    ("md", "## Questions\n\n1. What is ELMo?\n\n<!-- BEGIN ANSWER -->\nA biLM.\n"
           "<!-- END ANSWER -->"),
)


def test_exercises_are_listed_with_their_kind_task_and_cells():
    listed = [(e.number, e.kind, e.task, e.cell, e.solution_cells, e.answer_cells)
              for e in list_exercises(FOUR_KINDS)]
    assert listed == [(1, "implement", "double it", 1, [2], []),
                      (2, "predict", "which is larger?", 4, [], [5]),
                      (3, "experiment", "halve the data", 7, [8], []),
                      (4, "explain", "why a residual?", 9, [], [10])]


def test_stubs_are_numbered_by_their_heading_not_by_their_order_among_code_cells():
    student = student_copy(FOUR_KINDS)
    assert '"Exercise 1: double it.' in student.cells[2].source
    assert '"Exercise 3: halve the data.' in student.cells[8].source


def test_a_misspelt_kind_or_a_solution_outside_an_exercise_is_an_error():
    with pytest.raises(CourseError, match="cell 0: exercise kind 'implemnt' is not one of"):
        list_exercises(make_notebook(("md", "### Exercise 1 (implemnt): do it")))
    with pytest.raises(CourseError, match="cell 1: a solution block outside an exercise"):
        list_exercises(make_notebook(("md", "### Exercise 2: no kind"),
                                     ("code", "# BEGIN SOLUTION\nx = 1\n# END SOLUTION")))


def test_answers_are_replaced_by_a_blank_markers_included():
    text = "**Model answer.**\n\n<!-- BEGIN ANSWER -->\nSecret.\n<!-- END ANSWER -->\n\nAfter."
    assert strip_answers(text) == "*Your answer:* …\n\nAfter.", "the label goes with its answer"
    kept = "**Prediction.**\n<!-- BEGIN ANSWER -->\nSecret.\n<!-- END ANSWER -->"
    assert strip_answers(kept) == "**Prediction.**\n*Your answer:* …", "it says what to write"


def test_student_copy_strips_every_answer_and_hides_what_a_prediction_is_about():
    notebook = FOUR_KINDS
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs = [nbformat.v4.new_output("stream", text="2\n")]
            cell.execution_count = 1
    student = student_copy(notebook)
    text = "\n".join(c.source for c in student.cells)
    assert "ANSWER" not in text and "Because" not in text and "A biLM" not in text
    assert text.count("*Your answer:* …") == 3, "two exercises and the questionnaire"
    assert "**Prediction.**" in student.cells[5].source, "the student sees where to write"
    assert "answer" in student.cells[10].metadata.tags
    assert student.cells[6].outputs == [], "the output a predict exercise asks about is hidden"
    assert student.cells[3].outputs == notebook.cells[3].outputs, "a self-check keeps its output"
    assert "raise NotImplementedError(\n    \"Exercise 3: halve the data" in student.cells[8].source
    assert "Because b." in notebook.cells[5].source, "the original must not change"


@pytest.mark.parametrize("broken, line", [
    ("<!-- BEGIN ANSWER -->\nnever closed", "'<!-- BEGIN ANSWER -->' on line 1 is never closed"),
    ("text\n<!-- END ANSWER -->", "'<!-- END ANSWER -->' on line 2 is out of place"),
    ("<!-- BEGIN ANSWER -->\n<!-- BEGIN ANSWER -->\n<!-- END ANSWER -->",
     "'<!-- BEGIN ANSWER -->' on line 2 is out of place"),
    ("Answer: <!-- BEGIN ANSWER -->\nx\n<!-- END ANSWER -->",
     "'<!-- BEGIN ANSWER -->' on line 1 is out of place"),
])
def test_unbalanced_answer_markers_are_a_clear_error(broken, line):
    notebook = make_notebook(("md", "### Exercise 1 (explain): why?"), ("md", broken))
    with pytest.raises(CourseError, match=f"cell 1: {line}"):
        student_copy(notebook)


def test_the_command_names_the_notebook_cell_and_line_of_a_broken_marker(tmp_path, capsys):
    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    nbformat.write(make_notebook(("md", "# T"), ("md", "x\n<!-- BEGIN ANSWER -->\nsecret")),
                   notebooks / "01_broken.ipynb")
    assert main(["student", str(tmp_path / "out"), "--notebooks", str(notebooks)]) == 1
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "01_broken.ipynb: cell 1: '<!-- BEGIN ANSWER -->' on " \
        "line 2 is never closed" in error
    assert not list((tmp_path / "out").glob("*.ipynb")), "nothing written, secret included"


def test_a_model_answer_followed_by_the_next_section_in_one_cell_counts():
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("### Exercise 1 (explain): why\n\nSay why."),
        nbformat.v4.new_markdown_cell("**Model answer.**\n<!-- BEGIN ANSWER -->\nBecause.\n"
                                      "<!-- END ANSWER -->\n\n## 2. The next section"),
    ])
    (exercise,) = list_exercises(notebook)
    assert exercise.answer_cells == [1]
    assert exercise.end == 1


def _experiments(notebook):
    """Per experiment exercise: its cells, from its heading to the next heading."""
    cells, found = notebook.cells, []
    for start, cell in enumerate(cells):
        if cell.cell_type == "markdown" and cell.source.startswith("### Exercise") \
                and "(experiment)" in cell.source.split("\n")[0]:
            end = next((k for k in range(start + 1, len(cells))
                        if cells[k].cell_type == "markdown"
                        and cells[k].source.lstrip().startswith("#")), len(cells))
            found.append(cells[start:end])
    return found


def test_an_experiment_checks_its_finding_only_after_the_student_s_interpretation():
    """The conditions that encode what an experiment shows, and their ✓ line, come after the
    model answer (which a student copy replaces by the student's own interpretation): before
    it a cell may check only the student's code."""
    from pathlib import Path

    notebooks = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("[0-9]*.py"))
    asked = 0
    for path in notebooks:
        notebook = nbformat.reads(_as_notebook(path), as_version=4)
        for cells in _experiments(notebook):
            answer = next((k for k, c in enumerate(cells) if "<!-- END ANSWER -->" in c.source),
                          None)
            before = cells if answer is None else cells[:answer]
            for cell in before:
                assert "model answer below" not in cell.source, (
                    f"{path.name}: {cells[0].source.splitlines()[0]}: a check before the "
                    "interpretation names the finding")
            if answer is not None and "What do you see?" in cells[answer].source:
                asked += 1
                after = [c for c in cells[answer + 1:] if c.cell_type == "code"]
                assert after and after[0].source.startswith("# After your interpretation"), (
                    f"{path.name}: {cells[0].source.splitlines()[0]}: its finding is checked "
                    "in a cell after the model answer")
    assert asked >= 5


def _as_notebook(path) -> str:
    import jupytext

    return nbformat.writes(jupytext.read(path))
