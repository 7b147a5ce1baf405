# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 02 · Tokens and characters: what ELMo actually reads
#
# ELMo never looks words up in a table. Every token reaches the network as **50 integers**:
# the UTF-8 bytes of the word, wrapped in begin/end-of-word markers. Word ids still exist, but
# only as the *targets* of the two language models. This notebook builds the whole input
# pipeline, from raw text to the batches the biLM trains on.
#
# **You will:**
# 1. split raw text into sentences and Treebank-style tokens, with no downloaded model;
# 2. build the word vocabulary of the softmax (`<S>`, `</S>`, `<UNK>` first) and see how
#    `min_count` trades vocabulary size against out-of-vocabulary (OOV) words;
# 3. compute ELMo's character ids from scratch and check them against `batch_to_ids`;
# 4. build language-model batches: masks, forward and backward targets, padding that never
#    reaches the loss, length buckets and the parallel streams used for truncated BPTT.
#
# **Prerequisites:** Python lists and bytes, PyTorch tensors, cross-entropy. Notebook 00 for
# why we want contextual vectors at all.
#
# **Runtime:** about 10 s on a 2-core CPU.

# %% slideshow={"slide_type": "subslide"} tags=["hide-input"]
try:
    from elmo_tutorial.figures import you_are_here
except ModuleNotFoundError as missing:  # opened before `make lab` installed the course
    raise ModuleNotFoundError(
        f"this notebook's kernel cannot import {missing.name}: start JupyterLab with "
        "`make lab` from the repository root (or run `pip install -e .` there, in this "
        "kernel's environment), then restart the kernel") from None

you_are_here("chars")

# %%
# %matplotlib inline
from collections import Counter

import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F

from elmo_tutorial import checks
from elmo_tutorial.batching import StreamBatcher, bucket_batches, make_lm_batch
from elmo_tutorial.chars import (
    BOS_IDS,
    EOS_IDS,
    MAX_CHARS,
    batch_to_ids,
    ids_to_mask,
    word_to_char_ids,
)
from elmo_tutorial.corpora import ensure_nltk, nltk_corpus
from elmo_tutorial.runtime import setup_notebook
from elmo_tutorial.softmax import masked_nll
from elmo_tutorial.tokenize import split_sentences, tokenize, tokenize_words
from elmo_tutorial.vocab import Vocabulary

setup_notebook(seed=0)  # seeds, threads, print precision; small enough for the CPU

# %% [markdown]
# ## 1. From raw text to tokens
#
# ELMo's biLM was trained on the 1B Word Benchmark: news sentences, one per line, tokenized in
# the Penn Treebank style (`don't` → `do n't`, punctuation split off, plain `"` quotes). We
# reproduce that style in two steps, both pure rules:
#
# * `split_sentences` cuts after `.`, `!` or `?` when a capital letter, digit or opening quote
#   follows, except after abbreviations such as `Mr.`, `e.g.` or `U.S.`;
# * `tokenize_words` runs nltk's `NLTKWordTokenizer` (the regex program behind
#   `nltk.word_tokenize`) and turns its LaTeX quotes ``` `` ``` / `''` back into `"`.
#
# Our text: the 59 US presidential inaugural addresses that ship with nltk.

# %%
ensure_nltk("inaugural")  # finds the NLTK data, or downloads it once if missing (notebook 00)
inaugural = nltk_corpus("inaugural")
text = inaugural.raw("1861-Lincoln.txt")
print(text[:300])

# %%
for sentence in split_sentences(text)[:3]:
    print("•", sentence[:120])

# %% [markdown]
# The rules know a few traps. Abbreviations do not end sentences, and quotes become plain `"`:

# %%
example = 'Mr. Lincoln spoke in the U.S. capital. He said "I can\'t." Did they listen?'
for tokens in tokenize(example):
    print(tokens)

# %%
print(tokenize_words('She said "don\'t".'))

# %% [markdown]
# Now the whole collection. We hold the three most recent addresses out, to measure how many
# *new* words a vocabulary built on the older ones misses.

# %%
fileids = inaugural.fileids()
held_out_ids = fileids[-3:]
corpus = {f: tokenize(inaugural.raw(f)) for f in fileids}
train = [s for f in fileids[:-3] for s in corpus[f]]
held_out = [s for f in held_out_ids for s in corpus[f]]
print(f"{len(train)} training sentences, {sum(map(len, train))} tokens")
print(f"{len(held_out)} held-out sentences ({', '.join(held_out_ids)})")

# %% [markdown]
# ## 2. The vocabulary: word ids for the softmax only
#
# The biLM predicts the next (forward LM) and the previous (backward LM) word with a softmax
# over a fixed vocabulary (Peters et al. 2018, Sec. 3.1). bilm-tf's vocabulary file puts three
# special words first: `<S>` (id 0), `</S>` (id 1), `<UNK>` (id 2); the rest follow by
# descending frequency.

# %%
vocab = Vocabulary.from_sentences(train)
print(vocab)
for i in range(12):
    print(f"{i:3d}  {vocab.word(i)}")

# %%
print(vocab.encode(["We", "the", "people", "of", "Zorblax"]))  # unknown words → 2 (<UNK>)

# %% [markdown]
# Rare words cost softmax rows and are badly estimated, so vocabularies drop them with a
# `min_count`. The price is more `<UNK>` targets on new text. (ELMo's *input* never has this
# problem: every string has characters.)

# %%
counts = Counter(t for s in train for t in s)
held_out_tokens = [t for s in held_out for t in s]
min_counts = [1, 2, 3, 5, 10, 20, 50]
sizes, oov_rates = [], []
for m in min_counts:
    v = Vocabulary.from_counts(counts, min_count=m)
    ids = v.encode(held_out_tokens)
    sizes.append(len(v))
    oov_rates.append(100 * ids.count(v.unk_id) / len(ids))
    print(f"min_count={m:3d}  |V|={len(v):6d}  held-out OOV={oov_rates[-1]:.2f} %")

# %%
fig, ax = plt.subplots(figsize=(6, 3.2))
ax.plot(sizes, oov_rates, "o-")
for m, x, y in zip(min_counts, sizes, oov_rates, strict=True):
    ax.annotate(f"min_count={m}", (x, y), textcoords="offset points", xytext=(4, 4), fontsize=8)
ax.set_xscale("log")
ax.set_xlabel("vocabulary size |V| (log scale)")
ax.set_ylabel("held-out tokens that are <UNK> (%)")
ax.set_title("Smaller vocabulary, more unknown targets")
fig.tight_layout()

# %% [markdown]
# On disk a vocabulary is one word per line, in id order: bilm-tf reads the same file.

# %%
import tempfile
from pathlib import Path

with tempfile.TemporaryDirectory() as tmp:
    path = Path(tmp) / "vocab.txt"
    vocab.save(path)
    print(path.read_text(encoding="utf-8").splitlines()[:6])
    print("round trip equal:", Vocabulary.load(path) == vocab)

# %% [markdown]
# ## 3. ELMo's character ids, from scratch
#
# The recipe (shared by bilm-tf and AllenNLP, so that official weights work unchanged):
#
# 1. take the token's **UTF-8 bytes** (0..255), at most 48 of them;
# 2. wrap them as `[BOW, b1, …, bn, EOW, PAD, PAD, …]` to 50 entries, with the special ids
#    BOS = 256, EOS = 257, BOW = 258, EOW = 259, PAD = 260;
# 3. add 1 to everything, so that 0 is free to mean "no token here" (batch padding).
#
# Bytes, not Unicode characters: 256 byte values cover every language with a fixed table.

# %%
word = "café"
raw = list(word.encode("utf-8"))
print(f"{word!r}: {len(word)} characters, {len(raw)} bytes: {raw}")

# %%
BOS, EOS, BOW, EOW, PAD = 256, 257, 258, 259, 260
ids = [BOW, *raw[:48], EOW]
ids = ids + [PAD] * (50 - len(ids))
ids = [i + 1 for i in ids]
print(ids[:10], "... length", len(ids))
print("equal to the package:", ids == word_to_char_ids(word))

# %% [markdown]
# The sentence boundaries are one-"character" words made of BOS or EOS:

# %%
print("<S> ", list(BOS_IDS[:5]))
print("</S>", list(EOS_IDS[:5]))

# %% [markdown]
# Multi-byte words simply have more bytes; words longer than 48 bytes are cut. A cut can split
# a character in two: the ids keep its first bytes, exactly as the original code does.

# %%
for w in ["日本", "naïve"]:
    print(f"{w!r}: {len(w)} characters, {len(w.encode('utf-8'))} bytes "
          f"→ ids {word_to_char_ids(w)[:9]}")

long_word = "Rindfleischetikettierungsüberwachungsaufgabenübertragungsgesetz"
long_bytes = long_word.encode("utf-8")
row = word_to_char_ids(long_word)
print(f"{len(long_word)} characters, {len(long_bytes)} bytes; the ids end {row[-4:]}: "
      "'n', the two bytes of 'ü', EOW")
print("the 48 kept bytes decode to:", long_bytes[:48].decode("utf-8", errors="replace"))

# %% [markdown]
# How long are real tokens? The byte length of every token in our corpus, with ELMo's limit:

# %%
byte_lengths = [len(t.encode("utf-8")) for s in train for t in s]
fig, ax = plt.subplots(figsize=(6, 3))
ax.hist(byte_lengths, bins=range(1, 52), log=True)
ax.axvline(48, color="red", linestyle="--", label="48 bytes: longer tokens are cut")
ax.set_xlabel("token length in UTF-8 bytes")
ax.set_ylabel("tokens (log scale)")
ax.legend()
fig.tight_layout()
print(f"longest token: {max(byte_lengths)} bytes; tokens over 48 bytes: "
      f"{sum(n > 48 for n in byte_lengths)}")

# %% [markdown]
# ### Exercise 1: write `word_to_char_ids`
#
# Write a function that returns the 50 character ids of one token. Mind `<S>`/`</S>`, UTF-8
# bytes, the 48-byte limit and the +1 shift. The check compares it with the package on tricky
# words and tells you what went wrong.

# %%
def my_word_to_char_ids(word: str) -> list[int]:
    # BEGIN SOLUTION
    if word == "<S>":
        body = [BOS]
    elif word == "</S>":
        body = [EOS]
    else:
        body = list(word.encode("utf-8"))[:48]
    ids = [BOW, *body, EOW]
    ids += [PAD] * (50 - len(ids))
    return [i + 1 for i in ids]
    # END SOLUTION


checks.check_word_to_char_ids(my_word_to_char_ids)

# %% [markdown]
# ## 4. Batches of sentences and the mask
#
# `batch_to_ids` stacks the rows into a `(B, T, 50)` tensor. Shorter sentences get rows of
# zeros, so the mask ("is there a token here?") is simply "is any id non-zero?".

# %%
sentences = [["The", "people", "rule", "."], ["Hi", "!"]]
char_ids = batch_to_ids(sentences)  # (B, T, 50)
mine = torch.tensor([[my_word_to_char_ids(w) for w in s] + [[0] * MAX_CHARS] * (4 - len(s))
                     for s in sentences])
print(char_ids.shape, "equal to ours:", torch.equal(char_ids, mine))
print(ids_to_mask(char_ids))

# %%
fig, ax = plt.subplots(figsize=(8, 2.6))
image = ax.imshow(char_ids.reshape(-1, MAX_CHARS)[:, :12], cmap="viridis", aspect="auto")
labels = [w for s in sentences for w in s + ["(pad)"] * (4 - len(s))]
ax.set_yticks(range(len(labels)), labels)
ax.set_xlabel("character position (first 12 of 50)")
ax.set_title("Character ids: BOW=259, bytes+1, EOW=260, PAD=261, padding rows 0")
fig.colorbar(image, ax=ax)
fig.tight_layout()

# %% [markdown]
# ## 5. Language-model batches
#
# Each sentence becomes `<S> w1 … wn </S>`. Both LMs read the same character ids; the forward
# LM at position *t* predicts the word at *t + 1*, the backward LM the word at *t − 1*. Where
# there is nothing to predict (the forward LM at `</S>`, the backward LM at `<S>`, padding) the
# target is −100, PyTorch's `ignore_index`.

# %%
batch = make_lm_batch([["We", "the", "people", "."], ["Hi", "!"]], vocab)
print({k: tuple(v.shape) for k, v in vars(batch).items()})


def show(batch, b, vocab):
    """One sentence of an LMBatch as a table: input word, forward and backward target."""

    def name(i):
        return "-100" if i == -100 else vocab.word(i)

    print(f"{'t':>2}  {'input':8s} {'mask':5s} {'forward target':15s} {'backward target'}")
    for t in range(batch.word_ids.shape[1]):
        word = vocab.word(int(batch.word_ids[b, t])) if batch.mask[b, t] else "(pad)"
        print(f"{t:>2}  {word:8s} {str(bool(batch.mask[b, t])):5s} "
              f"{name(int(batch.forward_targets[b, t])):15s} "
              f"{name(int(batch.backward_targets[b, t]))}")


show(batch, 0, vocab)

# %% [markdown]
# The second sentence is shorter, so it is padded; and "Hi" never occurs in the inaugural
# addresses, so its target is `<UNK>`.

# %%
show(batch, 1, vocab)

# %% [markdown]
# ### Exercise 2: the targets of one sentence
#
# Given the word ids of one `<S> w1 … wn </S>` sentence, return its forward and backward
# targets, with −100 where there is nothing to predict.

# %%
def my_lm_targets(ids: list[int]) -> tuple[list[int], list[int]]:
    # BEGIN SOLUTION
    forward = ids[1:] + [-100]
    backward = [-100] + ids[:-1]
    return forward, backward
    # END SOLUTION


checks.check_lm_targets(my_lm_targets)

# %% [markdown]
# **Padding never reaches the loss.** `F.cross_entropy(..., ignore_index=-100)` skips those
# positions, so whatever the model outputs there cannot change the loss. Let us check it with
# random "logits", and compare with the loss of each sentence computed on its own.

# %%
logits = torch.randn(*batch.forward_targets.shape, len(vocab))  # (B, T, V)
loss = masked_nll(logits, batch.forward_targets)
scrambled = logits.clone()
scrambled[batch.forward_targets == -100] = 1000.0
print(f"loss {loss:.4f}; with garbage at the ignored positions "
      f"{masked_nll(scrambled, batch.forward_targets):.4f}")

total, count = 0.0, 0
for b in range(2):
    n = int(batch.mask[b].sum()) - 1  # positions 0..n-1 have a forward target
    total += F.cross_entropy(logits[b, :n], batch.forward_targets[b, :n], reduction="sum")
    count += n
print(f"sentence by sentence: {total / count:.4f}")

# %% [markdown] slideshow={"slide_type": "subslide"}
# ## 6. Less padding: length buckets and streams
#
# Sentence lengths vary a lot (one address has a sentence of more than 700 tokens!). Padding
# every batch to its longest sentence wastes compute, so we put sentences of similar length
# together: `bucket_batches` sorts by length, cuts batches, and shuffles the batch order.

# %%
lengths = [len(s) + 2 for s in train]  # + <S> and </S>


def padding_fraction(batches):
    padded = sum(len(b) * max(lengths[i] for i in b) for b in batches)
    return 1 - sum(lengths) / padded


generator = torch.Generator().manual_seed(0)
random_order = torch.randperm(len(lengths), generator=generator).tolist()
random_batches = [random_order[i : i + 32] for i in range(0, len(lengths), 32)]
buckets = bucket_batches(lengths, batch_size=32, seed=0)
print(f"padding with random batches: {100 * padding_fraction(random_batches):.1f} %")
print(f"padding with length buckets: {100 * padding_fraction(buckets):.1f} %")
covered = sorted(i for b in buckets for i in b) == list(range(len(lengths)))
print("every sentence exactly once:", covered)

# %% [markdown]
# bilm-tf trains differently: it lays the shuffled sentences end to end in `B` parallel streams
# and cuts windows of `num_steps` tokens (truncated back-propagation through time). Row *b* of
# a window continues row *b* of the previous window, and targets cross window edges.

# %%
streams = StreamBatcher(train[:200], vocab, batch_size=2, num_steps=8, seed=0)
for k, window in enumerate(streams):
    if k == 2:
        break
    for b in range(2):
        words = [vocab.word(int(i)) for i in window.word_ids[b]]
        fwd = [vocab.word(int(i)) if i != -100 else "-" for i in window.forward_targets[b]]
        print(f"window {k} row {b}: {' '.join(words)}\n{'':18s}→ {' '.join(fwd)}")
print(f"{len(streams)} windows of shape {tuple(window.char_ids.shape)}")

# %% [markdown]
# ## Summary
#
# * Text → sentences → Treebank tokens with rules only (`elmo_tutorial.tokenize`).
# * Word ids serve only the softmax targets; the vocabulary starts `<S>`, `</S>`, `<UNK>`
#   and is sorted by frequency (`elmo_tutorial.vocab`).
# * ELMo's input is 50 character ids per token: `[BOW, ≤48 UTF-8 bytes, EOW, PAD…] + 1`,
#   0 for padding (`elmo_tutorial.chars`). No token is ever out of vocabulary on the input side.
# * LM batches add `<S>`/`</S>`; forward targets are the next word, backward targets the
#   previous word, −100 elsewhere (`elmo_tutorial.batching`).
#
# **Read more:** Peters et al. (2018), *Deep contextualized word representations*, Sec. 3.1
# (the biLM and its joint log-likelihood) and Sec. 3.4 (the character CNN input, 2048 filters,
# highway layers, projection to 512). The character-CNN input comes from Kim et al. (2016),
# *Character-Aware Neural Language Models*, and Józefowicz et al. (2016), *Exploring the Limits
# of Language Modeling*, whose 1B Word Benchmark setup ELMo follows.
#
# **Next:** notebook 03 turns these character ids into word vectors with the char CNN.
