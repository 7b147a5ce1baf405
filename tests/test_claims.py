"""The notebooks' tests mask the digits of trained numbers, and only those, and check claims."""

import re
from pathlib import Path

import pytest
from nbval.plugin import get_sanitize_patterns

from elmo_tutorial.claims import ClaimFailed, approx, claim

SANITIZE = Path(__file__).resolve().parent.parent / ".ci" / "nbval_sanitize.cfg"


def sanitize(text: str) -> str:
    """What nbval compares: ``text`` after every substitution of the notebooks' config."""
    for regex, replacement in get_sanitize_patterns(SANITIZE.read_text(encoding="utf-8")):
        text = re.sub(regex, replacement, text)
    return text


def test_two_machines_printing_different_trained_digits_compare_equal():
    here = f"F1 {approx(8.46, '5.1f')}  ppl {approx([71.49, -0.2], '.2f')}  n {approx(99, 'd')}"
    there = f"F1 {approx(10.04, '5.1f')}  ppl {approx([68.03, 0.1], '.2f')}  n {approx(101, 'd')}"
    assert here != there
    assert sanitize(here) == sanitize(there)


def test_numbers_without_approx_are_still_compared():
    assert sanitize("perplexity 71.5 → ≈ exp(NLL) = 6.93") != sanitize(
        "perplexity 68.0 → ≈ exp(NLL) = 6.93")
    assert sanitize("accuracy 93.651") != sanitize("accuracy 93.641")


def test_nan_is_never_masked():
    assert sanitize(approx(float("nan"))) != sanitize(approx(1.0))


def test_claim_prints_the_same_line_everywhere_and_raises_when_false(capsys):
    claim(2 > 1, "two beats one", detail="2 vs 1")
    assert capsys.readouterr().out == "✓ two beats one\n"
    with pytest.raises(ClaimFailed, match=r'"one beats two".*\(1 vs 2\)'):
        claim(1 > 2, "one beats two", detail="1 vs 2")
