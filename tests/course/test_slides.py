"""Slide types from metadata and defaults, and a reveal.js deck built from a real notebook."""

import base64
import re
import struct
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest

from elmo_tutorial.course.slide_fit import ROOM, SLIDE_HEIGHT, estimated_height, split_tall_slides
from elmo_tutorial.course.slides import (
    deck,
    for_slides,
    is_setup,
    slide_types,
    split_at_headings,
    with_slide_metadata,
)

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"


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


@pytest.mark.parametrize("path", sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")), ids=lambda p: p.stem)
def test_no_import_cell_of_the_course_is_a_slide(path):
    """The README says imports are skipped: no cell that imports and sets the notebook up (a
    warning filter, the clock, a corpus opened beside it) becomes a slide of its own."""
    notebook = nbformat.read(path, as_version=4)
    types = slide_types(notebook)
    shown = [i for i, cell in enumerate(notebook.cells) if cell.cell_type == "code"
             and "setup_notebook(" in cell.source and types[i] != "skip"]
    assert not shown, f"{path.name}: cell(s) {shown} set the notebook up and are slides"


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


# --- decks an instructor can present, online and offline ------------------------------------

LESSON = _notebook(
    ("md", "# 03 · The *character* CNN\n\nIntro."),
    ("code", "import torch"),
    ("md", "## 1. Timing\n\nText, then a heading in the same cell:\n\n## 2. Next"),
    ("code", "# NBVAL_IGNORE_OUTPUT\nprint('one second')"),
    ("md", "### Exercise 1 (explain): why a residual?"),
    ("md", "**Model answer.**\n\n<!-- BEGIN ANSWER -->\nThe gradient flows.\n"
           "<!-- END ANSWER -->\n\nAfter the answer."),
    ("code", "explore(draw, controls)"),
)
LESSON.cells[-1].outputs = [nbformat.v4.new_output("display_data", data={
    "application/vnd.jupyter.widget-view+json": {"model_id": "abc", "version_major": 2},
    "text/plain": "Live explorer: move the controls (needs a running Jupyter kernel)."})]
LESSON.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {}}}


def test_a_local_deck_loads_nothing_from_the_network():
    html = deck(LESSON, reveal_prefix="reveal.js")
    urls = re.findall(r"""(?:src|href)=["']([^"']+)""", html)
    assert "reveal.js/dist/reveal.js" in urls and "reveal.js/dist/reveal.css" in urls
    assert not [u for u in urls if "//" in u], "a local deck must load nothing from a CDN"
    assert "mathjax/MathJax.js?config=TeX-AMS_CHTML-full,Safe" in urls
    assert "require(" not in html and "jquery" not in html.lower(), "reveal starts on its own"
    assert "Reveal.initialize(" in html
    online = deck(LESSON)
    assert "https://unpkg.com/reveal.js@4" in online and "cdnjs.cloudflare.com/ajax/libs/mathjax" \
        in online
    mine = deck(LESSON, reveal_prefix="../reveal.js", mathjax_url="/m/MathJax.js")
    assert 'src="/m/MathJax.js"' in mine


def test_the_deck_title_is_the_notebooks_title():
    assert re.search(r"<title>(.*)</title>", deck(LESSON))[1] == "03 · The character CNN"


def test_test_markers_answers_and_widgets_are_shown_as_a_presenter_needs_them():
    html = deck(LESSON, reveal_prefix="reveal.js")
    assert "NBVAL" not in html, "markers for the notebook tests are not for the audience"
    assert "one second" in html, "the cell itself still shows"
    before, after = html.split('class="fragment"', 1)
    assert "Model answer." not in before and "The gradient flows." not in before
    assert "Model answer." in after[:2000], "the label comes with the answer, on the click"
    assert "The gradient flows." in after[:2000], "the model answer appears on a click"
    assert "BEGIN ANSWER" not in html
    assert "widget-view+json" not in html and "widget-state" not in html
    assert "@jupyter-widgets" not in html and "unpkg.com/@jupyter" not in html
    assert re.search(r'class="elmo-needs-kernel">Live explorer.*needs a running Jupyter kernel',
                     html), "a live widget is a static note on a slide"


def test_code_fits_the_slide_or_scrolls_and_long_slides_scroll():
    html = deck(LESSON, reveal_prefix="reveal.js")
    css = "".join(re.findall(r"<style[^>]*>(.*?)</style>", html, re.S))
    assert re.search(r"width:\s*1280", html) and re.search(r"height:\s*720", html)
    assert re.search(r"--jp-code-font-size:\s*18px", css)
    assert re.search(r"\.reveal pre,[^{]*\{[^}]*overflow-x:\s*auto", css), "wide code scrolls"
    assert re.search(r"section > section \{[^}]*max-height:\s*720px;[^}]*overflow-y:\s*auto", css)
    assert re.search(r"\.jp-InputPrompt, \.reveal \.jp-OutputPrompt \{\s*display:\s*none", css)


def test_wide_output_wraps_slides_are_numbered_and_the_keyboard_scrolls():
    html = deck(LESSON, reveal_prefix="reveal.js")
    css = "".join(re.findall(r"<style[^>]*>(.*?)</style>", html, re.S))
    output = re.search(r"\.reveal div\.jp-OutputArea-output > pre \{([^}]*)\}\s*\.reveal \.jp-Cell",
                       css)[1]
    assert re.search(r"white-space:\s*pre-wrap", output), "a long printed line wraps, not cut"
    assert re.search(r"word-break:\s*normal", output) and "overflow-wrap: anywhere" in output
    assert re.search(r"slideNumber: function", html), "slides are numbered"
    script = html[html.index("Reveal.initialize("):]
    assert "addEventListener('keydown'" in script and "scrollBy(" in script, \
        "Space and the arrows scroll a tall slide before they move on"


def test_solution_markers_are_not_on_the_slides():
    notebook = _notebook(("md", "# T"), ("md", "### Exercise 1: do it"),
                         ("code", "def f():\n    # BEGIN SOLUTION\n    return 1\n"
                                  "    # END SOLUTION\n# NBVAL_IGNORE_OUTPUT\nf()"))
    code = [c for c in for_slides(notebook).cells if c.cell_type == "code"]
    assert code[0].source == "def f():\n    return 1\nf()"
    assert code[0].metadata["slideshow"]["slide_type"] == "fragment", "still on a click"
    html = deck(notebook, reveal_prefix="reveal.js")
    assert "SOLUTION" not in html and "return" in html


@pytest.mark.parametrize("label", ["**Model answer.**", "**Prediction.**"])
def test_the_label_of_a_model_answer_appears_with_it(label):
    notebook = _notebook(("md", "# T"), ("md", "### Exercise 1 (predict): which?"),
                         ("md", f"{label}\n<!-- BEGIN ANSWER -->\nThe first.\n"
                                "<!-- END ANSWER -->"))
    cells = with_slide_metadata(notebook).cells
    assert [c.source for c in cells[1:]] == ["### Exercise 1 (predict): which?",
                                            f"{label}\n\nThe first."]
    assert cells[2].metadata["slideshow"]["slide_type"] == "fragment"
    text_then_label = _notebook(("md", "Why?\n\nThink first.\n\n**Model answer.**\n\n"
                                       "<!-- BEGIN ANSWER -->\nBecause.\n<!-- END ANSWER -->"))
    assert [c.source for c in with_slide_metadata(text_then_label).cells] == [
        "Why?\n\nThink first.", "**Model answer.**\n\nBecause."]


# --- slides cut to fit the screen -------------------------------------------------------------

def _png(width, height):
    """The start of a PNG file of that size (all that the height estimate reads)."""
    header = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + struct.pack(">II", width, height)
    return base64.b64encode(header + bytes(40)).decode()


def _types(notebook):
    return [c.metadata.get("slideshow", {}).get("slide_type", "-") for c in notebook.cells]


def _slides(notebook):
    """The estimated heights of the (sub)slides, as split_tall_slides leaves them."""
    heights = []
    for cell, slide_type in zip(notebook.cells, _types(notebook), strict=True):
        if slide_type in ("skip", "notes"):
            continue
        if slide_type in ("slide", "subslide") or not heights:
            heights.append(0)
        heights[-1] += estimated_height(cell)
    return heights


def _code_with(source, *outputs):
    cell = nbformat.v4.new_code_cell(source)
    cell.outputs = list(outputs)
    return cell


def _printed(lines, width=40):
    return nbformat.v4.new_output("stream", name="stdout",
                                  text="".join(f"{n:<{width}d}\n" for n in range(lines)))


def _figure(width=900, height=500):
    return nbformat.v4.new_output("display_data", {"image/png": _png(width, height),
                                                   "text/plain": "<Figure>"})


def test_a_short_slide_is_left_as_it_is():
    notebook = with_slide_metadata(_notebook(("md", "# T"), ("md", "## 1. Idea\n\nText."),
                                             ("code", "x = 1"), ("md", "More.")))
    assert split_tall_slides(notebook) == notebook


def test_outputs_and_figures_that_do_not_fit_go_on_subslides_below_their_code():
    notebook = with_slide_metadata(_notebook(("md", "# T"),
                                             ("md", "## 1. Idea\n\n" + "Words. " * 60)))
    notebook.cells.append(_code_with("\n".join(f"x{n} = {n}" for n in range(8)),
                                     _printed(4), _figure(), _printed(4), _figure()))
    notebook.cells[-1].metadata["slideshow"] = {"slide_type": "-"}
    cells = split_tall_slides(notebook).cells
    assert _types(split_tall_slides(notebook)) == [
        "slide", "slide", "-", "subslide", "subslide"], "code, figure, figure"
    code, *rest = cells[2:]
    assert code.source.startswith("x0 = 0") and [o.output_type for o in code.outputs] == [
        "stream"], "the code stays below its text, with what fits of its output"
    assert [[o.output_type for o in part.outputs] for part in rest] == [
        ["display_data", "stream"], ["display_data"]]
    for part in rest:
        assert "hide-input" in part.metadata["tags"], "the code is not shown again"
        assert part.outputs[0].data["text/plain"] == "<Figure>"
    assert len({c.id for c in cells}) == len(cells), "each part has an id of its own"
    assert max(_slides(split_tall_slides(notebook))) <= ROOM


def test_code_and_its_short_output_move_together_if_they_fit_a_slide():
    notebook = with_slide_metadata(_notebook(("md", "# T"),
                                             ("md", "## 1. Idea\n\n" + "Words. " * 250)))
    notebook.cells.append(_code_with("\n".join(f"x{n} = {n}" for n in range(4)), _printed(3)))
    cells = split_tall_slides(notebook).cells
    assert _types(split_tall_slides(notebook)) == ["slide", "slide", "subslide"]
    assert len(cells[2].outputs) == 1 and "tags" not in cells[2].metadata


def test_a_heading_or_a_line_is_not_left_alone_on_a_slide():
    notebook = with_slide_metadata(_notebook(("md", "# T"), ("md", "## 1. Idea")))
    notebook.cells.append(_code_with("\n".join(f"x{n} = {n}" for n in range(12)), _figure()))
    cells = split_tall_slides(notebook).cells
    assert _types(split_tall_slides(notebook)) == ["slide", "slide", "-", "subslide"]
    assert cells[2].outputs == [] and "hide-input" in cells[3].metadata["tags"]


def test_long_text_is_cut_between_paragraphs_and_a_heading_stays_with_its_text():
    paragraphs = [f"Paragraph {n}. " + "Words here. " * 25 for n in range(12)]
    text = "## 2. Long\n\n" + "\n\n".join(paragraphs[:6]) + "\n\n### Deeper\n\n" \
        + "\n\n".join(paragraphs[6:])
    notebook = _notebook(("md", "# T", "slide"), ("md", text, "slide"))  # one cell, 2 headings
    cells = split_tall_slides(notebook).cells
    assert _types(split_tall_slides(notebook))[1:] == ["slide"] + ["subslide"] * (len(cells) - 2)
    assert len(cells) >= 4
    assert "\n\n".join(c.source for c in cells[1:]).replace("\n\n", " ") == \
        text.replace("\n\n", " "), "nothing lost, in order"
    assert not any(c.source.endswith("### Deeper") for c in cells), "no heading left alone"
    assert max(_slides(split_tall_slides(notebook))) <= ROOM


def test_a_last_line_is_not_left_alone_on_a_subslide():
    paragraphs = [f"Paragraph {n}. " + "Words here. " * 29 for n in range(4)]
    text = "## 2. Long\n\n" + "\n\n".join(paragraphs) + "\n\nThe last line."
    notebook = _notebook(("md", "# T", "slide"), ("md", text, "slide"))
    cells = split_tall_slides(notebook).cells[1:]
    assert [c.source.count("\n\n") for c in cells] == [3, 1]
    assert cells[1].source.startswith("Paragraph 3.") and cells[1].source.endswith("last line.")


def test_text_that_fits_a_slide_of_its_own_moves_whole():
    notebook = with_slide_metadata(_notebook(
        ("md", "# T"), ("md", "## 1. Idea\n\n" + "Words. " * 200), ("code", "x = 1"),
        ("md", "First.\n\n" + "More words. " * 150, "-")))
    types = _types(split_tall_slides(notebook))
    assert types == ["slide", "slide", "-", "subslide"]
    assert split_tall_slides(notebook).cells[-1].source.startswith("First.")


def test_a_cut_keeps_answers_on_a_click_and_skipped_cells_out():
    notebook = with_slide_metadata(_notebook(
        ("md", "# T"), ("md", "## 6. A detour", "subslide"), ("md", "Words. " * 150),
        ("md", "Timing.", "skip"), ("md", "Notes.", "notes"),
        ("md", "### Exercise 1 (predict): which?"),
        ("md", "**Prediction.**\n<!-- BEGIN ANSWER -->\nThe first.\n<!-- END ANSWER -->"),
        ("md", "## 7. Dropped", "skip"), ("md", "Words. " * 400)))
    types = _types(split_tall_slides(notebook))
    assert types == ["slide", "subslide", "-", "skip", "notes", "-", "fragment", "skip", "skip"]
    notebook.cells[5].source += "\n\n" + "Question words. " * 120  # now the answer cannot fit
    types = _types(split_tall_slides(notebook))
    assert types == ["slide", "subslide", "-", "skip", "notes", "subslide", "subslide", "skip",
                     "skip"], "the answer is on the subslide below: still shown only on request"
    assert "slide" not in types[1:], "a detour stays below its section, so → passes over it"


def test_code_taller_than_a_slide_is_cut_between_its_statements():
    functions = "\n\n\n".join(
        f"# helper {n}\ndef f{n}(x):\n" + "".join(f"    x = x + {k}\n" for k in range(10))
        + "    return x" for n in range(4))
    notebook = with_slide_metadata(_notebook(("md", "# T"), ("md", "## 1. Code")))
    notebook.cells.append(_code_with(functions, _printed(2)))
    cells = split_tall_slides(notebook).cells[2:]
    assert len(cells) > 2 and _types(split_tall_slides(notebook))[3:] == ["subslide"] * (
        len(cells) - 1)
    code = [c for c in cells if "hide-input" not in c.metadata.get("tags", [])]
    assert "\n\n\n".join(c.source for c in code) == functions, "whole statements, in order"
    assert all(c.source.startswith("# helper") for c in code), "a comment stays with its code"
    assert [len(c.outputs) for c in cells] == [0] * (len(cells) - 1) + [1], "output at the end"
    assert max(_slides(split_tall_slides(notebook))) <= ROOM


def test_a_list_taller_than_a_slide_is_cut_between_its_items():
    items = "\n".join(f"- **Point {n}.** " + "A long line of a summary. " * 12 + f"\n  ({n})"
                      for n in range(9))
    notebook = _notebook(("md", "# T", "slide"), ("md", f"## Summary\n\n{items}", "slide"))
    cells = split_tall_slides(notebook).cells[1:]
    assert len(cells) > 1 and _types(split_tall_slides(notebook))[2:] == ["subslide"] * (
        len(cells) - 1)
    assert "\n".join(c.source for c in cells) == f"## Summary\n\n{items}", "a tight list still"
    assert all(c.source.startswith(("## Summary\n\n- **Point 0", "- **Point")) for c in cells)
    assert max(_slides(split_tall_slides(notebook))) <= ROOM


def test_code_without_blank_lines_is_cut_between_statements_when_it_must():
    tables = "\n".join(f"T{n} = [\n" + "    (1, 2),\n" * 9 + "]" for n in range(4))
    notebook = _notebook(("md", "# T", "slide"), ("code", tables + "\nprint(T0)", "subslide"))
    cells = split_tall_slides(notebook).cells[1:]
    assert [c.source.split("\n")[0] for c in cells] == ["T0 = [", "T2 = ["]
    assert "\n".join(c.source for c in cells) == tables + "\nprint(T0)"
    assert max(_slides(split_tall_slides(notebook))) <= ROOM


def test_a_statement_taller_than_a_slide_stays_below_its_heading_and_scrolls():
    table = "TABLE = [\n" + "    (1, 2),\n" * 40 + "]"
    notebook = with_slide_metadata(_notebook(("md", "# T"), ("md", "## 1. Data"),
                                             ("code", table), ("md", "Words. " * 80)))
    assert _types(split_tall_slides(notebook)) == ["slide", "slide", "-", "subslide"]
    assert split_tall_slides(notebook).cells[2].source == table


def test_a_printed_markdown_report_taller_than_a_slide_is_cut_between_paragraphs():
    report = "\n\n".join(f"## Table {n}\n\n| a | b |\n|---|---|" + "\n| 1 | 2 |" * 8
                          for n in range(4))
    notebook = with_slide_metadata(_notebook(("md", "# T"), ("md", "## 1. Report")))
    notebook.cells.append(_code_with("display(Markdown(report))", nbformat.v4.new_output(
        "display_data", {"text/markdown": report, "text/plain": "<Markdown>"})))
    cells = split_tall_slides(notebook).cells[2:]
    texts = [o.data["text/markdown"] for c in cells for o in c.outputs]
    assert len(cells) > 1 and "\n\n".join(texts) == report
    assert all(t.startswith("## Table") for t in texts), "a heading stays with its table"
    assert max(_slides(split_tall_slides(notebook))) <= ROOM


@pytest.mark.parametrize("path", sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")), ids=lambda p: p.stem)
def test_every_slide_of_the_course_fits_by_estimate(path):
    """Every (sub)slide is estimated to fit the screen, unless one paragraph, statement or
    figure alone is taller (benchmarks/measure_slides.py measures the decks in a browser)."""
    notebook = for_slides(nbformat.read(path, as_version=4))
    heights = _slides(notebook)
    assert heights[0] <= ROOM, "the title slide fits"
    assert sum(h > ROOM for h in heights) <= 0.05 * len(heights)
    assert max(heights) <= 1.5 * SLIDE_HEIGHT


def test_two_builds_of_a_deck_are_byte_for_byte_the_same():
    assert deck(LESSON, "reveal.js") == deck(LESSON, "reveal.js")
    notebook = nbformat.read(NOTEBOOKS / "01_layer_norm.ipynb", as_version=4)
    assert deck(notebook) == deck(notebook), "random cell ids or widget ids"


@pytest.mark.parametrize("path", sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")), ids=lambda p: p.stem)
def test_cells_cut_at_headings_and_answers_keep_unique_ids(path):
    """A cell cut both at a heading and at a model answer gave two parts one id, and nbformat
    warned (DuplicateCellId) while the deck was built; so do cells cut to fit a slide."""
    cells = for_slides(nbformat.read(path, as_version=4)).cells
    ids = [cell.id for cell in cells]
    assert len(ids) == len(set(ids)), sorted({i for i in ids if ids.count(i) > 1})


def test_a_cell_cut_at_a_heading_and_at_an_answer_has_distinct_part_ids():
    cell = ("md", "Question?\n\n**Model answer.**\n<!-- BEGIN ANSWER -->\nYes.\n"
            "<!-- END ANSWER -->\nAfter.\n\n### Next\n\nMore.")
    ids = [c.id for c in with_slide_metadata(_notebook(cell)).cells]
    assert len(ids) == len(set(ids)) == 4, ids


def test_a_mathjax_url_is_escaped_for_its_html_attribute():
    url = 'https://example.org/MathJax.js?a=1&b="><script>alert(1)</script>'

    class Scripts(HTMLParser):
        def __init__(self):
            super().__init__()
            self.sources, self.code = [], []

        def handle_starttag(self, tag, attrs):
            if tag == "script" and dict(attrs).get("src"):
                self.sources.append(dict(attrs)["src"])

        def handle_data(self, data):
            self.code.append(data)

    scripts = Scripts()
    scripts.feed(deck(LESSON, reveal_prefix="reveal.js", mathjax_url=url))
    assert url in scripts.sources  # the whole URL, one attribute of one script element
    assert not any("alert(1)" in code for code in scripts.code), "the URL became a script"


def test_a_reveal_prefix_is_escaped_for_its_html_attributes():
    """Every address the options put in the page stays inside its attribute."""
    prefix = 'https://example.org/reveal"><script>alert(1)</script><x a="'

    class Tags(HTMLParser):
        def __init__(self):
            super().__init__()
            self.addresses, self.code = [], []

        def handle_starttag(self, tag, attrs):
            self.addresses += [value for name, value in attrs if name in ("src", "href")]

        def handle_data(self, data):
            self.code.append(data)

    tags = Tags()
    tags.feed(deck(LESSON, reveal_prefix=prefix, mathjax_url="/m/MathJax.js"))
    for part in ("/dist/reveal.css", "/dist/reveal.js", "/plugin/notes/notes.js"):
        assert prefix + part in tags.addresses  # the whole prefix, inside one attribute
    assert not any("alert(1)" in code for code in tags.code), "the prefix became a script"
