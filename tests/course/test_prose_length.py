"""Every notebook is a lecture that fits: at most 3,200 words of prose, the course 42,000.

Prose is the text of the markdown cells of the committed notebooks. Words are counted the
simple way: the whitespace-separated tokens of each markdown cell's source, so a code span,
a formula or a heading mark counts as the words it splits into. Code cells and outputs do
not count.
"""

import nbformat
import pytest

from elmo_tutorial.course.material import notebook_paths

PER_NOTEBOOK = 3_200
COURSE = 42_000


def prose_words(path) -> int:
    notebook = nbformat.read(path, as_version=4)
    return sum(len(cell.source.split()) for cell in notebook.cells
               if cell.cell_type == "markdown")


def test_the_counter_counts_whitespace_separated_tokens_of_markdown_only(tmp_path):
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# A title\n\nTwo `code spans` and $x_k$."),
        nbformat.v4.new_code_cell("print('not prose at all')"),
    ])
    path = tmp_path / "00_x.ipynb"
    nbformat.write(notebook, path)
    assert prose_words(path) == 8  # '#' 'A' 'title' 'Two' '`code' 'spans`' 'and' '$x_k$.'


@pytest.mark.parametrize("path", notebook_paths(), ids=lambda p: p.stem)
def test_each_notebook_has_at_most_3200_words_of_prose(path):
    words = prose_words(path)
    assert words <= PER_NOTEBOOK, (
        f"{path.name} has {words:,} words of prose, over {PER_NOTEBOOK:,}: tighten its "
        "markdown cells rather than split the notebook")


def test_the_course_has_at_most_42000_words_of_prose():
    counts = {path.stem: prose_words(path) for path in notebook_paths()}
    total = sum(counts.values())
    assert total <= COURSE, f"the course has {total:,} words of prose, over {COURSE:,}: {counts}"
