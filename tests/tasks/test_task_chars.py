"""The taggers' character features x_k = [w_k; c_k]: ids, shapes, masking, what they add, and
that the sentence classifier still reads word vectors only."""

import pytest
import torch

from elmo_tutorial.model.chars import word_to_char_ids
from elmo_tutorial.tasks.model import TaskModel, encode_chars, pad_chars
from elmo_tutorial.tasks.training import TaskSplit, encode_words, evaluate, train_task_model

V, D, L, F = 12, 6, 3, 7


def _tagger(elmo_at=(), char_filters=F, task="tag"):
    torch.manual_seed(0)
    return TaskModel(torch.randn(V, D), n_classes=4, task=task, elmo_layers=L, elmo_dim=8,
                     elmo_at=elmo_at, hidden_size=5, char_filters=char_filters).eval()


def _inputs():
    sentences = [["The", "Cat", "sat", "down"], ["a", "Dog"]]
    words = torch.tensor([[3, 4, 5, 6], [7, 8, 0, 0]])
    mask = torch.tensor([[1, 1, 1, 1], [1, 1, 0, 0]]).bool()
    return words, mask, torch.randn(2, 4, L, 8), pad_chars(encode_chars(sentences))


def test_character_ids_keep_the_case_and_end_where_the_token_ends():
    (ids,) = encode_chars([["Cat", "a"]])
    assert ids.dtype == torch.int16 and ids.shape == (2, 5)  # BOW C a t EOW
    assert ids[0].tolist() == word_to_char_ids("Cat")[:5]
    assert ids[1, 3:].tolist() == [0, 0]  # BOW a EOW, then "no character"
    assert encode_chars([["Cat"]])[0].tolist() != encode_chars([["cat"]])[0].tolist()


@pytest.mark.parametrize("elmo_at", [(), ("input",), ("input", "output")])
def test_shapes_and_widths_with_character_features(elmo_at):
    words, mask, layers, chars = _inputs()
    model = _tagger(elmo_at)
    assert chars.shape == (2, 4, 6)  # "down": BOW d o w n EOW
    assert model(words, mask, layers, chars).shape == (2, 4, 4)
    assert model.lstm.input_size == D + F + (8 if "input" in elmo_at else 0)  # [w; c; ELMo]
    assert model.chars(chars).shape == (2, 4, F)


def test_padded_positions_and_padded_characters_change_nothing():
    words, mask, layers, chars = _inputs()
    model = _tagger(("input", "output"))
    junk = chars.clone()
    junk[~mask] = 42  # characters at padded positions must not reach a real output
    torch.testing.assert_close(model(words, mask, layers, chars)[mask],
                               model(words, mask, layers, junk)[mask])
    wider = torch.nn.functional.pad(chars, (0, 9))  # more "no character" columns
    torch.testing.assert_close(model.chars(wider), model.chars(chars))
    assert model.chars(chars)[~mask].abs().sum() == 0  # a padded position has no c_k
    # A token's c_k depends on its characters only, not on the longest token of its batch.
    alone = model.chars(pad_chars(encode_chars([["Dog"]])))[0, 0]
    torch.testing.assert_close(model.chars(chars)[1, 1], alone)


def test_a_tagger_that_reads_characters_needs_them():
    words, mask, layers, _ = _inputs()
    with pytest.raises(ValueError, match="pass chars"):
        _tagger()(words, mask, layers)


def test_the_classifier_reads_word_vectors_only():
    plain = _tagger(char_filters=0, task="classify")
    assert plain.chars is None and plain.lstm.input_size == D
    assert not any(name.startswith("chars.") for name in plain.state_dict())
    words, mask, layers, chars = _inputs()
    torch.testing.assert_close(plain(words, mask, layers, chars), plain(words, mask, layers))


def _capitals_split(n, seed, vocabulary):
    """Random lower-case words, each capitalised with probability 1/2; the tag says which.

    Lower-cased word ids are the same for "Cat" and "cat", so without characters the tag is
    independent of everything the tagger sees."""
    g = torch.Generator().manual_seed(seed)
    sentences, tags = [], []
    for _ in range(n):
        picks = torch.randint(len(vocabulary), (6,), generator=g).tolist()
        upper = torch.rand(6, generator=g) < 0.5
        sentences.append([vocabulary[i].capitalize() if u else vocabulary[i]
                          for i, u in zip(picks, upper.tolist(), strict=True)])
        tags.append(upper.long())
    index = {w: i + 1 for i, w in enumerate(vocabulary)}
    return TaskSplit(encode_words(sentences, index), None, tags, ["O", "B-CAP"],
                     encode_chars(sentences))


def test_characters_learn_a_capitalisation_task_that_lower_cased_vectors_cannot(one_thread):
    vocabulary = ["cat", "dog", "sun", "tree", "road", "bird", "lamp", "fish", "rock", "cup"]
    train, valid = _capitals_split(150, 0, vocabulary), _capitals_split(80, 1, vocabulary)
    scores = {}
    for char_filters in (0, 8):
        torch.manual_seed(0)
        model = TaskModel(torch.randn(len(vocabulary) + 1, 4), 2, "tag", hidden_size=8,
                          dropout=0.0, char_filters=char_filters)
        train_task_model(model, train, valid, max_epochs=6, patience=6, hard_cap=6, lr=2e-2)
        scores[char_filters] = evaluate(model, valid)
    # Blind to case, the best a tagger can do is to tag every token: F1 = 2p / (1 + p) ≈ 67.
    assert scores[0] < 75, scores
    assert scores[8] > 95, scores
