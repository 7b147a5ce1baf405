# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 10 · Tagging: what a linear probe reads off each layer, and ELMo in a tagger
#
# Notebooks 08 and 09 asked what the biLM's layers know about *meaning*. This one asks about
# *syntax*, the way Peters et al. (2018, §5.3, Table 6) did: freeze the biLM, train nothing but
# a **linear** classifier on one layer's vectors, and see how well it predicts each token's
# part of speech. Then we use ELMo as the paper intends (§3.3): as frozen input to a task
# model that learns its own mix of the layers, here a named-entity tagger on tweets.
#
# **You will:**
# 1. read three tagged datasets: Penn Treebank tags, UD English-EWT's universal tags, and
#    WNUT-17's named entities in BIO format;
# 2. build a linear probe from scratch (softmax regression, its gradient written out), and
#    check that the package's probe minimises exactly that loss;
# 3. predict, then measure, which of layers 0, 1 and 2 of the shipped biLM a probe reads part
#    of speech from best, next to a baseline and the paper's numbers; train the probes on 75
#    to 600 sentences and read what more data buys, and explain why the probes are linear;
# 4. train a small BiLSTM tagger on a learned scalar mix of the frozen layers, read the
#    weights $s_j$ and the scale $\gamma$ it chose, and find out how much of its lead over
#    layer 0 is real;
# 5. write the function that turns BIO tags into entities, the first step of entity-level F1,
#    and let a self-check grade it.
#
# The notebook is two lectures: part of speech (sections 1-4) and named entities (sections 5
# and 6). The subsections marked **(bonus)** are optional: a first reading, or a shorter
# lecture, can pass over them. Run them all the same: the notebook runs top to bottom.
#
# **Prerequisites:** notebook 07 (the scalar mix), notebook 08 (the `Embedder` and the
# layers of the shipped model); softmax and cross-entropy.
#
# **Runtime:** about 50 s on 2 CPU cores the first time, less when the biLM's layers are
# already in the disk cache.

# %% slideshow={"slide_type": "subslide"} tags=["hide-input"]
try:
    from elmo_tutorial.figures import you_are_here
except ModuleNotFoundError as missing:  # opened before `make lab` installed the course
    raise ModuleNotFoundError(
        f"this notebook's kernel cannot import {missing.name}: start JupyterLab with "
        "`make lab` from the repository root (or run `pip install -e .` there, in this "
        "kernel's environment), then restart the kernel") from None

you_are_here("tagging")

# %%
# %matplotlib inline
import json
import time

import matplotlib.pyplot as plt
import numpy as np
import torch

from elmo_tutorial import ELMo, Embedder, checks
from elmo_tutorial.analyses import probes, tagger
from elmo_tutorial.claims import approx, claim
from elmo_tutorial.data.annotated import treebank_pos, ud_english_ewt, wnut17
from elmo_tutorial.model.run_dir import shipped_model
from elmo_tutorial.runtime import setup_notebook

# One thread: the results do not depend on the machine's core count, and the tagger's small
# LSTM steps gain nothing from a second thread (on a busy machine they lose a lot).
device = setup_notebook(seed=0, threads=1)

# %% [markdown]
# ## 1. Tagged data
#
# **Penn Treebank (PTB) tags** are the 45 fine-grained tags of the paper's Table 6 (`NN`,
# `NNS`, `VBD`, `VBZ`, ...). nltk ships a 10% sample of the treebank (199 Wall Street Journal
# articles); `treebank_pos` splits it by article, wsj_0001-0150 for training and wsj_0151-0199
# for testing, and drops the treebank's traces (empty elements such as `*T*-1`, which are not
# words). **UD English-EWT** tags web text (blogs, reviews, e-mail) with the 17 universal tags
# (`NOUN`, `VERB`, `PROPN`, ...). **WNUT-17** marks named entities in tweets and comments with
# BIO tags: `B-type` begins an entity, `I-type` continues it, `O` is outside any entity.

# %%
ptb_train, ptb_test = treebank_pos("train"), treebank_pos("test")
upos_example = ud_english_ewt("test")[4]
wnut_train = wnut17("train")
print(f"PTB: {len(ptb_train)} training and {len(ptb_test)} test sentences")
for name, (words, tags) in [("PTB", ptb_train[1]), ("UD", upos_example),
                            ("WNUT-17", wnut_train[0])]:
    print(f"\n{name}:", " ".join(f"{w}/{t}" for w, t in zip(words[:14], tags[:14], strict=True)))

# %% [markdown]
# ## 2. The shipped biLM's layers, computed once
#
# The biLM stays frozen, so every token's three layers are computed once and reused by every
# probe. `probes.token_layers` embeds the sentences with the `Embedder` (notebook 08) and lays
# the tokens one after another: an array `(3, N, 256)` for `N` tokens. It also keeps them in
# the disk cache (notebook 08), so a second run loads them instead. To stay within a minute
# we probe on the first 600 training sentences and the whole test set.

# %%
# NBVAL_IGNORE_OUTPUT
MODEL = shipped_model("small")  # data/models/small, found from any folder
embedder = Embedder(ELMo.from_run(MODEL))
train, test = ptb_train[:600], ptb_test
start = time.perf_counter()
train_layers = probes.token_layers(embedder, [w for w, _ in train], "ptb-train")  # (3, N, 256)
test_layers = probes.token_layers(embedder, [w for w, _ in test], "ptb-test")
print(f"embedded {train_layers.shape[1] + test_layers.shape[1]} tokens in "
      f"{time.perf_counter() - start:.1f} s")

# %% [markdown]
# Each tag gets a class id (tags sorted, so ids do not depend on the order of the data); a
# test tag never seen in training gets -1, which no probe can predict.

# %%
tag_ids = probes.tag_index(train)
y_train = probes.label_ids(train, tag_ids)
y_test = probes.label_ids(test, tag_ids)
print(train_layers.shape, y_train.shape, f"{len(tag_ids)} tags;",
      f"{(y_test < 0).sum()} test tokens carry a tag unseen in training")

# %% [markdown]
# ## 3. A linear probe from scratch
#
# A probe is multinomial logistic regression. Standardise each dimension with the training
# tokens' mean and standard deviation, $\hat x = (x - \mu)/\sigma$, then
#
# $$p(y = c \mid x) = \mathrm{softmax}(W \hat x + b)_c, \qquad
#   \mathcal{L}(W, b) = -\frac{1}{N}\sum_{k=1}^{N} \log p(y_k \mid x_k)
#   + \frac{\ell_2}{2}\lVert W \rVert^2 .$$
#
# We probe layer 1 here. The loss in code:

# %%
x = torch.tensor(train_layers[1], dtype=torch.float32)  # (N, D)
y = torch.from_numpy(y_train)  # (N,)
mu, sigma = x.mean(0), x.std(0)
z = (x - mu) / sigma  # (N, D), standardised
N, D, C = len(z), z.shape[1], len(tag_ids)
l2 = 1e-4  # the package's default


def loss_fn(W, b):
    logits = z @ W.T + b  # (N, C)
    log_p = logits - torch.logsumexp(logits, dim=1, keepdim=True)  # log-softmax, stable
    return -log_p[torch.arange(N), y].mean() + 0.5 * l2 * (W**2).sum()


# %% [markdown]
# Its gradient has a short closed form: with $P$ the predicted probabilities $(N, C)$ and
# $Y$ the one-hot labels, $\nabla_W \mathcal{L} = (P - Y)^\top \hat X / N + \ell_2 W$ and
# $\nabla_b \mathcal{L} = \frac{1}{N}\sum_k (P_k - Y_k)$: each token pulls the scores of its
# own class towards its vector and pushes the others away, in proportion to how wrong the
# model was. One function returns the loss and both gradients from one forward pass:

# %%
def loss_and_gradient(W, b):
    logits = z @ W.T + b  # (N, C)
    log_p = logits - torch.logsumexp(logits, dim=1, keepdim=True)
    loss = -log_p[torch.arange(N), y].mean() + 0.5 * l2 * (W**2).sum()
    P = log_p.exp()  # (N, C) probabilities
    P[torch.arange(N), y] -= 1  # P - Y
    return float(loss), P.T @ z / N + l2 * W, P.mean(0)  # loss, (C, D), (C,)


# %% [markdown]
# Checked against autograd at a random point. From here on, numbers that come out of sums over
# many tokens or of an optimisation are printed with `≈`: the layers above and every sum
# differ in their last bits from one CPU to another, so your machine may print slightly
# different digits; the claims marked `✓` hold on every machine.

# %%
W0 = (0.01 * torch.randn(C, D)).requires_grad_()
b0 = torch.zeros(C, requires_grad=True)
loss_fn(W0, b0).backward()
_, gW, gb = loss_and_gradient(W0.detach(), b0.detach())
difference = max(float((gW - W0.grad).abs().max()), float((gb - b0.grad).abs().max()))
print(f"largest difference from autograd: {approx(difference, '.0e')}")
claim(difference < 1e-6, "our gradient equals autograd's up to float32 rounding (below 1e-6)")

# %% [markdown] slideshow={"slide_type": "subslide"}
# ### Gradient descent by hand, and the package's L-BFGS (bonus)
#
# Plain gradient descent from zero, 100 steps of size 1. Each step costs two matrix products
# over all training tokens.

# %%
W, b = torch.zeros(C, D), torch.zeros(C)
losses = []
for _ in range(100):
    loss, gW, gb = loss_and_gradient(W, b)
    losses.append(loss)
    W, b = W - 1.0 * gW, b - 1.0 * gb
print(f"loss at steps 0, 10, 50, 99: {losses[0]:.4f}, "
      + ", ".join(approx(losses[i], ".4f") for i in (10, 50, -1)))
claim(losses[10] < losses[0] / 5 and losses[-1] < losses[50] < losses[10],
      "the loss falls fast in the first ten steps, then slowly, and is still falling at step 99")


# %% [markdown]
# The package's `probes.fit_probe` minimises the same loss with L-BFGS, a quasi-Newton method
# that estimates the curvature from its last steps, on all tokens at once. The loss is convex
# and the start is zero, so there is no randomness: the same data always give the same probe
# (on another CPU the layers differ in their last bits, and so does the probe, a little).
# At its solution our own gradient is (close to) zero, and our gradient descent is still on its
# way down to the same minimum:

# %%
probe = probes.fit_probe(train_layers[1], y_train, C, l2=l2)
W_pkg, b_pkg = probe.linear.weight.detach(), probe.linear.bias.detach()
print("same standardisation:", bool(torch.allclose(probe.mean, mu) and
                                    torch.allclose(probe.std, sigma)))
loss_pkg, gW, gb = loss_and_gradient(W_pkg, b_pkg)
loss_ours = loss_and_gradient(W, b)[0]
print(f"our loss at the package's probe: {approx(loss_pkg, '.4f')}   "
      f"largest gradient entry there: {approx(gW.abs().max(), '.0e')}")
print(f"our loss after 100 steps:        {approx(loss_ours, '.4f')}")
test_x = torch.tensor(test_layers[1], dtype=torch.float32)
ours = ((test_x - mu) / sigma @ W.T + b).argmax(1)
accuracy_pkg = probes.accuracy(probe, test_layers[1], y_test)
accuracy_ours = 100 * float((ours == torch.from_numpy(y_test)).float().mean())
print(f"test accuracy: package {approx(accuracy_pkg, '.2f')}%, "
      f"our 100 steps {approx(accuracy_ours, '.2f')}%")
claim(loss_pkg < loss_ours and float(gW.abs().max()) < 1e-2,
      "the package's probe sits lower, where our gradient is close to zero")
claim(abs(accuracy_pkg - accuracy_ours) < 1,
      "on test tokens our 100 steps are within a point of the package's probe")

# %% [markdown]
# ## 4. Which layer knows part of speech? (Table 6)
#
# One probe per layer, the same data and loss, each fitted by the package's `probes.fit_probe`
# (L-BFGS on section 3's loss; layer 1's is the probe fitted above). Next to them, a
# baseline that uses no vectors at all: tag each word with its most frequent training tag
# (unseen words get the most frequent tag overall, `NN`). Layer 0 is the biLM's
# character-based token vector: it knows a word's spelling (suffixes like *-ed*, *-ly*,
# capitals, digits) but not its context.
#
# ### Exercise 1 (predict): which layer wins?
#
# Before you run the next cell, write down the order you expect of the four rows: the
# most-frequent-tag baseline and the probes on layers 0, 1 and 2 of our small biLM. Which
# layer comes out on top, and by how much? (The paper's biLM: layer 1 97.3, layer 2 96.8.)

# %% [markdown]
# **Prediction.**
# <!-- BEGIN ANSWER -->
# Baseline < layer 0 < layers 1 and 2. Layer 0 knows spelling, which gives away the tag of
# most words the baseline has never seen; layers 1 and 2 add the context, which settles the
# ambiguous ones (*run*, *that*, *back*). Which of layers 1 and 2 wins cannot be predicted
# with confidence: in the paper layer 1 wins by only half a point, so expect the two within
# a point of each other, in either order.
# <!-- END ANSWER -->

# %%
probe_of = {1: probe}  # section 3's probe of layer 1: the same data, loss and start
for j in (0, 2):
    probe_of[j] = probes.fit_probe(train_layers[j], y_train, C, l2=l2)
accuracy = {f"layer{j}": probes.accuracy(probe_of[j], test_layers[j], y_test) for j in (0, 1, 2)}
accuracy["most frequent tag"] = probes.most_frequent_tag_accuracy(train, test)
for name, value in accuracy.items():  # the baseline counts words: the same everywhere
    shown = f"{value:.2f}" if name == "most frequent tag" else approx(value, ".2f")
    print(f"{name:<18} {shown:>6}%")
margin = accuracy["layer1"] - accuracy["layer2"]
print(f"layer 1 - layer 2: {approx(margin, '+.2f')} points = "
      f"{approx(margin * len(y_test) / 100, '+.0f')} of {len(y_test)} test tokens "
      "(paper: +0.5 points)")
claim(accuracy["layer0"] > accuracy["most frequent tag"] + 5,
      "layer 0 beats the most-frequent-tag baseline by more than five points")
claim(min(accuracy["layer1"], accuracy["layer2"]) > accuracy["layer0"] + 2,
      "layers 1 and 2, which have read the sentence, beat layer 0 by more than two points")
claim(abs(margin) < 1, "layers 1 and 2 are within a point of each other")

# %%
fig, ax = plt.subplots(figsize=(7, 3.4))
names = ["most frequent tag", "layer0", "layer1", "layer2"]
bars = ax.bar(names, [accuracy[n] for n in names],
              color=["#bbbbbb", "#8ecae6", "#219ebc", "#023047"],
              label="this biLM, 600 training sentences")
ax.bar_label(bars, fmt="%.1f", padding=2, fontsize=10)
ax.scatter(["layer1", "layer2"], [probes.PAPER_PTB["layer1"], probes.PAPER_PTB["layer2"]],
           color="#fb8500", zorder=3, label="paper (full PTB, 1B Word biLM)")
ax.set_ylim(min(accuracy.values()) - 8, 100)
ax.set_ylabel("PTB POS accuracy (%)")
ax.set_title("A linear probe per frozen layer")
ax.legend(loc="upper left")
plt.tight_layout()
plt.show()

# %% [markdown]
# What the numbers say:
#
# - **Layer 0 is far above the most-frequent-tag baseline.** With only 600 training sentences
#   many test words were never seen, and the baseline can only guess `NN` for them. Layer 0
#   has no context but knows spelling: *-ed*, *-ly*, *-s*, capitals and digits give the tag
#   of most unseen words away.
# - **Context adds about four points**: layers 1 and 2 have read the sentence, so they can
#   tell *run* the noun from *run* the verb.
# - **Layer 1 against layer 2**: within a few tenths of a point of each other, a handful of
#   tokens (the line above prints the gap your run measured; it can fall either way from one
#   CPU to another). That is within what a different training subset, a few more
#   L-BFGS iterations or even another CPU change, so this run alone does not establish the
#   trend. The paper's gap is itself small (97.3 vs 96.8) and comes from a biLM about 25
#   times larger, trained on 200 times more text. Why our two layers are so close is not
#   measured here. The residual connection alone cannot be the reason: the paper's biLM has
#   the same connection from its first to its second layer (§3.4), and its layers differ. The
#   paper reports the finding (syntax lower, meaning higher: Tables 5 and 6) without a
#   mechanism; notebook 09 shows the other side, where the top layer is the better one.
# - Our absolute numbers are below the paper's for three more reasons: 600 training sentences
#   instead of the full treebank's 40,000, a 3.5 M-parameter biLM, and text (Wall Street
#   Journal) unlike the mix of books and web text the biLM was trained on.
#
# ### Exercise 2 (experiment): how much training data does a probe need?
#
# Our probes learned from 600 sentences; the paper's from the whole treebank. How much does
# the amount of training data matter, and does it matter alike for every layer? For every
# number `n` in `sizes`, train a layer-0 and a layer-1 probe on the tokens of the **first
# `n`** training sentences only (`train_layers[j]` holds the tokens sentence after sentence,
# `y_train` their tags) and keep them in a dict `fitted` from `(j, n)` to the probe. The cell
# then measures every probe's test accuracy, next to the most-frequent-tag baseline counted on
# the same sentences, adds section 4's probes as the points at 600, and draws the curves. It
# takes a few seconds; afterwards, try other sizes (one line; keep 300, which the check
# reads).

# %%
sizes = [75, 150, 300]  # training sentences; 600 is section 4
# BEGIN SOLUTION
fitted = {}
for n in sizes:
    rows = sum(len(words) for words, _ in train[:n])  # the tokens of the first n sentences
    for j in (0, 1):
        fitted[j, n] = probes.fit_probe(train_layers[j][:rows], y_train[:rows], C, l2=l2)
# END SOLUTION
curve = {(j, n): probes.accuracy(p, test_layers[j], y_test) for (j, n), p in fitted.items()}
checks.check_half_data_probe(fitted[1, 300], curve[1, 300], train_layers[1],
                             [len(words) for words, _ in train], test_layers[1], y_test)
every = sorted({*sizes, len(train)})
curve.update({(j, len(train)): accuracy[f"layer{j}"] for j in (0, 1)})
baseline = {n: probes.most_frequent_tag_accuracy(train[:n], test) for n in every}
print(f"{'sentences':<18}" + "".join(f"{n:>9d}" for n in every))
print(f"{'most frequent tag':<18}" + "".join(f"{baseline[n]:>8.2f}%" for n in every))
for j in (0, 1):
    print(f"{f'layer{j}':<18}" + "".join(f"{approx(curve[j, n], '7.2f')}%" for n in every))
gap = {n: curve[1, n] - curve[0, n] for n in every}
print(f"{'layer1 - layer0':<18}" + "".join(approx(gap[n], "+8.2f") for n in every))
claim(0 < curve[1, len(train)] - curve[1, 300] < gap[len(train)] / 2,
      "halving the training data costs layer 1 accuracy, but less than half of what the "
      "context adds")
claim(curve[1, min(every)] > curve[0, len(train)],
      f"layer 1 on {min(every)} sentences beats layer 0 on {len(train)}")

fig, ax = plt.subplots(figsize=(8, 3.4))
ax.plot(every, [baseline[n] for n in every], "o--", color="#bbbbbb", label="most frequent tag")
for j, color in ((0, "#8ecae6"), (1, "#219ebc")):
    ax.plot(every, [curve[j, n] for n in every], "o-", color=color, label=f"layer{j} probe")
ax.set_xscale("log")
ax.set_xticks(every, [str(n) for n in every])
ax.minorticks_off()
ax.set(xlabel="training sentences", ylabel="PTB POS accuracy (%)",
       title="Probes and baseline with more training data")
ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1))
plt.tight_layout()
plt.show()

# %% [markdown]
# Read the table and the plot, and write down your reading before you open the model answer:
# (a) is the cost of halving the data (300 instead of 600 sentences) larger or smaller than
# what the context adds (layer 1 over layer 0)? (b) Which of the three gains most from more
# data, and why? (c) Does the gap between layers 1 and 0 grow or shrink with more data, and
# what would you expect with the whole treebank?
#
# **Model answer.**
# <!-- BEGIN ANSWER -->
# (a) Smaller: 300 sentences instead of 600 cost layer 1 about one point (about 93.6 → 92.7
# where this notebook was built; your table prints your run's), while the context adds about
# four (layer 1 over layer 0 at 600). Context is worth more than data here: layer 1 on 75
# sentences (about 91) beats layer 0 on 600 (about 90).
# (b) The baseline gains most, 14 points from 75 to 600 sentences: its errors are mostly words
# it has never seen (it can only guess `NN`), and every new sentence shows it new words. Layer
# 0 gains about 5 points and layer 1 about 3: their spelling (and context) already generalise
# to unseen words, so they need fewer examples.
# (c) It shrinks, from about 6.5 points at 75 sentences to about 4 at 600: with more data the
# layer-0 probe learns more spellings and more of the frequent words, and catches up part of
# what context gives. With the whole treebank expect it smaller still, but not gone: no amount
# of training data tells a probe on layer 0 whether *run* or *that* in this sentence is one
# tag or the other; only the context does.
# <!-- END ANSWER -->

# %% [markdown]
# ### Exercise 3 (explain): why a linear probe?
#
# The probes of sections 3 and 4 are linear: one matrix from a layer's vector to the tag
# scores. A probe with a hidden layer (an MLP) would score higher on every layer. Why do
# Peters et al. (and this notebook) use a linear one to ask what a layer *knows*?

# %% [markdown]
# **Model answer.**
# <!-- BEGIN ANSWER -->
# The probe is meant to measure the layer, not itself. A linear probe can only read what the
# layer already lays out along directions, so its accuracy says how plainly the layer encodes
# the tags. A powerful probe could compute part of the answer itself: given enough capacity
# and data it could learn the tags even from the spelling in layer 0, and the differences
# between layers would shrink to differences in how easy the probe's own job is. A linear
# probe with the same data and loss for every layer keeps the comparison about the layers.
# <!-- END ANSWER -->

# %% [markdown]
# The full evaluation (all 3,262 PTB training sentences, and UD English-EWT's 12,544 training
# and 2,077 test sentences) is one call, `probes.evaluate_pos(embedder)`, or, with the
# word-sense tables of notebook 09, `elmo-tutorial layers data/models/small`. It takes a few
# minutes on a laptop CPU.

# %% [markdown]
# ## 5. ELMo in a tagger: named entities on WNUT-17
#
# Now the paper's recipe for a task (§3.3): freeze the biLM, and let the task model learn
# $\mathrm{ELMo}_k = \gamma \sum_j s_j \, \mathrm{LN}(h_{k,j})$ (notebook 07) together with its
# own weights, with $\lambda\,$`penalty()` (here $\lambda = 0.001$) added to the loss. The
# task model is small: one bidirectional LSTM of 64 cells per direction and a linear layer
# that scores the 13 BIO tags of each token. For a fair comparison, the same tagger is
# trained on layer 0 alone.
#
# The taggers are scored as WNUT-17 scores them: an entity counts only if its span (first and
# last token) and its type are both exactly right. A tagger that finds *Empire State* in
# *Empire State Building* gets no credit: one false positive and one miss.
#
# To fit in a minute we train on the first 1,000 training sentences for 6 epochs, pick
# the best epoch on 300 validation sentences, and test on the whole test set.

# %%
NER_EPOCHS = 6
ner = {split: wnut17(split)[:n] for split, n in
       (("train", 1000), ("valid", 300), ("test", None))}
ner_tags = ["O", *sorted({t for _, ts in ner["train"] for t in ts} - {"O"})]
ner_layers = {split: tagger.sentence_layers(
    probes.token_layers(embedder, [w for w, _ in data], f"wnut17-{split}"),
    [len(w) for w, _ in data]) for split, data in ner.items()}  # per sentence (T, 3, 256)
print({split: len(xs) for split, xs in ner_layers.items()}, ner_layers["train"][0].shape)


# %%
def train_ner(inputs, n_layers, epochs=NER_EPOCHS, seed=0):
    torch.manual_seed(seed)  # the tagger's initial weights
    model = tagger.BiLSTMTagger(tagger.FrozenLayers(n_layers), 256, len(ner_tags))
    history = tagger.train_tagger(
        model, inputs["train"], [t for _, t in ner["train"]], ner_tags, epochs=epochs,
        seed=seed, valid=(inputs["valid"], [t for _, t in ner["valid"]]))
    predicted = tagger.predict_tags(model, inputs["test"], ner_tags)
    return model, history, tagger.entity_scores([t for _, t in ner["test"]], predicted), predicted


# NBVAL_IGNORE_OUTPUT
start = time.perf_counter()
elmo_model, elmo_history, elmo_scores, elmo_predicted = train_ner(ner_layers, 3)
layer0_inputs = {split: [x[:, :1] for x in xs] for split, xs in ner_layers.items()}
_, layer0_history, layer0_scores, layer0_predicted = train_ner(layer0_inputs, 1)
print(f"trained two taggers in {time.perf_counter() - start:.0f} s")

# %%
for name, scores in (("ELMo mix", elmo_scores), ("layer 0", layer0_scores)):
    print(f"{name:<9} precision {approx(scores['precision'], '5.1f')}  recall "
          f"{approx(scores['recall'], '5.1f')}  F1 {approx(scores['f1'], '5.1f')}   "
          f"({approx(scores['correct'], 'd')} of {scores['gold']} gold entities, "
          f"{approx(scores['predicted'], 'd')} predicted)")
mix = elmo_model.inputs.mix
weights = mix.weights.detach()
print("learned s =", approx(weights, ".3f"), f" γ = {approx(mix.gamma.item(), '.3f')}")
claim(all(5 < s["f1"] < 40 and s["precision"] > s["recall"]
          for s in (elmo_scores, layer0_scores)),
      "both taggers find some entities (F1 between 5 and 40), and are more precise than complete")
claim(abs(float(weights.sum()) - 1) < 1e-6 and float(weights.min()) > 0.2,
      "the learned s sum to 1 and stay near uniform (each above 0.2)")

# %% [markdown] slideshow={"slide_type": "subslide"}
# ### How much of the gap is the test sample? A paired bootstrap (bonus)
#
# How much of a difference between two F1 scores is real? It has two sources of noise: the
# test sentences (another sample of tweets would give other scores) and the training run
# (another seed gives other initial weights and another order of the batches). The first
# costs nothing to measure: draw the test sentences again with replacement, 1,000 times, and
# score both taggers' predictions on each draw (a paired bootstrap). An entity-level F1 is
# $2 \cdot \text{correct} / (\text{gold} + \text{predicted})$, so per-sentence counts suffice.

# %%
gold_tags = [t for _, t in ner["test"]]


def entity_counts(predicted):
    """(n, 3): per test sentence, the entities right, in the gold tags, and predicted."""
    return np.array([[len(tagger.bio_spans(g) & tagger.bio_spans(p)), len(tagger.bio_spans(g)),
                      len(tagger.bio_spans(p))] for g, p in zip(gold_tags, predicted, strict=True)])


def f1_of(counts):  # (..., 3) summed counts → F1 in percent
    return 200 * counts[..., 0] / (counts[..., 1] + counts[..., 2])


elmo_counts, layer0_counts = entity_counts(elmo_predicted), entity_counts(layer0_predicted)
draws = np.random.default_rng(0).integers(0, len(gold_tags), size=(1000, len(gold_tags)))
difference = f1_of(elmo_counts[draws].sum(1)) - f1_of(layer0_counts[draws].sum(1))  # (1000,)
low, high = np.percentile(difference, [2.5, 97.5])
print(f"F1, ELMo mix − layer 0: {approx(elmo_scores['f1'] - layer0_scores['f1'], '+.1f')} "
      f"points; over 1,000 draws of the test sentences: standard deviation "
      f"{approx(difference.std(), '.1f')}, 95% of the draws between {approx(low, '+.1f')} and "
      f"{approx(high, '+.1f')}; layer 0 level or ahead in "
      f"{approx(100 * (difference <= 0).mean(), '.1f')} % of them")
claim(difference.std() > 0.5,
      "the choice of test sentences alone moves the difference by more than half a point")
claim(elmo_scores["f1"] > layer0_scores["f1"], "after 6 epochs the mix is ahead of layer 0")

# %% [markdown]
# The 1,000 differences as a histogram, with the range that holds 95 % of them (shaded), the
# difference on the whole test set, and 0, no difference:

# %%
fig, ax = plt.subplots(figsize=(8, 3.2))
ax.hist(difference, bins=40, color="#8ecae6")
ax.axvspan(low, high, color="#219ebc", alpha=0.25, label="95 % of the draws")
ax.axvline(elmo_scores["f1"] - layer0_scores["f1"], color="#023047", linewidth=2,
           label="whole test set")
ax.axvline(0, color="#fb8500", linestyle="--", linewidth=2, label="no difference")
ax.set_xlim(min(0, difference.min()) - 0.5, difference.max() + 0.5)
ax.set(xlabel="F1, ELMo mix − layer 0 (points)", ylabel="draws",
       title="The test sentences drawn again, 1,000 times")
ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1))
plt.tight_layout()
plt.show()

# %% [markdown]
# Is 0 inside the shaded range? That depends on this one pair of runs, and the runs change from
# one CPU to another. The same cells, with the same seeds, gave a lead of 5.4 points on one CPU
# (95 % of the draws between +2.9 and +7.9: none put layer 0 level or ahead), 4.4 on another
# (+1.6 to +7.0), and 1.9 with PyTorch's plainest CPU kernels, `ATEN_CPU_CAPABILITY=default`
# (−0.6 to +4.3: 0 inside). Compare your own output above. Where 0 lies outside, the test
# sample alone would not explain the lead. But the leads differ from one CPU to the next by
# more than the bootstrap's standard deviation, on the same test sentences: the training run
# moved. The bootstrap answers for the test sample, never for the training run.
#
# ### Still learning: the dev curves, and the full comparison
#
# Each tagger here was trained once, with one seed, for a fixed 6 epochs. Look at their dev F1
# after each epoch:

# %%
for name, history in (("ELMo mix", elmo_history), ("layer 0", layer0_history)):
    curve = ", ".join(approx(h["f1"], ".1f") for h in history)
    print(f"{name:<9} dev F1 by epoch: {curve}")
claim(all(history[-1]["f1"] > history[-2]["f1"] for history in (elmo_history, layer0_history)),
      "both taggers' dev F1 still rose in their last epoch: neither has finished learning")

# %% [markdown]
# Both curves are still climbing when training stops, so the comparison above is of two
# unfinished runs, and the one that learns faster wins. The `layers` command measures it
# properly: all 3,394 training sentences, **five seeds**, every tagger trained until its dev F1
# has not improved for 5 epochs (then its best epoch kept), and the difference between the mix
# and layer 0 paired by seed, with a 95 % interval (Student's t over the seeds). Its result for
# this biLM is kept in `data/models/small/layers.json`:

# %%
full = json.loads((MODEL / "layers.json").read_text(encoding="utf-8"))["ner"]["wnut17"]
for arm, name in (("elmo", "ELMo mix"), ("layer0", "layer 0"), ("word_type", "word types")):
    per_seed = ", ".join(f"{x:.1f}" for x in full["runs"][arm])
    print(f"{name:<10} test F1 per seed: {per_seed}   mean {full[arm]:.1f} ± "
          f"{full['std'][arm]:.1f}")
paired = full["differences"]["elmo_vs_layer0"]
print(f"ELMo mix − layer 0, paired by seed: {paired['mean']:+.1f} points, 95 % interval "
      f"[{paired['low']:+.1f}, {paired['high']:+.1f}]")
learned = full["differences"]["elmo_vs_word_type"]
print(f"ELMo mix − word types learned from the training tweets alone: "
      f"{learned['mean']:+.1f} points, 95 % interval [{learned['low']:+.1f}, "
      f"{learned['high']:+.1f}]")
claim(learned["low"] > 0 and full["word_type"] < full["layer0"],
      "vectors learned with the task alone score below both of the biLM's inputs")
spread = max(full["runs"]["elmo"]) - min(full["runs"]["elmo"])
print(f"the mix's F1 over the five seeds spans {spread:.1f} points")

# %% [markdown]
# The task model of notebooks 12-13 answers the same question with other settings. The
# `layers` command (with `--ner-ladder`) also moves this tagger towards that model's training
# one setting at a time, each step keeping the ones before it; its intervals cover the test
# sentences as well as the seeds:

# %%
ladder = json.loads((MODEL / "layers.json").read_text(encoding="utf-8"))["ner_ladder"]
short = {"probe": "this tagger", "dropout": "+ dropout 0.5",
         "optimiser": "+ the task model's optimiser", "no_layer_norm": "+ no layer norm in the mix"}
print(f"{'settings (each row keeps the ones above)':<42}{'mix':>6}{'layer 0':>9}   mix − layer 0")
for name, step in ladder.items():
    d = step["difference"]
    mix, layer_0 = (sum(step[arm]) / len(step[arm]) for arm in ("elmo", "layer0"))
    print(f"{short[name]:<42}{mix:6.1f}{layer_0:9.1f}   {d['mean']:+.1f} "
          f"[{d['low']:+.1f}, {d['high']:+.1f}]")
claim(all(step["difference"]["low"] <= 0 <= step["difference"]["high"]
          for step in ladder.values()),
      "at every step the mix and layer 0 are level within their interval")

# %% [markdown]
# What the numbers say:
#
# - **WNUT-17 is hard**, for every model: its entities are rare and new by design (few of the
#   test entities occur in training), and the text is tweets and comments, far from what our
#   biLM read. Systems of 2017 scored about 40 F1 with much larger inputs; a tagger on a
#   3.5 M-parameter biLM's layers finds only a small share of the entities (low recall) and is
#   right only a fifth to a third of the time when it does (precision).
# - **The mix against layer 0**: after 6 epochs on 1,000 sentences the mix is ahead by a few
#   points: a lead of the size the test sample alone can move (the bootstrap's standard
#   deviation is over a point), and one that changes from one CPU to another. Trained to
#   convergence on every training sentence with five seeds, the two are level: the paired
#   difference's interval holds 0, and the seed alone moves one tagger's F1 by several
#   points. The gap here measured how fast the two taggers learn, not how good they get: **a
#   comparison needs every arm trained until it stops improving, several seeds, and an
#   interval**.
# - So in this tagger, which reads the biLM's layers and nothing else, this small biLM's
#   contextual layers add nothing measurable on top of its character layer, and the training
#   settings do not change that: with the task model's dropout, optimiser and mix without
#   layer norm, one at a time, the two stay level (the table above; dropout costs each of them
#   3 to 6 points). The task model of notebooks 12-13, on the same data, does measure a gain of
#   context (`TASKS.md`: +4.9 F1 over layer 0, 95 % interval [+1.6, +8.2]). What it has that
#   this tagger lacks is inputs: word vectors and a character CNN of its own, in both arms. So
#   the answer depends on what else the tagger reads; why those inputs make the difference was
#   not tested. The paper's biLM adds large gains on CoNLL-2003 NER (Table 1:
#   92.22 F1 with ELMo), and its upper layers know far more than ours (notebooks 08-09).
# - **Pre-trained or learned with the task?** The third row is a tagger whose input is a vector
#   per word *type*, learned from the 3,394 training tweets alone with the tagger, no
#   pretraining: the usual embedding layer of a model trained from scratch. It scores far
#   below both biLM inputs. Most of what these taggers know about words comes from the
#   unlabelled text the biLM read, not from the labels; a word seen once in training, or
#   never, gets almost nothing from the task's own vectors.
# - **The learned mix** stays close to uniform ($s_j \approx 1/3$) and $\gamma$ rises
#   above 1: the task found no single layer much better, and rescaled the normalised layers
#   as a whole, the job the paper gives $\gamma$ (§3.2). $\lambda$ is small (0.001) and
#   does not hold the weights back.
#
# `tagger.evaluate_ner(embedder)` runs that protocol, with all three inputs; `elmo-tutorial layers
# data/models/small` runs it with every table of notebooks 09 and 10, in about 20 minutes on
# two CPU cores.

# %% [markdown]
# ## 6. From BIO tags to entities
#
# ### Exercise 4 (implement): from BIO tags to entities
#
# Entity-level F1 compares *sets of entities*, so its first step reads the entities off a
# tag sequence. Complete `my_bio_spans(tags)`: return the set of `(type, start, end)` with
# `end` one past the last token. An entity starts at `B-X`; `I-X` continues it. Read an `I-X`
# that does not continue an entity of type `X` (after `O`, or after another type) as the start
# of a new one, as the CoNLL scorer `conlleval` does.

# %%
def my_bio_spans(tags):
    # BEGIN SOLUTION
    spans, start, kind = set(), None, None
    for i, tag in enumerate([*tags, "O"]):  # a final "O" closes the last entity
        prefix, _, label = tag.partition("-")
        continues = start is not None and prefix == "I" and label == kind
        if start is not None and not continues:
            spans.add((kind, start, i))
            start = None
        if prefix == "B" or (prefix == "I" and not continues):
            start, kind = i, label
    return spans
    # END SOLUTION


checks.check_bio_spans(my_bio_spans)

# %% [markdown]
# With it, precision is the share of predicted entities that are in the gold set, recall the
# share of gold entities that were predicted, F1 their harmonic mean (`tagger.entity_scores`):

# %%
gold = [["B-location", "I-location", "I-location", "O", "B-person"]]
guess = [["B-location", "I-location", "O", "O", "B-person"]]
print(sorted(my_bio_spans(gold[0])), sorted(my_bio_spans(guess[0])))  # a set's order varies
print({k: round(v, 1) for k, v in tagger.entity_scores(gold, guess).items()})

# %% [markdown]
# ## Summary
#
# - A **linear probe** is multinomial logistic regression on one frozen layer's vectors; its
#   loss is convex, so L-BFGS from zero gives the same probe every time (`probes.fit_probe`).
#   What it gets right is (linearly) present in the layer: Peters et al. (2018) use it to ask
#   what each layer encodes (§5.3).
# - **Part of speech (Table 6):** context matters (layers 1 and 2 beat the context-free layer
#   0, which beats tagging each word with its most frequent tag); the paper finds layer 1
#   slightly better than layer 2 (97.3 vs 96.8 on the PTB), syntax sitting lower than meaning.
#   Our small biLM puts the two layers within a few tenths of a point of each other.
# - **Downstream (§3.3):** freeze the biLM, compute its layers once, and let the task learn
#   $\gamma \sum_j s_j \mathrm{LN}(h_j)$ with the $\lambda$ penalty (`tagger.FrozenLayers`,
#   `ScalarMix`). Score NER by exact entities (`tagger.entity_scores`): a partly found entity
#   is both a false positive and a miss.
# - Small differences need their noise measured: another sample of test sentences (the
#   bootstrap), another seed, another training subset; and every model trained until it stops
#   improving, or the comparison ranks how fast models learn.
#
# Full evaluation: `probes.evaluate_pos(embedder)`, `tagger.evaluate_ner(embedder)`, or
# `elmo-tutorial layers data/models/small`. Next: notebook 11 loads the official ELMo
# weights, whose upper layers know far more than our small model's.

# %% [markdown]
# ## Check your understanding
#
# Short questions on the whole notebook; answer each in a sentence or two before you open the
# instructor's answer.
#
# 1. Why are the biLM's layers computed once and reused by every probe and tagger?
#
# <!-- BEGIN ANSWER -->
# The biLM is frozen, so a sentence's layers never change: computing them once (and caching them)
# lets every probe and tagger train quickly on the same vectors. Freezing also keeps the question
# about what the pre-trained layers contain.
# <!-- END ANSWER -->
#
# 2. Why does fitting a probe with L-BFGS give the same probe every time?
#
# <!-- BEGIN ANSWER -->
# The loss, softmax regression with an L2 penalty, is convex and the start is zero, so there is
# no randomness, and no local minimum to get stuck in. Only a difference in the layers' last bits
# (another CPU) changes the probe, a little.
# <!-- END ANSWER -->
#
# 3. Why does layer 0, which has no context, beat the most-frequent-tag baseline by far?
#
# <!-- BEGIN ANSWER -->
# With 600 training sentences many test words were never seen, and the baseline can only guess
# `NN` for them. Layer 0 knows the spelling (*-ed*, *-ly*, *-s*, capitals, digits), which gives
# away the tag of most unseen words.
# <!-- END ANSWER -->
#
# 4. What do layers 1 and 2 add over layer 0 for part of speech?
#
# <!-- BEGIN ANSWER -->
# Context: they have read the sentence, so they can tell the uses of an ambiguous word apart,
# *run* the noun from *run* the verb, which no spelling can.
# <!-- END ANSWER -->
#
# 5. Here layer 1 beats layer 2 by a handful of test tokens, the paper's order. Why does that not
#    confirm the paper's finding?
#
# <!-- BEGIN ANSWER -->
# A difference of a few tokens is within what another training subset, a few more L-BFGS
# iterations or another CPU would change. The paper's own gap is small too, and comes from a far
# larger biLM.
# <!-- END ANSWER -->
#
# 6. A tagger predicts *Empire State* where the gold entity is *Empire State Building*. How is
#    that scored?
#
# <!-- BEGIN ANSWER -->
# As one false positive (a predicted entity not in the gold set) and one miss (a gold entity not
# predicted): an entity counts only if its span and its type are both exactly right.
# <!-- END ANSWER -->
#
# 7. Why is the bootstrap paired, scoring both taggers on the same draws of test sentences?
#
# <!-- BEGIN ANSWER -->
# Some sentences are hard for both taggers. On the same draw they move both scores alike, and
# that shared variation cancels in the difference, so what remains measures how much the
# difference itself depends on the sample.
# <!-- END ANSWER -->
#
# 8. After 6 epochs the mix led layer 0 by a few points, and on some CPUs the bootstrap's range
#    for the difference excluded 0; yet the full comparison found the two taggers level. Why
#    was the first comparison misleading, and why could the bootstrap not warn you?
#
# <!-- BEGIN ANSWER -->
# Both taggers were still improving when training stopped, so the faster learner won. The
# bootstrap measures only the noise from the choice of test sentences, not from the training
# run (another seed, or another CPU, gives another lead). Trained until dev F1 stopped
# improving, with five seeds, the paired interval held 0.
# <!-- END ANSWER -->
#
# 9. The tagger learned weights $s_j$ close to uniform and a $\gamma$ above 1. What does that
#    say?
#
# <!-- BEGIN ANSWER -->
# The task found no single layer much better than the others, and rescaled the normalised layers
# as a whole, the job the paper gives $\gamma$. With $\lambda = 0.001$ the penalty was too weak
# to be what held the weights near uniform.
# <!-- END ANSWER -->
#
# 10. A tagger finds 300 entities, 90 of them exactly right, in a test set of 1,000 gold
#     entities. What are its precision, recall and F1, and what would predicting nothing
#     score?
#
# <!-- BEGIN ANSWER -->
# Precision $90 / 300 = 30\,\%$, recall $90 / 1{,}000 = 9\,\%$, F1 $= 2 \cdot 0.30 \cdot
# 0.09 / 0.39 \approx 13.8\,\%$. Predicting nothing scores 0 F1 (no entity is found), even
# though nearly every token's tag, O, would be right.
# <!-- END ANSWER -->
