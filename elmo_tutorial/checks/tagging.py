"""Self-check for notebook 10 (tagging): reading entities off BIO tags, as WNUT-17 scores them."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..tagger import bio_spans
from ._core import CheckFailed, passed

__all__ = ["check_bio_spans"]

# Each case names what it tests; the hints below say what a wrong answer usually missed.
_CASES: list[tuple[str, list[str]]] = [
    ("one entity of two tokens", ["O", "B-person", "I-person", "O"]),
    ("an entity that ends the sentence", ["O", "B-location", "I-location"]),
    ("two entities side by side", ["B-group", "B-group", "I-group"]),
    ("an I- tag after O starts an entity", ["O", "I-product", "I-product", "O"]),
    ("an I- tag of another type starts an entity", ["B-person", "I-location", "O"]),
    ("no entity at all", ["O", "O", "O"]),
    ("a one-token sentence", ["B-corporation"]),
    ("an empty sentence", []),
]


def _hint(name: str) -> str:
    if "ends the sentence" in name or "one-token" in name:
        return "An entity still open after the last token must be closed and kept."
    if "side by side" in name:
        return "A B- tag always starts a new entity, even right after one of the same type."
    if "I- tag after O" in name or "another type" in name:
        return ("Read an I-X that does not continue an entity of type X as the start of one "
                "(conlleval's rule), rather than dropping it.")
    return "Entities are (type, start, end) with `end` one past the last token."


def check_bio_spans(fn: Callable[[Sequence[str]], set]) -> None:
    """``fn(tags)`` must return the set of ``(type, start, end)`` entities of a BIO sequence.

    ``end`` is exclusive. Compared with :func:`elmo_tutorial.tagger.bio_spans` on entities at
    the edges of a sentence, adjacent entities, ill-formed ``I-`` tags and empty sentences.
    """
    for name, tags in _CASES:
        expected = bio_spans(tags)
        got = fn(list(tags))
        if not isinstance(got, set | frozenset | list | tuple):
            raise CheckFailed(f"{name}: got {type(got).__name__}; return a set of "
                              "(type, start, end) tuples.")
        got = {tuple(span) for span in got}
        if got != expected:
            raise CheckFailed(f"{name}: tags {tags} gave {sorted(got)}, expected "
                              f"{sorted(expected)}. {_hint(name)}")
    passed(f"BIO spans: {len(_CASES)} cases agree with tagger.bio_spans (edges, adjacent "
           "entities, ill-formed I- tags)")
