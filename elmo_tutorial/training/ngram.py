"""A Kneser-Ney trigram baseline for the biLM's perplexities (nltk.lm).

Taught in notebook 06 (``06_bilm_training``).

Interpolated Kneser-Ney n-grams (Kneser & Ney 1995; Chen & Goodman 1998) were the standard
to beat before neural LMs. For a trigram,

    p(w | u, v) = max(c(u v w) − d, 0) / c(u v ·)  +  γ(u v) · p_KN(w | v)

with discount ``d``, the left-over mass ``γ(u v) = d · |{w : c(u v w) > 0}| / c(u v ·)``, and
lower orders that count *continuations* (in how many contexts a word appears) rather than
occurrences: nltk's ``KneserNeyInterpolated``.

The discount is estimated as Chen & Goodman (1998, eq. 26) do, ``d = n1 / (n1 + 2 n2)``
(trigrams seen once and twice); nltk's default, 0.1, is far from it on English (about 0.7)
and makes a much weaker baseline (perplexity 528 instead of 201 on english_mix's valid split).

The same predictions as ``evaluate_perplexity``'s, over the same closed vocabulary (a word
outside it is ``<UNK>``): ``w1 .. wn </S>`` given ``<S>`` forward, ``wn .. w1 <S>`` given
``</S>`` backward (a second model, on reversed sentences). The n-gram sees words, the biLM
characters; the n-gram looks back two words, the biLM at the whole sentence prefix.

Three changes to nltk: the lowest order is interpolated with the uniform distribution (nltk
gives a word never seen in training ``p = 0``: an infinite perplexity); at the middle order
``γ`` counts continuations, as the probabilities it shares out do (nltk's distribution after
``<S>`` sums to ``1 + d/2``, flattering the trigram on every first word); and the continuation
counts are indexed once (``_IndexedKneserNey``), where nltk rescans every higher-order n-gram
on each call (``tests/training/test_ngram.py`` checks the counts are the same).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

__all__ = ["KneserNeyBaseline", "estimated_discount", "ngram_perplexity"]

BOS, EOS, UNK = "<S>", "</S>", "<UNK>"


def _kn_class():
    """nltk's KneserNeyInterpolated whose continuation counts are indexed, not rescanned."""
    from collections import Counter, defaultdict

    from nltk.lm import KneserNeyInterpolated
    from nltk.lm.smoothing import KneserNey

    class _IndexedKneserNey(KneserNey):
        _index = None

        def _continuation_counts(self, word, context=()):
            if self._index is None:  # {context: (Counter word -> #left extensions, total)}
                self._index = {}
                for level in range(2, self._order + 1):
                    per_word, totals = defaultdict(Counter), Counter()
                    for prefix, counts in self.counts[level].items():
                        for w, c in counts.items():
                            if c > 0:
                                per_word[prefix[1:]][w] += 1
                                totals[prefix[1:]] += 1
                    for ctx in totals:
                        self._index[ctx] = (per_word[ctx], totals[ctx])
            per_word, total = self._index.get(tuple(context), (Counter(), 0))
            return per_word[word], total

        def alpha_gamma(self, word, context):
            if len(context) + 1 == self._order:  # the highest order counts occurrences
                return super().alpha_gamma(word, context)
            self._continuation_counts(word, context)  # builds the index on first use
            per_word, total = self._index.get(tuple(context), (Counter(), 0))
            if not total:  # no continuation of this context: all of it to the lower order
                return 0.0, 1.0
            # γ counts the words with a continuation after the context, as the total does
            alpha = max(per_word[word] - self.discount, 0.0) / total
            return alpha, self.discount * len(per_word) / total

        def unigram_score(self, word):  # interpolated with the uniform distribution
            count, total = self._continuation_counts(word)
            types = len(self._index[()][0])
            spread = self.discount * types / len(self.vocab)  # the uniform share
            return (max(count - self.discount, 0.0) + spread) / total

    class IndexedKneserNeyInterpolated(KneserNeyInterpolated):
        def __init__(self, order, discount=0.1, **kwargs):
            super().__init__(order, discount=discount, **kwargs)
            self.estimator = _IndexedKneserNey(self.vocab, self.counts, order=order,
                                               discount=discount)

    return IndexedKneserNeyInterpolated


class KneserNeyBaseline:
    """Forward and backward interpolated Kneser-Ney n-gram LMs over a fixed vocabulary.

    Args:
        order: the n of the n-grams (3 = trigram).
        discount: Kneser-Ney's absolute discount ``d``; ``None`` estimates it from each
            direction's training counts (:func:`estimated_discount`), and ``discounts`` then
            says what it was.
        indexed: index the continuation counts (much faster) and share out ``γ`` by
            continuations (``False``: plain nltk, whose ``γ`` sums to more than 1 after ``<S>``).

    Example:
        >>> from elmo_tutorial.model.vocab import Vocabulary
        >>> train = [["the", "cat", "sat"], ["the", "dog", "sat"]]
        >>> kn = KneserNeyBaseline().fit(train, Vocabulary.from_sentences(train))
        >>> round(kn.perplexity([["the", "cat", "sat"]])["fwd_ppl"], 2) < 10
        True
    """

    def __init__(self, order: int = 3, discount: float | None = None,
                 indexed: bool = True) -> None:
        if discount is not None and not 0 < discount < 1:
            raise ValueError(f"discount={discount}: Kneser-Ney's discount lies between 0 and 1 "
                             "(or give None to estimate it from the training counts)")
        self.order, self.discount, self.indexed = order, discount, indexed
        self.models: dict = {}
        self.discounts: dict[str, float] = {}  # per direction, as fitted

    def _padded(self, sentence: Sequence[str], direction: str) -> list[str]:
        words = [w if w in self.known else UNK for w in sentence]
        if direction == "backward":
            return [EOS] * (self.order - 1) + words[::-1] + [BOS]
        return [BOS] * (self.order - 1) + words + [EOS]

    def fit(self, sentences: Sequence[Sequence[str]], vocab) -> KneserNeyBaseline:
        """Count n-grams of ``sentences`` in both directions; words outside ``vocab`` → <UNK>."""
        from nltk.lm import KneserNeyInterpolated
        from nltk.lm import Vocabulary as NltkVocabulary
        from nltk.util import everygrams

        kn_class = _kn_class() if self.indexed else KneserNeyInterpolated
        self.known = set(vocab.words if hasattr(vocab, "words") else vocab)
        for direction in ("forward", "backward"):
            padded = [self._padded(s, direction) for s in sentences]
            discount = self.discount or estimated_discount(padded, self.order)
            self.discounts[direction] = discount
            lm = kn_class(self.order, discount=discount,
                          vocabulary=NltkVocabulary(sorted(self.known), unk_cutoff=1,
                                                    unk_label=UNK))
            lm.fit(everygrams(p, max_len=self.order) for p in padded)
            self.models[direction] = lm
        return self

    def nll(self, sentences: Sequence[Sequence[str]], direction: str = "forward"):
        """Total NLL (nats) and number of predicted words of ``sentences`` in one direction."""
        lm, total, n = self.models[direction], 0.0, 0
        k = self.order - 1
        for sentence in sentences:
            padded = self._padded(sentence, direction)
            for i in range(k, len(padded)):  # predict every word after the padding
                p = lm.score(padded[i], padded[i - k:i])
                total += -math.log(p) if p > 0 else math.inf
                n += 1
        return total, n

    def perplexity(self, sentences: Sequence[Sequence[str]]) -> dict:
        """``fwd_ppl``, ``bwd_ppl``, ``avg_ppl`` (geometric mean) and ``n_tokens``."""
        (f, n), (b, _) = self.nll(sentences, "forward"), self.nll(sentences, "backward")
        if not n:  # "1.00" would read as a perfect model
            raise ValueError("no sentence to score: a perplexity needs text; is the held-out "
                             "split empty?")
        f, b = f / n, b / n
        return {"fwd_ppl": math.exp(f), "bwd_ppl": math.exp(b),
                "avg_ppl": math.exp((f + b) / 2), "n_tokens": n}


def estimated_discount(padded: Sequence[Sequence[str]], order: int = 3) -> float:
    """Ney's estimate of the discount, ``n1 / (n1 + 2 n2)``, from the ``order``-grams of
    ``padded`` sentences (``n1``, ``n2``: the numbers of n-grams seen once and twice).

    Text in which no n-gram is seen once gives no estimate; 0.75, the usual value, is
    returned then (a discount of 0 would leave no probability for anything unseen).

    >>> round(estimated_discount([["a", "b", "c"], ["a", "b", "c"], ["a", "b", "d"]]), 3)
    0.333
    """
    counts = Counter(tuple(s[i:i + order]) for s in padded
                     for i in range(len(s) - order + 1))
    seen = Counter(counts.values())
    n1, n2 = seen[1], seen[2]
    return n1 / (n1 + 2 * n2) if n1 else 0.75


def ngram_perplexity(train: Sequence[Sequence[str]], test: Sequence[Sequence[str]], vocab,
                     order: int = 3, max_train_sentences: int | None = 50_000) -> dict:
    """Fit a Kneser-Ney baseline on ``train`` and return its perplexities on ``test``."""
    train = list(train)[:max_train_sentences] if max_train_sentences else list(train)
    return KneserNeyBaseline(order).fit(train, vocab).perplexity(test)
