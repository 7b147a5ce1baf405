"""How long a notebook takes to present: one stated rule, applied to every notebook the same way.

A lecture presents a notebook's slides (:mod:`elmo_tutorial.course.slides`): its text, its code
run live and its outputs read out; the exercises and "Check your understanding" are left to
the students. The rule counts what is on those slides:

* **text**: :data:`WORDS_PER_MINUTE` words a minute. A presenter does not read a slide aloud but
  explains it, and a slide of dense text takes about as long to explain as to read slowly
  (conversational speech runs at 130-150 words a minute; explaining is slower);
* **code**: :data:`CODE_CELL_MINUTES` for every code cell shown (run it, read its output);
* **figures**: :data:`FIGURE_MINUTES` more for every figure (what its axes are, what it shows).

Words inside ``$...$`` count as one; skipped cells (imports, set-up) count nothing. A
section whose heading ends in *(bonus)* is an optional detour, counted apart (``bonus``);
exercises (``### Exercise N ...``) and "Check your understanding" are counted apart too, so
that an instructor who works an exercise in class can add its minutes.

A lecture is :data:`LECTURE_MINUTES` minutes. :data:`LECTURES` groups the notebooks into
lectures by two more rules: two neighbours share a lecture when their cores fit in it together
(05 with 06: the backward LM, then both directions trained together); a lecture whose core is
under :data:`IN_CLASS_BELOW` minutes works its exercises in class, and its minutes count them.
A notebook of :data:`TWO_SITTINGS` holds two lectures' worth and is taught in two. A
notebook of :data:`PROJECTS` is a student's project (the capstone, which trains for minutes),
in no lecture; its minutes are counted all the same.
``python -m elmo_tutorial.course clock`` prints the plan, from which the README's course table
takes its minutes; a test checks that the README agrees and that no lecture is over
:data:`LECTURE_MINUTES`.

Example:
    >>> import nbformat
    >>> notebook = nbformat.v4.new_notebook(cells=[
    ...     nbformat.v4.new_markdown_cell("# 01 · Title " + "word " * 96),
    ...     nbformat.v4.new_code_cell("x = 1"),
    ...     nbformat.v4.new_markdown_cell("### Exercise 1 (predict): " + "word " * 196)])
    >>> minutes = notebook_minutes(notebook)
    >>> minutes.core, minutes.exercises
    (2.0, 2.0)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from elmo_tutorial.course.slides import with_slide_metadata

__all__ = ["CODE_CELL_MINUTES", "FIGURE_MINUTES", "IN_CLASS_BELOW", "LECTURES",
           "LECTURE_MINUTES", "PROJECTS", "TWO_SITTINGS", "WORDS_PER_MINUTE", "Lecture", "Minutes",
           "course_minutes", "lecture_plan", "notebook_minutes"]

WORDS_PER_MINUTE = 100
CODE_CELL_MINUTES = 1.0
FIGURE_MINUTES = 1.5
LECTURE_MINUTES = 50
IN_CLASS_BELOW = 30
# Notebooks longer than a lecture, taught in two sittings (each must fit in a lecture).
TWO_SITTINGS: frozenset[str] = frozenset()
# Projects a student works through outside the lectures (the capstone trains for 12 minutes).
PROJECTS = frozenset({"14"})
# The lectures, each one notebook or two neighbours whose cores fit together (by number).
LECTURES: tuple[tuple[str, ...], ...] = (
    ("00",), ("01",), ("02",), ("03",), ("04",), ("05", "06"), ("07",), ("08",), ("09",),
    ("10",), ("11",), ("12",), ("13",))

_HEADING = re.compile(r"^(#{1,3})\s+(.*)")
_MATH = re.compile(r"\$\$.*?\$\$|\$[^$\n]*\$", re.DOTALL)


@dataclass
class Minutes:
    """One notebook's minutes by the rule, and what they were counted from."""

    core: float = 0.0  # the lecture: every slide outside bonus sections and exercises
    bonus: float = 0.0  # the sections marked (bonus)
    exercises: float = 0.0  # the exercises, with their solutions' outputs
    counts: dict = field(default_factory=dict)  # {part: {"words", "code", "figures"}}


def _words(markdown: str) -> int:
    return len(_MATH.sub(" x ", markdown).split())


def _figures(cell) -> int:
    return sum("image/png" in out.get("data", {}) or "image/svg+xml" in out.get("data", {})
               for out in cell.get("outputs", []))


def notebook_minutes(notebook: nbformat.NotebookNode) -> Minutes:
    """The minutes of ``notebook``'s slides by the rule (module docstring)."""
    counts = {part: {"words": 0, "code": 0, "figures": 0}
              for part in ("core", "bonus", "exercises", "questions")}
    section = part = "core"  # the part of the current ## section, and of this cell
    for cell in with_slide_metadata(notebook).cells:
        heading = _HEADING.match(cell.source) if cell.cell_type == "markdown" else None
        if heading:
            level, title = len(heading[1]), heading[2]
            if title.startswith("Exercise"):
                part = "exercises"
            elif "Check your understanding" in title:
                part = section = "questions"
            elif level <= 2:
                part = section = "bonus" if "(bonus)" in title else "core"
            else:  # a ### section continues its ## section (after an exercise too)
                part = "bonus" if "(bonus)" in title else section
        if cell.metadata.get("slideshow", {}).get("slide_type") == "skip":
            continue
        if cell.cell_type == "markdown":
            counts[part]["words"] += _words(cell.source)
        elif cell.cell_type == "code" and cell.source.strip():
            counts[part]["code"] += 1
            counts[part]["figures"] += _figures(cell)

    def minutes(c: dict) -> float:
        return (c["words"] / WORDS_PER_MINUTE + c["code"] * CODE_CELL_MINUTES
                + c["figures"] * FIGURE_MINUTES)

    return Minutes(core=minutes(counts["core"]), bonus=minutes(counts["bonus"]),
                   exercises=minutes(counts["exercises"]), counts=counts)


def course_minutes(folder: str | Path) -> dict[str, Minutes]:
    """``{notebook name: Minutes}`` for every executed ``NN_*.ipynb`` in ``folder``."""
    paths = sorted(Path(folder).glob("[0-9][0-9]_*.ipynb"))
    if not paths:
        raise FileNotFoundError(f"no NN_*.ipynb notebooks in {folder}")
    return {path.stem: notebook_minutes(nbformat.read(path, as_version=4)) for path in paths}


@dataclass
class Lecture:
    """One lecture of :data:`LECTURES`: its notebooks and minutes by the rule."""

    number: int
    notebooks: list[str]  # the notebooks' names (NN_title)
    core: list[float]  # each notebook's core minutes
    bonus: float
    exercises: float  # all its exercises, worked in class or not
    in_class: bool  # its exercises are worked in class (core under IN_CLASS_BELOW)
    sittings: int = 1  # 2 for a notebook of TWO_SITTINGS

    @property
    def per_sitting(self) -> float:
        """The minutes of one sitting: what must fit in LECTURE_MINUTES."""
        return self.minutes / self.sittings

    @property
    def minutes(self) -> float:
        """What the lecture takes: its cores, and its exercises if worked in class."""
        return sum(self.core) + (self.exercises if self.in_class else 0.0)


def lecture_plan(folder: str | Path) -> list[Lecture]:
    """The lectures of :data:`LECTURES` whose notebooks are in ``folder``, minutes by the rule
    (the :data:`PROJECTS` are in none).

    Raises:
        ValueError: a notebook of ``folder`` is in no lecture, or in a lecture with a missing
            neighbour.
    """
    minutes = course_minutes(folder)
    by_number = {name[:2]: (name, m) for name, m in minutes.items()}
    planned = {n for group in LECTURES for n in group} | PROJECTS
    if set(by_number) - planned:
        raise ValueError(f"notebooks in no lecture of LECTURES: {sorted(set(by_number) - planned)}")
    plan = []
    for number, group in enumerate(LECTURES, start=1):
        present = [by_number[n] for n in group if n in by_number]
        if not present:
            continue
        if len(present) != len(group):
            raise ValueError(f"lecture {number} needs notebooks {group}, found "
                             f"{[name for name, _ in present]}")
        core = [m.core for _, m in present]
        plan.append(Lecture(number, [name for name, _ in present], core,
                            sum(m.bonus for _, m in present),
                            sum(m.exercises for _, m in present),
                            sum(core) < IN_CLASS_BELOW,
                            2 if set(group) & TWO_SITTINGS else 1))
    return plan


def table(folder: str | Path) -> str:
    """The lecture plan as markdown (what ``python -m elmo_tutorial.course clock`` prints)."""
    lines = ["| lecture | notebooks | core (min) | exercises (min) | taught (min) | bonus (min) |",
             "|--:|---|--:|--:|--:|--:|"]
    for lecture in lecture_plan(folder):
        names = " + ".join(f"`{name[:2]}`" for name in lecture.notebooks)
        core = " + ".join(f"{round(c)}" for c in lecture.core)
        if len(lecture.core) > 1:
            core += f" = {round(sum(lecture.core))}"
        taught = f"{round(lecture.minutes)}"
        if lecture.sittings > 1:
            taught += f" ({lecture.sittings} sittings)"
        lines.append(f"| {lecture.number} | {names} | {core} | {round(lecture.exercises)} | "
                     f"{taught} | {round(lecture.bonus) or '–'} |")
    return "\n".join(lines)
