"""Entities of BIO-tagged sentences and their entity-level scores (NER, chunking).

As in WNUT-17 and CoNLL's ``conlleval``, an entity is right only if its span and its type match
a gold entity: a half-found "Empire State" of "Empire State Building" is one false positive *and*
one miss. Notebook 10's tagger and notebook 12's task models (chunks too) score this way.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["bio_spans", "entity_scores"]


def bio_spans(tags: Sequence[str]) -> set[tuple[str, int, int]]:
    """The entities of one BIO-tagged sentence, as ``(type, start, end)`` with ``end`` exclusive.

    An entity starts at ``B-X``, or at an ``I-X`` that does not continue an entity of type
    ``X`` (``conlleval``'s reading of an ill-formed sequence, e.g. ``O I-X``); it goes on
    while ``I-X`` follows.

    >>> sorted(bio_spans(["B-person", "I-person", "O", "I-location", "B-location"]))
    [('location', 3, 4), ('location', 4, 5), ('person', 0, 2)]
    """
    spans, start, kind = set(), None, None
    for i, tag in enumerate([*tags, "O"]):  # a final "O" closes the last entity
        prefix, _, label = tag.partition("-")
        if tag != "O" and (prefix not in ("B", "I") or not label):
            raise ValueError(f"tag {tag!r} at position {i} is not BIO: expected 'O', "
                             "'B-<type>' or 'I-<type>'")
        continues = start is not None and prefix == "I" and label == kind
        if start is not None and not continues:
            spans.add((kind, start, i))
            start = None
        if prefix == "B" or (prefix == "I" and not continues):
            start, kind = i, label
    return spans


def entity_scores(gold: Sequence[Sequence[str]], predicted: Sequence[Sequence[str]]
                  ) -> dict[str, float]:
    """Entity-level precision, recall and F1 (percent) over a corpus; exact span and type.

    ``{"precision", "recall", "f1", "correct", "gold", "predicted"}`` (the last three: counts);
    a score whose denominator is zero is 0.
    """
    if len(gold) != len(predicted):
        raise ValueError(f"{len(gold)} gold sentences but {len(predicted)} predicted ones")
    correct = n_gold = n_predicted = 0
    for i, (g, p) in enumerate(zip(gold, predicted, strict=True)):
        if len(g) != len(p):
            raise ValueError(f"sentence {i}: {len(g)} gold tags but {len(p)} predicted ones")
        g_spans, p_spans = bio_spans(g), bio_spans(p)
        correct += len(g_spans & p_spans)
        n_gold, n_predicted = n_gold + len(g_spans), n_predicted + len(p_spans)
    precision = 100.0 * correct / n_predicted if n_predicted else 0.0
    recall = 100.0 * correct / n_gold if n_gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1, "correct": correct,
            "gold": n_gold, "predicted": n_predicted}
