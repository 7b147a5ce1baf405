"""Notebook 02's self-checks accept the package's own answers and reject wrong ones."""

import pytest
import torch
from _check_helpers import own_copy

from elmo_tutorial import checks
from elmo_tutorial.model import batching
from elmo_tutorial.model.chars import char_ids_to_word, word_to_char_ids

# The package's code as a student could write it; its own functions, the checks refuse.
my_word_to_char_ids, my_char_ids_to_word = own_copy(word_to_char_ids), own_copy(char_ids_to_word)


def package_targets(word_ids, mask):
    forward, backward = torch.full_like(word_ids, -100), torch.full_like(word_ids, -100)
    forward[:, :-1] = torch.where(mask[:, 1:], word_ids[:, 1:], -100)
    backward[:, 1:] = torch.where(mask[:, 1:], word_ids[:, :-1], -100)
    return forward, backward


def per_row(shift_back):
    """The one-sentence version applied to every row, padding included (the usual slip)."""
    def targets(word_ids, mask):
        forward = torch.cat([word_ids[:, 1:], torch.full_like(word_ids[:, :1], -100)], 1)
        backward = torch.cat([torch.full_like(word_ids[:, :1], -100), word_ids[:, :-1]], 1)
        return forward, (backward if shift_back else forward)
    return targets


def test_checks_accept_the_package_formulas_and_refuse_its_functions():
    checks.check_lm_targets(package_targets)
    with pytest.raises(checks.Delegated, match="chars.char_ids_to_word"):
        checks.check_char_ids_to_word(lambda ids: char_ids_to_word(ids))


@pytest.mark.parametrize(
    "wrong",
    [
        per_row(shift_back=True),  # padding (and </S> of short rows) predicts something
        per_row(shift_back=False),  # the backward targets are the forward ones
        lambda word_ids, mask: (word_ids, word_ids),  # predicts the input itself
        lambda word_ids, mask: package_targets(word_ids, mask)[0],  # one tensor, not two
    ],
)
def test_check_lm_targets_rejects_wrong_versions(wrong):
    with pytest.raises(checks.CheckFailed):
        checks.check_lm_targets(wrong)


def test_check_lm_targets_refuses_the_package_batch():
    def delegated(word_ids, mask):  # as a notebook calls it: through a module-level name
        batching.make_lm_batch([["a"]], None)
        return word_ids, word_ids

    with pytest.raises(checks.Delegated, match="make_lm_batch"):
        checks.check_lm_targets(delegated)


def decode(ids, shift=1, per_byte=False, padding=None, boundaries=True):
    """A student's char_ids_to_word, with switches for the usual slips."""
    if not any(ids):
        return padding
    values = [i - shift for i in ids]
    if boundaries and values[:3] in ([258, 256, 259], [258, 257, 259]):
        return "<S>" if values[1] == 256 else "</S>"
    body = values[1: values.index(259)] if 259 in values else values[1:]
    if per_byte:
        return "".join(chr(v) for v in body)
    return bytes(v % 256 for v in body).decode("utf-8", errors="replace")


def test_check_char_ids_to_word_accepts_right_answers(capsys):
    checks.check_char_ids_to_word(my_char_ids_to_word)
    checks.check_char_ids_to_word(decode)
    assert capsys.readouterr().out.count("✓") == 2


@pytest.mark.parametrize("wrong, message", [
    (lambda ids: decode(ids, padding=""), "return None"),
    (lambda ids: decode(ids, boundaries=False), "boundary token"),
    (lambda ids: decode(ids, per_byte=True), "mojibake"),
    (lambda ids: decode(ids, shift=0), "(?i)subtract 1"),
])
def test_check_char_ids_to_word_rejects_the_usual_slips(wrong, message):
    with pytest.raises(checks.CheckFailed, match=message):
        checks.check_char_ids_to_word(wrong)
