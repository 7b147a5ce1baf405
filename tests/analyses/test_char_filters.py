"""Filter responses: the maxima CharCNN pools, the windows they came from, readable n-grams."""

import pytest
import torch

from elmo_tutorial.analyses.char_filters import filter_responses, window_text
from elmo_tutorial.model.char_cnn import CharCNN
from elmo_tutorial.model.chars import batch_to_ids
from elmo_tutorial.model.config import ModelConfig

CONFIG = ModelConfig(char_embed_dim=4, filters=((1, 2), (3, 4), (4, 3)), n_highway=1,
                     projection_dim=5, activation="relu")


def test_window_text_marks_word_start_end_and_padding():
    assert window_text("bank", 0, 3) == "^ba"
    assert window_text("bank", 3, 3) == "nk$"
    assert window_text("bank", 5, 2) == "$·"
    assert window_text("Zürich", 1, 3) == "Z??"  # ü is two UTF-8 bytes


def test_scores_are_the_features_charcnn_pools_before_the_activation():
    torch.manual_seed(0)
    cnn = CharCNN(CONFIG).eval()
    words = ["bank", "banking", "river", "a", "ELMo-ish"]
    responses = filter_responses(cnn, words, batch_size=2)  # several batches
    ids = batch_to_ids([words])[0]
    with torch.no_grad():
        pooled = cnn.filter_features(ids)  # (N, F) after max-pool and activation
    torch.testing.assert_close(torch.relu(responses.scores), pooled, atol=1e-5, rtol=1e-5)
    assert responses.widths.tolist() == [1, 1, 3, 3, 3, 3, 4, 4, 4]


def test_starts_point_at_the_window_with_the_maximum():
    torch.manual_seed(1)
    cnn = CharCNN(CONFIG).eval()
    responses = filter_responses(cnn, ["unbelievable", "sing"])
    chars = cnn.char_embedding(batch_to_ids([["unbelievable"]])[0]).transpose(1, 2)
    conv = cnn.convs[2]  # width 4: filters 6, 7, 8
    with torch.no_grad():
        scores = conv(chars)[0]  # (3, windows)
    for f in range(3):
        start = int(responses.starts[0, 6 + f])
        assert scores[f, start] == scores[f].max()
        assert len(responses.ngram(0, 6 + f)) == 4


def test_top_words_are_sorted_and_the_favourite_ngram_is_counted():
    torch.manual_seed(2)
    cnn = CharCNN(CONFIG).eval()
    words = ["sing", "ring", "king", "bank", "tank"]
    responses = filter_responses(cnn, words)
    top = responses.top(3, k=5)
    assert [s for _, _, s in top] == sorted((s for _, _, s in top), reverse=True)
    ngram, count = responses.favourite_ngram(3, k=5)
    assert count == sum(1 for _, g, _ in top if g == ngram) and 1 <= count <= 5
    with pytest.raises(ValueError, match="at least one word"):
        filter_responses(cnn, [])
