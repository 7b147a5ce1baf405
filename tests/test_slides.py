"""Slide types from metadata and defaults, and a reveal.js deck built from a real notebook."""

from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest

from elmo_tutorial.slides import deck, is_setup, slide_types, split_at_headings

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


def _notebook(*cells):
    notebook = nbformat.v4.new_notebook()
    for kind, source, *slide_type in cells:
        new = nbformat.v4.new_markdown_cell if kind == "md" else nbformat.v4.new_code_cell
        cell = new(source)
        if slide_type:
            cell.metadata["slideshow"] = {"slide_type": slide_type[0]}
        notebook.cells.append(cell)
    return notebook


def test_defaults_follow_headings_and_keep_code_with_its_text():
    notebook = _notebook(
        ("md", "# 01 · Title"),
        ("code", "%matplotlib inline\nimport torch\n\ndevice = setup_notebook(seed=0)"),
        ("md", "## 1. Idea"), ("code", "x = 1"),
        ("md", "More about it."), ("md", "And a second paragraph."), ("code", "x + 1"),
        ("md", "### Exercise 1: do it"),
        ("code", "def f():\n    # BEGIN SOLUTION\n    return 1\n    # END SOLUTION"),
        ("md", "## Summary", "notes"))
    assert slide_types(notebook) == [
        "slide", "skip", "slide", "-", "subslide", "-", "-", "subslide", "fragment", "notes"]


def test_an_optional_or_skipped_section_passes_its_type_to_its_cells():
    notebook = _notebook(
        ("md", "# Title"),
        ("md", "## 6. A detour", "subslide"), ("code", "y = 2"), ("md", "Timing:", "skip"),
        ("code", "t = 3"), ("md", "### Deeper"), ("code", "z = 4"),
        ("md", "## 7. Dropped", "skip"), ("code", "w = 5"),
        ("md", "## Summary"), ("code", "print(1)"))
    assert slide_types(notebook) == [
        "slide", "subslide", "-", "skip", "-", "-", "-", "skip", "skip", "slide", "-"]


def test_an_unknown_slide_type_is_a_clear_error():
    with pytest.raises(ValueError, match="'side' is not one of"):
        slide_types(_notebook(("md", "# T", "side")))


def test_text_cells_are_cut_before_headings_outside_code_fences():
    notebook = _notebook(("md", "Closing words.\n\n## 2. Next\nText\n```\n# a comment\n```",
                          "subslide"))
    cells = split_at_headings(notebook).cells
    assert [c.source for c in cells] == [
        "Closing words.", "## 2. Next\nText\n```\n# a comment\n```"]
    assert cells[0].metadata["slideshow"]["slide_type"] == "subslide" and not cells[1].metadata


@pytest.mark.parametrize("source, setup", [
    ("import torch\nfrom x import y", True), ("device = setup_notebook(seed=0)", True),
    ("import torch\nx = torch.zeros(3)", False), ("", False), ("def f(:", False)])
def test_setup_cells_are_imports_and_setup_calls(source, setup):
    assert is_setup(source) is setup


class _Sections(HTMLParser):
    """Counts reveal.js slides (top-level sections) and subslides (sections inside them)."""

    def __init__(self):
        super().__init__()
        self.depth, self.slides, self.subslides = 0, 0, 0

    def handle_starttag(self, tag, attrs):
        if tag == "section":
            self.depth += 1
            self.slides += self.depth == 1
            self.subslides += self.depth == 2

    def handle_endtag(self, tag):
        self.depth -= tag == "section"


def test_deck_of_a_notebook_has_its_sections_as_slides():
    notebook = nbformat.read(NOTEBOOKS / "01_layer_norm.ipynb", as_version=4)
    html = deck(notebook, reveal_prefix="reveal.js")
    sections = _Sections()
    sections.feed(html)
    headings = [c.source.split("\n")[0] for c in split_at_headings(notebook).cells
                if c.cell_type == "markdown" and c.source.startswith(("# ", "## "))]
    assert sections.slides == len(headings) >= 4
    assert sections.subslides > sections.slides, "text after code opens a subslide"
    for heading in headings:
        title = heading.lstrip("# ").split(",")[0]
        assert title.replace("'", "&#39;") in html, f"no slide for {heading!r}"
    assert "setup_notebook(seed=0)" not in html, "the setup cell is skipped"
    assert 'class="fragment"' in html, "solutions appear on a click"
    if "you_are_here" in notebook.cells[1].source:
        assert "you_are_here" not in html and "image/png" in html, "the map shows, not its code"
    assert 'src="reveal.js/dist/reveal.js"' in html or "reveal.js/dist/reveal.js" in html
    assert "unpkg.com/reveal.js" not in html
