"""Vocabulary: bilm-tf layout (specials first, by frequency), file round trip, clear errors."""

import pytest

from elmo_tutorial.model.vocab import Vocabulary

SENTENCES = [["the", "cat", "sat"], ["the", "dog", "sat"], ["a", "cat", "the"]]
# counts: the 3, cat 2, sat 2, a 1, dog 1


def test_specials_come_first_then_descending_frequency_with_alphabetical_ties():
    vocab = Vocabulary.from_sentences(SENTENCES)
    assert vocab.words == ["<S>", "</S>", "<UNK>", "the", "cat", "sat", "a", "dog"]
    assert (vocab.bos_id, vocab.eos_id, vocab.unk_id) == (0, 1, 2)
    assert vocab.index("<S>") == 0 and vocab.index("</S>") == 1 and vocab.index("<UNK>") == 2


def test_min_count_and_max_size_limit_the_vocabulary():
    assert Vocabulary.from_sentences(SENTENCES, min_count=2).words[3:] == ["the", "cat", "sat"]
    small = Vocabulary.from_sentences(SENTENCES, max_size=5)
    assert small.words == ["<S>", "</S>", "<UNK>", "the", "cat"]
    with pytest.raises(ValueError, match="max_size"):
        Vocabulary.from_sentences(SENTENCES, max_size=2)


def test_special_tokens_in_the_text_are_not_counted_twice():
    vocab = Vocabulary.from_sentences([["<S>", "x", "</S>", "<UNK>"]])
    assert vocab.words == ["<S>", "</S>", "<UNK>", "x"]


def test_unknown_words_map_to_unk_and_encode_decode_round_trip():
    vocab = Vocabulary.from_sentences(SENTENCES)
    assert "cat" in vocab and "bird" not in vocab
    assert vocab.encode(["the", "bird", "dog"]) == [3, 2, 7]
    assert vocab.decode(vocab.encode(["a", "cat"])) == ["a", "cat"]
    assert vocab.word(4) == "cat"
    with pytest.raises(IndexError):
        vocab.word(len(vocab))


def test_save_writes_one_word_per_line_and_load_round_trips(tmp_path):
    vocab = Vocabulary.from_sentences([*SENTENCES, ["café", "日本"]])
    path = tmp_path / "vocab.txt"
    vocab.save(path)
    assert path.read_text(encoding="utf-8").split("\n")[:4] == ["<S>", "</S>", "<UNK>", "the"]
    loaded = Vocabulary.load(path)
    assert loaded == vocab and loaded.words == vocab.words and len(loaded) == len(vocab)


def test_load_accepts_a_bilm_tf_file_with_windows_line_endings(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_bytes(b"<S>\r\n</S>\r\n<UNK>\r\nthe\r\n")
    assert Vocabulary.load(path).words == ["<S>", "</S>", "<UNK>", "the"]


def test_loading_a_file_without_the_specials_says_what_is_missing(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("the\ncat\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"must start with \['<S>', '</S>', '<UNK>'\]"):
        Vocabulary.load(path)


def test_duplicate_words_are_an_error(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("<S>\n</S>\n<UNK>\nthe\ncat\nthe\n", encoding="utf-8")
    with pytest.raises(ValueError, match="duplicate word 'the' at ids 3 and 5"):
        Vocabulary.load(path)


def test_empty_line_in_the_middle_of_a_file_is_an_error(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("<S>\n</S>\n<UNK>\n\nthe\n", encoding="utf-8")
    with pytest.raises(ValueError, match="line 4"):
        Vocabulary.load(path)


def test_words_with_whitespace_are_rejected():
    with pytest.raises(ValueError, match="without whitespace"):
        Vocabulary(["<S>", "</S>", "<UNK>", "new york"])


def test_untokenized_sentence_is_a_type_error():
    with pytest.raises(TypeError, match="tokenized"):
        Vocabulary.from_sentences(["the cat sat"])
