"""Synthetic notebooks for the tests of exercises and student copies."""

import nbformat


def make_notebook(*cells) -> nbformat.NotebookNode:
    """A notebook of ``("md" | "code", source)`` cells, in order."""
    notebook = nbformat.v4.new_notebook()
    for kind, source in cells:
        new = nbformat.v4.new_markdown_cell if kind == "md" else nbformat.v4.new_code_cell
        notebook.cells.append(new(source))
    return notebook
