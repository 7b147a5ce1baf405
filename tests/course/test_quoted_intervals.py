"""Every interval the prose quotes from the shipped model's reports is one those reports hold.

The model card, the README and the notebooks' text quote differences with their 95 % interval,
``+2.5 [+2.0, +3.0]``, from ``data/models/small``'s ``tasks.json`` and ``layers.json``. Those
files are written again whenever a report is rerun (another CPU moves every number), and prose
that is not read again goes stale: this test finds a quoted interval that no report holds, to
the digits it is quoted with.
"""

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
REPORTS = ROOT / "data" / "models" / "small"
NUMBER = r"([+−-]?\d+\.\d+)"
# "+2.5 [+2.0, +3.0]", also "+4.9 F1 over layer 0, 95 % interval [+1.6, +8.2]"
QUOTED = re.compile(NUMBER + r"(?: [A-Za-z0-9 ,%]{0,40}?)?\s\[" + NUMBER + r",\s" + NUMBER + r"\]")
PROSE = ["README.md", "data/models/small/MODEL_CARD.md", "data/models/quality/README.md",
         *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.py"))]


def report_intervals(folder: Path = REPORTS) -> set[tuple[float, float, float]]:
    """(mean, low, high) of every interval in the folder's json reports (``margin`` is the
    layer report's name for a trend's mean)."""
    found = set()

    def walk(value):
        if isinstance(value, dict):
            centre = value.get("mean", value.get("margin"))
            if all(isinstance(x, (int, float)) for x in (centre, value.get("low"),
                                                         value.get("high"))):
                found.add((centre, value["low"], value["high"]))
            for inner in value.values():
                walk(inner)
        elif isinstance(value, list):
            for inner in value:
                walk(inner)

    for path in sorted(folder.glob("*.json")):
        walk(json.loads(path.read_text(encoding="utf-8")))
    return found


def prose_of(text: str, python: bool) -> str:
    """The text as one line: a notebook's markdown comment marks dropped, runs of white space
    made one (an interval may be cut by a line break)."""
    lines = text.splitlines()
    if python:
        lines = [line[2:] if line.startswith("# ") else line for line in lines]
    return re.sub(r"\s+", " ", " ".join(lines))


def stale(text: str, known: set[tuple[float, float, float]]) -> list[str]:
    """The quoted intervals of ``text`` that match none of ``known`` to their printed digits."""
    wrong = []
    for match in QUOTED.finditer(text):
        quoted = [float(x.replace("−", "-")) for x in match.groups()]
        digits = [len(x.split(".")[1]) for x in match.groups()]
        if not any(all(abs(q - k) <= 0.5 * 10 ** -d + 1e-9
                       for q, k, d in zip(quoted, interval, digits, strict=True))
                   for interval in known):
            wrong.append(match.group(0))
    return wrong


def test_the_checker_finds_an_interval_no_report_holds():
    known = {(2.53, 2.04, 3.01)}
    assert stale("a gain of +2.5 [+2.0,\n+3.0] F1", known) == []
    assert stale("a gain of +2.6 [+2.2, +2.9] F1", known) == ["+2.6 [+2.2, +2.9]"]
    assert stale("+2.5 F1 over layer 0, 95 % interval [+2.0, +3.1]", known) != []
    assert stale("−0.0 [−0.5, +0.4]", {(-0.03, -0.52, 0.45)}) == []


@pytest.mark.parametrize("name", PROSE)
def test_every_quoted_interval_is_one_a_shipped_report_holds(name):
    path = ROOT / name
    text = prose_of(path.read_text(encoding="utf-8"), python=path.suffix == ".py")
    assert stale(text, report_intervals()) == [], (
        f"{name} quotes intervals that no report in data/models/small holds: read it again "
        "against the reports")


def test_the_model_card_quotes_the_reports_intervals():
    """The card's summary of the task and layer reports is where most of them are quoted."""
    card = prose_of((REPORTS / "MODEL_CARD.md").read_text(encoding="utf-8"), python=False)
    assert len(QUOTED.findall(card)) >= 10
