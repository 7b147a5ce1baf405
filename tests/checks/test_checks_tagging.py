"""Notebook 10's self-checks accept right answers (BIO span readers, a probe on half the data)
and explain the usual mistakes."""

import numpy as np
import pytest
from _check_helpers import own_copy

from elmo_tutorial import checks
from elmo_tutorial.analyses import probes
from elmo_tutorial.analyses.tagger import bio_spans

my_bio_spans = own_copy(bio_spans)  # the package's code; its function, the check refuses


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
    return {s for s in my_bio_spans(tags) if s[2] < len(tags)}


def drops_stray_i_tags(tags):
    return {s for s in my_bio_spans(tags) if tags[s[1]].startswith("B-")}


def inclusive_ends(tags):
    return {(kind, start, end - 1) for kind, start, end in my_bio_spans(tags)}


def test_check_accepts_hand_written_readers_and_refuses_the_package_function(capsys):
    checks.check_bio_spans(my_bio_spans)
    checks.check_bio_spans(by_hand)
    assert capsys.readouterr().out.startswith("✓ BIO spans")
    with pytest.raises(checks.Delegated, match="spans.bio_spans"):
        checks.check_bio_spans(bio_spans)
    with pytest.raises(checks.Delegated, match="spans.bio_spans"):
        checks.check_bio_spans(lambda tags: set(bio_spans(tags)))


@pytest.mark.parametrize("answer,hint", [
    (forgets_the_last_entity, "still open after the last token"),
    (drops_stray_i_tags, "conlleval's rule"),
    (inclusive_ends, "one past the last token"),
    (lambda tags: None, "return a set"),
])
def test_check_rejects_wrong_readers_with_a_hint(answer, hint):
    with pytest.raises(checks.CheckFailed, match=hint):
        checks.check_bio_spans(answer)


def _probe_data():
    rng = np.random.default_rng(0)
    lengths = [3, 5, 2, 4, 6, 3]  # 23 tokens; the first 3 sentences hold 10
    n = sum(lengths)
    labels = rng.integers(0, 3, size=n)
    features = rng.normal(size=(n, 4)) + labels[:, None]
    test_labels = rng.integers(0, 3, size=12)
    test = rng.normal(size=(12, 4)) + test_labels[:, None]
    return features, labels, lengths, test, test_labels


def test_half_data_probe_passes_the_first_half_of_the_sentences(capsys):
    features, labels, lengths, test, test_labels = _probe_data()
    probe = probes.fit_probe(features[:10], labels[:10], 3)
    checks.check_half_data_probe(probe, probes.accuracy(probe, test, test_labels), features,
                                 lengths, test, test_labels)
    assert "10 tokens" in capsys.readouterr().out


@pytest.mark.parametrize(("rows", "message"), [
    (slice(None), "all the training tokens"),
    (slice(0, 11), "first half of the \\*tokens\\*"),
    (slice(10, None), "not that of the first half"),
])
def test_half_data_probe_names_the_wrong_rows(rows, message):
    features, labels, lengths, test, test_labels = _probe_data()
    probe = probes.fit_probe(features[rows], labels[rows], 3)
    with pytest.raises(checks.CheckFailed, match=message):
        checks.check_half_data_probe(probe, probes.accuracy(probe, test, test_labels), features,
                                     lengths, test, test_labels)


def test_half_data_probe_wants_the_test_accuracy():
    features, labels, lengths, test, test_labels = _probe_data()
    probe = probes.fit_probe(features[:10], labels[:10], 3)
    on_training_rows = probes.accuracy(probe, features[:10], labels[:10])
    with pytest.raises(checks.CheckFailed, match="on the test tokens"):
        checks.check_half_data_probe(probe, on_training_rows + 0.5, features, lengths, test,
                                     test_labels)
