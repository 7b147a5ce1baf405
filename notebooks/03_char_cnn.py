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
# # 03 · The character CNN: from 50 character ids to a word vector
#
# ELMo has no word embedding table. Layer 0 of the biLM, the token vector $x_k$, is computed
# from the token's characters by a convolutional network (Peters et al. 2018, Sec. 3.4,
# following Kim et al. 2016): character embeddings → convolutions of 7 widths → max over the
# word → ReLU → 2 highway layers → a linear projection to 512. Any string gets a vector,
# so nothing is ever out of vocabulary on the input side.
#
# **You will:**
# 1. look up character embeddings (a 262-row table);
# 2. compute one convolution width from scratch and compare it with `nn.Conv1d`, then
#    max-pool over the word; predict what a filter detects, and explore which n-grams the
#    filters of a trained biLM detect;
# 3. assemble the paper's 7 widths (2048 filters) and count the encoder's parameters for any
#    configuration;
# 4. write a highway layer (and see why it has a gate), then project; check everything
#    against `CharCNN`;
# 5. follow one word, *good*, through the trained tiny model, with the shape at every step;
# 6. give vectors to words no vocabulary has, and measure what computing each *distinct*
#    token of a batch only once saves.
#
# **Prerequisites:** notebook 02 (character ids), `nn.Linear`, ReLU and sigmoid.
#
# **Runtime:** about 10 s on 2 quiet CPU cores.

# %% slideshow={"slide_type": "subslide"} tags=["hide-input"]
try:
    from elmo_tutorial.figures import you_are_here
except ModuleNotFoundError as missing:  # opened before `make lab` installed the course
    raise ModuleNotFoundError(
        f"this notebook's kernel cannot import {missing.name}: start JupyterLab with "
        "`make lab` from the repository root (or run `pip install -e .` there, in this "
        "kernel's environment), then restart the kernel") from None

you_are_here("token_encoder")

# %%
import time
from collections import Counter

import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F

from elmo_tutorial import ELMo, checks, claims, load_elmo, shipped_model
from elmo_tutorial.analyses.char_filters import filter_responses
from elmo_tutorial.data.corpora import ensure_nltk, nltk_corpus
from elmo_tutorial.model.char_cnn import CharCNN, Highway
from elmo_tutorial.model.chars import batch_to_ids, word_to_char_ids
from elmo_tutorial.model.config import ModelConfig
from elmo_tutorial.runtime import setup_notebook
from elmo_tutorial.widgets import Slider, explore

setup_notebook(seed=0)  # seeds, threads, print precision; small enough for the CPU

# %% [markdown]
# The text comes from the Brown corpus of the NLTK data. This cell finds it, or, if it is
# missing and you are online, downloads it once (10 MB); offline it says how to get it.

# %%
ensure_nltk("brown")

# %% [markdown]
# We use the paper's architecture with freshly initialised (untrained) weights: this notebook
# is about what the network *computes*. Section 2 also looks into the filters of a biLM
# trained by this package, and notebook 11 loads the official trained weights.

# %%
config = ModelConfig()  # the paper's biLM; only the character encoder is used here
cnn = CharCNN(config).eval()
print(f"char embedding dim E = {config.char_embed_dim}, filters (width, count) = "
      f"{list(config.filters)}\nhighway layers = {config.n_highway}, projection to "
      f"P = {config.projection_dim}")

# %% [markdown]
# ## 1. Character embeddings
#
# A token is 50 ids (notebook 02): `[BOW, bytes…, EOW, PAD…] + 1`, and 0 at positions where
# a sentence has no token. The embedding table has one row per id, 262 in all; row 0 is kept
# at zero (`padding_idx=0`).

# %%
ids = torch.tensor(word_to_char_ids("bank"))  # (50,)
print("ids:", ids[:8].tolist(), "...")
table = cnn.char_embedding.weight  # (262, E)
print("table:", tuple(table.shape), "  row 0 is zero:", bool((table[0] == 0).all()))
with torch.no_grad():
    chars = cnn.char_embedding(ids)  # (50, E): one E-vector per character position
print("embedded word:", tuple(chars.shape))

# %% [markdown]
# ## 2. One convolution width, from scratch
#
# A filter of width $w$ is a small matrix $K \in \mathbb{R}^{E \times w}$ that slides over the
# word. At window $t$ it scores the $w$ characters $t..t+w-1$:
#
# $$ (K * C)_t = \sum_{e=1}^{E} \sum_{k=0}^{w-1} K_{e,k}\, C_{e,\,t+k} + b .$$
#
# A word of 50 positions has $50 - w + 1$ windows. Take width 3 with 4 filters:

# %%
w, n_filters = 3, 4
x = chars.T  # (E, 50): channels first, as Conv1d wants
K = torch.randn(n_filters, config.char_embed_dim, w) * 0.1  # (4, E, 3)
b = torch.randn(n_filters) * 0.1  # (4,)

windows = x.unfold(dimension=1, size=w, step=1)  # (E, 48, 3): window t = columns t..t+2
scores = torch.einsum("fek,etk->ft", K, windows) + b[:, None]  # (4, 48)
print("windows:", tuple(windows.shape), " scores:", tuple(scores.shape))

# %% [markdown]
# `nn.Conv1d` computes exactly this (a cross-correlation: the kernel is not flipped):

# %%
conv = torch.nn.Conv1d(config.char_embed_dim, n_filters, kernel_size=w)
with torch.no_grad():
    conv.weight.copy_(K)
    conv.bias.copy_(b)
    print("from scratch == nn.Conv1d:",
          torch.allclose(conv(x.unsqueeze(0))[0], scores, atol=1e-6))

# %% [markdown]
# **Max over time.** A word has as many windows as positions, but the token vector must have a
# fixed size: each filter keeps only its best window. Then the ReLU. bilm-tf pools first and
# activates after; the order does not matter because ReLU is monotone (so is tanh):

# %%
pooled = torch.relu(scores.amax(dim=1))  # (4,)
print("max-pool then ReLU:", pooled)
print("ReLU then max-pool:", torch.relu(scores).amax(dim=1))

# %% [markdown]
# The same for a batch of words, `x` (N, E, C), as a function: section 4 builds the whole
# encoder from it.

# %%
def conv_max_pool(x, weight, bias):
    """Each filter's maximum over the windows, (N, count), before the activation."""
    width = weight.shape[-1]
    windows = x.unfold(dimension=2, size=width, step=1)  # (N, E, C - w + 1, w)
    scores = torch.einsum("fek,netk->nft", weight, windows) + bias[:, None]  # (N, count, windows)
    return scores.amax(dim=-1)


checks.check_conv_max_pool(conv_max_pool)

# %% [markdown]
# ### A filter is a soft n-gram detector
#
# Max-pooling asks *"does this pattern occur anywhere in the word?"*. Build one width-3 filter
# by hand whose weights are the embeddings of `i`, `n`, `g`: its score, a sum of dot products,
# is largest where a window spells "ing". Trained filters learn such templates from data.
#
# ### Exercise 1 (predict): where does the "ing" filter fire?
#
# The next cell runs this filter over *sing*, *walking*, *bank*, *ingot*, *thinking*, *nag*
# and *banking* and prints each word's maximum score and the window it comes from (window 0
# starts at BOW, window 1 at the first letter). Before you run it: which words share the
# highest maximum? Does *ingot* (with "ing" at its start) score lower than *sing*? Where does
# *thinking* win? And *nag*, made of the same letters?
#
# **Prediction.**
# <!-- BEGIN ANSWER -->
# A window's score depends only on its three characters, not on where they are. So every word
# containing "ing" gets the same maximum, from its "ing" window: *sing* at window 2, *ingot*
# at 1, *walking* and *banking* at 5, *thinking* at 6 (its "ink" matches only two letters): a
# prefix scores like a suffix. *bank* and *nag* score lower: *nag* has the letters in the
# wrong order, and each position of the filter is matched separately.
# <!-- END ANSWER -->

# %%
ing = torch.tensor(word_to_char_ids("ing")[1:4])  # ids of 'i', 'n', 'g' (skip BOW)
with torch.no_grad():
    ing_filter = cnn.char_embedding(ing).T.unsqueeze(0)  # (1, E, 3)

words = ["sing", "walking", "bank", "ingot", "thinking", "nag", "banking"]
with torch.no_grad():
    emb = cnn.char_embedding(batch_to_ids([words])[0]).transpose(1, 2)  # (7, E, 50)
    response = F.conv1d(emb, ing_filter)[:, 0, :14]  # (7, 14): first 14 windows
for word, r in zip(words, response, strict=True):
    print(f"{word:10s} max {r.max():7.4f} at window {int(r.argmax())}")
with_ing = [r.max() for word, r in zip(words, response, strict=True) if "ing" in word]
without = [r.max() for word, r in zip(words, response, strict=True) if "ing" not in word]
claims.claim(max(with_ing) - min(with_ing) < 1e-5 and min(with_ing) > max(without),
             'every word with "ing" gets the same maximum, above every word without it')

# %% [markdown]
# The same responses as a heatmap, with the random width-4 filters of the real encoder next to
# it: each row of the right panel is one filter on "unbelievable", the dot marks the window
# that max-pooling keeps. Windows past the word (all PAD) still score, and can win: a
# constant that the bias and the following layers absorb.

# %%
conv4 = cnn.convs[3]  # width 4
with torch.no_grad():
    emb_word = cnn.char_embedding(batch_to_ids([["unbelievable"]])[0]).transpose(1, 2)
    random_scores = conv4(emb_word)[0, :16, :20]  # (16 filters, first 20 windows)

fig, axes = plt.subplots(1, 2, figsize=(11, 3.4))
axes[0].imshow(response, cmap="viridis", aspect="auto")
axes[0].set_yticks(range(len(words)), words)
axes[0].set_xlabel("window start (0 = BOW)")
axes[0].set_title('hand-made "ing" filter')
axes[1].imshow(random_scores, cmap="coolwarm", aspect="auto")
axes[1].scatter(random_scores.argmax(dim=1), range(16), color="black", s=12)
starts = ["BOW", *"unbelievable", "EOW"] + ["pad"] * 6  # the character each window starts at
axes[1].set_xticks(range(20), starts, rotation=90, fontsize=7)
axes[1].set_xlabel("window start")
axes[1].set_ylabel("filter")
axes[1].set_title('16 random width-4 filters on "unbelievable" (• = max)')
fig.tight_layout()

# %% [markdown]
# ### What trained filters detect
#
# Trained filters respond to something: the character CNN of the course's `small` biLM
# (notebook 08), 16-dim characters and 512 filters of widths 1 to 5. `filter_responses` runs
# every filter over 3000 frequent Brown words and keeps, per word, the maximum (before the
# ReLU) and its window. `^` marks the word's start, `$` its end.

# %%
trained_cnn = load_elmo(shipped_model("small")).bilm.char_cnn
brown = nltk_corpus("brown")  # the Brown corpus, found through the registry
counts = Counter(brown.words()[:200_000])
word_list = [word for word, _ in counts.most_common(3000)]
responses = filter_responses(trained_cnn, word_list)  # (3000 words, 512 filters)
print("filter widths:", list(trained_cnn.config.filters), " scores:", tuple(responses.scores.shape))


# %%
def draw_filter(filter_index):
    top = responses.top(filter_index, k=12)
    ngram, count = responses.favourite_ngram(filter_index, k=50)
    fig, ax = plt.subplots(figsize=(7, 3.4))
    ax.barh(range(len(top)), [score for _, _, score in top], color="C0")
    ax.set_yticks(range(len(top)), [f"{word}   [{gram}]" for word, gram, _ in top], fontsize=8)
    ax.invert_yaxis()  # strongest on top
    ax.set_xlabel("max score over the word's windows (before the ReLU)")
    width = int(responses.widths[filter_index])
    ax.set_title(f"filter {filter_index} (width {width}): the 12 words that fire it most\n"
                 f"'{ngram}' is the strongest window in {count} of its top 50 words", fontsize=9)
    fig.tight_layout()
    return fig


# How clear-cut is each filter? The share of its top 50 words whose best window is one and the
# same n-gram. The clearest four per width:
favourite = [responses.favourite_ngram(f, k=50) for f in range(responses.scores.shape[1])]
clearest = {}  # width -> filters, clearest first
for f in sorted(range(len(favourite)), key=lambda f: -favourite[f][1]):
    clearest.setdefault(int(responses.widths[f]), []).append(f)
for width in sorted(clearest):
    print(f"width {width}: " + ",  ".join(
        f"#{f} '{favourite[f][0]}' {favourite[f][1]}/50" for f in clearest[width][:4]))

# %% [markdown]
# The explorer draws one filter's 12 strongest words. Below, the clearest filter of widths 3, 4
# and 5; with a running kernel, the slider under them shows any of the 512.

# %%
explore(draw_filter, {"filter_index": Slider(0, 511, clearest[3][0], step=1,
                                             description="filter")},
        static=[{"filter_index": clearest[width][0]} for width in (3, 4, 5)])

# %% [markdown]
# Words that share the winning n-gram tie. Many winning windows reach past the end-of-word
# mark `$` into the padding `·`: those filters detect how a word ends. Among a filter's top
# words there are near misses too. The kinds of detectors: single characters, a full stop at
# the end of a word (*Mr.*), endings such as *-ly*, *-ed* or *-ing*, letter pairs inside a
# word. No single filter makes the word's vector: the 512 maxima together, then the highway
# layers and the projection, do.

# %% [markdown]
# ## 3. Seven widths: the paper's 2048 filters
#
# ELMo runs one convolution per width, widths 1 to 7 with more filters for longer n-grams,
# and concatenates the pooled features: 32 + 32 + 64 + 128 + 256 + 512 + 1024 = 2048.

# %%
for (width, count), conv_w in zip(config.filters, cnn.convs, strict=True):
    print(f"width {width}: {count:5d} filters, weight {tuple(conv_w.weight.shape)}")
print("features after pooling:", config.n_filters)

# %% [markdown]
# ### Exercise 2 (implement): how many parameters?
#
# Write `my_char_cnn_parameters(config)`: from a `ModelConfig` alone (no module), the number
# of parameters of each part of `CharCNN(config)`, as a dict with the keys
# `"char embeddings"`, `"convolutions"`, `"highway"`, `"projection"`. The fields you need:
# `n_characters` (262 rows), `char_embed_dim` (E), `filters` ((width, count) pairs),
# `n_filters` (their total count F), `n_highway`, `projection_dim` (P). Count the biases too.
# The check compares with the modules of four configs, the paper's and the tiny model's
# among them.

# %%
def my_char_cnn_parameters(config):
    # BEGIN SOLUTION
    E, F, P = config.char_embed_dim, config.n_filters, config.projection_dim
    return {
        "char embeddings": config.n_characters * E,
        "convolutions": sum(count * (E * width + 1) for width, count in config.filters),
        "highway": config.n_highway * (F * 2 * F + 2 * F),  # one Linear(F, 2F) per layer
        "projection": F * P + P,
    }
    # END SOLUTION


checks.check_char_cnn_parameters(my_char_cnn_parameters)

# %% [markdown]
# For the paper's encoder:

# %%
counted = my_char_cnn_parameters(config)
for part, n in counted.items():
    print(f"{part:16s} {n:>11,}")
print(f"{'total':16s} {sum(counted.values()):>11,}")
print(f"{'CharCNN':16s} {sum(p.numel() for p in cnn.parameters()):>11,}")

# %% [markdown]
# The highway layers hold most of the encoder's parameters (and most of its arithmetic per
# token); the LSTM layers behind it hold several times more (notebook 11).
#
# ## 4. Highway layers and the projection
#
# A highway layer (Srivastava et al. 2015) lets each feature either pass through unchanged or
# be replaced by a non-linear transform of all features, decided by a learned gate:
#
# $$ h = \mathrm{ReLU}(W_h z + b_h), \qquad g = \sigma(W_g z + b_g), \qquad
#    z' = g \odot z + (1 - g) \odot h .$$
#
# In `Highway`, one `nn.Linear(D, 2D)` computes both: output rows `[:D]` are $h$'s
# pre-activation, rows `[D:]` the gate's. $g$ is the **carry** gate ($g = 1$ keeps $z$).
# bilm-tf names its gate the other way round (its `W_carry` multiplies the transform), so
# loading its weights negates that gate: $W_g = -W_{carry}^\top$, $b_g = -b_{carry}$.
#
# **Why a gate that can carry the input.** Highway networks were made to train *deep* stacks,
# the problem residual connections solve (notebook 04). Where $g \approx 1$ a feature passes
# through unchanged, and backwards the gradient reaches the convolutions through the carry
# path, not only through $W_h$ and the ReLU's zeros. Initialised with $b_g = +2$
# ($g \approx 0.88$), as bilm-tf does, each layer starts close to the identity and learns to
# transform only where that helps, combining n-gram detections (e.g. "a capital letter *and*
# the suffix -son") without losing them.
#
# ### Exercise 3 (implement): one highway layer
#
# Write `my_highway_layer(z, weight, bias)` with `weight` (2D, D) and `bias` (2D,) as above.

# %%
def my_highway_layer(z, weight, bias):
    # BEGIN SOLUTION
    D = z.shape[-1]
    projected = z @ weight.T + bias  # (N, 2D)
    h = torch.relu(projected[..., :D])
    g = torch.sigmoid(projected[..., D:])
    return g * z + (1 - g) * h
    # END SOLUTION


checks.check_highway_layer(my_highway_layer)

# %% [markdown]
# Now the whole encoder from scratch for three words, with the package's weights: embeddings,
# 7 convolutions with max-pool and ReLU, two highway layers (yours), the projection. It must
# equal `CharCNN`.

# %%
three = batch_to_ids([["The", "bank", "closed"]])  # (1, 3, 50)
with torch.no_grad():
    e = cnn.char_embedding(three[0]).transpose(1, 2)  # (3, E, 50)
    z = torch.cat([torch.relu(conv_max_pool(e, c.weight, c.bias)) for c in cnn.convs], -1)
    for layer in cnn.highway.layers:  # (3, 2048) → (3, 2048)
        z = my_highway_layer(z, layer.weight, layer.bias)
    from_scratch = cnn.projection(z)  # (3, 512)
    print("from scratch:", tuple(from_scratch.shape), " == CharCNN:",
          torch.allclose(from_scratch, cnn(three)[0], atol=1e-5))

# %% [markdown]
# ## 5. One word through a trained encoder: *good*
#
# The same steps once more, now for one word and with *trained* weights: the character CNN of
# the `tiny` biLM that ships with the course (trained on the course's synthetic corpus; 8-dim
# characters, 128 filters of widths 1–4, one highway layer, projection to 64).

# %%
tiny = load_elmo(shipped_model("tiny")).bilm.char_cnn.eval()
print(tiny.config.filters, "highway layers:", tiny.config.n_highway,
      " P =", tiny.config.projection_dim)
good = torch.tensor([word_to_char_ids("good")])  # (1, 50)
print("1. character ids      ", tuple(good.shape), good[0, :8].tolist(), "...")
with torch.no_grad():
    good_chars = tiny.char_embedding(good)  # (1, 50, E)
    print("2. character vectors  ", tuple(good_chars.shape), " one E-vector per position")
    good_x = good_chars.transpose(1, 2)  # (1, E, 50): channels first
    all_scores = [conv(good_x)[0] for conv in tiny.convs]  # per width: (count, 50 - w + 1)
    for conv, width_scores in zip(tiny.convs, all_scores, strict=True):
        print(f"3. width {conv.kernel_size[0]} convolution ", tuple(width_scores.shape))
    good_pooled = torch.cat([width_scores.amax(dim=1) for width_scores in all_scores])  # (F,)
    good_features = torch.relu(good_pooled)  # (F,) = (128,)
    print("4. max-pool, ReLU     ", tuple(good_features.shape),
          f" {int((good_features > 0).sum())} of {good_features.numel()} filters fire")

# %% [markdown]
# Which filters fire most on *good*, and on which window? `^`/`$` mark BOW/EOW, `·` the
# padding:

# %%
marks = ["^", *"good", "$"] + ["·"] * 44  # the character at each of the 50 positions
widths = [conv.kernel_size[0] for conv in tiny.convs for _ in range(conv.out_channels)]  # (F,)
starts = torch.cumsum(torch.tensor([0] + [conv.out_channels for conv in tiny.convs]), 0)
for f in good_features.argsort(descending=True)[:5].tolist():
    block = next(i for i in range(len(tiny.convs)) if f < starts[i + 1])
    window = int(all_scores[block][f - starts[block]].argmax())
    gram = "".join(marks[window: window + widths[f]])
    print(f"filter {f:3d} (width {widths[f]}): {good_features[f]:.4f} at window {window}  "
          f"'{gram}'")

# %% [markdown]
# Then the highway layer (how much of each feature does its gate carry?) and the projection
# to the token vector, which must equal what the encoder computes for *good* in one call:

# %%
with torch.no_grad():
    layer = tiny.highway.layers[0]  # nn.Linear(F, 2F)
    F_ = good_features.numel()
    carry = torch.sigmoid(layer(good_features)[F_:])  # (F,): the gate g
    after_highway = tiny.highway(good_features)  # (F,)
    token_vector = tiny.projection(after_highway)  # (P,) = (64,)
    print("5. highway            ", tuple(after_highway.shape),
          f" carry gate g: mean {carry.mean():.4f}, min {carry.min():.4f}, max {carry.max():.4f}")
    print("6. projection         ", tuple(token_vector.shape))
    print("equal to the encoder's vector for 'good':",
          torch.allclose(token_vector, tiny(good[None])[0, 0], atol=1e-5))

# %% [markdown]
# So a word is 50 ids, then 50 × E numbers, one score per window and width, one number per
# filter, mixed by the highway layer and projected to the P-dim token vector the LSTMs read.
#
# ## 6. Every string gets a vector
#
# A word-table model maps unseen words to `<UNK>`. The character CNN reads any UTF-8 string:
# inflections, names, typos, emoji. Even untrained, words sharing character n-grams share
# max-pooled features, so their vectors are closer (cosine after removing the mean direction):

# %%
oov = ["bank", "banks", "banking", "bnak", "river", "rivers", "Zürich", "🙂", "ELMo-ish"]
with torch.no_grad():
    vectors = cnn(batch_to_ids([oov]))[0]  # (9, 512)
centred = F.normalize(vectors - vectors.mean(0), dim=-1)
similarity = centred @ centred.T  # (9, 9)
for word in ("bank", "river"):
    i = oov.index(word)
    order = similarity[i].argsort(descending=True)[1:4]
    print(f"{word:6s} closest: " + ", ".join(f"{oov[j]} ({similarity[i, j]:.2f})" for j in order))

# %% [markdown] slideshow={"slide_type": "subslide"}
# ## 7. Each distinct token once
#
# A token's vector depends on its characters only. Real batches repeat tokens ("the", ",",
# "."), and padded positions are all alike. `CharCNN.forward` runs the network at every
# position, padding included; it would be enough to run it once per **distinct** row of ids
# (`torch.unique(..., dim=0, return_inverse=True)`) and copy the results back. How many rows
# does that leave, for 32 sentences of the Brown corpus?

# %%
sentences = [s for s in brown.sents()[:400] if 5 <= len(s) <= 30][:32]
batch = batch_to_ids(sentences)  # (32, T, 50)
B, T, _ = batch.shape
distinct, where = torch.unique(batch.view(B * T, -1), dim=0, return_inverse=True)
n_real = int((batch > 0).any(-1).sum())
print(f"{B * T} positions, {n_real} real tokens, {distinct.shape[0]} distinct rows "
      "(the all-zero padding row included)")
claims.claim(distinct.shape[0] <= B * T / 2,
             "the distinct path runs the network on at most half as many rows")

# %% [markdown]
# Here is that path, built on `CharCNN.embed_tokens` (the same network for a plain list of
# tokens, `(N, 50)` ids → `(N, P)` vectors):

# %%
def each_distinct_token_once(char_ids):
    """CharCNN's vectors for a batch, computed once per distinct row of ids and copied back."""
    B, T, C = char_ids.shape
    rows, where = torch.unique(char_ids.view(B * T, C), dim=0, return_inverse=True)  # (U, C)
    vectors = cnn.embed_tokens(rows)  # (U, P), one per distinct row
    vectors = vectors * (rows != 0).any(-1, keepdim=True)  # the all-zero padding row → zeros
    return vectors[where].view(B, T, -1)  # (B·T, P) → (B, T, P)


# %% [markdown] slideshow={"slide_type": "skip"}
# Fewer rows is not yet less time: `torch.unique` sorts the rows, and the copy back costs too.
# Timed fairly: each path runs once untimed (the first call pays one-off costs), then the two
# alternate three times and keep their medians. The times vary from machine to machine ...

# %% slideshow={"slide_type": "skip"}
# NBVAL_IGNORE_OUTPUT
paths = {"every position": lambda: cnn(batch),  # the package's CharCNN
         "distinct tokens": lambda: each_distinct_token_once(batch)}  # each gives (32, T, 512)
times = {name: [] for name in paths}
with torch.no_grad():
    results = {name: run() for name, run in paths.items()}  # warm-up, and the outputs
    for _ in range(3):
        for name, run in paths.items():
            start = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - start)
median_ms = {name: sorted(t)[1] * 1000 for name, t in times.items()}  # the median of 3
print("   ".join(f"{name}: {ms:.0f} ms" for name, ms in median_ms.items()),
      f"  ratio {median_ms['every position'] / median_ms['distinct tokens']:.1f}×")
shared, every_position = results["distinct tokens"], results["every position"]

# %% [markdown]
# ... and the distinct path comes out faster (on a shared 2-core machine we saw from under 2×
# to almost 5× for this batch). The saving is of the order of the ratio of rows, 3×; it grows
# with the batch, which repeats more: 128 sentences fill 3,840 positions with only 988
# distinct rows. Now check that the results agree, and that a word's vector is the same
# whatever batch it is in:

# %%
with torch.no_grad():
    alone = cnn(batch_to_ids([[sentences[0][1]]]))[0, 0]
print("distinct-token path == every position:", torch.allclose(shared, every_position, atol=1e-5))
print("same vector alone and in the batch:  ", torch.allclose(shared[0, 1], alone, atol=1e-5))

# %% [markdown]
# ### Exercise 4 (explain): when is "each distinct token once" exact?
#
# The distinct-token path gave the same vectors as the every-position path. Why is it exact,
# not an approximation? Name a change to the encoder that would make it wrong.
#
# **Model answer.**
# <!-- BEGIN ANSWER -->
# The encoder is a deterministic function of the token's 50 ids alone, so equal rows give
# equal vectors. It breaks as soon as anything else enters: a position embedding, dropout
# inside the encoder in training (copies would share one mask), or batch normalisation over
# the tokens (its statistics would count each distinct token once).
# <!-- END ANSWER -->

# %% [markdown]
# The package's `CharCNN` stays plain, to read like the paper. Its faster twin,
# `elmo_tutorial.fast.char_cnn.FastCharCNN` (notebook 11), has the same parameters, computes
# each distinct token once, and saves in two more ways, both exact:
#
# * **Fewer columns.** Length groups of distinct tokens drop the trailing columns that are PAD
#   in all their tokens, but keep `max width` of them: a window of only PAD gives the same
#   score for every word and can be a filter's maximum, so one such window must remain.
# * **Convolution as one matrix product**: `unfold` lists the windows, and one `addmm` scores
#   them all (`conv1d_max`); on a CPU 2-3× faster than `nn.Conv1d` for these shapes.
#
# ## Summary
#
# * Characters → 16-dim embeddings (262 rows, row 0 = padding) → one `Conv1d` per width
#   (1–7, 2048 filters) → max over the word → ReLU → 2 highway layers → projection to 512
#   (`CharCNN`, about 18 M parameters, most in the highway layers).
# * A filter is a soft character n-gram detector; max-pooling asks whether it occurs anywhere.
# * Highway: $z' = g \odot z + (1-g) \odot \mathrm{ReLU}(W_h z + b_h)$ with a carry gate $g$;
#   bilm-tf's `W_carry` is the opposite gate, negated on loading.
# * Any string gets a vector. Computing each distinct token of a batch once is faster and
#   exact, because a token's vector depends on its characters only.
#
# **Read more:** Peters et al. (2018), Sec. 3.4 (the character CNN of the pre-trained biLM)
# and Sec. 3.1 (the biLM it feeds). Kim, Jernite, Sontag & Rush (2016), *Character-Aware
# Neural Language Models*. Srivastava, Greff & Schmidhuber (2015), *Highway Networks*.
# Józefowicz et al. (2016) for the 2048-filter configuration.
#
# **Next:** notebook 04 feeds these token vectors into LSTMs to build the forward LM.

# %% [markdown]
# ## Check your understanding
#
# Answer each in a sentence or two before you open the instructor's answer.
#
# 1. Why does the encoder keep only each filter's best window (max-pooling over the word) instead
#    of every window's score?
#
# <!-- BEGIN ANSWER -->
# The token vector needs a fixed size whatever the word's length: one number per filter, which
# asks "does this pattern occur anywhere?".
# <!-- END ANSWER -->
#
# 2. bilm-tf max-pools first and applies the ReLU after. Why would the reverse order give the
#    same features?
#
# <!-- BEGIN ANSWER -->
# ReLU is monotone (it never reverses an order), so the maximum of the activated scores is the
# activation of the maximum score. The same holds for tanh.
# <!-- END ANSWER -->
#
# 3. The paper's encoder has about 18 M parameters. Which part holds most of them, and why not
#    the convolutions?
#
# <!-- BEGIN ANSWER -->
# The two highway layers: each is one `Linear(2048, 4096)`, about 8.4 M. A filter sees only E × w
# numbers (at most 16 × 7), so all 2048 filters together have about 0.2 M.
# <!-- END ANSWER -->
#
# 4. What does a highway layer's carry gate let the network do, and why is it initialised to
#    carry (a gate bias of +2)?
#
# <!-- BEGIN ANSWER -->
# Where the gate is near 1 a feature passes through unchanged, forwards and backwards; starting
# near the identity, each layer learns to transform only where that helps.
# <!-- END ANSWER -->
#
# 5. bilm-tf's `W_carry` multiplies the transform, not the input. Why does loading it negate its
#    weights and bias?
#
# <!-- BEGIN ANSWER -->
# bilm-tf's gate is $1 - g$ in our convention, and $\sigma(-a) = 1 - \sigma(a)$, so negating the
# gate's pre-activation turns it into our carry gate $g$.
# <!-- END ANSWER -->
#
# 6. Even with untrained weights, *bank* is closer to *banks* and *bnak* than to *river*. Why?
#
# <!-- BEGIN ANSWER -->
# Shared character n-grams give the same filters the same maxima, so their features overlap,
# with no training.
# <!-- END ANSWER -->
#
# 7. Many trained filters win on windows that reach past the end-of-word mark into the padding.
#    What do they detect?
#
# <!-- BEGIN ANSWER -->
# How a word ends: a window containing the end-of-word mark is anchored there (*-ed*, *-ing*,
# *-ly*, an abbreviation's full stop).
# <!-- END ANSWER -->
#
# 8. Computing each distinct token of a batch once runs the network on a third of its rows.
#    What does it do that the plain computation does not, and for which batch could it be
#    slower?
#
# <!-- BEGIN ANSWER -->
# It sorts the rows (`torch.unique`) and copies each result back. A batch with hardly any
# repeats runs the network on almost as many rows and pays those costs on top.
# <!-- END ANSWER -->
#
# 9. When trailing PAD columns are dropped, why must at least "max width" of them be kept?
#
# <!-- BEGIN ANSWER -->
# A window made only of PAD characters scores the same for every word and can be a filter's
# maximum. Keeping one such window for every width keeps that maximum; the dropped windows were
# copies of it.
# <!-- END ANSWER -->
#
# 10. A three-letter token has 5 ids with BOW and EOW, then PAD up to 50. How many windows of a
#     width-5 filter lie inside the token, and over how many windows does the max-pool run?
#
# <!-- BEGIN ANSWER -->
# One window covers exactly BOW, the three bytes and EOW; the max-pool runs over all
# $50 - 5 + 1 = 46$ windows, so the other 45, which reach into the padding, compete too
# (question 7).
# <!-- END ANSWER -->
