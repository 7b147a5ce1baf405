"""LM batches: targets written out by hand, padding kept out of the loss, buckets, streams."""

import random
from collections import Counter

import pytest
import torch
import torch.nn.functional as F

from elmo_tutorial.model.batching import StreamBatcher, bucket_batches, make_lm_batch
from elmo_tutorial.model.chars import batch_to_ids
from elmo_tutorial.model.softmax import IGNORE_INDEX, masked_nll
from elmo_tutorial.model.vocab import Vocabulary

X = IGNORE_INDEX
SENTENCES = [["the", "cat", "sat"], ["a", "dog"]]
# ids: <S> 0, </S> 1, <UNK> 2, then all counts are 1 → alphabetical: a 3, cat 4, dog 5, sat 6, the 7
VOCAB = Vocabulary.from_sentences(SENTENCES)


def test_two_sentence_batch_targets_written_out_by_hand():
    batch = make_lm_batch(SENTENCES, VOCAB)
    #                     <S> the cat sat </S>      <S>  a  dog </S> pad
    assert batch.word_ids.tolist() == [[0, 7, 4, 6, 1], [0, 3, 5, 1, 0]]
    assert batch.mask.tolist() == [[True] * 5, [True] * 4 + [False]]
    assert batch.forward_targets.tolist() == [[7, 4, 6, 1, X], [3, 5, 1, X, X]]
    assert batch.backward_targets.tolist() == [[X, 0, 7, 4, 6], [X, 0, 3, 5, X]]
    assert int((batch.forward_targets != X).sum()) == int((batch.backward_targets != X).sum()) == 7


def test_lm_batch_char_ids_are_those_of_the_sentences_with_boundaries():
    batch = make_lm_batch(SENTENCES, VOCAB)
    expected = batch_to_ids([["<S>", "the", "cat", "sat", "</S>"], ["<S>", "a", "dog", "</S>"]])
    assert torch.equal(batch.char_ids, expected)


def test_unknown_words_become_unk_targets_and_empty_sentences_are_allowed():
    batch = make_lm_batch([["zebra"], []], VOCAB)
    assert batch.forward_targets.tolist() == [[2, 1, X], [1, X, X]]
    assert batch.backward_targets.tolist() == [[X, 0, 2], [X, 0, X]]


def test_untokenized_input_is_a_type_error():
    with pytest.raises(TypeError, match="sentence 0"):
        make_lm_batch(["the cat"], VOCAB)


def test_padding_and_untargeted_positions_never_reach_the_loss():
    torch.manual_seed(0)
    batch = make_lm_batch(SENTENCES, VOCAB)
    logits = torch.randn(2, 5, len(VOCAB))
    for targets in (batch.forward_targets, batch.backward_targets):
        loss = masked_nll(logits, targets)
        changed = logits.clone()
        changed[targets == X] = torch.randn_like(changed[targets == X]) * 100
        assert torch.allclose(masked_nll(changed, targets), loss)
        # The same as the loss over each unpadded sentence on its own, pooled over tokens.
        total, count = 0.0, 0
        for b, length in enumerate(batch.mask.sum(1).tolist()):
            keep = targets[b, :length] != X
            t = targets[b, :length][keep]
            total += F.cross_entropy(logits[b, :length][keep], t, reduction="sum")
            count += len(t)
        assert torch.allclose(loss, total / count)


def _check_partition(batches, n):
    flat = [i for b in batches for i in b]
    assert sorted(flat) == list(range(n)), "every sentence exactly once"


@pytest.mark.parametrize("shuffle", [False, True])
@pytest.mark.parametrize("kwargs", [{"batch_size": 4}, {"max_tokens": 40}])
def test_bucketing_covers_every_sentence_once_and_groups_similar_lengths(shuffle, kwargs):
    lengths = [random.Random(i).randint(1, 30) for i in range(101)]
    batches = bucket_batches(lengths, shuffle=shuffle, seed=3, **kwargs)
    _check_partition(batches, len(lengths))
    ranges = sorted((min(lengths[i] for i in b), max(lengths[i] for i in b)) for b in batches)
    for (_, high), (low, _) in zip(ranges, ranges[1:], strict=False):
        assert high <= low, "batches are contiguous runs of the sorted lengths"
    if "max_tokens" in kwargs:
        for b in batches:
            assert len(b) == 1 or len(b) * max(lengths[i] for i in b) <= kwargs["max_tokens"]
    else:
        assert all(len(b) == 4 for b in batches[:-1] if not shuffle)


def test_bucketing_is_deterministic_given_the_seed():
    lengths = [random.Random(i).randint(1, 10) for i in range(50)]
    assert bucket_batches(lengths, 5, seed=1) == bucket_batches(lengths, 5, seed=1)
    assert bucket_batches(lengths, 5, seed=1) != bucket_batches(lengths, 5, seed=2)


def test_bucketing_needs_exactly_one_size():
    with pytest.raises(ValueError, match="exactly one"):
        bucket_batches([1, 2], batch_size=2, max_tokens=10)


def test_stream_windows_and_targets_across_window_edges_written_out_by_hand():
    vocab = Vocabulary(["<S>", "</S>", "<UNK>", "a", "b", "c", "d"])
    batcher = StreamBatcher([["a", "b", "c"], ["d"]], vocab, 1, 2, shuffle=False)
    # stream: <S> a b c </S> <S> d </S>  → windows of 2
    windows = list(batcher)
    assert len(windows) == len(batcher) == 4
    assert [w.word_ids.tolist() for w in windows] == [[[0, 3]], [[4, 5]], [[1, 0]], [[6, 1]]]
    assert [w.forward_targets.tolist() for w in windows] == [
        [[3, 4]], [[5, 1]], [[X, 6]], [[1, X]]]
    assert [w.backward_targets.tolist() for w in windows] == [
        [[X, 0]], [[3, 4]], [[5, X]], [[0, 6]]]
    tokens = [["<S>", "a"], ["b", "c"], ["</S>", "<S>"], ["d", "</S>"]]
    for window, expected in zip(windows, tokens, strict=True):
        assert torch.equal(window.char_ids, batch_to_ids([expected]))


def test_parallel_streams_hold_every_sentence_once_and_pad_only_the_end():
    sentences = [[f"w{i}"] * (1 + i % 4) for i in range(23)]
    vocab = Vocabulary.from_sentences(sentences)
    batcher = StreamBatcher(sentences, vocab, batch_size=3, num_steps=5, seed=7)
    windows = list(batcher)
    ids = torch.cat([w.word_ids for w in windows], dim=1)  # (B, L): row b is stream b
    mask = torch.cat([w.mask for w in windows], dim=1)
    flat = ids.reshape(-1)[mask.reshape(-1)].tolist()
    assert mask.reshape(-1).tolist() == sorted(mask.reshape(-1).tolist(), reverse=True)
    # Cut the concatenated streams back into sentences at <S> (0) ... </S> (1).
    found, current = [], None
    for i in flat:
        if i == 0:
            current = []
        elif i == 1:
            found.append(tuple(vocab.decode(current)))
        else:
            current.append(i)
    assert Counter(found) == Counter(tuple(s) for s in sentences)
    # Targets over the whole stream, window edges and stream edges included: next/previous
    # word, except after </S> (1) and before <S> (0).
    real = mask.reshape(-1)
    forward = torch.cat([w.forward_targets for w in windows], dim=1).reshape(-1)[real]
    backward = torch.cat([w.backward_targets for w in windows], dim=1).reshape(-1)[real]
    following, preceding = flat[1:] + [X], [X] + flat[:-1]
    assert forward.tolist() == [X if w == 1 else n for w, n in zip(flat, following, strict=True)]
    assert backward.tolist() == [X if w == 0 else p for w, p in zip(flat, preceding, strict=True)]
    assert (torch.cat([w.forward_targets for w in windows], dim=1)[~mask] == X).all()


def test_stream_order_depends_on_seed_and_epoch_only():
    sentences = [[str(i)] for i in range(40)]
    vocab = Vocabulary.from_sentences(sentences)

    def first_window(epoch, seed=0):
        batcher = StreamBatcher(sentences, vocab, batch_size=2, num_steps=6, seed=seed)
        batcher.set_epoch(epoch)
        return next(iter(batcher)).word_ids.tolist()

    assert first_window(0) == first_window(0)
    assert first_window(0) != first_window(1)
    assert first_window(0) != first_window(0, seed=1)
