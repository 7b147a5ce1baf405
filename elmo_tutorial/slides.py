"""reveal.js slides from a course notebook: one deck per notebook, built with nbconvert.

A cell's ``slideshow.slide_type`` metadata (the notebook's *Slide Type*; in a py:percent
source ``# %% [markdown] slideshow={"slide_type": "skip"}``) decides where it goes:
``slide`` starts a new slide (→), ``subslide`` a new slide below the current one (↓, which a
presenter can pass over with →), ``fragment`` appears on the next click, ``-`` continues the
current slide, ``skip`` leaves the cell out. Cells without it get a default:

* the title cell and every ``#``/``##`` heading start a slide, a ``###`` heading a subslide;
* other text starts a subslide after code, and continues the slide after text;
* code continues the slide of the text that introduces it; setup cells (imports and
  ``setup_notebook``) are skipped; an exercise's solution appears on a click (fragment);
* a section whose heading is ``subslide`` (an optional detour) or ``skip`` passes that on:
  its cells without metadata become ``-`` (below the heading) or ``skip``.

A text cell with a heading in its middle is cut there first, so that every section starts
its own slide.

Code cells tagged ``hide-input`` (the architecture map) show only their output.

Example:
    >>> import nbformat
    >>> notebook = nbformat.v4.new_notebook(cells=[
    ...     nbformat.v4.new_markdown_cell("# 01 · Title"),
    ...     nbformat.v4.new_code_cell("import torch"),
    ...     nbformat.v4.new_markdown_cell("## 1. Idea"),
    ...     nbformat.v4.new_code_cell("x = 1")])
    >>> slide_types(notebook)
    ['slide', 'skip', 'slide', '-']
"""

from __future__ import annotations

import ast
import copy
import re

import nbformat

SLIDE_TYPES = ("slide", "subslide", "fragment", "-", "skip", "notes")
_SETUP_CALLS = {"setup_notebook", "seed_everything"}


def _explicit(cell: nbformat.NotebookNode) -> str | None:
    slide_type = cell.metadata.get("slideshow", {}).get("slide_type")
    if slide_type is not None and slide_type not in SLIDE_TYPES:
        raise ValueError(f"slide_type {slide_type!r} is not one of {', '.join(SLIDE_TYPES)}")
    return slide_type


def _heading_level(cell: nbformat.NotebookNode) -> int:
    """1 for '# ...', 2 for '## ...', ...; 0 if the cell does not open with a heading."""
    match = re.match(r"(#{1,6})\s", cell.source.lstrip()) if cell.cell_type == "markdown" else None
    return len(match[1]) if match else 0


def is_setup(source: str) -> bool:
    """True for a cell of imports and calls such as ``device = setup_notebook(seed=0)``."""
    lines = [line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))]
    try:
        statements = ast.parse("\n".join(lines)).body
    except SyntaxError:
        return False

    def setup(statement: ast.stmt) -> bool:
        if isinstance(statement, ast.Import | ast.ImportFrom):
            return True
        call = getattr(statement, "value", None)
        if isinstance(statement, ast.Assign | ast.Expr) and isinstance(call, ast.Call):
            name = getattr(call.func, "id", getattr(call.func, "attr", None))
            return name in _SETUP_CALLS
        return False

    return bool(statements) and all(setup(s) for s in statements)


def _default(cells: list, index: int) -> str:
    cell = cells[index]
    level = _heading_level(cell)
    if index == 0 or level in (1, 2):
        return "slide"
    if cell.cell_type == "markdown":
        if level:
            return "subslide"
        return "subslide" if cells[index - 1].cell_type == "code" else "-"
    if cell.cell_type != "code":
        return "skip"
    if is_setup(cell.source):
        return "skip"
    if "# BEGIN SOLUTION" in cell.source:
        return "fragment"
    return "-"


def slide_types(notebook: nbformat.NotebookNode) -> list[str]:
    """The slide type of every cell: its metadata where it has one, else the default."""
    types: list[str] = []
    section, section_level = None, 0  # the explicit type of the current section's heading
    for index, cell in enumerate(notebook.cells):
        explicit, level = _explicit(cell), _heading_level(cell)
        if level and (section is None or level <= section_level):
            section = explicit if explicit in ("subslide", "skip") else None
            section_level = level if section else 0
        if explicit is not None:
            types.append(explicit)
        elif section == "skip":
            types.append("skip")
        elif section == "subslide":
            types.append("-" if _default(notebook.cells, index) != "skip" else "skip")
        else:
            types.append(_default(notebook.cells, index))
    return types


def _sections(text: str) -> list[str]:
    """``text`` cut before every heading line (#, ##, ###) that is not inside a code fence."""
    parts: list[list[str]] = [[]]
    fenced = False
    for line in text.split("\n"):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        if not fenced and re.match(r"#{1,3}\s", line) and any(x.strip() for x in parts[-1]):
            parts.append([])
        parts[-1].append(line)
    return ["\n".join(part).strip("\n") for part in parts]


def split_at_headings(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy of ``notebook`` whose text cells each hold at most one heading (#, ##, ###), at
    their start; a cell's metadata stays with its first part."""
    notebook = copy.deepcopy(notebook)
    cells = []
    for cell in notebook.cells:
        if cell.cell_type != "markdown":
            cells.append(cell)
            continue
        parts = [nbformat.v4.new_markdown_cell(text) for text in _sections(cell.source)]
        parts[0].metadata = cell.metadata
        cells += parts
    notebook.cells = cells
    return notebook


def with_slide_metadata(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy of ``notebook``, cut at headings, whose every cell carries its slide type."""
    notebook = split_at_headings(notebook)
    for cell, slide_type in zip(notebook.cells, slide_types(notebook), strict=True):
        cell.metadata.setdefault("slideshow", {})["slide_type"] = slide_type
    return notebook


def deck(notebook: nbformat.NotebookNode, reveal_prefix: str | None = None) -> str:
    """The notebook as one self-contained reveal.js HTML page.

    Args:
        notebook: an executed notebook (its outputs are shown as they are).
        reveal_prefix: where the page loads reveal.js from; by default nbconvert's CDN. Give a
            folder (e.g. ``reveal.js`` beside the deck) to present without a network.
    """
    from nbconvert import SlidesExporter
    from nbconvert.preprocessors import TagRemovePreprocessor

    options = {"reveal_scroll": True}  # long slides scroll instead of being cut off
    if reveal_prefix:
        options["reveal_url_prefix"] = reveal_prefix
    exporter = SlidesExporter(**options)
    exporter.register_preprocessor(
        TagRemovePreprocessor(remove_input_tags=("hide-input",)), enabled=True)
    html, _ = exporter.from_notebook_node(with_slide_metadata(notebook))
    return html
