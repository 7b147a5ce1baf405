"""ELMo character ids against vectors derived by hand from the encoding's definition.

Reminder of the definition: [BOW, UTF-8 bytes (at most 48), EOW, PAD, ...] to 50 entries,
BOS=256, EOS=257, BOW=258, EOW=259, PAD=260, then +1 everywhere. So after the shift:
BOW=259, EOW=260, PAD=261, BOS=257, EOS=258, and a byte b becomes b + 1.
"""

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from elmo_tutorial.model.chars import (
    BOS_IDS,
    EOS_IDS,
    N_CHAR_IDS,
    batch_to_ids,
    char_ids_to_word,
    check_char_ids,
    ids_to_mask,
    word_to_char_ids,
)

PAD = 261

# <S>: BOW, BOS, EOW, then 47 PAD.
BOS_BY_HAND = [259, 257, 260] + [PAD] * 47
# </S>: BOW, EOS, EOW, then 47 PAD.
EOS_BY_HAND = [259, 258, 260] + [PAD] * 47
# "Hi": 'H' = 0x48 = 72 → 73, 'i' = 0x69 = 105 → 106.
HI_BY_HAND = [259, 73, 106, 260] + [PAD] * 46
# "café": c=0x63, a=0x61, f=0x66, é=U+00E9 = UTF-8 C3 A9 (195, 169); each +1.
CAFE_BY_HAND = [259, 100, 98, 103, 196, 170, 260] + [PAD] * 43
# "日本": 日 = U+65E5 = E6 97 A5 (230, 151, 165); 本 = U+672C = E6 9C AC (230, 156, 172); +1.
NIHON_BY_HAND = [259, 231, 152, 166, 231, 157, 173, 260] + [PAD] * 42
# "y" * 60: 'y' = 0x79 = 121 → 122; only 48 bytes fit, then EOW and no PAD left.
LONG_BY_HAND = [259] + [122] * 48 + [260]
# "a" + "é" * 30 (61 bytes): 'a' then 23 whole é (46 bytes) then the first byte of the 24th.
CUT_BY_HAND = [259, 98] + [196, 170] * 23 + [196] + [260]


@pytest.mark.parametrize(
    "word, expected",
    [
        ("<S>", BOS_BY_HAND),
        ("</S>", EOS_BY_HAND),
        ("Hi", HI_BY_HAND),
        ("café", CAFE_BY_HAND),
        ("日本", NIHON_BY_HAND),
        ("y" * 60, LONG_BY_HAND),
        ("a" + "é" * 30, CUT_BY_HAND),
    ],
    ids=["bos", "eos", "ascii", "two_byte_utf8", "three_byte_utf8", "truncated", "cut_mid_char"],
)
def test_word_to_char_ids_matches_hand_derived_vector(word, expected):
    assert len(expected) == 50  # the fixture itself is well formed
    assert word_to_char_ids(word) == expected


def test_lone_surrogates_are_dropped_as_in_bilm_tf_and_allennlp():
    # Both encode with errors="ignore": "a\udc80b" keeps only 'a' (97) and 'b' (98), each +1.
    assert word_to_char_ids("a\udc80b") == [259, 98, 99, 260] + [PAD] * 46


def test_boundary_constants_match_hand_derived_vectors():
    assert list(BOS_IDS) == BOS_BY_HAND
    assert list(EOS_IDS) == EOS_BY_HAND


def test_batch_to_ids_pads_short_sentences_with_all_zero_rows():
    ids = batch_to_ids([["Hi", "café"], ["日本"]])
    assert ids.dtype == torch.long
    assert ids.shape == (2, 2, 50)
    assert ids[0, 0].tolist() == HI_BY_HAND
    assert ids[0, 1].tolist() == CAFE_BY_HAND
    assert ids[1, 0].tolist() == NIHON_BY_HAND
    assert ids[1, 1].tolist() == [0] * 50
    assert ids_to_mask(ids).tolist() == [[True, True], [True, False]]


def test_batch_to_ids_of_empty_sentences_has_zero_length():
    assert batch_to_ids([[], []]).shape == (2, 0, 50)
    assert batch_to_ids([]).shape == (0, 0, 50)


def test_non_string_token_raises_type_error_naming_its_position():
    with pytest.raises(TypeError, match=r"sentence 1, token 2"):
        batch_to_ids([["a"], ["b", "c", 3]])


def test_sentence_given_as_string_raises_type_error():
    with pytest.raises(TypeError, match="sentence 0"):
        batch_to_ids(["not tokenized"])


def test_empty_string_token_raises_value_error_naming_its_position():
    with pytest.raises(ValueError, match=r"sentence 0, token 1"):
        batch_to_ids([["a", ""]])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.text(min_size=1), max_size=4), min_size=1, max_size=3))
def test_batch_to_ids_never_crashes_on_unicode_and_is_well_formed(batch):
    ids = batch_to_ids(batch)
    longest = max(len(s) for s in batch)
    assert ids.shape == (len(batch), longest, 50)
    assert bool(((ids >= 0) & (ids < N_CHAR_IDS)).all())
    for i, sentence in enumerate(batch):
        for j, token in enumerate(sentence):
            row = ids[i, j].tolist()
            n_bytes = min(len(token.encode("utf-8", errors="ignore")), 48)
            if token not in ("<S>", "</S>"):
                assert row[0] == 259 and row[n_bytes + 1] == 260
                assert row[n_bytes + 2 :] == [PAD] * (48 - n_bytes)
        assert int(ids[i, len(sentence) :].abs().sum()) == 0  # padding rows


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(min_size=1), min_size=1, max_size=5))
def test_batch_to_ids_is_deterministic(sentence):
    assert torch.equal(batch_to_ids([sentence]), batch_to_ids([list(sentence)]))


@pytest.mark.parametrize(
    ("bad", "error", "message"),
    [
        (["not", "tokenized"], TypeError, "batch_to_ids"),
        (torch.zeros(2, 3, dtype=torch.long), ValueError, r"shape \(B, T, 50\)"),
        (torch.zeros(1, 2, 50), TypeError, "integers"),
        (torch.full((1, 2, 50), N_CHAR_IDS), ValueError, r"\[0, 262\)"),
        (torch.full((1, 2, 50), -1), ValueError, r"\[0, 262\)"),
        (torch.cat([torch.zeros(1, 1, 50), batch_to_ids([["a"]])], 1).long(), ValueError, "first"),
    ],
    ids=["list", "shape", "float", "too-large", "negative", "left-padding"],
)
def test_check_char_ids_names_each_problem(bad, error, message):
    with pytest.raises(error, match=message):
        check_char_ids(bad)


def test_check_char_ids_returns_the_mask_of_valid_ids():
    ids = batch_to_ids([["a", "b", "c"], ["d"], []])
    assert torch.equal(check_char_ids(ids), ids_to_mask(ids))
    assert check_char_ids(torch.zeros(0, 0, 50, dtype=torch.long)).shape == (0, 0)


@pytest.mark.parametrize("word, expected", [
    ("Hi", "Hi"), ("café", "café"), ("日本", "日本"), ("<S>", "<S>"), ("</S>", "</S>"),
    ("a" * 60, "a" * 48),  # cut at 48 bytes
    ("x" + "é" * 30, "x" + "é" * 23 + "\ufffd"),  # 1 + 23 × 2 bytes, then half an é
])
def test_char_ids_to_word_inverts_word_to_char_ids(word, expected):
    assert char_ids_to_word(word_to_char_ids(word)) == expected
    assert char_ids_to_word(torch.tensor(word_to_char_ids(word))) == expected


def test_char_ids_to_word_of_a_padding_row_is_none():
    assert char_ids_to_word(batch_to_ids([["Hi", "there"], ["Hi"]])[1, 1]) is None


@pytest.mark.parametrize("ids, message", [
    ([1] * 49, "50 character ids"),
    ([73, 106, 260] + [261] * 47, "must start with BOW"),
    ([259, 100, 261, 260] + [261] * 46, "special ids between BOW and EOW"),  # PAD inside
])
def test_char_ids_to_word_rejects_rows_word_to_char_ids_cannot_make(ids, message):
    with pytest.raises(ValueError, match=message):
        char_ids_to_word(ids)


def test_batch_to_ids_equals_the_ids_of_each_token_padded_with_zero_rows():
    sentences = [["a", "bb", "a"], ["ccc"], [], ["bb", "é"]]
    ids = batch_to_ids(sentences)
    assert ids.shape == (4, 3, 50) and ids.dtype == torch.long
    for b, sentence in enumerate(sentences):
        expected = torch.tensor([word_to_char_ids(token) for token in sentence]).view(-1, 50)
        assert torch.equal(ids[b, : len(sentence)], expected)
        assert not ids[b, len(sentence):].any()


def test_a_bad_token_names_its_sentence_and_position():
    with pytest.raises(TypeError, match="sentence 1, token 2"):
        batch_to_ids([["fresh1"], ["fresh2", "fresh3", 7]])
    with pytest.raises(ValueError, match="sentence 0, token 1"):
        batch_to_ids([["fresh1", ""]])
