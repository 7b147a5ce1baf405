"""Self-checks for notebook 02 (tokens and characters): character ids back to words, LM targets."""

from __future__ import annotations

from collections.abc import Callable

import torch

from elmo_tutorial.checks._core import (
    CheckFailed,
    assert_close,
    check,
    forbidding,
    nothing_returned,
    passed,
)
from elmo_tutorial.model.chars import (
    BOS_TOKEN,
    EOS_TOKEN,
    MAX_CHARS,
    char_ids_to_word,
    word_to_char_ids,
)

__all__ = ["check_char_ids_to_word", "check_lm_targets"]

# Plain ASCII, the two boundaries, two-byte and three-byte UTF-8, a 4-byte emoji, a word that
# is cut at 48 bytes, and one that is cut in the middle of a multi-byte character.
_WORDS = ["Hi", "the", "<S>", "</S>", "café", "日本", "naïve🙂", "a" * 60,
          "x" + "é" * 30, "<S>x", "S", "0"]


def _decode_hint(ids: list[int], got, expected) -> str:
    if expected is None:
        return ("A row of zeros is a position with no token (batch padding): return None, "
                "not a string.")
    if expected in (BOS_TOKEN, EOS_TOKEN):
        return (f"This row is the boundary token {expected!r}: BOW, then BOS (257) or EOS "
                "(258), then EOW, after the +1 shift. Return the string '<S>' or '</S>'.")
    if isinstance(got, str) and len(got) == len(expected) and all(
            ord(g) == ord(e) + 1 for g, e in zip(got, expected, strict=True)):
        return "Every character is one too far: subtract 1 from every id first."
    if isinstance(got, str) and not expected.isascii() and got != expected:
        return ("Decode the bytes together, bytes(values).decode('utf-8', errors='replace'): one "
                "character can take 2 to 4 bytes, so chr() of each byte gives mojibake.")
    return ("Subtract 1 from every id, keep the values between BOW (258) and the first EOW "
            "(259), and decode them as UTF-8 bytes.")


@check
def check_char_ids_to_word(fn: Callable[[list[int]], str | None]) -> None:
    """``fn(ids)`` gets one row of 50 character ids and must return the token it encodes:
    ``None`` for a row of zeros, ``'<S>'``/``'</S>'`` for the boundaries, else the decoded
    UTF-8 bytes (a character cut in half at 48 bytes becomes U+FFFD). Compared with
    :func:`elmo_tutorial.model.chars.char_ids_to_word`, which ``fn`` cannot call."""
    rows = [word_to_char_ids(word) for word in _WORDS] + [[0] * MAX_CHARS]
    for ids in rows:
        expected = char_ids_to_word(ids)
        try:
            with forbidding(fn, char_ids_to_word, instead=(
                    "undo the +1 shift and decode the bytes between BOW and EOW yourself")):
                got = fn(list(ids))
        except (IndexError, ValueError, UnicodeDecodeError) as error:
            raise CheckFailed(
                f"your function raised {type(error).__name__}: {error} on the ids "
                f"{ids[:8]}... (the token {expected!r}). {_decode_hint(ids, None, expected)}"
            ) from None
        if got != expected:
            raise CheckFailed(f"ids {ids[:8]}...: got {got!r}, expected {expected!r}. "
                              f"{_decode_hint(ids, got, expected)}")
    passed(f"char ids back to words: {len(rows)} rows (ASCII, multi-byte UTF-8, <S>/</S>, "
           "cut at 48 bytes, a padding row)")


# Padded batches whose targets are known (make_lm_batch's): lengths vary, so padding sits at
# the end of the shorter rows, and one sentence is a single word (<S> w </S>).
_TARGET_BATCHES = ([["We", "the", "people", "."], ["Hi", "!"]],
                   [["a"], ["b", "c", "d", "e", "f"], ["g", "h"]],
                   [["x", "y", "z"]])


@check
def check_lm_targets(fn: Callable[[torch.Tensor, torch.Tensor],
                                  tuple[torch.Tensor, torch.Tensor]]) -> None:
    """``fn(word_ids, mask)`` gets a padded batch of ``<S> w1 .. wn </S>`` sentences, word ids
    ``(B, T)`` and the mask of its real positions ``(B, T)``, and must return the
    (forward targets, backward targets), each ``(B, T)``, with -100 wherever there is nothing
    to predict: the forward LM at ``</S>``, the backward LM at ``<S>``, and every padded
    position. Compared with :func:`~elmo_tutorial.model.batching.make_lm_batch`'s targets,
    which ``fn`` cannot call."""
    from elmo_tutorial.model import batching
    from elmo_tutorial.model.vocab import Vocabulary

    for sentences in _TARGET_BATCHES:
        vocab = Vocabulary.from_sentences(sentences)
        batch = batching.make_lm_batch(sentences, vocab)
        with forbidding(fn, (batching, "make_lm_batch"), instead=(
                "shift the word ids yourself and put -100 where the mask says there is no "
                "word to predict")):
            got = fn(batch.word_ids.clone(), batch.mask.clone())
        nothing_returned(got, "your function", "the pair (forward targets, backward targets)")
        if not isinstance(got, tuple | list) or len(got) != 2:
            raise CheckFailed(f"got {type(got).__name__}: return two (B, T) tensors, "
                              "(forward targets, backward targets).")
        lengths = batch.mask.sum(1).tolist()
        for name, mine, expected, hint in (
            ("forward", got[0], batch.forward_targets,
             "the forward LM at position t predicts the word at t+1; where position t+1 is "
             "padding (so at </S>) there is nothing to predict: -100."),
            ("backward", got[1], batch.backward_targets,
             "the backward LM at position t predicts the word at t-1; at <S> (t = 0) and at "
             "every padded position there is nothing to predict: -100."),
        ):
            assert_close(mine, expected, f"{name} targets for sentences of {lengths} positions",
                         atol=0, hint=hint)
    passed("forward and backward LM targets of padded batches are right, -100 wherever there "
           "is nothing to predict")
