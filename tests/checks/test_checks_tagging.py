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


@pytest.fixture(scope="module")
def probe_data():
    """Two layers of 23 tokens in 6 sentences, their labels, and a sweep over the first 2 and
    3 sentences (8 and 10 tokens)."""
    rng = np.random.default_rng(0)
    lengths = [3, 5, 2, 4, 6, 3]
    labels = rng.integers(0, 3, size=sum(lengths))
    layers = [rng.normal(size=(len(labels), 4)) + labels[:, None] * (j + 1) for j in (0, 1)]
    return layers, labels, lengths, [2, 3]


def _sweep(layers, labels, lengths, sizes, rows_of=None, labels_of=lambda y: y):
    """The exercise's answer; ``rows_of`` and ``labels_of`` make the usual mistakes."""
    rows_of = rows_of or (lambda n: sum(lengths[:n]))
    return {(j, n): probes.fit_probe(layers[j][:rows_of(n)], labels_of(labels[:rows_of(n)]), 3)
            for n in sizes for j in (0, 1)}


@pytest.fixture(scope="module")
def right_sweep(probe_data):
    """The right answer's probes, fitted once; each test edits its own copy of the dict."""
    return _sweep(*probe_data)


def test_probes_on_fewer_sentences_pass_when_every_probe_is_right(probe_data, right_sweep,
                                                                  capsys):
    layers, labels, lengths, sizes = probe_data
    checks.check_probes_on_fewer_sentences(dict(right_sweep), sizes, layers, labels, lengths)
    assert "4 probes, layers 0 and 1 on the first 2, 3 sentences" in capsys.readouterr().out


def test_a_probe_trained_on_shuffled_labels_fails_at_any_point_of_the_sweep(probe_data,
                                                                             right_sweep):
    layers, labels, lengths, sizes = probe_data
    for n in sizes:  # the last point, and one before it
        fitted = dict(right_sweep)
        fitted[1, n] = _sweep(layers, labels, lengths, [n],
                              labels_of=np.random.default_rng(1).permutation)[1, n]
        with pytest.raises(checks.CheckFailed, match=f"fitted\\[1, {n}\\] is not the probe "
                                                     "that fits the tags"):
            checks.check_probes_on_fewer_sentences(fitted, sizes, layers, labels, lengths)


def test_a_probe_of_the_other_layer_fails(probe_data, right_sweep):
    layers, labels, lengths, sizes = probe_data
    fitted = dict(right_sweep)
    fitted[0, 2] = fitted[1, 2]
    with pytest.raises(checks.CheckFailed, match="fitted\\[0, 2\\]'s standardisation"):
        checks.check_probes_on_fewer_sentences(fitted, sizes, layers, labels, lengths)


@pytest.mark.parametrize(("rows_of", "message"), [
    (lambda n: 23, "all the training tokens"),
    (lambda n: 11 if n == 3 else 8, "first half of the \\*tokens\\*"),
    (lambda n: 5 * n, "not that of the first 2 training sentences"),
])
def test_probes_on_fewer_sentences_name_the_wrong_rows(probe_data, rows_of, message):
    layers, labels, lengths, sizes = probe_data
    fitted = _sweep(layers, labels, lengths, sizes, rows_of=rows_of)
    with pytest.raises(checks.CheckFailed, match=message):
        checks.check_probes_on_fewer_sentences(fitted, sizes, layers, labels, lengths)


def test_probes_on_fewer_sentences_want_every_size(probe_data):
    layers, labels, lengths, sizes = probe_data
    fitted = _sweep(layers, labels, lengths, sizes[:1])
    with pytest.raises(checks.CheckFailed, match="no probe for \\(0, 3\\)"):
        checks.check_probes_on_fewer_sentences(fitted, sizes, layers, labels, lengths)
