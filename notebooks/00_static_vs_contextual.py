# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 00 · Static vs contextual word vectors: why ELMo exists
#
# *"He sat on the bank of the river"* and *"he cashed a cheque at the bank"* use the same
# string for two different things. A classic word embedding (word2vec, GloVe) gives the word
# **one vector per type**, so both sentences get the same *bank*. ELMo (Peters et al. 2018)
# gives **one vector per occurrence**, computed from the whole sentence. This notebook shows
# the problem and a first, crude fix, both built from scratch in a few lines of NumPy.
#
# **You will:**
# 1. look up the senses of *bank* and *program* in WordNet;
# 2. meet the course's small synthetic corpus, where every *bank*, *play*, *work*, *point*,
#    *bat* and *spring* carries a known sense;
# 3. build static vectors from counts (PPMI + truncated SVD) and see that *bank*'s single vector
#    and its neighbours mix the senses; test what static vectors do capture, analogies such as
#    *king − man + woman ≈ queen*, on a million words of real text;
# 4. write a first *contextual* vector, the word's vector plus the average of its neighbours,
#    and measure how well the occurrences separate by sense;
# 5. compare left-only, right-only and two-sided context: the reason ELMo has a forward **and**
#    a backward language model.
#
# **Prerequisites:** Python, NumPy arrays, dot products and cosine similarity, the idea of a
# word embedding. No PyTorch yet.
#
# **Runtime:** about 14 s on 2 quiet CPU cores.

# %% slideshow={"slide_type": "subslide"} tags=["hide-input"]
try:
    from elmo_tutorial.figures import you_are_here
except ModuleNotFoundError as missing:  # opened before `make lab` installed the course
    raise ModuleNotFoundError(
        f"this notebook's kernel cannot import {missing.name}: start JupyterLab with "
        "`make lab` from the repository root (or run `pip install -e .` there, in this "
        "kernel's environment), then restart the kernel") from None

you_are_here("elmo")

# %%
# %matplotlib inline
from collections import Counter

import matplotlib.pyplot as plt
import numpy as np

from elmo_tutorial import checks, claims
from elmo_tutorial.analyses.static_vectors import (
    StaticVectors,
    context_vector,
    cooccurrence_counts,
    cosine_similarity,
    ppmi,
    svd_vectors,
)
from elmo_tutorial.data.corpora import ensure_nltk, nltk_corpus
from elmo_tutorial.data.sense_corpus import cue_distances, cue_words, sense_corpus, sense_examples
from elmo_tutorial.data.tokenize import tokenize_words
from elmo_tutorial.runtime import setup_notebook

setup_notebook(seed=0)  # seeds, threads, print precision; small enough for the CPU

# %% [markdown]
# **Data.** This notebook reads WordNet and the Brown corpus from the NLTK data. The next cell
# finds them where NLTK looks (`NLTK_DATA`, `~/nltk_data`, ...); if they are missing and you
# are online, it downloads them once (Brown: 10 MB); offline, it tells you how to get them.
# `elmo-tutorial data list` shows every dataset of the course and whether it is here.

# %%
ensure_nltk("wordnet", "brown")
wn = nltk_corpus("wordnet")  # WordNet 3.0

# %% [markdown]
# ## 1. One word, many senses: WordNet
#
# WordNet groups words into *synsets* (sets of synonyms), one per sense, each with a
# definition (gloss) and often example sentences. How many senses does *bank* have?

# %%
for word in ("bank", "program"):
    by_pos = Counter(s.pos() for s in wn.synsets(word))
    print(f"{word}: {len(wn.synsets(word))} synsets  (n = noun, v = verb): {dict(by_pos)}")

# %%
for synset in wn.synsets("bank", pos=wn.NOUN)[:6]:
    example = synset.examples()[0] if synset.examples() else "—"
    print(f"{synset.name():40s} {synset.definition()[:70]}\n{'':40s} e.g. “{example}”")

# %%
for synset in wn.synsets("program"):
    print(f"{synset.name():26s} {synset.pos()}  {synset.definition()[:80]}")

# %% [markdown]
# *Program* even changes part of speech ("a program" / "to program"). A lookup table indexed
# by the string cannot tell these apart; only the context can.
#
# ## 2. A corpus where we know every sense
#
# Real text does not come with sense labels, so the course ships a small synthetic
# English-like corpus (`data/embedded/`, ≈250k training tokens; `.ci/make_sense_corpus.py`
# wrote it). Six words occur in contexts of known senses; each sense has its own cue
# words, sometimes next to the word, sometimes 3–8 tokens before or after it.

# %%
train = sense_corpus("train")
train_senses, test_senses = sense_examples("train"), sense_examples("test")
print(f"train: {len(train)} sentences, {sum(map(len, train))} tokens, "
      f"{len(train_senses)} labelled occurrences")
print(Counter((e.word, e.sense) for e in train_senses).most_common(6))

# %%
for tokens, t, word, sense, pos in test_senses[:6]:
    shown = " ".join(f"[{w}]" if i == t else w for i, w in enumerate(tokens))
    print(f"{word + '/' + sense:16s} {pos:5s} {shown}")

# %% [markdown]
# ## 3. Static vectors from counts
#
# The distributional hypothesis: words that occur in similar contexts have similar meanings.
# Count, for every pair of words, how often they occur within `window` = 4 tokens of each
# other in a sentence. First on one sentence, by hand:

# %%
WINDOW = 4


def count_pairs(sentences, window):
    """Counter of (word, context word) pairs within `window` tokens, both directions."""
    pairs = Counter()
    for sentence in sentences:
        words = [t.lower() for t in sentence]
        for i, w in enumerate(words):
            for j in range(max(0, i - window), min(len(words), i + window + 1)):
                if j != i:
                    pairs[w, words[j]] += 1
    return pairs


print(" ".join(train[1]))
print(count_pairs(train[1:2], window=2).most_common(5))

# %% [markdown]
# The same as a `(V, V)` matrix equals the package's vectorised `cooccurrence_counts`
# (checked on the first 3,000 sentences: the pure-Python loop is slow), which we then run on
# the whole training split:

# %%
some_words, some_counts = cooccurrence_counts(train[:3000], window=WINDOW)
index = {w: i for i, w in enumerate(some_words)}
by_hand = np.zeros_like(some_counts)
for (w, c), n in count_pairs(train[:3000], WINDOW).items():
    by_hand[index[w], index[c]] = n
print("the two count matrices are equal:", np.array_equal(by_hand, some_counts))

words, counts = cooccurrence_counts(train, window=WINDOW)  # (V, V)
print(f"V = {len(words)} word types, {int(counts.sum())} (word, context) pairs")

# %% [markdown]
# Raw counts are dominated by frequent words (*the*, *.*). **Pointwise mutual information**
# asks instead how much more often `w` and `c` co-occur than if they were independent;
# negative values are noisy, so we clip them at 0 (PPMI). Raising context counts to
# α = 0.75 stops rare contexts from getting huge PMI (the same trick as word2vec's negative
# sampling):
#
# $$\mathrm{PPMI}(w, c) = \max\Bigl(0,\ \log \frac{\#(w,c)\ \sum_{c'} \#(c')^{\alpha}}
#   {\#(w)\ \#(c)^{\alpha}}\Bigr)$$

# %%
alpha = 0.75
context_mass = counts.sum(0) ** alpha  # (V,)
with np.errstate(divide="ignore"):
    pmi = np.log(counts * context_mass.sum() / (counts.sum(1, keepdims=True) * context_mass))
my_ppmi = np.maximum(pmi, 0)  # log 0 = -inf becomes 0
print("equal to the package's ppmi:", np.allclose(my_ppmi, ppmi(counts, alpha)))

# %% [markdown]
# A truncated SVD, $\mathrm{PPMI} \approx U_d \Sigma_d V_d^\top$, compresses each row to
# `d` = 50 numbers: the word vectors are $U_d \Sigma_d^{1/2}$ (Levy et al. 2015). Unlike the
# PPMI columns, which each count one context word, these 50 dimensions have no names: a
# rotation of all the vectors changes no cosine, so no single coordinate means anything on its
# own; only directions and angles do.

# %%
u, s, _ = np.linalg.svd(my_ppmi)
my_vectors = u[:, :50] * np.sqrt(s[:50])  # (V, 50)
package = svd_vectors(ppmi(counts), 50)
# Singular vectors are defined up to a sign per column; the package fixes the signs.
print("equal up to column signs:", np.allclose(np.abs(my_vectors), np.abs(package)))
static = StaticVectors(words, package)  # the same as StaticVectors.from_sentences(train)

# %% [markdown]
# Now the problem. The nearest neighbours of *bank*'s vector are a mixture of the FINANCE and
# the RIVER cue words:

# %%
river, finance = cue_words("bank", "RIVER"), cue_words("bank", "FINANCE")
for neighbour, similarity in static.nearest("bank", k=10):
    sense = "RIVER" if neighbour in river else "FINANCE" if neighbour in finance else "—"
    print(f"{neighbour:12s} {similarity:.4f}  {sense}")

# %% [markdown]
# ### Exercise 1 (predict): *bank* by the river and *bank* with the money
#
# Sentence `a` is about a river, sentence `b` about money. The next cell looks up the static
# vector of *bank* at its position in each sentence, from each sentence's own word ids, and
# prints the cosine of the two. Before you run it: what will it print, and why?
#
# **Prediction.**
# <!-- BEGIN ANSWER -->
# Exactly 1.0. A static table has one row per word *type*: the lookup reads the row of the
# string "bank" and never looks at the other words, so both sentences get the same row, and a
# vector's cosine with itself is 1. The two senses cannot be told apart by any computation on
# these two vectors.
# <!-- END ANSWER -->

# %%
a = "He rowed the canoe near the muddy bank".split()
b = "She borrowed the money and then visited the national bank".split()
ids_a, ids_b = static.ids(a), static.ids(b)  # row ids of every word of each sentence
bank_in_a = static.vectors[ids_a[a.index("bank")]]  # (50,)
bank_in_b = static.vectors[ids_b[b.index("bank")]]  # (50,)
print(f"row of bank in a: {ids_a[a.index('bank')]}, in b: {ids_b[b.index('bank')]}")
print("cos(bank in a, bank in b) =", round(float(cosine_similarity(bank_in_a, bank_in_b)), 4))

# %% [markdown]
# ### What one vector per word does capture: analogies
#
# Static vectors are not useless. Differences between them can encode relations: the classic
# test (Mikolov et al. 2013) asks whether *king − man + woman* lands nearest to *queen*, and
# *has − had + was* nearest to *is* (had : has :: was : is, past to present). The usual
# scoring, **3CosAdd** (Levy & Goldberg 2014), takes unit vectors and picks the word $x$, other
# than the three query words, with the largest
#
# $$\cos(x, b) - \cos(x, a) + \cos(x, c) \qquad\text{for "}a\text{ is to }b\text{ as }c
#   \text{ is to ?"}$$
#
# Our synthetic corpus has no *king*, *queen* or *has*, so we build static vectors the same way
# from the Brown corpus: 1.16 M tokens of 1961 American English, keeping the 3,615 words seen
# at least 30 times.

# %%
brown = nltk_corpus("brown")
brown_sentences = [[token.rsplit("/", 1)[0] for token in line.split()]  # drop the /TAG
                   for fileid in brown.fileids() for line in brown.raw(fileid).splitlines()
                   if line.strip()]
brown_static = StaticVectors.from_sentences(brown_sentences, dim=100, window=4, min_count=30,
                                            svd="randomized")
print(f"{len(brown_sentences)} sentences, {sum(map(len, brown_sentences))} tokens, "
      f"{len(brown_static)} words with a vector")

# %% [markdown]
# ### Exercise 2 (implement): 3CosAdd
#
# Write `my_analogy(vectors, words, a, b, c)`: `vectors` is a `(V, D)` table, `words` its
# row names; return the word that answers "`a` is to `b` as `c` is to ?". Two details
# decide whether it works: remove the vectors' lengths, and think about which words may be
# the answer. The check runs it on small tables whose answer is known by construction.

# %%
def my_analogy(vectors, words, a, b, c):
    # BEGIN SOLUTION
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)  # (V, D)
    rows = [words.index(w) for w in (a, b, c)]
    scores = unit @ (unit[rows[1]] - unit[rows[0]] + unit[rows[2]])  # (V,)
    scores[rows] = -np.inf  # b - a + c is nearest to b or c themselves: never answer them
    return words[int(np.argmax(scores))]
    # END SOLUTION


checks.check_analogy(my_analogy)

# %% [markdown]
# The package's `StaticVectors.analogy` does the same and `analogy_rank` says where the
# expected answer came. The SVD kept 100 dimensions; the first 25 and 50 of them are the
# vectors a 25- or 50-dimensional SVD would give (up to the randomized SVD's small error):

# %%
questions = [("man", "king", "woman", "queen"), ("had", "has", "was", "is"),
             ("he", "his", "she", "her"), ("man", "men", "woman", "women")]
ranks = {}
for dim in (25, 50, 100):
    vectors_d = StaticVectors(brown_static.words, brown_static.vectors[:, :dim])
    print(f"d = {dim}")
    for a_, b_, c_, expected in questions:
        ranks[dim, expected] = vectors_d.analogy_rank(a_, b_, c_, expected)
        best = ", ".join(word for word, _ in vectors_d.analogy(a_, b_, c_, k=4))
        print(f"  {a_}:{b_} :: {c_}:?  {expected!r} at rank {ranks[dim, expected]:<3d} "
              f"best: {best}")
claims.claim(all(1 < ranks[dim, "queen"] <= 10 for dim in (25, 50, 100)),
             "queen is among the ten best answers at every size, but never the first")
claims.claim(all(ranks[dim, "is"] <= 2 for dim in (25, 50, 100)),
             "had : has :: was : is puts 'is' first or second at every size")

# %% [markdown]
# So at this corpus size the grammatical relations mostly work (the right answer first or
# second), and *king − man + woman* finds *queen* near the top but not first, behind names and
# family words. A million tokens is small for this: *king* and *queen* occur 88 and 41 times,
# so their vectors rest on a few hundred co-occurrences, while *had*, *has*, *was* and *is*
# occur thousands of times in regular contexts; published analogy results come from hundreds
# of millions of words or more. Either way an analogy relates word *types*: it does not help
# with *bank*, whose one vector still serves both senses.

# %% [markdown]
# ## 4. A first contextual vector
#
# The cheapest way to let the context in: add to the word's static vector $e_{w_t}$ the
# average static vector of its neighbours within a window,
#
# $$x_t = e_{w_t} + \frac{1}{|C_t|} \sum_{j \in C_t} e_{w_j},
#   \qquad C_t = \{\, j \ne t : |j - t| \le \text{window} \,\}.$$
#
# ### Exercise 3 (implement): the context-window vector
#
# Write `my_context_vector(vectors, ids, index, window)`: `vectors` is the
# `(V, D)` table, `ids` the row ids of the sentence's words, `index` the position `t`. Clip the
# window at the sentence edges; with no neighbour at all, return the word's own vector. The
# check compares with the package's `context_vector` (imported above for the later sections)
# and refuses an answer that calls it.

# %%
def my_context_vector(vectors, ids, index, window):
    # BEGIN SOLUTION
    neighbours = [ids[j] for j in range(max(0, index - window), min(len(ids), index + window + 1))
                  if j != index]
    if not neighbours:
        return vectors[ids[index]].copy()
    return vectors[ids[index]] + vectors[neighbours].mean(axis=0)
    # END SOLUTION


checks.check_context_vector(my_context_vector)

# %%
x_a = my_context_vector(static.vectors, static.ids(a), len(a) - 1, window=8)
x_b = my_context_vector(static.vectors, static.ids(b), len(b) - 1, window=8)
print("cos(bank in a, bank in b) =", round(float(cosine_similarity(x_a, x_b)), 4))

# %% [markdown]
# Over all test occurrences of *bank*: are two occurrences of the same sense more similar than
# two occurrences of different senses?

# %%
def occurrences(word, side="both", window=8, examples=test_senses):
    """Contextual vectors (N, D) and sense labels of every occurrence of `word`."""
    chosen = [e for e in examples if e.word == word]
    vectors = np.stack([context_vector(static.vectors, static.ids(e.tokens), e.index, window,
                                       side) for e in chosen])
    return vectors, np.array([e.sense for e in chosen])


def within_and_across(vectors, senses):
    sims = cosine_similarity(vectors[:, None, :], vectors[None, :, :])  # (N, N)
    same = senses[:, None] == senses[None, :]
    off_diagonal = ~np.eye(len(senses), dtype=bool)
    return sims[same & off_diagonal].mean(), sims[~same].mean()


for word in ("bank", "play", "work", "point"):
    vectors, senses = occurrences(word)
    within, across = within_and_across(vectors, senses)
    # The static vectors of the same occurrences: one row, repeated.
    static_within, static_across = within_and_across(
        np.repeat(static[word][None, :], len(senses), axis=0), senses)
    # All occurrences share e_bank; subtracting their mean shows the part that varies.
    within_c, across_c = within_and_across(vectors - vectors.mean(0), senses)
    print(f"{word:6s} static: within {static_within:.4f}, across {static_across:.4f} | "
          f"contextual: within {within:.4f}, across {across:.4f} | "
          f"centred: within {within_c:.4f}, across {across_c:.4f}")

# %% [markdown]
# How to read it: the static columns are 1 everywhere (one vector per word). The raw
# contextual cosines are all high, within a sense and across senses alike, because every
# occurrence's window contains the word's own vector and the same frequent words; only their
# small gap (within above across, for every word) hints at the senses. Centring removes the
# part all occurrences share, and then the gap is plain: occurrences of one sense point the
# same way (a positive cosine), those of different senses apart (a negative one).
#
# A picture: the contextual vectors of each word projected on their first two principal
# components (PCA = SVD of the centred vectors), coloured by the sense label. The static
# vector would be a single dot.

# %%
fig, axes = plt.subplots(1, 4, figsize=(16, 3.8))
for ax, word in zip(axes, ("bank", "play", "work", "point"), strict=True):
    vectors, senses = occurrences(word)
    centred = vectors - vectors.mean(0)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    xy = centred @ vt[:2].T  # (N, 2)
    for sense in sorted(set(senses)):
        ax.scatter(*xy[senses == sense].T, s=6, alpha=0.6, label=sense)
    ax.set(title=f"'{word}' in context", xlabel="1st principal component",
           ylabel="2nd principal component" if word == "bank" else None)
    ax.legend(fontsize=7, markerscale=2)
fig.tight_layout()
plt.show()

# %% [markdown]
# Two dimensions out of many, and chosen for their variance, not for the senses: the first two
# principal components need not be the directions that tell the senses apart. In this view
# *play* in the THEATRE sense and *point* as a GESTURE lie apart from their other senses, the
# two senses of *work* only partly, and those of *bank* overlap completely. The similarities
# above, and the classifier below, use every dimension: by them *bank*'s senses do separate.
#
# ## 5. Left context, right context, both
#
# A forward language model reads left to right: at *bank* it has seen only the words before
# it. A backward LM has seen only the words after it. How much sense information does each
# side carry? Classify every test occurrence by the nearest sense centroid (cosine) of the
# training occurrences, using left-only, right-only or two-sided windows. The "static" column
# is the share of test occurrences that have the word's most frequent sense.

# %%
def centroid_accuracy(word, side, window=8):
    train_x, train_y = occurrences(word, side, window, train_senses)
    test_x, test_y = occurrences(word, side, window, test_senses)
    labels = sorted(set(train_y))
    centroids = np.stack([train_x[train_y == label].mean(0) for label in labels])  # (K, D)
    predicted = np.array(labels)[cosine_similarity(test_x[:, None], centroids[None]).argmax(1)]
    return (predicted == test_y).mean()


print(f"{'word':7s}{'static':>8s}{'left':>8s}{'right':>8s}{'both':>8s}")
for word in ("bank", "play", "work", "point", "bat", "spring"):
    test_y = [e.sense for e in test_senses if e.word == word]
    majority = Counter(e.sense for e in train_senses if e.word == word).most_common(1)[0][0]
    row = [np.mean([y == majority for y in test_y])]
    row += [centroid_accuracy(word, side) for side in ("left", "right", "both")]
    print(f"{word:7s}" + "".join(f"{a:8.4f}" for a in row))

# %% [markdown]
# Where are the cues? For each test occurrence, the nearest cue word of its sense is on the
# left only, on the right only, or on both sides:

# %%
sides = Counter()
for tokens, i, word, sense, _ in test_senses:
    before, after = cue_distances(tokens, i, word, sense)
    sides["left only" if after is None else "right only" if before is None else "both"] += 1
print({k: round(v / len(test_senses), 4) for k, v in sorted(sides.items())})

# %% [markdown]
# Most occurrences have their cues on one side only, and the two sides are about equally
# common, so neither direction alone is enough.
# ELMo's answer is to run **two** language models, one per direction, and concatenate their
# states at every position (Sec. 3.1).
#
# ### Exercise 4 (explain): the static column
#
# The "static" column of the table is the share of the most frequent sense. Why can no
# classifier that reads only the static vector of the word do better, however good the
# vectors are, and however large the corpus they were learned from?
#
# **Model answer.**
# <!-- BEGIN ANSWER -->
# Every occurrence of *bank* gets the same input, the one row of *bank*, so any classifier,
# however clever, must give every occurrence the same output. The best single answer is the
# most frequent sense, right on exactly that share of the test occurrences. Better vectors
# or more text change the row, not the fact that there is only one: the information that
# separates the senses is in the context, which the lookup never reads.
# <!-- END ANSWER -->
#
# ## 6. WordNet's own examples as contexts
#
# The glosses and example sentences of two *bank* synsets are new contexts our vectors never
# saw. Words outside the corpus vocabulary (*cashed*, *check*) are simply skipped; a gloss
# gets *bank* appended. With hardly any cue word kept (*he cashed a check at the bank*), the
# guess says more about the centroids than about the sentence.

# %%
train_x, train_y = occurrences("bank", examples=train_senses)
centroids = {label: train_x[train_y == label].mean(0) for label in sorted(set(train_y))}
for name in ("bank.n.01", "depository_financial_institution.n.01"):
    synset = wn.synset(name)
    for text in (synset.definition(), *synset.examples()):
        tokens = [t for t in tokenize_words(text) if t in static]
        if "bank" not in tokens:  # a gloss does not name its word: put it at the end
            tokens.append("bank")
        x = context_vector(static.vectors, static.ids(tokens), tokens.index("bank"), 8)
        guess = max(centroids, key=lambda k: float(cosine_similarity(x, centroids[k])))
        print(f"{name[:14]:15s} → {guess:8s} {text[:60]}\n{'':26s} kept: {' '.join(tokens)}")

# %% [markdown]
# ## 7. Why ELMo learns this from a language model
#
# The window average works here because we chose the window and the corpus is clean. Its
# limits: every neighbour counts the same (*the*, *,* and *canoe* alike) and a cue 9 tokens
# away is invisible; word order is lost (*the boat near the bank*, *the bank near the boat*);
# nothing is learned about which contexts matter for which word.
#
# ELMo replaces the average by the hidden states of two deep LSTM language models, a forward
# LM that predicts each word from the words before it and a backward LM from the words after
# it. To predict well, the LMs must keep whatever the context says about the current word,
# sense included: a learned function of the whole sentence, in both directions, at several
# depths (notebooks 04–08).
#
# ## Summary
#
# * WordNet lists 10 noun and 8 verb senses for *bank*; a static embedding has one vector for
#   all of them, and its nearest neighbours mix the senses.
# * Count-based static vectors: co-occurrence counts → PPMI → truncated SVD
#   (`elmo_tutorial.analyses.static_vectors`). Their differences encode some relations between
#   word types (3CosAdd): on the Brown corpus the grammatical ones mostly work, *queen* comes
#   near the top but not first.
# * A context-window average already separates the synthetic corpus's senses; left-only and
#   right-only windows each miss the cues on the other side, both together classify 88–97 %
#   of the test occurrences correctly.
#
# **Read more:** Peters et al. (2018), *Deep contextualized word representations*: Sec. 1
# (polysemy and context), Sec. 3 (the biLM and the layer mix), Sec. 5.3 (Table 4, GloVe's
# neighbours of *play* against the biLM's; Table 5, word sense disambiguation). Levy, Goldberg
# & Dagan (2015), *Improving Distributional Similarity with Lessons Learned from Word
# Embeddings*. Mikolov, Yih & Zweig (2013), *Linguistic Regularities in Continuous Space Word
# Representations*; Levy & Goldberg (2014), *Linguistic Regularities in Sparse and Explicit
# Word Representations* (3CosAdd and 3CosMul).
#
# **Next:** notebook 01 builds layer normalisation, the first piece of the ELMo machinery.

# %% [markdown]
# ## Check your understanding
#
# Answer each in a sentence or two before you open the instructor's answer.
#
# 1. The static vector of *bank* has both FINANCE and RIVER cue words among its nearest
#    neighbours. Why does one vector end up near both?
#
# <!-- BEGIN ANSWER -->
# It is computed from all occurrences of *bank* together, so it summarises the contexts of both
# senses, weighted by frequency, and stands for neither alone.
# <!-- END ANSWER -->
#
# 2. What does PPMI correct in the raw co-occurrence counts, and why are negative values clipped
#    to 0?
#
# <!-- BEGIN ANSWER -->
# Raw counts are dominated by frequent words (*the*, *.*); PMI asks how much more often two
# words co-occur than if they were independent. Negative values rest on few counts and are
# noisy, and a pair never seen would give log 0 = −∞.
# <!-- END ANSWER -->
#
# 3. Why does 3CosAdd leave the three query words out of the possible answers?
#
# <!-- BEGIN ANSWER -->
# The vector *b − a + c* usually stays closest to *b* or *c* itself, so without the exclusion the
# answer would most often be one of the query words, whatever the relation.
# <!-- END ANSWER -->
#
# 4. On the Brown corpus, *had : has :: was : is* works, but *man : king :: woman : queen* does
#    not put *queen* first. What explains the difference?
#
# <!-- BEGIN ANSWER -->
# Frequency: *had*, *has*, *was* and *is* occur thousands of times in regular contexts, *king*
# and *queen* only tens of times. Relations between rarer words need far more text.
# <!-- END ANSWER -->
#
# 5. The window-average vectors of *bank* have cosines around 0.95 both within and across senses;
#    only after their mean is subtracted does a clear gap appear. Why?
#
# <!-- BEGIN ANSWER -->
# Every occurrence contains *bank*'s static vector and shares frequent neighbours, so most of
# each vector is common to all and dominates the cosine. Subtracting the mean leaves what the
# context changes, where the senses differ.
# <!-- END ANSWER -->
#
# 6. In the PCA picture *bank*'s two senses overlap completely, yet the centroid classifier
#    labels most of its test occurrences correctly. Is that a contradiction?
#
# <!-- BEGIN ANSWER -->
# No. PCA keeps the two directions of largest variance, which need not be the directions that
# separate the senses; the classifier uses every dimension, and in the full space the senses do
# separate.
# <!-- END ANSWER -->
#
# 7. Why do left-only and right-only windows each classify worse than a two-sided one, and what
#    does this have to do with ELMo's design?
#
# <!-- BEGIN ANSWER -->
# Most occurrences have their cues on one side only, either side about equally often. A forward
# LM sees only the left and a backward LM only the right: so ELMo runs both and concatenates
# their states.
# <!-- END ANSWER -->
#
# 8. Name two limits of the window average that a language model's hidden state can overcome.
#
# <!-- BEGIN ANSWER -->
# Any two of: every neighbour counts the same; a cue beyond the window is invisible; word order
# is lost; nothing is learned about which contexts matter. An LSTM LM reads the whole sentence
# in order and learns what to keep.
# <!-- END ANSWER -->
#
# 9. A language model is never told the senses of its words. Why should its states carry sense
#    information at all?
#
# <!-- BEGIN ANSWER -->
# To predict the next (or previous) word it must keep what the context says about the current
# word, and the sense changes what is likely to follow (a muddy *bank*, a national *bank*).
# <!-- END ANSWER -->
#
# 10. You rotate every static vector by the same orthogonal matrix. Which of this notebook's
#     results change: the nearest neighbours, the analogies, the value of dimension 7?
#
# <!-- BEGIN ANSWER -->
# Only dimension 7's value: a rotation keeps every length and angle, so every cosine, the
# neighbours and the 3CosAdd answers stay the same.
# <!-- END ANSWER -->
