"""Notebook 10's self-check accepts correct BIO span readers and explains the usual mistakes."""

import pytest

from elmo_tutorial import checks
from elmo_tutorial.tagger import bio_spans


def by_hand(tags):
    spans, start, kind = set(), None, None
    for i, tag in enumerate(list(tags) + ["O"]):
        prefix, _, label = tag.partition("-")
        if start is not None and not (prefix == "I" and label == kind):
            spans.add((kind, start, i))
            start = None
        if prefix == "B" or (prefix == "I" and start is None):
            start, kind = i, label
    return spans


def forgets_the_last_entity(tags):
    return {s for s in bio_spans(tags) if s[2] < len(tags)}


def drops_stray_i_tags(tags):
    return {s for s in bio_spans(tags) if tags[s[1]].startswith("B-")}


def inclusive_ends(tags):
    return {(kind, start, end - 1) for kind, start, end in bio_spans(tags)}


def test_check_accepts_the_package_and_a_hand_written_reader(capsys):
    checks.check_bio_spans(bio_spans)
    checks.check_bio_spans(by_hand)
    assert capsys.readouterr().out.startswith("✓ BIO spans")


@pytest.mark.parametrize("answer,hint", [
    (forgets_the_last_entity, "still open after the last token"),
    (drops_stray_i_tags, "conlleval's rule"),
    (inclusive_ends, "one past the last token"),
    (lambda tags: None, "return a set"),
])
def test_check_rejects_wrong_readers_with_a_hint(answer, hint):
    with pytest.raises(checks.CheckFailed, match=hint):
        checks.check_bio_spans(answer)
