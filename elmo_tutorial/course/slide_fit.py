"""Slides that fit the screen: :func:`split_tall_slides`, which continues a slide estimated
taller than the screen on subslides below it (text, then code, then its output, then its
figure, ...), and :func:`estimated_height`, a cell's height on a 1280×720 reveal.js slide.

The heights come from :mod:`elmo_tutorial.course.slide_heights` (the sizes of
``slides_template/elmo_reveal/slides.css`` as Chromium draws them, measured by
``benchmarks/measure_slides.py``); this module holds the rules for where a slide is cut.
``SLIDE_HEIGHT`` and ``ROOM`` are re-exported from there.
"""

from __future__ import annotations

import ast
import copy
import re

import nbformat

from elmo_tutorial.course.slide_heights import (
    CELL_PADDING,
    CODE_LINE,
    CODE_PAD,
    ITEM_CHARS,
    ITEM_LINE,
    LIST_ITEM,
    ROOM,
    SLIDE_HEIGHT,
    line_count,
    output_height,
    paragraph_height,
    shown_length,
    split_paragraphs,
)

__all__ = ["ROOM", "SLIDE_HEIGHT", "cell_part", "estimated_height", "split_tall_slides"]


def cell_part(cell: nbformat.NotebookNode, text: str, number: int,
          cut: str) -> nbformat.NotebookNode:
    """Part ``number`` of a text cell cut at headings (``cut="h"``) or answers (``"a"``), with
    an id made from the cell's (never a random one, so that two builds of a deck are byte for
    byte the same). The letter keeps the ids unique when a cell is cut both ways."""
    part = nbformat.v4.new_markdown_cell(text)
    part.id = (f"{cell.get('id', 'cell')[:56]}-{cut}{number}" if number
               else cell.get("id", part.id))
    if not number:
        part.metadata = cell.metadata
    return part


_KEEP = ROOM / 4  # less than this on a slide (a heading, a line) stays with what follows it


class _Block:
    """A part of a cell that a slide may be cut before: what it is (``payload``), its
    estimated height, the smaller parts it may be cut into if it is taller than a slide, and
    the height it adds when it starts a cell of its own (``lead``: the frame of code)."""

    def __init__(self, payload: tuple, height: float, parts: list[_Block] | None = None,
                 lead: float = 0.0):
        self.payload, self.height, self.parts, self.lead = payload, height, parts or [], lead


def _code_block(source: str) -> _Block:
    """A code cell's input, whose parts are its runs of top-level statements between blank
    lines, whose parts are the statements (a comment above a statement stays with it)."""
    lines = source.split("\n")
    try:
        statements = ast.parse(source).body
    except SyntaxError:
        statements = []
    starts, after_blank = [0], set()
    for before, after in zip(statements, statements[1:], strict=False):
        start = min([after.lineno] + [d.lineno for d in getattr(after, "decorator_list", [])]) - 1
        while start > before.end_lineno and lines[start - 1].strip():
            start -= 1
        starts.append(start)
        if any(not lines[i].strip() for i in range(before.end_lineno, start)):
            after_blank.add(start)
    runs: list[list[_Block]] = []
    for first, end in zip(starts, [*starts[1:], len(lines)], strict=True):
        if not runs or first in after_blank:
            runs.append([])
        runs[-1].append(_Block(("input", first, end), (end - first) * CODE_LINE, lead=CODE_PAD))
    parts = [_Block(("input", run[0].payload[1], run[-1].payload[2]),
                    sum(block.height for block in run), run, lead=CODE_PAD) for run in runs]
    if len(parts) == 1:
        parts = parts[0].parts
    return _Block(("input", 0, len(lines)), len(lines) * CODE_LINE,
                  parts if len(parts) > 1 else None, lead=CODE_PAD)


_TOP_ITEM = re.compile(r"^([-*+]|\d+[.)])\s")


def _items(paragraph: str) -> list[str]:
    """A paragraph that is a list (perhaps after a line that introduces it) as its items, the
    introduction with the first; any other paragraph as itself."""
    if "$$" in paragraph or "```" in paragraph:
        return [paragraph]
    items: list[str] = []
    for line in paragraph.split("\n"):
        if _TOP_ITEM.match(line) or not items:
            items.append(line)
        else:
            items[-1] += "\n" + line
    return items if len(items) > 1 and _TOP_ITEM.match(items[1]) else [paragraph]


def _markdown_block(payload: tuple, text: str) -> _Block:
    """A text whose parts are its paragraphs, whose parts are a list's items (a heading stays
    with what follows it). A part's text starts with what separates it from the part before
    (a blank line or a line break), so that the parts put together are the text again."""
    pieces: list[list] = []  # [text, height, paragraph] of each item or paragraph
    for number, paragraph in enumerate(split_paragraphs(text)):
        items = _items(paragraph)
        heights = [paragraph_height(items[0])] + [
            line_count(shown_length(LIST_ITEM.sub("", item)), ITEM_CHARS) * ITEM_LINE
            for item in items[1:]]
        heights[0] += paragraph_height(paragraph) - sum(heights)  # the list's own margin
        separators = ["\n\n" if number else ""] + ["\n"] * (len(items) - 1)
        pieces += [[s + item, h, number] for s, item, h in zip(separators, items, heights,
                                                              strict=True)]
    for piece, following in zip(pieces, pieces[1:], strict=False):
        if re.fullmatch(r"\s*#{1,6}\s.*", piece[0]):  # a heading: with what follows it
            following[:2] = [piece[0] + following[0], piece[1] + following[1]]
            piece[1] = None
    pieces = [piece for piece in pieces if piece[1] is not None]
    paragraphs = []
    for number in dict.fromkeys(piece[2] for piece in pieces):
        run = [_Block(payload[:-1] + (t,), h) for t, h, n in pieces if n == number]
        paragraphs.append(_Block(payload[:-1] + ("".join(b.payload[-1] for b in run),),
                                 sum(b.height for b in run), run if len(run) > 1 else None))
    return _Block(payload, sum(p.height for p in paragraphs),
                  paragraphs if len(paragraphs) > 1 else (paragraphs[0].parts if paragraphs
                                                          else None))


def _blocks(cell: nbformat.NotebookNode) -> list[_Block]:
    """What a slide may be cut between in ``cell``: for text, the whole text (whose parts are
    its paragraphs and their list items); for code, its input (whose parts are its top-level
    statements) and each of its outputs (a printed markdown text's parts are its paragraphs)."""
    blocks: list[_Block] = []
    if cell.cell_type == "markdown":
        blocks.append(_markdown_block(("text", cell.source), cell.source))
    elif cell.cell_type == "code":
        if cell.source.strip() and "hide-input" not in cell.metadata.get("tags", []):
            blocks.append(_code_block(cell.source))
        for output in cell.get("outputs", []):
            if "text/markdown" in output.get("data", {}):
                blocks.append(_markdown_block(("output", output, None),
                                              output.data["text/markdown"]))
            else:
                blocks.append(_Block(("output", output, None), output_height(output)))
    return blocks or [_Block(("text", cell.source), 0.0)]


def estimated_height(cell: nbformat.NotebookNode) -> float:
    """About how many px ``cell`` takes on a slide (its code, outputs and figures included)."""
    blocks = _blocks(cell)
    return CELL_PADDING + blocks[0].lead + sum(block.height for block in blocks)


def _place(block: _Block, used: float, parts: list[tuple[bool, list]]) -> float:
    """Puts ``block`` on the current slide if it fits below the ``used`` px, else whole on a
    new subslide if it fits there, else cut into its parts (which go through the same rules),
    and records where in ``parts``; returns the px now used.

    What the slide holds is not left alone if it is less than ``_KEEP`` (a heading, a line):
    the block is cut to fill the slide instead, and a block that cannot be cut and is taller
    than a slide stays below it (and scrolls). Nor is a last part that small left alone: the
    part before it goes below with it. A block that starts a part of the cell adds the cell's
    padding, and the frame of code."""
    alone = CELL_PADDING + block.lead + block.height
    here = used + (alone if not parts else block.height)
    if here > ROOM and block.parts and not (used >= _KEEP and alone <= ROOM):
        for index, part in enumerate(block.parts):
            rest = sum(later.height for later in block.parts[index + 1:])
            if (parts and 0 < rest < _KEEP and used + part.height <= ROOM
                    < used + part.height + rest
                    and CELL_PADDING + part.lead + part.height + rest <= ROOM):
                parts.append((True, [part.payload]))  # not a line left alone below
                used = CELL_PADDING + part.lead + part.height
            else:
                used = _place(part, used, parts)
        return used
    new = here > ROOM and used > 0 and (alone <= ROOM or used >= _KEEP)
    if new or not parts:
        parts.append((new, [block.payload]))
    else:
        parts[-1][1].append(block.payload)
    return alone if new else here


def _outputs(payloads: list[tuple]) -> list:
    """The outputs of one part of a cut code cell; the paragraphs of a printed markdown text
    that stay together are joined again."""
    outputs, origins = [], []
    for _, output, text in (p for p in payloads if p[0] == "output"):
        if text is None:
            outputs.append(output)
        elif origins and origins[-1] is output:
            outputs[-1].data["text/markdown"] += text
        else:
            outputs.append(nbformat.v4.new_output("display_data",
                                                  {"text/markdown": text.lstrip("\n")}))
        origins.append(output)
    return outputs


def _cut(cell: nbformat.NotebookNode, parts: list[tuple[bool, list]]) -> list:
    """``cell`` as one cell per part; a part that starts a slide is a subslide."""
    cells, lines = [], cell.source.split("\n")
    for number, (new, payloads) in enumerate(parts):
        if cell.cell_type == "markdown":
            part = cell_part(cell, "".join(text for _, text in payloads).lstrip("\n"), number, "p")
        else:
            part = copy.deepcopy(cell) if number else cell
            ranges = [(first, end) for kind, first, end in payloads if kind == "input"]
            if ranges:
                part.source = "\n".join(lines[ranges[0][0]:ranges[-1][1]]).strip("\n")
            elif "hide-input" not in part.metadata.get("tags", []):
                part.metadata["tags"] = [*part.metadata.get("tags", []), "hide-input"]
            part.outputs = _outputs(payloads)
            if number:
                part.id = f"{cell.get('id', 'cell')[:56]}-o{number}"
        if number:
            part.metadata["slideshow"] = {}
        if new:
            part.metadata.setdefault("slideshow", {})["slide_type"] = "subslide"
        cells.append(part)
    return cells


def split_tall_slides(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy of ``notebook`` (whose cells carry their slide types) in which a (sub)slide
    estimated taller than ``ROOM`` continues on new subslides below it. A cell that does not
    fit below what the slide holds starts a new subslide if it fits there; else (or if the
    slide would hold only a heading or a line) it is cut, and its parts go through the same
    rules:

    * text between paragraphs, a list between its items (a heading stays with its text);
    * code between its input and each output or figure (outputs on a later subslide are
      shown without the code again); code taller than a slide between its top-level
      statements, at blank lines where it can; a printed markdown text between paragraphs.

    Cells that are skipped or are speaker notes take no room; a fragment or a continuation
    that starts a new subslide is shown when the presenter moves down to it, so an answer is
    still shown only when asked for. Only a single paragraph, statement or figure taller than
    a slide still needs scrolling.
    """
    notebook = copy.deepcopy(notebook)
    cells, used = [], 0.0
    for cell in notebook.cells:
        kind = cell.metadata.get("slideshow", {}).get("slide_type", "-")
        if kind in ("skip", "notes"):
            cells.append(cell)
            continue
        if kind in ("slide", "subslide"):
            used = 0.0
        blocks, parts = _blocks(cell), []
        whole = blocks[0] if len(blocks) == 1 else _Block(
            ("cell",), sum(block.height for block in blocks), blocks, lead=blocks[0].lead)
        used = _place(whole, used, parts)
        if len(parts) > 1:
            cells += _cut(cell, parts)
            continue
        if parts[0][0]:
            cell.metadata.setdefault("slideshow", {})["slide_type"] = "subslide"
        cells.append(cell)
    notebook.cells = cells
    return notebook
