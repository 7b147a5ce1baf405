"""A Kneser-Ney trigram baseline for the biLM's perplexities (nltk.lm).

Taught in notebook 06 (``06_bilm_training``).

Before neural LMs, interpolated Kneser-Ney n-grams (Kneser & Ney 1995; Chen & Goodman 1998)
were the standard to beat. For a trigram,

    p(w | u, v) = max(c(u v w) − d, 0) / c(u v ·)  +  γ(u v) · p_KN(w | v)

with discount ``d``, the left-over mass ``γ(u v) = d · |{w : c(u v w) > 0}| / c(u v ·)``, and
lower orders that count *continuations* (in how many contexts a word appears) rather than
occurrences. nltk's ``KneserNeyInterpolated`` implements this (``discount`` = 0.1 by default).

What is compared, so the numbers mean the same thing as ``evaluate_perplexity``'s:

- the same held-out sentences and the same closed vocabulary: a word outside ``vocab`` becomes
  ``<UNK>`` (the label nltk itself uses), exactly as ``Vocabulary.index`` maps it;
- the same predictions: each sentence ``w1 .. wn`` is scored as ``w1 .. wn </S>`` given
  ``<S>`` (forward), and ``wn .. w1 <S>`` given ``</S>`` (backward, a second model trained on
  reversed sentences); perplexity = ``exp(mean NLL)`` per direction, avg = their geometric mean.

Caveats: the n-gram sees words, the biLM characters (both predict ``<UNK>`` for an unknown word,
but the biLM can still read its spelling); the n-gram looks back two words, the biLM at the
whole sentence prefix. nltk's lowest order gives a word never seen in training ``p = 0``
(infinite perplexity, e.g. for ``<UNK>`` when every training word is in the vocabulary); ours
interpolates it with the uniform distribution over the vocabulary, as Chen & Goodman do.

Speed: nltk's ``KneserNey`` recounts the continuation counts by scanning *every* higher-order
n-gram on each call (milliseconds per word: minutes for a few thousand sentences). We index
those counts once after fitting (``_IndexedKneserNey``); the probabilities are the same
(``tests/training/test_ngram.py`` compares them with plain nltk). ``max_train_sentences`` caps the
pure-Python fitting on large corpora.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["KneserNeyBaseline", "ngram_perplexity"]

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

        def unigram_score(self, word):
            # Interpolate with the uniform distribution (Chen & Goodman 1998), so that a word
            # never seen in training, e.g. <UNK> when every training word is in the vocabulary,
            # keeps a probability > 0; nltk's unigram level gives it 0 (infinite perplexity).
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
        discount: Kneser-Ney's absolute discount ``d``.
        indexed: index the continuation counts (same numbers as plain nltk, much faster).

    Example:
        >>> from elmo_tutorial.model.vocab import Vocabulary
        >>> train = [["the", "cat", "sat"], ["the", "dog", "sat"]]
        >>> kn = KneserNeyBaseline().fit(train, Vocabulary.from_sentences(train))
        >>> round(kn.perplexity([["the", "cat", "sat"]])["fwd_ppl"], 2) < 10
        True
    """

    def __init__(self, order: int = 3, discount: float = 0.1, indexed: bool = True) -> None:
        self.order, self.discount, self.indexed = order, discount, indexed
        self.models: dict = {}

    @staticmethod
    def _plain_nltk():
        from nltk.lm import KneserNeyInterpolated

        return KneserNeyInterpolated

    def _map(self, sentence: Sequence[str]) -> list[str]:
        return [w if w in self.known else UNK for w in sentence]

    def _padded(self, sentence: Sequence[str], direction: str) -> list[str]:
        words = self._map(sentence)
        if direction == "backward":
            return [EOS] * (self.order - 1) + words[::-1] + [BOS]
        return [BOS] * (self.order - 1) + words + [EOS]

    def fit(self, sentences: Sequence[Sequence[str]], vocab) -> KneserNeyBaseline:
        """Count n-grams of ``sentences`` in both directions; words outside ``vocab`` → <UNK>."""
        from nltk.lm import Vocabulary as NltkVocabulary
        from nltk.util import everygrams

        KneserNeyInterpolated = _kn_class() if self.indexed else self._plain_nltk()
        self.known = set(vocab.words if hasattr(vocab, "words") else vocab)
        for direction in ("forward", "backward"):
            lm = KneserNeyInterpolated(self.order, discount=self.discount,
                                       vocabulary=NltkVocabulary(sorted(self.known),
                                                                 unk_cutoff=1, unk_label=UNK))
            padded = [self._padded(s, direction) for s in sentences]
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


def ngram_perplexity(train: Sequence[Sequence[str]], test: Sequence[Sequence[str]], vocab,
                     order: int = 3, max_train_sentences: int | None = 50_000) -> dict:
    """Fit a Kneser-Ney baseline on ``train`` and return its perplexities on ``test``."""
    train = list(train)[:max_train_sentences] if max_train_sentences else list(train)
    return KneserNeyBaseline(order).fit(train, vocab).perplexity(test)
