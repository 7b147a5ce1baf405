r"""Sampling sentences from a trained language model, left to right or right to left.

Taught in notebook 06 (``06_bilm_training``).

A language model gives a distribution over the next word; drawing from it word by word
generates text (Peters et al. 2018 do not generate, but the biLM is two such models). The
forward LM extends a prefix to the right until it draws ``</S>``; the backward LM extends a
suffix to the left until it draws ``<S>``, so it builds sentences that *end* with what it is
given. A **temperature** ``τ`` reshapes each distribution before the draw,

.. math::
    p_\tau(w) \propto p(w)^{1/\tau} = \mathrm{softmax}(z / \tau)_w ,

so that ``τ < 1`` sharpens it (``τ → 0``: always the most likely word), ``τ = 1`` samples the
model as it is, and ``τ > 1`` flattens it towards a uniform choice.

The LSTM stacks are stateless, so each step re-reads the whole sequence so far: quadratic in the
sentence length, which costs nothing at the length of a sentence and keeps one code path.
``<UNK>`` is never drawn (it is not a word one can read back as characters), nor the boundary
the direction starts from (``<S>`` going forward, ``</S>`` going backward).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from elmo_tutorial.model.chars import BOS_TOKEN, EOS_TOKEN, batch_to_ids
from elmo_tutorial.model.lm import _LanguageModel
from elmo_tutorial.model.vocab import UNK_TOKEN, Vocabulary

__all__ = ["Sample", "sample_sentences"]


@dataclass
class Sample:
    """One generated sentence.

    Attributes:
        tokens: the sentence in reading order, the given words included: ``prefix .. </S>``
            going forward, ``<S> .. suffix`` going backward (the boundary only if it was drawn).
        log_prob: the model's own log-probability (at ``τ = 1``) of the drawn words, the
            boundary included, given the prefix or suffix: how likely the model finds them.
        n_drawn: how many words were drawn (``log_prob / n_drawn`` is the mean per word).
        finished: the boundary was drawn before ``max_len`` words.
    """

    tokens: list[str]
    log_prob: float
    n_drawn: int
    finished: bool

    @property
    def mean_log_prob(self) -> float:
        """``log_prob`` per drawn word."""
        return self.log_prob / max(self.n_drawn, 1)


def _check_request(model, vocab, given, direction, temperature, n, max_len, allow_unknown):
    if direction not in ("forward", "backward"):
        raise ValueError(f"direction must be 'forward' or 'backward', got {direction!r}")
    if direction not in model.directions or model.softmax is None:
        raise ValueError(
            f"this {type(model).__name__} cannot generate {direction}: it needs a "
            f"{direction} LSTM stack and a softmax (a biLM loaded with its vocabulary)"
        )
    if model.softmax.vocab_size != len(vocab):
        raise ValueError(f"the vocabulary has {len(vocab)} words, the model's softmax "
                         f"{model.softmax.vocab_size}: pass the vocabulary the model was "
                         "trained on")
    if not (isinstance(temperature, int | float) and math.isfinite(temperature)
            and temperature > 0):
        raise ValueError(f"temperature must be a number > 0, got {temperature!r}; use a small "
                         "one such as 0.01 for (almost) always the most likely word")
    if n < 1 or max_len < 1:
        raise ValueError(f"n and max_len must be at least 1, got n={n}, max_len={max_len}")
    if isinstance(given, str):
        raise TypeError(f"the {'prefix' if direction == 'forward' else 'suffix'} must be a list "
                        f"of tokens, not a str: write {given.split()!r} instead of {given!r}")
    given = list(given)
    bad = [t for t in given if not isinstance(t, str) or t in ("", BOS_TOKEN, EOS_TOKEN)]
    if bad:
        raise ValueError(f"the given words must be non-empty tokens without <S>/</S> (the "
                         f"sampler adds the boundary itself); got {bad!r}")
    unknown = [t for t in given if t not in vocab]
    if unknown and not allow_unknown:
        raise ValueError(
            f"{unknown!r} not in the model's vocabulary (mind the capitals: the corpus is "
            "cased). The LM never saw these words; pass allow_unknown=True to condition on "
            "them anyway (the character CNN reads any word)"
        )


@torch.no_grad()
def sample_sentences(
    model: _LanguageModel,
    vocab: Vocabulary,
    n: int = 5,
    direction: str = "forward",
    given: Sequence[str] = (),
    temperature: float = 1.0,
    max_len: int = 40,
    seed: int = 0,
    allow_unknown: bool = False,
) -> list[Sample]:
    """Draw ``n`` sentences from one direction of a trained LM.

    Args:
        model: a ``BidirectionalLM`` (or ``ForwardLM``/``BackwardLM``) with its softmax; it is
            run in eval mode (no dropout) and left in the mode it was in.
        vocab: the vocabulary of its softmax.
        n: how many sentences, drawn side by side in one batch.
        direction: ``"forward"`` continues ``given`` to the right until ``</S>``;
            ``"backward"`` continues it to the left until ``<S>``.
        given: the prefix (forward) or suffix (backward), in reading order; ``()`` for none.
        temperature: ``τ > 0``; logits are divided by it before each draw.
        max_len: at most this many words are drawn per sentence.
        seed: seeds the draws (same seed, same model, same machine: same sentences).
        allow_unknown: accept given words that are not in ``vocab``.

    Returns:
        ``n`` :class:`Sample`, in reading order.

    Raises:
        ValueError / TypeError: for a temperature ≤ 0, a str instead of a token list, unknown
            or boundary tokens in ``given``, or a model without that direction or a softmax.
    """
    _check_request(model, vocab, given, direction, temperature, n, max_len, allow_unknown)
    given = list(given)
    forward = direction == "forward"
    device = model.softmax.weight.device
    start, stop = (BOS_TOKEN, EOS_TOKEN) if forward else (EOS_TOKEN, BOS_TOKEN)
    # The words in the order the direction reads them: <S> and the prefix going forward,
    # </S> and the suffix from its end going backward. New words go at the end.
    read = [start, *given] if forward else [start, *reversed(given)]
    banned = torch.tensor([vocab.index(UNK_TOKEN), vocab.index(start)], device=device)
    generator = torch.Generator(device=device).manual_seed(seed)
    stack = getattr(model, f"{direction}_lstm")
    was_training = model.training
    model.eval()
    try:
        word_emb = model.char_cnn(batch_to_ids([read]).to(device)).expand(n, -1, -1)  # (n, T, P)
        drawn: list[list[int]] = [[] for _ in range(n)]
        log_prob = torch.zeros(n, device=device)
        done = torch.zeros(n, dtype=torch.bool, device=device)
        for _ in range(max_len):
            x = word_emb if forward else word_emb.flip(1)  # (n, T, P) in sentence order
            mask = torch.ones(x.shape[:2], dtype=torch.bool, device=device)
            top = stack(x, mask)[-1]  # (n, T, P)
            state = top[:, -1] if forward else top[:, 0]  # has read everything so far
            logits = torch.nn.functional.linear(state, model.softmax.weight, model.softmax.bias)
            logits[:, banned] = float("-inf")
            choice = torch.multinomial(torch.softmax(logits / temperature, dim=-1), 1,
                                       generator=generator).squeeze(1)  # (n,)
            step_log_prob = torch.log_softmax(logits, dim=-1).gather(1, choice[:, None])[:, 0]
            log_prob += torch.where(done, 0.0, step_log_prob)
            words = [vocab.word(int(i)) for i in choice]
            for row, (word, finished) in enumerate(zip(words, done.tolist(), strict=True)):
                if not finished:
                    drawn[row].append(word)
            done |= choice == vocab.index(stop)
            if bool(done.all()):
                break
            # A finished row keeps reading its last word; what it draws then is dropped.
            new = model.char_cnn(batch_to_ids([[w] for w in words]).to(device))  # (n, 1, P)
            word_emb = torch.cat([word_emb, new], dim=1)
    finally:
        model.train(was_training)
    samples = []
    for row, words in enumerate(drawn):
        tokens = [*given, *words] if forward else [*reversed(words), *given]
        samples.append(Sample(tokens, float(log_prob[row]), len(words),
                              bool(words) and words[-1] == stop))
    return samples
