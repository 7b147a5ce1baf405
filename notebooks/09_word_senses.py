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
# # 09 · Word senses: which layer knows what a word means?
#
# Notebook 08 saw uses of one word move apart by sense in a trained biLM's layers. Peters et
# al. (2018, §5.3) turned that into a measurement with **no parameters to learn**: word sense
# disambiguation (WSD) by the nearest sense centroid. If a layer places the uses of each sense
# in their own region, the average of a sense's labelled examples is a point that new uses of
# that sense are closest to. Table 5 of the paper reports F1 on the standard WSD benchmark:
# first LSTM layer 67.4, second 69.0, WordNet's first sense (the simplest baseline) 65.9.
#
# **You will:**
# 1. build the nearest-centroid classifier from scratch on a few sentences about *bank*, and
#    check it against the package's `wsd` module;
# 2. measure each layer on many uses of four words (*hard*, *interest*, *line*, *serve*)
#    against the most-frequent-sense baseline, and again with 5 to 150 labelled uses per word;
# 3. run the paper's evaluation (train on SemCor, test on Senseval-2/3 and SemEval-2007/2013)
#    on a sample of SemCor, beside Table 5, and learn how to run the full one;
# 4. explain why less training data can raise a score, and write the evaluation's scorer
#    yourself.
#
# **Prerequisites:** notebooks 00 (WordNet senses), 07 (the scalar mix) and 08 (contextual
# vectors of the shipped model); cosine similarity.
#
# **Runtime:** about 28 s on 2 quiet CPU cores the first time (it embeds about 150,000 words), less
# from the embedding cache.

# %% slideshow={"slide_type": "subslide"} tags=["hide-input"]
try:
    from elmo_tutorial.figures import you_are_here
except ModuleNotFoundError as missing:  # opened before `make lab` installed the course
    raise ModuleNotFoundError(
        f"this notebook's kernel cannot import {missing.name}: start JupyterLab with "
        "`make lab` from the repository root (or run `pip install -e .` there, in this "
        "kernel's environment), then restart the kernel") from None

you_are_here("word_senses")

# %%
# %matplotlib inline
import json
import time

import matplotlib.pyplot as plt
import numpy as np

from elmo_tutorial import ELMo, Embedder, checks, load_elmo, shipped_model
from elmo_tutorial.analyses import lexical_sample, wsd
from elmo_tutorial.data.annotated import wsd_framework
from elmo_tutorial.data.corpora import nltk_corpus
from elmo_tutorial.runtime import setup_notebook

device = setup_notebook(seed=0)
wordnet = nltk_corpus("wordnet")  # WordNet 3.0: the sense inventory (see `elmo-tutorial data list`)

# %% [markdown]
# ## 1. The model
#
# The course's small biLM (`data/models/small`), as in notebook 08; your own run or official
# weights (notebook 11) work the same.

# %%
MODEL = shipped_model("small")  # data/models/small, found from any folder
model = load_elmo(MODEL)
embedder = Embedder(model.to(device))
print(f"{model.config.n_layers} LSTM layers, vectors of {2 * model.config.projection_dim}")

# %% [markdown]
# ## 2. The nearest sense centroid, from scratch
#
# WordNet names every sense of a word by a **sense key**, e.g. `bank%1:14:00::` (the financial
# institution) and `bank%1:17:01::` (sloping land beside water); a sense-annotated corpus
# labels uses of words with these keys. A tiny one: six training and two test sentences, each
# with one use of *bank*.

# %%
MONEY, RIVER = "bank%1:14:00::", "bank%1:17:01::"
for key in (MONEY, RIVER):
    print(key, "—", wordnet.lemma_from_key(key).synset().definition())

train = [("He deposited the cheque at the bank this morning .", MONEY),
         ("The bank raised its interest rates again .", MONEY),
         ("She took out a loan from the bank last year .", MONEY),
         ("We had a picnic on the bank of the river .", RIVER),
         ("The canoe drifted towards the muddy bank .", RIVER),
         ("Reeds grew thick along the bank of the stream .", RIVER)]
test = [("I must go to the bank to withdraw some cash .", MONEY),
        ("The fisherman sat quietly on the grassy bank .", RIVER)]

# %% [markdown]
# Each use of *bank* gets one vector per layer: the layers at its position in the sentence.
#
# ### Exercise 1 (predict): layer 0's two cosines
#
# Below, each test use of *bank* is compared with the two centroids, layer by layer. Before you
# run it: what will layer 0 print for cos(money) and cos(river), and which sense will it
# choose?

# %%
def bank_vectors(examples):
    """(L + 1, n, 2P): every layer's vector of 'bank' in each example sentence."""
    sentences = [text.split() for text, _ in examples]
    layers = embedder.embed_sentences(sentences)  # n × (L + 1, T_i, 2P)
    return np.stack([h[:, s.index("bank")] for h, s in zip(layers, sentences, strict=True)],
                    axis=1)


train_vectors, test_vectors = bank_vectors(train), bank_vectors(test)
train_senses = [key for _, key in train]
print("train:", train_vectors.shape, " test:", test_vectors.shape)

# %% [markdown]
# **Prediction.**
# <!-- BEGIN ANSWER -->
# Layer 0 is the character CNN's vector of the string *bank*, the same in every sentence, so
# both centroids and every test vector equal it: both cosines are 1, for both test sentences.
# The tie is broken by whichever sense comes first (*money*): right for one test sentence,
# wrong for the other, by accident.
# <!-- END ANSWER -->

# %% [markdown]
# A sense's **centroid** is the mean of its training vectors. A test use gets the sense whose
# centroid is most similar by **cosine**, $\cos(v, c) = v \cdot c / (\lVert v \rVert
# \lVert c \rVert)$: the direction matters, not the length.

# %%
def cosine(a, b):
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


senses = [MONEY, RIVER]


def nearest_centroid(train_layer, v):
    """The sense whose centroid (mean of its training vectors) is closest to v by cosine,
    and the cosines."""
    centroids = [train_layer[[s == sense for s in train_senses]].mean(axis=0) for sense in senses]
    sims = [cosine(v, c) for c in centroids]
    return senses[int(np.argmax(sims))], sims


for j, layer in enumerate(train_vectors):
    for (text, gold), v in zip(test, test_vectors[j], strict=True):
        guess, sims = nearest_centroid(layer, v)
        print(f"layer {j}  cos(money) {sims[0]:.4f}  cos(river) {sims[1]:.4f}  → "
              f"{'money' if guess == MONEY else 'river'} ({'right' if guess == gold else 'wrong'})"
              f"   “{text}”")

# %% [markdown]
# Layer 0 cannot tell the senses apart; `argmax` merely takes the first. The LSTM layers have
# read the sentence, and their cosines differ: here layer 2 gets both test sentences right and
# layer 1 one of them. With six training sentences one example proves little; sections 3 and 4
# measure on thousands.
#
# The package's `wsd.SenseCentroids` does the same for many words at once, keeping each
# *(lemma, part of speech)*'s centroids apart, so a use of *bank* is compared only with the
# senses of *bank*, and normalising them so that cosine is a dot product.

# %%
for j in range(len(train_vectors)):
    package = wsd.SenseCentroids(train_vectors[j], [[s] for s in train_senses],
                                 [("bank", "NOUN")] * len(train))
    from_scratch = [nearest_centroid(train_vectors[j], v)[0] for v in test_vectors[j]]
    same = from_scratch == package.predict(test_vectors[j], [("bank", "NOUN")] * len(test))
    print(f"layer {j}: the package predicts the same senses: {same}")

# %% [markdown]
# **Back-off.** A test word whose lemma never occurs in the training corpus has no centroids.
# The paper then falls back to **WordNet's first sense**: WordNet lists a word's senses by
# how often they were tagged in SemCor, so the first is a most-frequent-sense guess.

# %%
for lemma, pos in (("bank", "NOUN"), ("gig", "NOUN"), ("serve", "VERB")):
    key = wsd.first_sense(lemma, pos)
    gloss = wordnet.lemma_from_key(key).synset().definition()
    print(f"{lemma:6s} {pos:5s} → {key:22s} {gloss[:60]}")

# %% [markdown]
# ## 3. Four words, many uses: a lexical sample
#
# nltk's `senseval` corpus holds thousands of sense-tagged uses each of *hard* (3 senses),
# *interest* (6), *line* (6) and *serve* (4), mostly from newspapers. We take a random 300 uses
# per word (the table counts the senses among them: *interest*'s rarest, 11 of 2,368 uses, is
# not among our 300), train the centroids on half and test on the other half, for every layer
# and the model's mix as loaded: untrained, so the uniform mix $s_j = 1/3$ (notebook 08). The
# baseline is the training half's **most frequent sense**; `*` marks the best per word.

# %%
lexical = lexical_sample.evaluate(embedder, per_word=300)
reps = ["layer0", "layer1", "layer2", "elmo", "most_frequent_sense"]
LABEL = {"elmo": "uniform mix", "most_frequent_sense": "most frequent sense",
         "first_sense": "first sense"}  # "elmo" is the mix as loaded: untrained, 1/3 each
print(f"{'word':9s} {'senses':>6s} " + " ".join(f"{LABEL.get(r, r):>20s}" for r in reps))
for word, scores in lexical.items():
    best = max(reps, key=scores.get)
    cells = [f"{scores[r]:.1f}{'*' if r == best else ' '}" for r in reps]
    print(f"{word:9s} {scores['n_senses']:>6d} " + " ".join(f"{c:>20s}" for c in cells))

# %%
fig, ax = plt.subplots(figsize=(9, 3.4))
width = 0.16
for k, rep in enumerate(reps):
    values = [lexical[w][rep] for w in lexical]
    ax.bar(np.arange(len(lexical)) + (k - 2) * width, values, width, label=LABEL.get(rep, rep))
ax.set_xticks(range(len(lexical)), list(lexical))
ax.set_ylabel("accuracy (%)")
ax.set_title("Nearest sense centroid per layer, 150 test uses per word")
ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1))  # beside the bars, covering none
plt.tight_layout()
plt.show()

# %%
lstm_beats_layer0 = all(max(s["layer1"], s["layer2"]) > s["layer0"] for s in lexical.values())
top_wins = [w for w, s in lexical.items() if s["layer2"] > s["layer1"]]
mfs_wins = [w for w, s in lexical.items()
            if s["most_frequent_sense"] > max(s[r] for r in reps[:4])]
print("an LSTM layer beats layer 0 on every word:", lstm_beats_layer0)
print("layer 2 beats layer 1 on:", top_wins)
print("the most frequent sense beats every layer on:", mfs_wins)
print("the uniform mix is below the better LSTM layer on:",
      [w for w, s in lexical.items() if s["elmo"] < max(s["layer1"], s["layer2"])])

# %% [markdown]
# What to read from this:
#
# - **Layer 0 knows only the spelling** (*interest* or *interests*, *serve* or *served*), so
#   its guesses are close to arbitrary, often below the majority baseline.
# - **The LSTM layers separate the senses**, far above layer 0 on every word. Layer 2 is
#   ahead of layer 1 on three words, by a few points, a handful of the 150 test uses per
#   word; section 4 measures on six thousand.
# - **The most frequent sense is a strong baseline when one sense dominates.** A rare sense's
#   centroid attracts as many uses as a frequent one's: on *hard* about 80% of the uses have
#   one sense, and guessing it beats every layer.
# - **The uniform mix** is mostly below the better LSTM layer: it averages in layer 0's
#   sense-blind vector. A task that learns $s_j$ (notebook 07) can give layer 0 less.
#
# ### Exercise 2 (experiment): how many labelled uses does a centroid need?
#
# Labelled uses are expensive: someone tags each with its WordNet sense. Score the same four
# words with fewer of each word's 150 training uses, once for every number in `sizes`
# (`lexical_sample.evaluate` takes `max_train`, a seeded random sample of the training uses;
# the 150 test uses stay the same), and keep the tables it returns in a dict `curve` from the
# number of uses to the table. The cell prints, per word, what 30 uses change against 150,
# and the mean over the four words at every size, and draws it. Before you run it: which falls
# more, the layers' centroids or the most-frequent-sense baseline? Afterwards, change `sizes`
# (keep 30, which the printout reads) and run the cell again.

# %%
sizes = [5, 10, 20, 30, 75, 150]  # labelled training uses per word (150: all of them)
# BEGIN SOLUTION
curve = {n: lexical_sample.evaluate(embedder, per_word=300, max_train=n) for n in sizes}
# END SOLUTION
checks.check_fewer_training_uses(curve, embedder, per_word=300)
print(f"{'150 → 30 uses':13s} " + " ".join(f"{LABEL.get(r, r):>20s}" for r in reps))
for word in curve[30]:
    print(f"{word:13s} " + " ".join(f"{lexical[word][r]:>9.1f} → {curve[30][word][r]:>5.1f}    "
                                    for r in reps))
mean = {r: [np.mean([curve[n][w][r] for w in curve[n]]) for n in sizes] for r in reps}
print(f"\n{'mean of 4 words':<20s}" + "".join(f"{n:>7d}" for n in sizes) + "  uses per word")
for r in reps:
    print(f"{LABEL.get(r, r):<20s}" + "".join(f"{a:>7.1f}" for a in mean[r]))

fig, ax = plt.subplots(figsize=(8.5, 3.4))
for r in reps:
    ax.plot(sizes, mean[r], marker="o", label=LABEL.get(r, r),
            linestyle="--" if r == "most_frequent_sense" else "-")
ax.set_xscale("log")
ax.set_xticks(sizes, [str(n) for n in sizes])
ax.minorticks_off()
ax.set(xlabel="labelled training uses per word", ylabel="accuracy (%), mean of 4 words",
       title="Fewer labelled uses: 150 test uses per word")
ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1))
plt.tight_layout()
plt.show()

# %% [markdown]
# Write down your reading before you open the model answer: (a) which falls more as the
# labelled uses shrink, the centroids or the most frequent sense, and why? (b) From how many
# labelled uses per word is the better LSTM layer ahead of the most frequent sense, on
# average? (c) What do the last 75 uses add? (d) Why does layer 0 stay far below at every size?
#
# **Model answer.**
# <!-- BEGIN ANSWER -->
# (a) The centroids fall; the most frequent sense does not move (55.0 at every size): a
# handful of uses shows the majority. A centroid needs examples of *every* sense. Layer 2
# falls by 12 points on *line* (six senses) and 16 on *serve* (four) with 30 uses, and gains a
# little on *hard*; on average from 63.3 to about 55.
# (b) Up to 30 uses the LSTM layers are level with the majority guess on average (50 to 57
# against 55.0); with 75 or more they are ahead (60.5 to 63.3), in a mean over four words with
# no interval, which hides *hard*, where the majority beats every layer at every size.
# (c) Almost nothing: under a point, in either direction. The centroids are as good as these
# vectors allow; more takes better vectors, not more labels.
# (d) Layer 0's centroids differ only in how often each sense is written in each form; its
# score moves with the luck of the sample (at 30 uses, *interest*'s 20.7 → 51.3).
# <!-- END ANSWER -->

# %% [markdown]
# ## 4. The paper's evaluation: SemCor → Senseval and SemEval (Table 5)
#
# The standard benchmark is the **WSD Evaluation Framework** of Raganato et al. (2017):
# training on **SemCor** (37,176 sentences of the Brown corpus, 226,036 words tagged with
# WordNet 3.0 sense keys) and testing on the all-words sets **Senseval-2**, **Senseval-3**,
# **SemEval-2007** and **SemEval-2013**, about 6,300 tagged words. Every content word of a test
# text is disambiguated among all of WordNet's senses of its lemma.
#
# Two notes on the data. The framework's `ALL` also includes SemEval-2015, which the offline
# copy lacks: **our `ALL` is the four sets** and not exactly the paper's test set. And the
# offline copy is a format-identical reconstruction from the corpora's NAF release (its README
# lists the differences); its first-sense scores agree with the published ones within 0.5.
#
# To stay fast this notebook trains on **every tenth SemCor sentence** (a uniform sample),
# embedded once per model and then read from the disk cache.

# %%
# NBVAL_IGNORE_OUTPUT
start = time.perf_counter()
details = {}
table5 = wsd.evaluate_all(embedder, progress=False, semcor_every=10, details=details)
print(f"embedded (or loaded from the disk cache) and scored in {time.perf_counter() - start:.0f} s")

# %%
columns = ["first_sense", "layer0", "layer1", "layer2", "elmo"]
header = " ".join(f"{LABEL.get(c, c):>11s}" for c in columns)
print(f"{'test set':12s} {'instances':>9s} {'unseen':>7s} {header}")
for name, scores in table5.items():
    n, unseen = details[name]["layer1"].total, details["unseen"][name]
    print(f"{name:12s} {n:>9d} {100 * unseen / n:>6.1f}% " +
          " ".join(f"{scores[c]:>11.1f}" for c in columns))
paper = wsd.PAPER_ALL
print(f"{'paper, ALL':12s} {'':>9s} {'':>7s} " +
      " ".join(f"{paper[c]:>11.1f}" if c in paper else f"{'–':>11s}" for c in columns))
print(f"{'CoVe, ALL':12s} {'':>9s} {'':>7s} {'–':>11s} {'–':>11s} "
      f"{paper['cove_layer1']:>11.1f} {paper['cove_layer2']:>11.1f} {'–':>11s}")
print(f"\ntrained on {details['n_train']} SemCor instances; F1 in percent; 'unseen': share of "
      "test words whose lemma the sample never shows (they get WordNet's first sense)")

# %%
fig, ax = plt.subplots(figsize=(7, 3.6))
names = ["first_sense", "layer0", "layer1", "layer2", "elmo"]
ours = [table5["ALL"][n] for n in names]
ax.bar(range(len(names)), ours, color="tab:blue", label="this model, SemCor sample")
marked = [i for i, n in enumerate(names) if n in paper]
ax.scatter(marked, [paper[names[i]] for i in marked], color="tab:red", marker="_", s=900,
           linewidths=3, label="paper (biLM on 1B Word)", zorder=3)
ax.set_xticks(range(len(names)), [LABEL.get(n, n) for n in names])
ax.set_ylim(30, 75)
ax.set_ylabel("F1 on ALL (%)")
ax.set_title("Table 5: nearest sense centroid per layer")
ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2)  # below, covering no bar
plt.tight_layout()
plt.show()

# %%
all_scores = table5["ALL"]
print("layer 2 above layer 1 (the paper's trend):", all_scores["layer2"] > all_scores["layer1"])
print("best layer above WordNet's first sense:",
      max(all_scores[r] for r in wsd.REPRESENTATIONS) > all_scores["first_sense"])

# %% [markdown]
# How far is the sample from the full evaluation? The `layers` command wrote the shipped
# model's full table to `data/models/small/layers.json` (and `LAYERS.md`):

# %%
report = MODEL / "layers.json"
if report.exists():
    full = json.loads(report.read_text())["wsd"]["ALL"]
    print(f"{'ALL':22s} " + " ".join(f"{LABEL.get(c, c):>11s}" for c in columns))
    print(f"{'all of SemCor':22s} " + " ".join(f"{full[c]:>11.1f}" for c in columns))
    print(f"{'every 10th sentence':22s} " + " ".join(f"{all_scores[c]:>11.1f}" for c in columns))
else:
    print(f"{report} not found: run `elmo-tutorial layers {MODEL} --json {report}`")

# %% [markdown]
# ### Exercise 3 (explain): less data, a higher score
#
# With every tenth SemCor sentence, layer 0 scores several points *higher* on ALL than with
# all of SemCor (the two rows above). How can training on less data raise a score? And why
# does layer 0 gain the most?

# %% [markdown]
# **Model answer.**
# <!-- BEGIN ANSWER -->
# Less data means more test lemmas unseen in training, and those get WordNet's first sense,
# the strongest answer here (right about two times in three). The sample swaps some centroid
# decisions for first-sense ones, which helps every representation worse than the first sense,
# most of all layer 0, whose centroids cannot separate the senses of a word form. So compare
# models on all of SemCor.
# <!-- END ANSWER -->

# %% [markdown]
# **Reading the table honestly.**
#
# - **Layer 2 is above layer 1** here, the paper's direction, by under a point on ALL from a
#   tenth of SemCor, with no interval. The `layers` command's full run (all of SemCor) finds
#   layer 2 ahead by +1.21 [+0.53, +1.89] points, an interval over the test instances. Both
#   layers are far above layer 0, which does worse than the back-off alone.
# - **WordNet's first sense beats every layer of this model**, while the paper's biLM beats it
#   by 1.5 (layer 1) and 3.1 points (layer 2). The paper's biLM has 4096-cell LSTMs and read
#   about 800 million words for ten epochs; ours has 512 cells and was trained for minutes on
#   a few million words. A nearest-centroid decision ignores how frequent a sense is, so only
#   vectors that separate senses clearly beat a baseline right two times in three.
# - **The sample flatters every column but the first sense** (Exercise 3): compare models on
#   the full evaluation.
#
# **The full evaluation** (all of SemCor, about a minute to embed on a 2-core CPU) is
# `wsd.evaluate_all(embedder)`, or from a shell, with notebook 10's POS probes:
#
# ```
# elmo-tutorial layers data/models/small --no-ner --markdown layers.md
# ```

# %% [markdown]
# ## 5. The framework's scorer
#
# ### Exercise 4 (implement): the framework's scorer
#
# A WSD system may leave an instance unanswered (ours does when the lemma is neither in SemCor
# nor in WordNet). The framework therefore reports three numbers:
#
# - **precision**: the share of *answered* instances whose answer is right;
# - **recall**: the share of *all* instances whose answer is right;
# - **F1** $= 2PR / (P + R)$, their harmonic mean.
#
# An answer is right when it is **among** the instance's gold keys (annotators sometimes give
# two). Complete `my_score(predictions, gold)`: `predictions` maps an instance id to a sense
# key or `None` (an id may also be missing), `gold` maps every id to its list of gold keys.
# Return `(precision, recall, f1)` in percent. The check compares with the package's
# `wsd.score` and refuses an answer that calls it.

# %%
def my_score(predictions, gold):
    # BEGIN SOLUTION
    answered = [i for i, key in predictions.items() if key is not None]
    right = sum(predictions[i] in gold[i] for i in answered)
    precision = 100 * right / len(answered) if answered else 0.0
    recall = 100 * right / len(gold) if gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if right else 0.0
    return precision, recall, f1
    # END SOLUTION


checks.check_wsd_scorer(my_score)

# %% [markdown]
# Your scorer on section 4's layer-2 predictions for SemEval-2007, against the package's:

# %%
predicted = details["predictions"]["layer2"]["semeval2007"]
_, instances = wsd.split_words(wsd_framework("semeval2007"))
gold = {i.id: list(i.keys) for i in instances}
print("yours:  P {:.2f}  R {:.2f}  F1 {:.2f}".format(*my_score(predicted, gold)))
package = wsd.score(predicted, gold)
print(f"wsd.score: P {package.precision:.2f}  R {package.recall:.2f}  F1 {package.f1:.2f}")

# %% [markdown]
# Every instance has an answer here (the back-off covers every lemma WordNet knows), so
# precision, recall and F1 are equal.
#
# ## Summary
#
# - **Nearest sense centroid** (Melamud et al. 2016; Peters et al. 2018, §5.3): average a
#   sense's contextual vectors over a sense-tagged corpus; label a new use with the sense of
#   the most similar centroid among its lemma's senses; back off to WordNet's first sense. No
#   parameters are learned, so the score measures the vectors.
# - **Layer 0** cannot separate senses; the **LSTM layers** can, and in the paper the **top
#   layer** best (Table 5: 69.0 against 67.4 F1), while POS tagging prefers the first layer
#   (Table 6, notebook 10). This biLM's top layer is ahead too, by about a point.
# - **Baselines matter**: WordNet's first sense is hard to beat; here only the paper's large,
#   well-trained biLM does.
# - The framework's scorer: precision over answered instances, recall over all, F1.
#
# **Read more:** Peters et al. (2018), §5.3 and Table 5; Melamud et al. (2016), *context2vec*;
# Raganato et al. (2017), *Word Sense Disambiguation: A Unified Evaluation Framework and
# Empirical Comparison*. Next: notebook 10 probes the layers for syntax and uses ELMo in a
# tagger.

# %% [markdown]
# ## Check your understanding
#
# Answer each in a sentence or two before you open the instructor's answer.
#
# 1. The nearest-centroid method learns no parameters. Why is that an advantage when asking what
#    a layer knows?
#
# <!-- BEGIN ANSWER -->
# Nothing trained on top of the vectors can make up for them, so the score measures only how
# well the layer places each sense's uses in their own region.
# <!-- END ANSWER -->
#
# 2. Why are the centroids kept per (lemma, part of speech), and a use compared only with the
#    senses of its own lemma?
#
# <!-- BEGIN ANSWER -->
# A use of *bank* must get one of *bank*'s senses; keeping the part of speech apart also keeps
# a noun's and a verb's senses of one string apart.
# <!-- END ANSWER -->
#
# 3. On *hard* the most-frequent-sense baseline beats every layer. How can a centroid method lose
#    to always giving the same answer?
#
# <!-- BEGIN ANSWER -->
# A rare sense's centroid attracts as many uses as a frequent one's. When one sense has 80 % of
# the uses, the errors on it outweigh the gains on the rare senses.
# <!-- END ANSWER -->
#
# 4. What happens to a test word whose lemma never occurs in the training corpus, and why is that
#    a strong answer?
#
# <!-- BEGIN ANSWER -->
# It gets WordNet's first sense, a most-frequent-sense guess (WordNet orders senses by their
# SemCor counts), right about two times in three on these test sets.
# <!-- END ANSWER -->
#
# 5. Why does the course's small biLM not beat WordNet's first sense, while the paper's biLM
#    does?
#
# <!-- BEGIN ANSWER -->
# A nearest-centroid decision ignores sense frequency, so only vectors that separate senses
# clearly beat a baseline right two times in three. The paper's biLM is far larger and read
# far more text.
# <!-- END ANSWER -->
#
# 6. Why is the uniform mix (untrained, equal weights) mostly below the better LSTM layer?
#
# <!-- BEGIN ANSWER -->
# The plain average mixes in layer 0, which cannot separate senses; a task that learns the
# weights could give it less.
# <!-- END ANSWER -->
#
# 7. A lemma has three senses in SemCor, with 40, 8 and 2 training uses. A test use lies
#    nearest to the 2-use centroid. Why trust that answer less than one nearest to the 40-use
#    centroid?
#
# <!-- BEGIN ANSWER -->
# A centroid of 2 uses is mostly those two sentences' context, not the sense; 40 uses average
# the context away.
# <!-- END ANSWER -->
#
# 8. A method answers 800 of 1,000 test instances, 560 of them right, and leaves 200 without
#    an answer. What are its precision, recall and F1?
#
# <!-- BEGIN ANSWER -->
# Precision $560 / 800 = 0.70$, recall $560 / 1{,}000 = 0.56$, F1 $= 2 \cdot 0.70 \cdot 0.56
# / (0.70 + 0.56) \approx 0.62$. With a back-off for the 200, the three become equal.
# <!-- END ANSWER -->
