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
# 3. compute ELMo's character ids from scratch and check them against `batch_to_ids`, predict
#    how long a word's row is, and turn ids back into words;
# 4. build language-model batches: masks, forward and backward targets, padding that never
#    reaches the loss; and (bonus) length buckets and the parallel streams used for truncated
#    BPTT.
#
# The section marked **(bonus)** is optional: skip it on a first reading or in a lecture.
#
# **Prerequisites:** Python lists and bytes, PyTorch tensors, cross-entropy. Notebook 00 for
# why we want contextual vectors at all.
#
# **Runtime:** about 8 s on 2 quiet CPU cores.

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

from elmo_tutorial import checks, claims
from elmo_tutorial.data.corpora import ensure_nltk, nltk_corpus
from elmo_tutorial.data.tokenize import split_sentences, tokenize, tokenize_words
from elmo_tutorial.model.batching import StreamBatcher, bucket_batches, make_lm_batch
from elmo_tutorial.model.chars import (
    BOS_IDS,
    EOS_IDS,
    MAX_CHARS,
    batch_to_ids,
    char_ids_to_word,
    ids_to_mask,
    word_to_char_ids,
)
from elmo_tutorial.model.softmax import masked_nll
from elmo_tutorial.model.vocab import Vocabulary
from elmo_tutorial.runtime import setup_notebook

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
# ### Exercise 1 (predict): *日本* and *Japan*
#
# *日本* has 2 characters, *Japan* 5. How many of the 50 ids of each row are **not** PAD
# (261)? Which row is longer?
#
# **Prediction.**
# <!-- BEGIN ANSWER -->
# The ids count bytes, not characters. Each of 日 and 本 takes 3 UTF-8 bytes, so *日本* has
# 6 bytes + BOW + EOW = 8 non-PAD ids; *Japan* is ASCII, 5 bytes + 2 = 7. The two-character
# word has the longer row. (For the CNN of notebook 03 a CJK character is a sequence of 3
# "characters", and a 48-byte limit is only 16 CJK characters.)
# <!-- END ANSWER -->

# %%
not_pad = {w: sum(i != 261 for i in word_to_char_ids(w)) for w in ["日本", "Japan"]}
print("ids other than PAD:", not_pad)
claims.claim(not_pad["日本"] > not_pad["Japan"], "the 2-character word has the longer row")

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
# ### Exercise 2 (implement): from character ids back to the word
#
# The network never needs it, but debugging does: write `my_char_ids_to_word(ids)`, the
# inverse of `word_to_char_ids`. `ids` is one row of 50 ids, from a real batch: it may be a
# row of zeros (a position with no token; return `None`), a sentence boundary (return `"<S>"`
# or `"</S>"`), or a word, possibly non-ASCII, possibly cut at 48 bytes. A character cut in
# half should come back as the replacement character � (U+FFFD), as
# `bytes.decode("utf-8", errors="replace")` gives it.

# %%
def my_char_ids_to_word(ids: list[int]) -> str | None:
    # BEGIN SOLUTION
    if not any(ids):
        return None  # batch padding: no token at this position
    if tuple(ids) in (BOS_IDS, EOS_IDS):
        return "<S>" if tuple(ids) == BOS_IDS else "</S>"
    values = [i - 1 for i in ids]  # undo the +1 shift
    body = values[1 : values.index(EOW)]  # the bytes between BOW and the first EOW
    return bytes(body).decode("utf-8", errors="replace")
    # END SOLUTION


checks.check_char_ids_to_word(my_char_ids_to_word)

# %% [markdown]
# The package's `char_ids_to_word` does the same; a word cut at 48 bytes comes back cut:

# %%
print(char_ids_to_word(word_to_char_ids(long_word)))

# %% [markdown]
# ## 4. Batches of sentences and the mask
#
# `batch_to_ids` stacks the rows into a `(B, T, 50)` tensor. Shorter sentences get rows of
# zeros, so the mask ("is there a token here?") is simply "is any id non-zero?".

# %%
sentences = [["The", "people", "rule", "."], ["Hi", "!"]]
char_ids = batch_to_ids(sentences)  # (B, T, 50)
by_hand = torch.tensor([[word_to_char_ids(w) for w in s] + [[0] * MAX_CHARS] * (4 - len(s))
                        for s in sentences])  # rows of zeros where a sentence has no token
print(char_ids.shape, "equal to stacking the rows by hand:", torch.equal(char_ids, by_hand))
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
# ### Exercise 3 (implement): the targets of a padded batch
#
# Given a batch's word ids `(B, T)` (each row `<S> w1 … wn </S>`, then padding) and its mask
# `(B, T)` (True at real positions), return the forward and backward targets, each `(B, T)`,
# with −100 wherever there is nothing to predict: at `</S>` for the forward LM, at `<S>` for the
# backward LM, and at every padded position. Work on whole tensors (a shift and the mask), not
# sentence by sentence; the check compares with `make_lm_batch`'s targets on batches of
# several lengths, which your function may not call.

# %%
def my_lm_targets(word_ids, mask):
    # BEGIN SOLUTION
    forward = torch.full_like(word_ids, -100)  # (B, T)
    backward = torch.full_like(word_ids, -100)  # (B, T)
    # forward: position t predicts word t + 1, if that one is real (not at </S>, not padding)
    forward[:, :-1] = torch.where(mask[:, 1:], word_ids[:, 1:], -100)
    # backward: position t predicts word t - 1, if position t itself is real (not at <S>)
    backward[:, 1:] = torch.where(mask[:, 1:], word_ids[:, :-1], -100)
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

# %% [markdown]
# ### Exercise 4 (explain): why characters?
#
# The biLM's softmax has a word vocabulary anyway (`vocab` above). Why does ELMo compute its
# *input* token vectors from characters instead of looking them up in a table of the same
# vocabulary? Give at least two reasons.
#
# **Model answer.**
# <!-- BEGIN ANSWER -->
# 1. **No out-of-vocabulary input.** Any string has bytes, so every token gets its own
#    vector: rare words, names, typos, new words, other scripts. A table maps them all to
#    the single `<UNK>` row, and the downstream tasks (NER, SQuAD) are full of such words.
# 2. **Shared pieces of words.** *play*, *played*, *playing* share characters, so they share
#    features: morphology is learned once for all words, and a rare inflection benefits
#    from its frequent relatives (Kim et al. 2016, whose character-aware LM ELMo's biLM
#    follows: Peters et al. 2018, Sec. 3.4).
# 3. **Size.** The paper's 1B Word vocabulary has about 800,000 words: an input table of
#    800,000 × 512 would hold 410 M parameters; the character CNN has about 18 M
#    (notebook 03). The softmax still needs the word vocabulary, because the LM must predict
#    a word, but it is used only in training: the ELMo vectors never touch it.
# <!-- END ANSWER -->

# %% [markdown] slideshow={"slide_type": "subslide"}
# ## 6. Less padding: length buckets and streams (bonus)
#
# Sentence lengths vary a lot (one address has a sentence of more than 800 tokens: the first
# line below). Padding every batch to its longest sentence wastes compute, so we put sentences
# of similar length together: `bucket_batches` sorts by length, cuts batches, and shuffles the
# batch order.

# %%
lengths = [len(s) + 2 for s in train]  # + <S> and </S>
print(f"sentence length in tokens: median {sorted(map(len, train))[len(train) // 2]}, "
      f"longest {max(map(len, train))}")


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
# * Text → sentences → Treebank tokens with rules only (`elmo_tutorial.data.tokenize`).
# * Word ids serve only the softmax targets; the vocabulary starts `<S>`, `</S>`, `<UNK>`
#   and is sorted by frequency (`elmo_tutorial.model.vocab`).
# * ELMo's input is 50 character ids per token: `[BOW, ≤48 UTF-8 bytes, EOW, PAD…] + 1`,
#   0 for padding (`elmo_tutorial.model.chars`). The row counts bytes, not characters;
#   `char_ids_to_word` turns a row back into its word. No token is ever out of vocabulary on
#   the input side.
# * LM batches add `<S>`/`</S>`; forward targets are the next word, backward targets the
#   previous word, −100 elsewhere (`elmo_tutorial.model.batching`).
#
# **Read more:** Peters et al. (2018), *Deep contextualized word representations*, Sec. 3.1
# (the biLM and its joint log-likelihood) and Sec. 3.4 (the character CNN input, 2048 filters,
# highway layers, projection to 512). The character-CNN input comes from Kim et al. (2016),
# *Character-Aware Neural Language Models*, and Józefowicz et al. (2016), *Exploring the Limits
# of Language Modeling*, whose 1B Word Benchmark setup ELMo follows.
#
# **Next:** notebook 03 turns these character ids into word vectors with the char CNN.

# %% [markdown]
# ## Check your understanding
#
# Answer each in a sentence or two before you open the instructor's answer.
#
# 1. ELMo's input is characters, yet the biLM still has a word vocabulary. What is the vocabulary
#    for?
#
# <!-- BEGIN ANSWER -->
# Only for the targets: the forward and backward LMs predict the next and the previous word with
# a softmax over the vocabulary. The input never looks words up, so no input token is ever out of
# vocabulary.
# <!-- END ANSWER -->
#
# 2. What does raising `min_count` gain, and what does it cost?
#
# <!-- BEGIN ANSWER -->
# A smaller vocabulary: fewer softmax rows, and none for rare words whose rows would be badly
# estimated. The price is more `<UNK>` targets on new text; ELMo's input is unaffected, since
# every word still has its characters.
# <!-- END ANSWER -->
#
# 3. Why is 1 added to every character id?
#
# <!-- BEGIN ANSWER -->
# So that 0 is free to mean "no token here": a padded position is a row of zeros, and the mask is
# simply "is any id non-zero?".
# <!-- END ANSWER -->
#
# 4. Why does ELMo read UTF-8 bytes rather than Unicode characters, and what is the price?
#
# <!-- BEGIN ANSWER -->
# 256 byte values cover every language with a fixed table, so no character is ever unknown. The
# price: a non-ASCII character takes 2 to 4 positions, so the 48-byte limit holds fewer
# characters of other scripts, and a cut can split a character in two.
# <!-- END ANSWER -->
#
# 5. *Hi* never occurs in the training addresses. What does the biLM read at its input for it,
#    and what is its target?
#
# <!-- BEGIN ANSWER -->
# At the input, the character ids of *Hi*, like any word. Only as a target is it `<UNK>`: where
# *Hi* is the word to predict (the forward LM at `<S>`, the backward LM at *!*), the model is
# trained to predict the one class shared by all unknown words.
# <!-- END ANSWER -->
#
# 6. Why is the forward target at `</S>`, and the backward target at `<S>`, −100?
#
# <!-- BEGIN ANSWER -->
# There is nothing to predict there: no word follows `</S>` and none precedes `<S>`. −100 is
# cross-entropy's `ignore_index`, so these positions, like padding, never reach the loss.
# <!-- END ANSWER -->
#
# 7. Why does it matter that padding never reaches the loss?
#
# <!-- BEGIN ANSWER -->
# Otherwise a sentence's loss would depend on how much padding its batch happens to have, and the
# model would be trained to predict something where there is no word. With `ignore_index`, the
# batch loss is the mean over the real predictions, whatever the model outputs at the padding.
# <!-- END ANSWER -->
#
# 8. What do length buckets save compared with random batches?
#
# <!-- BEGIN ANSWER -->
# Every batch is padded to its longest sentence, so mixing short and long sentences spends most
# of the batch on padding. Sorting by length puts sentences of similar length together, and
# little padding is left to compute.
# <!-- END ANSWER -->
#
# 9. In bilm-tf's streams, why does the last token of a window still have a forward target?
#
# <!-- BEGIN ANSWER -->
# The sentences are laid end to end in parallel streams, and row *b* of the next window continues
# row *b* of this one, so the next token exists: targets cross window edges. Nothing is padded,
# and no prediction is lost at the cut.
# <!-- END ANSWER -->
#
# 10. How many of the 50 character ids of *naïve* are not padding, and why not 7?
#
# <!-- BEGIN ANSWER -->
# Eight: BOW, six bytes and EOW. The word has five characters, but *ï* is two bytes in UTF-8,
# and ELMo reads bytes (each shifted by 1), so 1 + 6 + 1 ids; the 42 after them are PAD.
# <!-- END ANSWER -->
