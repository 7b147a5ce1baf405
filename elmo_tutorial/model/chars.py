"""ELMo character ids: every token becomes 50 integers.

Taught in notebook 02 (``02_tokens_and_characters``).

The encoding is the one bilm-tf and AllenNLP share, so that official weights work unchanged:

1. take the token's UTF-8 bytes (values 0..255) and keep at most ``MAX_WORD_BYTES`` = 48 of them;
2. wrap them as ``[BOW, b1, ..., bn, EOW, PAD, PAD, ...]`` to ``MAX_CHARS`` = 50 positions,
   with the special ids BOS=256, EOS=257, BOW=258, EOW=259, PAD=260;
3. add 1 to every id, so that the id 0 can mark a position that holds no token at all.

The sentence boundaries ``<S>`` and ``</S>`` are one-"character" words made of BOS and EOS.
The character embedding table therefore has 262 rows (0 for padding, 1..261 for the ids above).

Example:
    >>> ids = batch_to_ids([["Hi", "there"], ["Hi"]])
    >>> ids.shape
    torch.Size([2, 2, 50])
    >>> ids[0, 0, :5].tolist()          # BOW, 'H', 'i', EOW, PAD  (each +1)
    [259, 73, 106, 260, 261]
    >>> int(ids[1, 1].abs().sum())      # the second sentence is padded with zeros
    0
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

MAX_CHARS = 50  # ids per token, BOW and EOW included
MAX_WORD_BYTES = MAX_CHARS - 2  # bytes of a token that are kept (48)
BOS_CHAR, EOS_CHAR, BOW_CHAR, EOW_CHAR, PAD_CHAR = 256, 257, 258, 259, 260
N_CHAR_IDS = 262  # rows of the character embedding table: padding + 261 ids

BOS_TOKEN = "<S>"
EOS_TOKEN = "</S>"


def _ids_from_bytes(word_bytes: Sequence[int]) -> list[int]:
    """Wrap at most 48 byte values as [BOW, bytes, EOW, PAD...] and shift by +1."""
    ids = [PAD_CHAR] * MAX_CHARS
    ids[0] = BOW_CHAR
    kept = list(word_bytes[:MAX_WORD_BYTES])
    ids[1 : 1 + len(kept)] = kept
    ids[1 + len(kept)] = EOW_CHAR
    return [i + 1 for i in ids]


BOS_IDS = tuple(_ids_from_bytes([BOS_CHAR]))  # the character ids of <S>
EOS_IDS = tuple(_ids_from_bytes([EOS_CHAR]))  # the character ids of </S>


def word_to_char_ids(word: str) -> list[int]:
    """Return the 50 ELMo character ids of one token.

    ``<S>`` and ``</S>`` map to the boundary ids; any other string to its UTF-8 bytes,
    truncated to 48 bytes (a multi-byte character cut in half keeps its first bytes, exactly
    as the original implementation does).

    Raises:
        TypeError: if ``word`` is not a ``str``.
        ValueError: if ``word`` is the empty string (it would be indistinguishable from a
            word made of nothing, and the original models never saw one).
    """
    if not isinstance(word, str):
        raise TypeError(f"a token must be a str, got {type(word).__name__}: {word!r}")
    if word == "":
        raise ValueError("a token must not be the empty string")
    if word == BOS_TOKEN:
        return list(BOS_IDS)
    if word == EOS_TOKEN:
        return list(EOS_IDS)
    # "ignore" as in bilm-tf and AllenNLP: a lone surrogate (from badly decoded text) is dropped.
    return _ids_from_bytes(word.encode("utf-8", errors="ignore"))


def char_ids_to_word(ids: Sequence[int]) -> str | None:
    """The token that :func:`word_to_char_ids` turned into these 50 ids (the inverse).

    ``None`` for a row of zeros (a position with no token); ``"<S>"``/``"</S>"`` for the
    boundary rows; otherwise the UTF-8 bytes between BOW and EOW, decoded. A word cut at 48
    bytes comes back cut, and a multi-byte character cut in half becomes U+FFFD (�).

    Raises:
        ValueError: for a row that :func:`word_to_char_ids` cannot have produced.
    """
    ids = [int(i) for i in ids]
    if len(ids) != MAX_CHARS:
        raise ValueError(f"a token has {MAX_CHARS} character ids, got {len(ids)}")
    if not any(ids):
        return None
    if tuple(ids) == BOS_IDS:
        return BOS_TOKEN
    if tuple(ids) == EOS_IDS:
        return EOS_TOKEN
    values = [i - 1 for i in ids]  # undo the +1 shift
    if values[0] != BOW_CHAR or EOW_CHAR not in values:
        raise ValueError(f"not the ids of a token: they must start with BOW ({BOW_CHAR + 1}) and "
                         f"hold an EOW ({EOW_CHAR + 1}), got {ids[:6]}...; make them with "
                         "word_to_char_ids")
    body = values[1 : values.index(EOW_CHAR)]
    if any(v > 255 for v in body):
        raise ValueError(f"not the ids of a token: special ids between BOW and EOW in {ids[:8]}...")
    return bytes(body).decode("utf-8", errors="replace")


def batch_to_ids(batch: Sequence[Sequence[str]]) -> torch.Tensor:
    """Convert a batch of tokenized sentences to ELMo character ids.

    Args:
        batch: ``B`` sentences, each a sequence of token strings. Sentences may differ in
            length; shorter ones are padded with all-zero rows. No ``<S>``/``</S>`` is added:
            the model adds the sentence boundaries itself.

    Returns:
        A ``LongTensor`` of shape ``(B, T, 50)`` with ``T`` the longest sentence's length
        (``T`` = 0 when every sentence is empty).

    Raises:
        TypeError: if ``batch`` or a sentence is a plain string (a common slip: pass
            ``[["a", "b"]]``, not ``["a b"]``), or a token is not a ``str``; the message
            names the sentence and token position.
        ValueError: for an empty-string token, with its position.
    """
    if isinstance(batch, str) or not isinstance(batch, Sequence):
        raise TypeError(
            "batch_to_ids expects a list of sentences, each a list of token strings, "
            f"e.g. [['Hello', 'world']]; got {type(batch).__name__}"
        )
    rows: list[list[list[int]]] = []  # per sentence, per token, its 50 ids
    for i, sentence in enumerate(batch):
        if isinstance(sentence, str) or not isinstance(sentence, Sequence):
            raise TypeError(
                f"sentence {i} must be a list of token strings, got "
                f"{type(sentence).__name__} {sentence!r:.60}; tokenize it first, e.g. with "
                "elmo_tutorial.data.tokenize"
            )
        sentence_ids = []
        for j, token in enumerate(sentence):
            try:
                sentence_ids.append(word_to_char_ids(token))
            except (TypeError, ValueError) as error:
                raise type(error)(f"sentence {i}, token {j}: {error}") from None
        rows.append(sentence_ids)
    longest = max((len(r) for r in rows), default=0)
    ids = torch.zeros(len(rows), longest, MAX_CHARS, dtype=torch.long)  # (B, T, 50), 0: padding
    for b, sentence_ids in enumerate(rows):
        if sentence_ids:
            ids[b, : len(sentence_ids)] = torch.tensor(sentence_ids)
    return ids


def ids_to_mask(char_ids: torch.Tensor) -> torch.Tensor:
    """``(B, T, 50)`` character ids → ``(B, T)`` bool mask, True where a token is present."""
    return (char_ids > 0).any(dim=-1)


def check_char_ids(char_ids: torch.Tensor) -> torch.Tensor:
    """Validate character ids where they enter a model; return their ``(B, T)`` mask.

    ``ELMo`` and the language models call this once per call, on the ids they are given; the
    parts inside them (``CharCNN``, the LSTM stacks) take the checked ids as they are.

    Raises:
        TypeError: not a tensor (e.g. a list of tokens), or not integers.
        ValueError: not ``(B, T, 50)``; ids outside ``[0, 262)``; or a padded (all-zero) row
            before a token of the same sentence.

    Example:
        >>> check_char_ids(batch_to_ids([["Hi", "there"], ["Hi"]])).tolist()
        [[True, True], [True, False]]
    """
    if not isinstance(char_ids, torch.Tensor):
        raise TypeError(
            "expected a tensor of character ids; convert tokenized sentences first: "
            "batch_to_ids([['Hello', 'world']])"
        )
    if char_ids.dim() != 3 or char_ids.shape[-1] != MAX_CHARS:
        raise ValueError(
            f"expected character ids of shape (B, T, {MAX_CHARS}), got "
            f"{tuple(char_ids.shape)}; make them with elmo_tutorial.batch_to_ids"
        )
    if char_ids.dtype.is_floating_point or char_ids.dtype == torch.bool:
        raise TypeError(f"character ids must be integers, got {char_ids.dtype}")
    if char_ids.numel() and (char_ids.min() < 0 or char_ids.max() >= N_CHAR_IDS):
        raise ValueError(
            f"character ids must lie in [0, {N_CHAR_IDS}), got {int(char_ids.min())}.."
            f"{int(char_ids.max())}; make them with elmo_tutorial.batch_to_ids"
        )
    mask = ids_to_mask(char_ids)  # (B, T)
    steps = torch.arange(char_ids.shape[1], device=char_ids.device)
    if not torch.equal(mask, steps < mask.sum(dim=1, keepdim=True)):
        raise ValueError(
            "every sentence's tokens must come first in its row, padding (all-zero rows) after; "
            "batch_to_ids produces this layout"
        )
    return mask
