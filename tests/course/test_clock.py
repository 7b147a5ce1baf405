"""The README's lecture minutes come from the stated rule, and no lecture is over 50 minutes."""

import re
from pathlib import Path

import nbformat
import pytest

from elmo_tutorial.course.clock import (
    LECTURE_MINUTES,
    course_minutes,
    lecture_plan,
    notebook_minutes,
    table,
)

REPOSITORY = Path(__file__).resolve().parents[2]
NOTEBOOKS = REPOSITORY / "notebooks"
README = (REPOSITORY / "README.md").read_text(encoding="utf-8")


def test_the_readme_prints_the_plan_the_rule_gives():
    assert table(NOTEBOOKS) in README, "README's lecture plan is stale: paste the output of " \
        "`python -m elmo_tutorial.course clock`"


def test_every_notebook_row_gives_the_rule_s_minutes():
    minutes = course_minutes(NOTEBOOKS)
    rows = dict(re.findall(r"^\| `(\d\d_\w+)` \|.*\| ([^|]+) \| \d+ \|$", README, re.M))
    assert sorted(rows) == sorted(minutes), "the course table names other notebooks"
    for name, m in minutes.items():
        said = f"{round(m.core)}" + (f" + {round(m.bonus)} bonus" if round(m.bonus) else "")
        assert rows[name].strip() == said, f"{name}: README says {rows[name]!r}, the rule {said}"


def test_no_lecture_is_over_fifty_minutes():
    over = [(lecture.notebooks, round(lecture.per_sitting)) for lecture in lecture_plan(NOTEBOOKS)
            if lecture.per_sitting > LECTURE_MINUTES]
    assert not over, f"lectures over {LECTURE_MINUTES} minutes by the rule: {over}"


def _notebook(*cells):
    return nbformat.v4.new_notebook(cells=list(cells))


def test_the_rule_counts_words_code_and_figures_and_skips_setup():
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    figure = code("plot()")
    figure.outputs = [nbformat.v4.new_output("display_data", data={"image/png": "x"})]
    minutes = notebook_minutes(_notebook(
        md("# 00 · Title " + "w " * 96), code("import torch"),  # a skipped set-up cell
        md("## 1. Idea " + "w " * 46 + " $a + b = c$"), code("x = 1"), figure,
        md("## 2. More (bonus) " + "w " * 96), code("y = 2"),
        md("### Exercise 1 (explain): why? " + "w " * 95),
        md("## Check your understanding " + "w " * 500)))
    # 100 + 50 words (headings count; the formula is one word), two code cells, one figure
    assert minutes.core == pytest.approx(1.5 + 2 + 1.5)
    assert minutes.bonus == pytest.approx(1 + 1)
    assert minutes.exercises == pytest.approx(1.0)


def test_a_section_after_an_exercise_is_counted_with_its_section():
    md = nbformat.v4.new_markdown_cell
    minutes = notebook_minutes(_notebook(
        md("# 00 · Title"), md("## 1. Idea (bonus)"), md("### Exercise 1 (predict): " + "w " * 96),
        md("### More of the idea " + "w " * 96)))
    assert minutes.exercises == pytest.approx(1.0)
    assert minutes.bonus == pytest.approx((4 + 5 + 96) / 100)  # its heading and the section
