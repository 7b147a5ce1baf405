"""Language-model batches: character ids in, next/previous word ids out.

Taught in notebook 02 (``02_tokens_and_characters``).

A sentence ``w1 .. wn`` becomes ``<S> w1 .. wn </S>`` (Peters et al. 2018, Sec. 3.1). Both LMs
read the same character ids; they differ only in what each position must predict:

    position t      0      1      ...    n      n+1
    input           <S>    w1     ...    wn     </S>
    forward target  w1     w2     ...    </S>   -100      (the word at t+1)
    backward target -100   <S>    ...    w(n-1) wn        (the word at t-1)

``-100`` (:data:`~elmo_tutorial.model.softmax.IGNORE_INDEX`) is PyTorch's default ``ignore_index``
for :func:`torch.nn.functional.cross_entropy`, so padding and the two positions with nothing to
predict never reach the loss (see :func:`~elmo_tutorial.model.softmax.masked_nll`).

Two ways to batch a corpus:

* :func:`make_lm_batch` + :func:`bucket_batches`: whole sentences, padded to the longest one in
  the batch; bucketing by length keeps the padding small.
* :class:`StreamBatcher`: bilm-tf's scheme for truncated back-propagation through time. The
  shuffled sentences are laid end to end in ``B`` parallel streams and cut into windows of
  ``num_steps`` tokens; row ``b`` of window ``k + 1`` continues row ``b`` of window ``k``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, fields

import torch

from elmo_tutorial.model.chars import (
    BOS_TOKEN,
    EOS_TOKEN,
    MAX_CHARS,
    batch_to_ids,
    word_to_char_ids,
)
from elmo_tutorial.model.softmax import IGNORE_INDEX
from elmo_tutorial.model.vocab import Vocabulary

__all__ = ["LMBatch", "StreamBatcher", "bucket_batches", "make_lm_batch"]


@dataclass
class LMBatch:
    """One batch for the bidirectional LM.

    Shape:
        - char_ids: ``(B, T, 50)`` long, 0 at padded positions.
        - word_ids: ``(B, T)`` long, the vocabulary id of each input token (0 at padding;
          use ``mask`` to tell padding from ``<S>``).
        - mask: ``(B, T)`` bool, True where a token is present.
        - forward_targets, backward_targets: ``(B, T)`` long, -100 where there is no target.
    """

    char_ids: torch.Tensor
    word_ids: torch.Tensor
    mask: torch.Tensor
    forward_targets: torch.Tensor
    backward_targets: torch.Tensor

    def to(self, device: torch.device | str) -> LMBatch:
        """A copy with every tensor on ``device``."""
        return LMBatch(**{f.name: getattr(self, f.name).to(device) for f in fields(self)})



def _check_sentences(sentences: Sequence[Sequence[str]]) -> None:
    if isinstance(sentences, str) or not isinstance(sentences, Sequence):
        raise TypeError("expected a list of tokenized sentences, e.g. [['Hello', 'world']]")
    for i, sentence in enumerate(sentences):
        if isinstance(sentence, str) or not isinstance(sentence, Sequence):
            raise TypeError(
                f"sentence {i} must be a list of token strings, got {type(sentence).__name__}; "
                "tokenize it first, e.g. with elmo_tutorial.data.tokenize.tokenize"
            )


def make_lm_batch(sentences: Sequence[Sequence[str]], vocab: Vocabulary) -> LMBatch:
    """Pad ``B`` sentences into one :class:`LMBatch`, adding ``<S>`` and ``</S>`` to each.

    Args:
        sentences: tokenized sentences without boundary tokens (empty sentences are allowed:
            they become ``<S> </S>``).
        vocab: gives the target word ids; unknown words become ``<UNK>``.

    Returns:
        An :class:`LMBatch` with ``T = 2 + max(len(s) for s in sentences)``.
    """
    _check_sentences(sentences)
    if len(sentences) == 0:
        raise ValueError("make_lm_batch needs at least one sentence")
    wrapped = [[BOS_TOKEN, *s, EOS_TOKEN] for s in sentences]
    char_ids = batch_to_ids(wrapped)  # (B, T, 50)
    B, T = char_ids.shape[:2]
    encoded = [vocab.encode(tokens) for tokens in wrapped]
    pad, ignore = [0] * T, [IGNORE_INDEX] * T  # one tensor per field, built from lists
    word_ids = torch.tensor([ids + pad[len(ids):] for ids in encoded], dtype=torch.long)
    mask = torch.tensor([[True] * len(ids) + [False] * (T - len(ids)) for ids in encoded])
    # position t predicts the word at t + 1 (forward), at t - 1 (backward)
    forward = torch.tensor([ids[1:] + ignore[len(ids) - 1:] for ids in encoded],
                           dtype=torch.long)
    backward = torch.tensor([[IGNORE_INDEX] + ids[:-1] + ignore[len(ids):] for ids in encoded],
                            dtype=torch.long)
    return LMBatch(char_ids, word_ids, mask.view(B, T), forward.view(B, T),
                   backward.view(B, T))


def bucket_batches(
    lengths: Sequence[int],
    batch_size: int | None = None,
    max_tokens: int | None = None,
    shuffle: bool = True,
    seed: int = 0,
) -> list[list[int]]:
    """Group sentence indices into batches of similar length (less padding, same results).

    Sentences are sorted by length (ties broken at random when ``shuffle``), cut into batches
    of ``batch_size`` sentences, or of at most ``max_tokens`` *padded* tokens
    (``len(batch) * longest <= max_tokens``; a sentence longer than that gets a batch of its
    own), and the batch order is shuffled. Every index appears exactly once; the result
    depends only on the arguments.

    Args:
        lengths: the length of each sentence (count ``<S>``/``</S>`` if the batch will).
        batch_size, max_tokens: exactly one of the two.
        shuffle: shuffle ties and the batch order with ``random.Random(seed)``.

    Returns:
        A list of batches, each a list of indices into ``lengths``.
    """
    if (batch_size is None) == (max_tokens is None):
        raise ValueError("pass exactly one of batch_size (sentences) or max_tokens (tokens)")
    size = batch_size if batch_size is not None else max_tokens
    if size < 1:
        raise ValueError(f"batch_size / max_tokens must be positive, got {size}")
    rng = random.Random(seed)
    tie_break = [rng.random() for _ in lengths] if shuffle else list(range(len(lengths)))
    order = sorted(range(len(lengths)), key=lambda i: (lengths[i], tie_break[i]))
    batches: list[list[int]] = []
    if batch_size is not None:
        batches = [order[i : i + batch_size] for i in range(0, len(order), batch_size)]
    else:
        current: list[int] = []
        for i in order:  # ascending length, so lengths[i] is the batch's new longest
            if current and (len(current) + 1) * lengths[i] > max_tokens:
                batches.append(current)
                current = []
            current.append(i)
        if current:
            batches.append(current)
    if shuffle:
        rng.shuffle(batches)
    return batches


class StreamBatcher:
    """Windows of ``num_steps`` tokens from ``B`` parallel sentence streams (truncated BPTT).

    Each epoch the sentences are shuffled (seeded by ``seed`` and the epoch), wrapped as
    ``<S> w1 .. wn </S>`` and laid end to end into one token stream, which is split into
    ``B`` contiguous parts of equal length (the last part padded). Window ``k`` holds tokens
    ``k*num_steps .. (k+1)*num_steps - 1`` of every part, so an LSTM state carried from one
    window to the next sees its row's text continue.

    Targets are those of :func:`make_lm_batch` computed on the whole stream: the forward
    target of a window's last position is the first word of the next window, the backward
    target of its first position is the last word of the previous window. Targets never cross
    a sentence boundary (``</S>`` has no forward target, ``<S>`` no backward target), so the
    loss is the same as with sentence batches. (A stateless model sees only the window's own
    context; bilm-tf carries the LSTM states from window to window, and reads the backward
    LM's text from separately reversed streams.)

    Args:
        sentences: tokenized sentences without boundary tokens.
        vocab: for the target ids.
        batch_size: the number ``B`` of parallel streams.
        num_steps: window length (bilm-tf's ``unroll_steps``); the last window may be shorter.
        shuffle: shuffle the sentence order each epoch (see :meth:`set_epoch`).
        seed: seed of the shuffle.

    Example::

        batcher = StreamBatcher(sentences, vocab, batch_size=2, num_steps=20)
        for epoch in range(3):
            batcher.set_epoch(epoch)  # a new sentence order each epoch
            for batch in batcher:  # LMBatch, char_ids (2, <=20, 50)
                ...
    """

    def __init__(self, sentences: Sequence[Sequence[str]], vocab: Vocabulary, batch_size: int,
                 num_steps: int, shuffle: bool = True, seed: int = 0) -> None:
        _check_sentences(sentences)
        if batch_size < 1 or num_steps < 1:
            raise ValueError(
                f"batch_size and num_steps must be >= 1, got {batch_size} and {num_steps}"
            )
        if len(sentences) == 0:
            raise ValueError("StreamBatcher needs at least one sentence")
        self.batch_size, self.num_steps = batch_size, num_steps
        self.shuffle, self.seed, self.epoch = shuffle, seed, 0
        # Each distinct token's character ids are computed once; row 0 stays all zero (padding).
        types = sorted({t for s in sentences for t in s} | {BOS_TOKEN, EOS_TOKEN})
        type_index = {t: i + 1 for i, t in enumerate(types)}
        self._char_table = torch.zeros(len(types) + 1, MAX_CHARS, dtype=torch.long)  # (U+1, 50)
        for t, i in type_index.items():
            self._char_table[i] = torch.tensor(word_to_char_ids(t))
        self._sentences = [[type_index[t] for t in s] for s in sentences]
        self._words = {i: vocab.index(t) for t, i in type_index.items()}  # type → word id
        self._word_table = torch.tensor([0] + [self._words[i] for i in range(1, len(types) + 1)])
        self._bos, self._eos = type_index[BOS_TOKEN], type_index[EOS_TOKEN]
        self._stream_len = math.ceil(sum(len(s) + 2 for s in sentences) / batch_size)

    def set_epoch(self, epoch: int) -> None:
        """Choose the epoch whose sentence order the next iteration uses."""
        self.epoch = epoch

    def __len__(self) -> int:
        return math.ceil(self._stream_len / self.num_steps)

    def _streams(self) -> tuple[torch.Tensor, ...]:
        """Token-type ids, forward and backward targets of the B streams, each (B, L)."""
        order = list(range(len(self._sentences)))
        if self.shuffle:
            random.Random(f"{self.seed}-{self.epoch}").shuffle(order)
        types, forward, backward = [], [], []
        for i in order:
            tokens = [self._bos, *self._sentences[i], self._eos]
            ids = [self._words[t] for t in tokens]
            types += tokens
            forward += ids[1:] + [IGNORE_INDEX]
            backward += [IGNORE_INDEX] + ids[:-1]
        B, L = self.batch_size, self._stream_len
        pad = B * L - len(types)

        def to_streams(values: list[int], fill: int) -> torch.Tensor:
            return torch.tensor(values + [fill] * pad, dtype=torch.long).view(B, L)  # (B, L)

        return (to_streams(types, 0), to_streams(forward, IGNORE_INDEX),
                to_streams(backward, IGNORE_INDEX))

    def __iter__(self) -> Iterator[LMBatch]:
        types, forward, backward = self._streams()  # each (B, L)
        for start in range(0, self._stream_len, self.num_steps):
            window = slice(start, start + self.num_steps)
            t = types[:, window]  # (B, num_steps)
            yield LMBatch(
                char_ids=self._char_table[t],  # (B, num_steps, 50)
                word_ids=self._word_table[t],
                mask=t > 0,
                forward_targets=forward[:, window].clone(),
                backward_targets=backward[:, window].clone(),
            )
