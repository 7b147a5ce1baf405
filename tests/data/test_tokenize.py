"""Tokenizer: rule-based sentences, Treebank words with plain quotes, no downloaded model."""

import os

import nltk
import pytest

from elmo_tutorial.data.tokenize import split_sentences, tokenize, tokenize_words


@pytest.mark.parametrize(
    "text, expected",
    [
        ("It rained. We stayed in.", ["It rained.", "We stayed in."]),
        ("Really? Yes! Fine.", ["Really?", "Yes!", "Fine."]),
        ("Mr. Smith met Dr. Jones.", ["Mr. Smith met Dr. Jones."]),
        ("The U.S. Army came, e.g. Col. Lee. He won.", ["The U.S. Army came, e.g. Col. Lee.",
                                                       "He won."]),
        ('He said "Stop." Then he left.', ['He said "Stop."', "Then he left."]),
        ('It ended. "Why?" she asked.', ["It ended.", '"Why?" she asked.']),
        ("It cost 3.5 dollars. 12 people paid.", ["It cost 3.5 dollars.", "12 people paid."]),
        ("I said no. No one listened.", ["I said no.", "No one listened."]),
        ("Wait... then go. Done.", ["Wait... then go.", "Done."]),
        ("A title\n\nThe text\nwraps here.", ["A title", "The text wraps here."]),
        ("", []),
        ("   \n\n ", []),
    ],
)
def test_split_sentences(text, expected):
    assert split_sentences(text) == expected


def test_tokenize_words_splits_treebank_style_and_keeps_plain_quotes():
    assert tokenize_words('She said "I can\'t (now)."') == [
        "She", "said", '"', "I", "ca", "n't", "(", "now", ")", ".", '"']
    assert tokenize_words("It's Smith's car, isn't it?") == [
        "It", "'s", "Smith", "'s", "car", ",", "is", "n't", "it", "?"]
    assert tokenize_words("  ") == []


def test_tokenize_returns_a_token_list_per_sentence_without_latex_quotes():
    sentences = tokenize('Mr. Lee said "hi." Then he left!\n\n')
    assert sentences == [["Mr.", "Lee", "said", '"', "hi", ".", '"'],
                         ["Then", "he", "left", "!"]]


def test_tokenizer_needs_no_nltk_data(monkeypatch):
    def no_data(*args, **kwargs):
        raise LookupError("no nltk data in this test")

    monkeypatch.setattr(nltk.data, "find", no_data)
    monkeypatch.setattr(nltk.data, "load", no_data)
    assert tokenize("One. Two.") == [["One", "."], ["Two", "."]]


def test_tokenize_a_real_inaugural_address():
    if not os.environ.get("NLTK_DATA"):
        pytest.skip("NLTK_DATA is not set: it should point at a folder with corpora/inaugural")
    from nltk.corpus import inaugural

    try:
        raw = inaugural.raw("1789-Washington.txt")
    except LookupError:
        pytest.skip("the nltk 'inaugural' corpus is not in NLTK_DATA")
    sentences = tokenize(raw)
    n_words = sum(len(s) for s in sentences)
    assert 20 < len(sentences) < 60 and n_words > 1000
    assert all("``" not in s and "''" not in s for s in sentences)
    assert all(s[-1] in {".", "!", "?", ":", '"'} for s in sentences[1:])
