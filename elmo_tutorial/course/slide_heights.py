"""How tall a notebook cell will be on a 1280×720 reveal.js slide, estimated from its text,
lines and images with the sizes of ``slides_template/elmo_reveal/slides.css`` as Chromium draws
them (``benchmarks/measure_slides.py`` measures real decks, and these numbers come from there).

The estimate is a table of measured sizes and the rules that add them up (a paragraph, a list,
a heading, a formula, a table, code, printed output, a figure); it is kept apart from
:mod:`elmo_tutorial.course.slide_fit`, which decides where a tall slide is cut, because the
sizes change when the slides' style does, and the cutting rules do not. ``slide_fit``
re-exports ``SLIDE_HEIGHT`` and ``ROOM``.

Example:
    >>> paragraph_height("# A heading") == 44 + 61.6
    True
    >>> line_count(250, 100)
    3
"""

from __future__ import annotations

import base64
import math
import re
import struct

import nbformat

__all__ = ["CELL_PADDING", "CODE_LINE", "CODE_PAD", "ITEM_CHARS", "ITEM_LINE", "LIST_ITEM",
           "ROOM", "SLIDE_HEIGHT", "line_count", "output_height", "paragraph_height",
           "shown_length", "split_paragraphs"]


SLIDE_HEIGHT = 720
ROOM = 660  # a slide is filled up to this estimate; what does not fit goes on a subslide below
CELL_PADDING = 10  # a cell's padding
CODE_LINE, CODE_PAD = 23.4, 17.3  # 18 px code, line height 1.3; the padding around it
_OUT_LINE, _OUT_PAD, _OUT_CHARS = 19.5, 12, 136  # printed output: 15 px, 136 characters a line
_TEXT_LINE, _TEXT_GAP, _TEXT_CHARS = 28.6, 22, 105  # a paragraph: 22 px text, 1237 px wide
ITEM_LINE, ITEM_CHARS = 35.2, 100  # a list item
_HEADINGS = {1: (44, 61.6, 56), 2: (33, 46.2, 75), 3: (26.4, 37, 94)}  # line, margins, chars
_FORMULA, _FORMULA_ROW = 32, 38  # a displayed formula: its margins, and each of its rows
_TABLE_ROW = 40
_IMAGE_WIDTH, _IMAGE_MAX, _IMAGE_MARGIN = 1230, 600, 45
LIST_ITEM = re.compile(r"^\s*([-*+]|\d+[.)])\s")


def split_paragraphs(text: str) -> list[str]:
    """``text`` cut at blank lines that are not inside a code fence or a $$ formula."""
    parts: list[list[str]] = [[]]
    fenced = formula = False
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced and stripped.count("$$") % 2:
            formula = not formula
        if stripped or fenced or formula:
            parts[-1].append(line)
        elif parts[-1]:
            parts.append([])
    return ["\n".join(part) for part in parts if part]


def shown_length(text: str) -> int:
    """About how many characters of ``text`` show once its markdown is rendered."""
    text = re.sub(r"<!--.*?-->|<[^>]+>", "", text, flags=re.S)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links: their text
    text = re.sub(r"\$([^$]+)\$",  # inline math: about one character a symbol
                  lambda m: "x" * (len(re.sub(r"\\[a-zA-Z]+|[{}^_ ]", "", m[1])) + 1), text)
    return len(re.sub(r"[*`]|\\(?=\S)", "", text))


def line_count(length: int, per_line: int) -> int:
    return max(1, math.ceil(length / per_line))


def paragraph_height(text: str) -> float:
    """The estimated height of one paragraph of markdown (a heading, a list, a formula, ...)."""
    lines = text.split("\n")
    first = lines[0].strip()
    if first.startswith(("```", "~~~")):
        return (len(lines) - 2) * CODE_LINE + CODE_PAD + _TEXT_GAP
    if first.startswith("|"):
        return sum(not re.match(r"^\s*\|[\s:|-]+\|\s*$", line) for line in lines) * _TABLE_ROW \
            + _TEXT_GAP
    height = 0.0
    heading = re.match(r"(#{1,6})\s+(.*)", first)
    if heading:
        line, margins, chars = _HEADINGS.get(len(heading[1]), _HEADINGS[3])
        height += line_count(shown_length(heading[2]), chars) * line + margins
        lines = lines[1:]
    prose = "\n".join(lines)
    formulas = re.findall(r"\$\$.*?\$\$", prose, flags=re.S)
    prose = re.sub(r"\$\$.*?\$\$", "", prose, flags=re.S)
    text, items = [], []
    for line in prose.split("\n"):
        if LIST_ITEM.match(line):
            items.append(LIST_ITEM.sub("", line))
        elif items:
            items[-1] += " " + line.strip()
        elif line.strip():
            text.append(line.strip())
    if text:
        height += line_count(shown_length(" ".join(text)), _TEXT_CHARS) * _TEXT_LINE + _TEXT_GAP
    if items:
        height += sum(line_count(shown_length(item), ITEM_CHARS) for item in items) * ITEM_LINE \
            + _TEXT_GAP
    return height + sum(_FORMULA + _FORMULA_ROW * (formula.count("\\\\") + 1)
                        for formula in formulas)


def _markdown_height(text: str) -> float:
    return sum(paragraph_height(paragraph) for paragraph in split_paragraphs(text))


def _printed_height(text: str) -> float:
    lines = text.rstrip("\n").split("\n")
    return sum(line_count(len(line), _OUT_CHARS) for line in lines) * _OUT_LINE + _OUT_PAD


def _image_height(output: nbformat.NotebookNode) -> float:
    png = base64.b64decode(re.sub(r"\s", "", output.data["image/png"])[:44])
    width, height = struct.unpack(">II", png[16:24])
    if width > _IMAGE_WIDTH:
        height *= _IMAGE_WIDTH / width
    return min(height, _IMAGE_MAX) + _IMAGE_MARGIN


def output_height(output: nbformat.NotebookNode) -> float:
    data = output.get("data", {})
    if output.output_type == "stream":
        return _printed_height(output.get("text", ""))
    if output.output_type == "error":
        return _printed_height("\n".join(output.get("traceback", [])))
    if "image/png" in data:
        return _image_height(output)
    if "text/markdown" in data:
        return _markdown_height(data["text/markdown"])
    if "text/html" in data:
        return _markdown_height(re.sub(r"<[^>]+>", "", data["text/html"]))
    return _printed_height(data.get("text/plain", ""))
