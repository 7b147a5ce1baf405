"""reveal.js slides from a course notebook: one deck per notebook, built with nbconvert.

A cell's ``slideshow.slide_type`` metadata (the notebook's *Slide Type*; in a py:percent
source ``# %% [markdown] slideshow={"slide_type": "skip"}``) decides where it goes:
``slide`` starts a new slide (→), ``subslide`` a new slide below the current one (↓, which a
presenter can pass over with →), ``fragment`` appears on the next click, ``-`` continues the
current slide, ``skip`` leaves the cell out. Cells without it get a default:

* the title cell and every ``#``/``##`` heading start a slide, a ``###`` heading a subslide;
* other text starts a subslide after code, and continues the slide after text;
* code continues the slide of the text that introduces it; setup cells (imports and
  ``setup_notebook``) are skipped; an exercise's solution appears on a click (fragment), and
  so does a model answer (the text between ``<!-- BEGIN ANSWER -->`` and ``<!-- END ANSWER -->``,
  cut into a cell of its own, with its label such as **Model answer.**);
* a section whose heading is ``subslide`` (an optional detour) or ``skip`` passes that on:
  its cells without metadata become ``-`` (below the heading) or ``skip``.

A text cell with a heading in its middle is cut there first, so that every section starts
its own slide. :func:`deck` is nbconvert's reveal.js export at 1280×720 (template in
``slides_template/elmo_reveal/``); a taller slide scrolls, and ``?view=scroll`` reads a deck as
one page. Cells tagged ``hide-input`` show only their output, widgets their text, and
``# NBVAL_...`` and solution markers are left out.

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
import html
import posixpath
import re
from pathlib import Path

import nbformat

from elmo_tutorial.course.exercises import ANSWER_MARKER, answer_blocks

TEMPLATES = Path(__file__).resolve().parent / "slides_template"
REVEAL_CDN = "https://unpkg.com/reveal.js@5.1.0"
MATHJAX_CONFIG = "config=TeX-AMS_CHTML-full,Safe"
MATHJAX_CDN = f"https://cdnjs.cloudflare.com/ajax/libs/mathjax/2.7.9/MathJax.js?{MATHJAX_CONFIG}"
# Lines of a code cell that are for the notebook tests and the student copies, not the audience.
_HIDDEN_LINE = re.compile(r"^\s*# (NBVAL_[A-Z_]+|BEGIN SOLUTION|END SOLUTION)\s*$")
# A label on a line of its own before a model answer ("**Model answer.**", "**Prediction.**").
_ANSWER_LABEL = re.compile(r"^\s*\*\*[^*]+\*\*\s*$")
_WIDGET = "application/vnd.jupyter.widget-view+json"
SLIDE_TYPES = ("slide", "subslide", "fragment", "-", "skip", "notes")
# Calls a set-up cell may make beside its imports (a cell of only these is never a slide).
_SETUP_CALLS = {"setup_notebook", "seed_everything", "filterwarnings", "simplefilter",
                "perf_counter", "shipped_model", "nltk_corpus"}


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


def cell_part(cell: nbformat.NotebookNode, text: str, number: int,
              cut: str) -> nbformat.NotebookNode:
    """Part ``number`` of a text cell cut at headings (``cut="h"``) or answers (``"a"``), with
    an id made from the cell's (never a random one, so that two builds of a deck are the same).
    The letter keeps the ids unique when a cell is cut both ways."""
    part = nbformat.v4.new_markdown_cell(text)
    part.id = (f"{cell.get('id', 'cell')[:56]}-{cut}{number}" if number
               else cell.get("id", part.id))
    if not number:
        part.metadata = cell.metadata
    return part


def split_at_headings(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy of ``notebook`` whose text cells each hold at most one heading (#, ##, ###), at
    their start; a cell's metadata stays with its first part."""
    notebook = copy.deepcopy(notebook)
    cells = []
    for cell in notebook.cells:
        if cell.cell_type != "markdown":
            cells.append(cell)
            continue
        cells += [cell_part(cell, text, k, "h") for k, text in enumerate(_sections(cell.source))]
    notebook.cells = cells
    return notebook


def _reveal_answers(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Every model answer (between answer markers) cut into a cell of its own that appears on
    a click, with its label (a bold line just before it, such as **Model answer.**); the text
    before it keeps the cell's place, the text after it follows the answer."""
    cells = []
    for index, cell in enumerate(notebook.cells):
        blocks = (answer_blocks(cell.source, index) if cell.cell_type == "markdown"
                  and ANSWER_MARKER.search(cell.source) else [])
        if not blocks:
            cells.append(cell)
            continue
        lines, start, parts = cell.source.split("\n"), 0, []
        for first, last in blocks:
            label = first - 1
            while label >= start and not lines[label].strip():
                label -= 1
            labelled = label >= start and _ANSWER_LABEL.match(lines[label])
            parts += [("before", lines[start:label if labelled else first]),
                      ("fragment", [lines[label], ""] * bool(labelled) + lines[first + 1:last])]
            start = last + 1
        parts.append(("-", lines[start:]))
        for number, (kind, part_lines) in enumerate(parts):
            text = "\n".join(part_lines).strip("\n")
            if not text and (number or _explicit(cell) == "-"):
                continue  # (a first part that starts a slide stays, even if empty)
            part = cell_part(cell, text, number, "a")
            if number:
                part.metadata["slideshow"] = {"slide_type": "fragment" if kind == "fragment"
                                              else "-"}
            cells.append(part)
    notebook.cells = cells
    return notebook


def with_slide_metadata(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy of ``notebook``, cut at headings and model answers, whose every cell carries its
    slide type (model answers: ``fragment``)."""
    notebook = split_at_headings(notebook)
    for cell, slide_type in zip(notebook.cells, slide_types(notebook), strict=True):
        cell.metadata.setdefault("slideshow", {})["slide_type"] = slide_type
    return _reveal_answers(notebook)


def _title(notebook: nbformat.NotebookNode) -> str:
    """The notebook's first heading, without its markdown (``01 · Layer normalisation``)."""
    for cell in notebook.cells:
        match = re.search(r"^#{1,6}\s+(.+)$", cell.source, re.MULTILINE)
        if cell.cell_type == "markdown" and match:
            return re.sub(r"[*`]|\\", "", match[1]).strip()
    return "Slides"


def _static_widget(output: nbformat.NotebookNode) -> None:
    """A live widget becomes its text: there is no kernel behind a slide to drive it, so
    controls would look live and be dead. The explorers' text says what a kernel would add."""
    text = output.data.get("text/plain", "")
    output.data = {"text/plain": text}
    if "kernel" in text:
        output.data["text/html"] = f'<p class="elmo-needs-kernel">{html.escape(text)}</p>'


def for_slides(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy of ``notebook`` ready for the slides: slide types set, model answers on a click,
    ``# NBVAL_...`` and solution markers gone, widgets static, the title set."""
    notebook = with_slide_metadata(notebook)
    notebook.metadata.pop("widgets", None)
    notebook.metadata["title"] = _title(notebook)
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        cell.source = "\n".join(line for line in cell.source.split("\n")
                                if not _HIDDEN_LINE.match(line)).strip("\n")
        for output in cell.get("outputs", []):
            if _WIDGET in output.get("data", {}):
                _static_widget(output)
    return notebook


def deck(notebook: nbformat.NotebookNode, reveal_prefix: str | None = None,
         mathjax_url: str | None = None) -> str:
    """The notebook as one reveal.js HTML page (1280×720; a taller slide scrolls).

    Args:
        notebook: an executed notebook (its outputs are shown as they are).
        reveal_prefix: where the page loads reveal.js 5 from; by default a CDN. Give a folder
            (e.g. ``reveal.js`` beside the deck) to present without a network.
        mathjax_url: MathJax 2's ``MathJax.js`` (with its ``?config=``); by default a CDN, or,
            with a local ``reveal_prefix``, ``mathjax/`` beside that folder (formulas show as
            TeX if it is missing there).
    """
    from nbconvert import SlidesExporter
    from nbconvert.preprocessors import TagRemovePreprocessor

    reveal_prefix = (reveal_prefix or REVEAL_CDN).rstrip("/")
    if mathjax_url is None:
        local = "://" not in reveal_prefix and not reveal_prefix.startswith("//")
        mathjax_url = MATHJAX_CDN if not local else posixpath.join(
            posixpath.dirname(reveal_prefix), "mathjax/MathJax.js?" + MATHJAX_CONFIG)
    exporter = SlidesExporter(
        template_name="elmo_reveal", extra_template_basedirs=[str(TEMPLATES)],
        reveal_url_prefix=reveal_prefix, reveal_theme="white", reveal_transition="slide",
        reveal_width="1280", reveal_height="720", mathjax_url=mathjax_url)
    exporter.register_preprocessor(
        TagRemovePreprocessor(remove_input_tags=("hide-input",)), enabled=True)
    page, _ = exporter.from_notebook_node(for_slides(notebook))
    return page
