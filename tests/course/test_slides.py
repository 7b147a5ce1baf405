"""Slide types from metadata and defaults, and a reveal.js deck built from a real notebook."""

import html as html_text
import re
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest

from elmo_tutorial.course.slides import deck, for_slides

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


def slide_types(notebook):
    return [cell.metadata["slideshow"]["slide_type"] for cell in for_slides(notebook).cells]


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


def test_text_cells_are_cut_before_headings_outside_code_fences():
    notebook = _notebook(("md", "Closing words.\n\n## 2. Next\nText\n```\n# a comment\n```",
                          "subslide"))
    cells = for_slides(notebook).cells
    assert [c.source for c in cells] == [
        "Closing words.", "## 2. Next\nText\n```\n# a comment\n```"]
    assert [c.metadata["slideshow"]["slide_type"] for c in cells] == ["subslide", "slide"]


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
    html = deck(notebook, "01_layer_norm", reveal_prefix="reveal.js")
    sections = _Sections()
    sections.feed(html)
    headings = [c.source.split("\n")[0] for c in for_slides(notebook).cells
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
    html = deck(LESSON, "03_char_cnn", reveal_prefix="reveal.js")
    loaded = re.findall(r"""(?:src|href)=["']([^"'#][^"']*)|url\(["']?([^)"']+)""", html)
    loaded = [a or b for a, b in loaded if not (a or b).startswith("data:")]
    assert "reveal.js/dist/reveal.js" in loaded and "reveal.js/dist/reveal.css" in loaded
    assert "mathjax/MathJax.js?config=TeX-AMS_CHTML-full,Safe" in loaded
    assert not [u for u in loaded if "//" in u], "a local deck must load nothing from the web"
    assert "require(" not in html and "jquery" not in html.lower(), "reveal starts on its own"
    online = deck(LESSON, "03_char_cnn")
    assert "https://unpkg.com/reveal.js@5" in online and "mathjax" in online.lower()


def test_the_deck_title_is_the_notebooks_name():
    assert re.search(r"<title>(.*)</title>", deck(LESSON, "03_char_cnn"))[1] == \
        "03_char_cnn slides"


def test_test_markers_answers_and_widgets_are_shown_as_a_presenter_needs_them():
    html = deck(LESSON, "03", reveal_prefix="reveal.js")
    assert "NBVAL" not in html, "markers for the notebook tests are not for the audience"
    assert "one second" in html, "the cell itself still shows"
    before, after = html.split('class="fragment"', 1)
    assert "Model answer." not in before and "The gradient flows." not in before
    assert "Model answer." in after[:2000], "the label comes with the answer, on the click"
    assert "The gradient flows." in after[:2000], "the model answer appears on a click"
    assert "BEGIN ANSWER" not in html
    assert "widget-view+json" not in html and "widget-state" not in html
    assert "@jupyter-widgets" not in html and "unpkg.com/@jupyter" not in html
    assert re.search(r"<pre>Live explorer.*needs a running Jupyter kernel", html), (
        "a live widget shows its text on a slide")


def test_the_deck_is_1280_by_720_and_a_tall_slide_scrolls_from_its_top():
    html = deck(LESSON, "03", reveal_prefix="reveal.js")
    css = "".join(re.findall(r"<style[^>]*>(.*?)</style>", html, re.S))
    script = html[html.index("Reveal.initialize("):]
    assert re.search(r"width:\s*1280", script) and re.search(r"height:\s*720", script)
    assert "center: false" in script, "a tall slide starts at its top, not cut above it"
    assert re.search(r"section > section \{[^}]*max-height:\s*720px;[^}]*overflow-y:\s*auto", css)
    assert re.search(r"jp-RenderedImage img \{[^}]*width:\s*100%", css), "figures fill the width"


def test_solution_markers_are_not_on_the_slides():
    notebook = _notebook(("md", "# T"), ("md", "### Exercise 1: do it"),
                         ("code", "def f():\n    # BEGIN SOLUTION\n    return 1\n"
                                  "    # END SOLUTION\n# NBVAL_IGNORE_OUTPUT\nf()"))
    code = [c for c in for_slides(notebook).cells if c.cell_type == "code"]
    assert code[0].source == "def f():\n    return 1\nf()"
    assert code[0].metadata["slideshow"]["slide_type"] == "fragment", "still on a click"
    html = deck(notebook, "t", reveal_prefix="reveal.js")
    assert "SOLUTION" not in html and "return" in html


@pytest.mark.parametrize("label", ["**Model answer.**", "**Prediction.**"])
def test_the_label_of_a_model_answer_appears_with_it(label):
    notebook = _notebook(("md", "# T"), ("md", "### Exercise 1 (predict): which?"),
                         ("md", f"Think first.\n\n{label}\n<!-- BEGIN ANSWER -->\nThe first.\n"
                                "<!-- END ANSWER -->"))
    assert for_slides(notebook).cells[2].source == (
        f'Think first.\n\n<div class="fragment">\n\n{label}\nThe first.\n\n</div>')


def test_each_question_and_each_answer_appears_on_its_own_click():
    """Question 2 came with answer 1 on the same click: now question 1 is shown, then each
    click reveals one thing, answer 1, question 2, answer 2, in that order."""
    questions = _notebook(("md", "## Check your understanding\n\nAnswer each.\n\n"
                                 "1. Why A?\n\n<!-- BEGIN ANSWER -->\nBecause A.\n"
                                 "<!-- END ANSWER -->\n\n2. Why B?\n\n<!-- BEGIN ANSWER -->\n"
                                 "Because B.\n<!-- END ANSWER -->"))
    html = deck(questions, "q", reveal_prefix="reveal.js")
    shown, *clicks = html.split('<div class="fragment">')
    assert "Why A?" in shown and "Because A." not in shown
    assert [re.sub(r"<[^>]+>|\s", "", click.split("</div>")[0]) for click in clicks] == [
        "BecauseA.", "WhyB?", "BecauseB."]


def test_two_builds_of_a_deck_are_byte_for_byte_the_same():
    assert deck(LESSON, "03", "reveal.js") == deck(LESSON, "03", "reveal.js")
    notebook = nbformat.read(NOTEBOOKS / "01_layer_norm.ipynb", as_version=4)
    assert deck(notebook, "01") == deck(notebook, "01"), "random cell ids or widget ids"


@pytest.mark.parametrize("path", sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")), ids=lambda p: p.stem)
def test_cells_cut_at_headings_and_answers_keep_unique_ids(path):
    """Parts of a cell cut at its headings get ids of their own (nbformat warns of duplicates)."""
    cells = for_slides(nbformat.read(path, as_version=4)).cells
    ids = [cell.id for cell in cells]
    assert len(ids) == len(set(ids)), sorted({i for i in ids if ids.count(i) > 1})


def _words(text: str) -> set[str]:
    """The words of ``text``, escapes such as \\n or \\gamma cut off as the page cuts them."""
    return set(re.findall(r"[A-Za-z]{3,}", re.sub(r"\\[A-Za-z]", " ", text)))


@pytest.mark.slow  # a deck of every notebook
@pytest.mark.parametrize("path", sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")), ids=lambda p: p.stem)
def test_every_slide_of_the_course_is_in_its_deck(path):
    """Each cell shown on a slide, its printed outputs included, reaches the page, and each
    slide and subslide is a section of its own."""
    notebook = for_slides(nbformat.read(path, as_version=4))
    page = deck(nbformat.read(path, as_version=4), path.stem, reveal_prefix="reveal.js")
    found = _words(html_text.unescape(re.sub(r"<[^>]+>", "", page)))
    starts = 0
    for index, cell in enumerate(notebook.cells):
        slide_type = cell.metadata["slideshow"]["slide_type"]
        if slide_type in ("skip", "notes"):
            continue
        starts += slide_type in ("slide", "subslide")
        shown = "" if "hide-input" in cell.metadata.get("tags", []) else cell.source
        shown += "".join(o.get("text", "") for o in cell.get("outputs", []))
        shown = re.sub(r"\]\([^)]*\)|```\w+|<[^>]+>", "", shown)  # a link's address, a
        # fence's language, a tag
        missing = _words(shown) - found
        assert not missing, f"{path.name}, cell {index}: {sorted(missing)[:10]} not on a slide"
    sections = _Sections()
    sections.feed(page)
    assert sections.subslides == starts, "one section for each slide and each below it"


def test_make_slides_writes_one_deck_per_notebook(tmp_path, capsys):
    from elmo_tutorial.course.material import main

    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    for name in ("00_static_vs_contextual.ipynb", "01_layer_norm.ipynb"):
        (notebooks / name).write_bytes((NOTEBOOKS / name).read_bytes())
    out = tmp_path / "slides"
    assert main(["slides", str(out), "--notebooks", str(notebooks),
                 "--reveal-prefix", "reveal.js"]) == 0
    assert sorted(p.name for p in out.glob("*.html")) == [
        "00_static_vs_contextual.slides.html", "01_layer_norm.slides.html"]
    assert 'src="reveal.js/dist/reveal.js"' in (out / "01_layer_norm.slides.html").read_text()
    assert "wrote 2 reveal.js decks" in capsys.readouterr().out
