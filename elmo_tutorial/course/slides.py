"""reveal.js slides from a course notebook: nbconvert's SlidesExporter, one deck per notebook.

A cell's *Slide Type* (``slideshow.slide_type`` metadata) decides where it goes; a cell without
one gets :func:`_default`'s. A text cell is first cut at its headings, so that every section
starts a slide; each model answer (with its label) appears on a click, and the text after it on
the next: a "Check your understanding" question, then its answer. The template
(``slides_template/elmo_reveal/``) loads reveal.js without require.js or the widget manager,
so a deck given a local reveal.js needs no network; a slide taller than 1280×720 scrolls.

Example:
    >>> import nbformat
    >>> notebook = nbformat.v4.new_notebook(cells=[
    ...     nbformat.v4.new_markdown_cell("# 01 · Title"),
    ...     nbformat.v4.new_code_cell("device = setup_notebook(seed=0)"),
    ...     nbformat.v4.new_markdown_cell("## 1. Idea"),
    ...     nbformat.v4.new_code_cell("x = 1")])
    >>> [cell.metadata["slideshow"]["slide_type"] for cell in for_slides(notebook).cells]
    ['slide', 'skip', 'slide', '-']
"""

from __future__ import annotations

import copy
import posixpath
import re
from pathlib import Path

import nbformat

TEMPLATES = Path(__file__).resolve().parent / "slides_template"
REVEAL_CDN = "https://unpkg.com/reveal.js@5.1.0"
MATHJAX = "mathjax/MathJax.js?config=TeX-AMS_CHTML-full,Safe"  # MathJax 2, beside reveal.js
# Lines of a code cell that are for the notebook tests and the student copies, not the audience.
_HIDDEN_LINE = re.compile(r"^\s*# (NBVAL_[A-Z_]+|BEGIN SOLUTION|END SOLUTION)\s*$")
# A model answer, with the bold label on a line of its own just above it.
_ANSWER = re.compile(r"(^\*\*[^*\n]+\*\*[ \t]*\n\s*)?^[ \t]*<!--\s*BEGIN ANSWER\s*-->[ \t]*\n"
                     r"(.*?)^[ \t]*<!--\s*END ANSWER\s*-->[ \t]*$", re.MULTILINE | re.DOTALL)


def _default(cells: list, index: int) -> str:
    """The title and every ``#``/``##`` heading start a slide, a ``###`` heading or text after
    code a subslide; code stays with the text before it, an exercise's solution on a click."""
    cell = cells[index]
    heading = re.match(r"(#{1,6})\s", cell.source) if cell.cell_type == "markdown" else None
    level = len(heading[1]) if heading else 0  # 0: the cell does not open with a heading
    if index == 0 or level in (1, 2):
        return "slide"
    if cell.cell_type == "markdown":
        return "subslide" if level or cells[index - 1].cell_type == "code" else "-"
    if "setup_notebook(" in cell.source:  # the imports and set-up are not for the audience
        return "skip"
    return "fragment" if "# BEGIN SOLUTION" in cell.source else "-"


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


def _answers_on_clicks(text: str) -> str:
    """``text`` with each model answer, and each text after one, in a reveal.js fragment."""
    pieces, start = [], 0
    for match in _ANSWER.finditer(text):
        pieces += [text[start:match.start()], (match[1] or "") + match[2]]
        start = match.end()
    first, *rest = pieces + [text[start:]]
    return first.rstrip() + "".join(f'\n\n<div class="fragment">\n\n{piece.strip()}\n\n</div>'
                                    for piece in rest if piece.strip())


def for_slides(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy of ``notebook`` ready for nbconvert: text cells cut at headings (a cell's
    metadata stays with its first part), every cell's slide type set, model answers on
    clicks, test and solution markers gone, widgets their text (no kernel drives a slide)."""
    notebook = copy.deepcopy(notebook)
    notebook.metadata.pop("widgets", None)
    cells = []
    for cell in notebook.cells:
        if cell.cell_type != "markdown":
            cells.append(cell)
            continue
        for number, text in enumerate(_sections(cell.source)):  # ids from the cell's: no
            part = nbformat.v4.new_markdown_cell(text, id=f"{cell.id[:60]}-{number}")  # churn
            if number == 0:
                part.metadata = cell.metadata
            cells.append(part)
    for index, cell in enumerate(cells):
        cell.metadata.setdefault("slideshow", {}).setdefault("slide_type", _default(cells, index))
        if cell.cell_type == "markdown":
            cell.source = _answers_on_clicks(cell.source)
        else:
            cell.source = "\n".join(line for line in cell.source.split("\n")
                                    if not _HIDDEN_LINE.match(line)).strip("\n")
    notebook.cells = cells
    return notebook


def deck(notebook: nbformat.NotebookNode, title: str, reveal_prefix: str | None = None) -> str:
    """The notebook as one reveal.js page, reveal.js 5 from ``reveal_prefix`` (a CDN by
    default; a folder such as ``reveal.js`` beside the deck to present offline, with MathJax 2
    from ``mathjax/`` beside that folder)."""
    from nbconvert import SlidesExporter
    from nbconvert.preprocessors import TagRemovePreprocessor

    options = {"reveal_url_prefix": (reveal_prefix or REVEAL_CDN).rstrip("/")}
    if "//" not in options["reveal_url_prefix"]:  # a local copy: MathJax 2 beside it
        options["mathjax_url"] = posixpath.join(
            posixpath.dirname(options["reveal_url_prefix"]), MATHJAX)
    exporter = SlidesExporter(
        template_name="elmo_reveal", extra_template_basedirs=[str(TEMPLATES)],
        reveal_theme="white", reveal_width="1280", reveal_height="720", **options)
    exporter.register_preprocessor(
        TagRemovePreprocessor(remove_input_tags=("hide-input",)), enabled=True)
    return exporter.from_notebook_node(for_slides(notebook),
                                       resources={"metadata": {"name": title}})[0]
