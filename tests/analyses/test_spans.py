"""BIO spans and entity-level scores, on hand-computed cases (conlleval's reading)."""

import pytest

from elmo_tutorial.analyses.spans import bio_spans, entity_scores


@pytest.mark.parametrize("tags, spans", [
    (["B-person", "I-person", "O", "B-location", "B-location", "I-location", "O"],
     {("person", 0, 2), ("location", 3, 4), ("location", 4, 6)}),  # ends are exclusive
    (["O", "O"], set()),
    ([], set()),
    (["O", "B-group", "I-group"], {("group", 1, 3)}),  # closed at the end of the sentence
    # an I- after O, or after an entity of another type, starts a new entity
    (["O", "I-product", "I-product"], {("product", 1, 3)}),
    (["B-person", "I-location"], {("person", 0, 1), ("location", 1, 2)}),
])
def test_bio_spans_reads_entities_as_conlleval_does(tags, spans):
    assert bio_spans(tags) == spans


@pytest.mark.parametrize("tags, message", [(["O", "S-person"], "'S-person' at position 1"),
                                           (["B-"], "'B-' at position 0")])
def test_bio_spans_rejects_tags_that_are_not_bio(tags, message):
    with pytest.raises(ValueError, match=f"{message} is not BIO"):
        bio_spans(tags)


@pytest.mark.parametrize("gold, predicted, counts, prf", [
    # "Empire State" of "Empire State Building": one false positive and one miss
    ([["B-location", "I-location", "I-location", "O", "B-person"]],
     [["B-location", "I-location", "O", "O", "B-person"]], (1, 2, 2), (50.0, 50.0, 50.0)),
    ([["B-person", "I-person"]], [["B-group", "I-group"]], (0, 1, 1), (0.0, 0.0, 0.0)),  # type
    # gold: person(0,1) group(2,4) product(1,2); predicted: person(0,1) group(2,3)
    # corporation(0,1) product(1,2): 2 right of 4 predicted and 3 gold
    ([["B-person", "O", "B-group", "I-group"], ["O", "B-product"]],
     [["B-person", "O", "B-group", "O"], ["B-corporation", "B-product"]], (2, 3, 4),
     (50.0, 200 / 3, 2 * 50 * (200 / 3) / (50 + 200 / 3))),
    ([["O", "O"]], [["O", "O"]], (0, 0, 0), (0.0, 0.0, 0.0)),  # zero, not NaN
])
def test_entity_scores_by_hand(gold, predicted, counts, prf):
    scores = entity_scores(gold, predicted)
    assert (scores["correct"], scores["gold"], scores["predicted"]) == counts
    assert (scores["precision"], scores["recall"], scores["f1"]) == pytest.approx(prf)


def test_entity_scores_refuse_mismatched_lengths():
    with pytest.raises(ValueError, match="sentence 0: 2 gold tags but 1 predicted"):
        entity_scores([["O", "O"]], [["O"]])
    with pytest.raises(ValueError, match="1 gold sentences but 0 predicted"):
        entity_scores([["O"]], [])
