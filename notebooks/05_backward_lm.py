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
# # 05 · The backward language model, and reversing a padded batch
#
# The second half of ELMo's biLM reads each sentence **right to left** and predicts the
# *previous* word (Peters et al. 2018, Sec. 3.1):
#
# $$p(t_1, \dots, t_N) = \prod_{k=1}^{N} p(t_k \mid t_{k+1}, \dots, t_N).$$
#
# It is the forward LM of notebook 04 run on reversed sentences, with its own LSTM stack but
# the same character CNN and softmax. The one subtle part is the reversal itself: batches
# are padded on the right, and a naive flip puts the padding *first*.
#
# **You will:**
# 1. see, with numbers, why `torch.flip` on a padded batch is wrong;
# 2. reverse each sentence within its own length, with one `gather`;
# 3. build the backward LM and its previous-word targets;
# 4. check causality on a sentence: which words can each direction's vector at position $k$
#    depend on?
# 5. exercises: measure how the damage of a naive flip grows with the padding and interpret
#    it, reverse a *left*-padded batch, predict which vectors a changed word moves, and
#    explain why the two directions must never read each other's states.
#
# **Prerequisites:** notebook 04 (LSTM stack, forward LM), notebook 02 (LM batches).
#
# **Runtime:** about 12 s on 2 quiet CPU cores.

# %% slideshow={"slide_type": "subslide"} tags=["hide-input"]
try:
    from elmo_tutorial.figures import you_are_here
except ModuleNotFoundError as missing:  # opened before `make lab` installed the course
    raise ModuleNotFoundError(
        f"this notebook's kernel cannot import {missing.name}: start JupyterLab with "
        "`make lab` from the repository root (or run `pip install -e .` there, in this "
        "kernel's environment), then restart the kernel") from None

you_are_here("backward_lstm", "softmax")

# %%
import math
import warnings
from dataclasses import replace

import matplotlib.pyplot as plt
import torch

from elmo_tutorial import checks
from elmo_tutorial.claims import approx, claim
from elmo_tutorial.data.sense_corpus import sense_corpus
from elmo_tutorial.model.batching import bucket_batches, make_lm_batch
from elmo_tutorial.model.config import MODEL_PRESETS
from elmo_tutorial.model.lm import BackwardLM, BidirectionalLM
from elmo_tutorial.model.lstm import LSTMStack, reverse_padded
from elmo_tutorial.model.vocab import Vocabulary
from elmo_tutorial.runtime import setup_notebook

device = setup_notebook(seed=0, threads=1)  # one thread: small recurrent models run best so
# On the CPU, torch notes that oneDNN has no LSTMP kernel and uses its own (exact) one.
warnings.filterwarnings("ignore", message="LSTM with projections")

# %% [markdown]
# ## 1. Flipping a padded batch is wrong
#
# Two sentences of lengths 5 and 3, padded to 5. Each token is represented here by its
# position number, padding by 0:

# %%
lengths = torch.tensor([5, 3])
x = torch.tensor([[1, 2, 3, 4, 5],
                  [1, 2, 3, 0, 0]])
print(torch.flip(x, dims=[1]))

# %% [markdown]
# The second row now *starts* with two padding positions. A right-to-left LSTM fed this row
# reads two steps of padding before the sentence's last word, and its state, and so every
# output, changes. Compare a backward LSTM on the sentence alone with the same LSTM on the
# flipped batch:

# %%
torch.manual_seed(0)
lstm = torch.nn.LSTM(4, 8, batch_first=True)
tokens = torch.randn(2, 5, 4)  # (B, T, D)
tokens[1, 3:] = 0.0  # padding
with torch.no_grad():
    alone = lstm(torch.flip(tokens[1:, :3], dims=[1]))[0].flip(1)  # the sentence by itself
    in_batch = lstm(torch.flip(tokens, dims=[1]))[0].flip(1)[1:, :3]
flip_error = (alone - in_batch).abs().max().item()
print("largest difference, flip in a padded batch vs alone:", round(flip_error, 4))

# %% [markdown]
# ### Exercise 1 (experiment): how much padding, how much damage?
#
# The short sentence above had 2 padding positions. Vary that number: pad the same three-token
# sentence on the right with `n_pad` zero vectors (one line: a `(1, 3 + n_pad, 4)` tensor), and
# the cell flips it, runs the backward LSTM and measures how far each token's output moves
# from the sentence alone. The plot shows one line per token.

# %%
sentence = tokens[1:, :3]  # (1, 3, 4): the short sentence, without its padding
paddings = [0, 1, 2, 3, 4, 6, 8, 12]
damage = []  # per padding: how far each token's output moved, (3,)
with torch.no_grad():
    for n_pad in paddings:
        # BEGIN SOLUTION
        padded = torch.cat([sentence, torch.zeros(1, n_pad, 4)], dim=1)  # (1, 3 + n_pad, 4)
        # END SOLUTION
        flipped = lstm(torch.flip(padded, dims=[1]))[0].flip(1)[:, :3]  # the tokens' outputs
        damage.append((flipped - alone).abs().amax(-1)[0])  # (3,)
damage = torch.stack(damage)  # (len(paddings), 3)
print(f"{'padding':>7}  {'token 1':>8}{'token 2':>8}{'token 3':>8}  (largest change of the output)")
for n_pad, row in zip(paddings, damage, strict=True):
    print(f"{n_pad:>7}  " + "".join(f"{float(d):8.4f}" for d in row))
claim(abs(float(damage[paddings.index(2)].max()) - flip_error) < 1e-6,
      "with 2 padding positions the sweep measures what the batch above showed")

fig, ax = plt.subplots(figsize=(7, 3.4))
for j, read in ((2, "read first"), (1, "read second"), (0, "read last")):
    ax.plot(paddings, damage[:, j], "o-", label=f"token {j + 1} ({read})")
ax.set_xlabel("padding positions the flip puts first", fontsize=11)
ax.set_ylabel("largest change of the output", fontsize=11)
ax.tick_params(labelsize=11)
ax.legend(fontsize=11)
fig.tight_layout()
plt.show()

# %% [markdown]
# **What do you see?** Write your interpretation before opening the answer.
#
# **Model answer.**
# <!-- BEGIN ANSWER -->
# Without padding the flip is exact: nothing moves. With padding every output moves, and more
# with more padding, but not without end: after about six positions the curves are nearly
# flat. The token read first after the padding (token 3) moves most, the one read last
# (token 1) least.
#
# Why: a backward LSTM fed the flipped row reads the padding *before* the sentence. Zero inputs
# are not "nothing": the biases still drive the state, so when the sentence starts, the state
# is no longer the zero state it starts from when the sentence is alone. A few steps of the
# same zero input drive it to a fixed point (the state that reading zeros leaves unchanged),
# which is why more padding soon stops adding damage. The wrong start then fades as the LSTM
# reads real tokens, since its forget gate lets old memory decay: the later a token is read,
# the less of the padding is left in its output. It never fades completely in three tokens,
# so the damage depends on how much shorter a sentence is than the longest in its batch,
# that is, on which sentences it happened to be batched with.
# <!-- END ANSWER -->

# %%
# After your interpretation: the finding, checked on these measurements
checks.exercise_done(1, "how much padding, how much damage?",
                     isinstance(damage, torch.Tensor))
claim(float(damage[0].max()) < 1e-6 and bool((damage[1:, 2] > damage[1:, 1]).all())
      and bool((damage[1:, 1] > damage[1:, 0]).all()) and bool((damage.diff(dim=0) >= 0).all())
      and float((damage[-1] - damage[-2]).max()) < 0.01 * float(damage[-1].max()),
      "no padding moves nothing; padding moves every token, the one read first most and the "
      "one read last least, more with more padding until the curves flatten")

# %% [markdown]
# One padding position is enough to move every output: zero inputs are not "nothing" to an
# LSTM, the biases still move the state. The fix is to
# reverse each row **within its own length**: row $b$ becomes
# $x_{b, L_b-1}, \dots, x_{b, 0}$ followed by its padding, untouched.
#
# ## 2. Reversal within each length, from scratch
#
# For every row and position, which source position should land there? For $t < L_b$ it is
# $L_b - 1 - t$; for $t \ge L_b$ it is $t$ itself:

# %%
t = torch.arange(x.shape[1])  # (T,)
index = torch.where(t < lengths[:, None], lengths[:, None] - 1 - t, t)  # (B, T)
print(index)

# %% [markdown]
# `gather` picks, in each row, the entries at those positions:

# %%
print(x.gather(1, index))

# %% [markdown]
# The same index reverses it back (the operation is its own inverse), and for `(B, T, D)`
# tensors it is expanded over the last dimension. The package's `reverse_padded` does this;
# with it the padded batch gives the same vectors as the sentence alone:

# %%
rev = reverse_padded(tokens, lengths)
with torch.no_grad():
    in_batch = reverse_padded(lstm(rev)[0], lengths)[1:, :3]
print("reverse twice == identity:", torch.equal(reverse_padded(rev, lengths), tokens))
print("largest difference, reverse_padded vs alone:",
      round((alone - in_batch).abs().max().item(), 4))

# %% [markdown]
# ### Exercise 2 (implement): reverse a left-padded batch
#
# Some toolkits pad on the **left**: row $b$'s $L_b$ tokens are its *last* $L_b$ positions,
# the padding comes first (`[0, 0, a, b, c]`). A backward LSTM needs the same care there.
# `x` is `(B, T, D)`, left-padded; `lengths` is `(B,)` and may contain 0. Return `x` with
# each row's tokens reversed in place and the padding left in front (`[0, 0, c, b, a]`).
# Work out which source position lands at each position, or find a way to reuse
# `reverse_padded`.

# %%
def my_reverse_left_padded(x, lengths):
    # BEGIN SOLUTION
    T = x.shape[1]
    t = torch.arange(T)
    start = T - lengths[:, None]  # (B, 1): where each row's tokens begin
    index = torch.where(t >= start, start + T - 1 - t, t)  # (B, T)
    return x.gather(1, index.unsqueeze(-1).expand_as(x))
    # END SOLUTION


checks.check_reverse_left_padded(my_reverse_left_padded)

# %% [markdown]
# ## 3. The backward LSTM stack and the backward LM
#
# `LSTMStack(..., go_forward=False)` reverses its input with `reverse_padded`, runs the
# same left-to-right code as the forward stack, and reverses the outputs back. So the
# output at position $t$ sits at the token it describes, and the backward stack starts at
# each sentence's own last token. A sentence gives the same vectors alone and in a padded
# batch of longer sentences:

# %%
torch.manual_seed(0)
backward_stack = LSTMStack(4, 8, 4, n_layers=2, go_forward=False)
mask = torch.arange(5) < lengths[:, None]  # (B, T)
with torch.no_grad():
    batched = backward_stack(tokens, mask)[-1][1, :3]
    single = backward_stack(tokens[1:, :3], torch.ones(1, 3, dtype=torch.bool))[-1][0]
print("alone == in a padded batch:", torch.allclose(batched, single, atol=1e-6))

# %% [markdown]
# The backward LM's target at position $t$ is the word at $t - 1$: `<S>` reads nothing
# before it, so its target is `-100` (ignored), and `</S>` predicts the sentence's last word.

# %%
train_sentences, valid_sentences = sense_corpus("train"), sense_corpus("valid")
vocab = Vocabulary.from_sentences(train_sentences)
sentence = ["She", "said", "that", "the", "bank", "was", "old", "."]
batch = make_lm_batch([sentence], vocab)


def word(i):
    return "-100" if i == -100 else vocab.word(i)


print(f"{'t':>2} {'reads':>7} {'forward target':>15} {'backward target':>16}")
for t in range(batch.mask.shape[1]):
    print(f"{t:>2} {vocab.word(int(batch.word_ids[0, t])):>7} "
          f"{word(int(batch.forward_targets[0, t])):>15} "
          f"{word(int(batch.backward_targets[0, t])):>16}")

# %% [markdown]
# Training the backward LM is the same loop as in notebook 04 (on the notebook's `device`);
# only the targets and the direction differ. As there, a number that comes out of training
# is printed with `≈` (its last digits depend on the CPU) and the claim about it is checked:

# %%
config = replace(MODEL_PRESETS["tiny"], vocab_size=len(vocab))
torch.manual_seed(0)
model = BackwardLM(config).to(device)
batches = bucket_batches([len(s) for s in train_sentences], batch_size=32, shuffle=True, seed=1)
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
losses = []
for indices in batches[:150]:
    out = model(make_lm_batch([train_sentences[i] for i in indices], vocab).to(device))
    optimizer.zero_grad()
    out.loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 10.0)
    optimizer.step()
    losses.append(out.loss.item())
model.eval()
with torch.no_grad():
    valid = model(make_lm_batch(valid_sentences[:400], vocab).to(device))
print(f"backward validation perplexity after 150 steps: "
      f"{approx(valid.backward_perplexity, '.1f')} (uniform: {len(vocab)})")
claim(valid.backward_perplexity < len(vocab) / 10,
      "after 150 steps the backward LM is more than ten times better than a uniform guess",
      detail=f"{valid.backward_perplexity:.1f}")

# %%
fig, ax = plt.subplots(figsize=(7, 3))
ax.plot(losses, label="training batch")
ax.axhline(math.log(len(vocab)), color="gray", ls="--", label="uniform (log V)")
ax.set_xlabel("step")
ax.set_ylabel("previous-word NLL (nats)")
ax.legend()
fig.tight_layout()

# %% [markdown]
# What came before? The most likely words preceding "bank" in our sentence, according to
# the backward LM (position of "bank" = 5, counting `<S>` as 0). Below the first, the list
# and its order can differ on another machine:

# %%
# NBVAL_IGNORE_OUTPUT
with torch.no_grad():
    top = model.encode(batch.char_ids.to(device))["backward"][-1]  # (1, T, P)
    log_probs = model.softmax.log_probs(top[0, 5])  # the word before "bank"
best = log_probs.topk(5)
for lp, word_id in zip(best.values, best.indices, strict=True):
    print(f"   {vocab.word(int(word_id)):>8}  bank …   p = {approx(lp.exp(), '.3f')}")

# %% [markdown]
# Reading right to left, the LM has learned that a noun like *bank* is most often preceded by
# a determiner:

# %%
claim(vocab.word(int(best.indices[0])) == "the" and best.values[0].exp() > 0.3,
      "the most likely word before 'bank' is 'the', with p > 0.3")

# %% [markdown]
# ## 4. Causality, shown on one sentence
#
# Replace one word and record which positions' top-layer vectors change. (An untrained biLM
# is enough: this is a property of the wiring, not of the weights.)

# %% [markdown]
# ### Exercise 3 (predict): which vectors does a changed word move?
#
# In `<S> She said that the bank was old . </S>` (positions 0 to 9), *bank* (position 5) is
# replaced by *river*. At which positions will the forward stack's top-layer vector change,
# and at which the backward stack's? Mind the boundaries.

# %% [markdown]
# **Prediction.**
# <!-- BEGIN ANSWER -->
# Forward: positions 5 to 9, from *river* itself through `</S>`: the forward vector at $k$
# has read words $\le k$, so every position from the change on has read it, and none before.
# Backward: positions 0 to 5, from `<S>` through *river*: the backward vector at $k$ has read
# words $\ge k$. Only position 5 changes in both; `<S>` changes in the backward stack only,
# `</S>` in the forward stack only.
# <!-- END ANSWER -->

# %%
torch.manual_seed(0)
bilm = BidirectionalLM(config).eval()
changed = list(sentence)
k = 4  # "bank"
changed[k] = "river"
pair = make_lm_batch([sentence, changed], vocab)
with torch.no_grad():
    out = bilm.encode(pair.char_ids)
# Two rows of one batch may differ by rounding (about 1e-7) on another CPU's kernels; a vector
# that has read the replaced word moves far more than 1e-5 (the smallest move is printed below).
change = {d: (out[d][-1][0] - out[d][-1][1]).abs().amax(-1) for d in ("forward", "backward")}
moved = {d: change[d] > 1e-5 for d in change}
labels = ["<S>", *sentence, "</S>"]
print(f"replaced {sentence[k]!r} (position {k + 1}) by {changed[k]!r}")
for d in ("forward", "backward"):
    print(f"{d:>8}: " + " ".join(f"{w}{'*' if m else ''}" for w, m in zip(labels, moved[d],
                                                                        strict=True)))
positions = torch.arange(len(labels))
smallest_move = min(float(change[d][moved[d]].min()) for d in change)
print(f"smallest change of a moved vector: {smallest_move:.1e} (the threshold: 1e-5)")
claim(torch.equal(moved["forward"], positions >= k + 1)
      and torch.equal(moved["backward"], positions <= k + 1) and smallest_move > 1e-4,
      "the forward vectors change from the replaced word on, the backward ones up to it")

# %%
fig, ax = plt.subplots(figsize=(7, 1.6))
ax.imshow(torch.stack([moved["forward"], moved["backward"]]).float(), cmap="Blues",
          vmin=0, vmax=1)
ax.set_xticks(range(len(labels)), labels, rotation=45)
ax.set_yticks([0, 1], ["forward", "backward"])
ax.set_title(f"vectors that change when '{sentence[k]}' → '{changed[k]}'")
fig.tight_layout()

# %% [markdown]
# ### Exercise 4 (explain): trained together, run apart
#
# The biLM trains both directions jointly, on one loss, with a shared character CNN and
# softmax, yet the forward stack never reads the backward stack's states, nor the other way
# round; ELMo only concatenates them afterwards. Why not let the forward LSTM at position $k$
# also read the backward LSTM's state there? It would see the whole sentence.

# %% [markdown]
# **Model answer.**
# <!-- BEGIN ANSWER -->
# Because then the language-model objective could be met by copying. The forward LM at $k$
# must predict word $k+1$; the backward state at $k$ has read words $\ge k$, which include
# word $k+1$ (section 4: it changes when any later word changes). A forward LSTM that reads it
# learns to copy the answer instead of modelling the language, the training loss drops to
# almost 0, and the states learn nothing useful. Each direction is a proper LM only if it
# never sees the word it predicts, so the two must stay separate while they are trained. The
# joint loss still helps: the shared character CNN and softmax get gradients from both
# directions. The whole-sentence view comes afterwards, for free: ELMo concatenates the two
# states at each position. (BERT found another way round the copying problem: it hides the
# words it predicts, with a mask, and reads both sides in every layer.)
# <!-- END ANSWER -->

# %% [markdown]
# ## Summary
#
# * The **backward LM** predicts each word from the words after it (Peters et al. 2018,
#   Sec. 3.1); it shares the character CNN and the softmax with the forward LM and has its
#   own LSTM stack (also Sec. 3.1).
# * Reversing a **right-padded** batch with `torch.flip` starts the short sentences on
#   padding and changes their vectors. Reverse **within each length** instead
#   (`reverse_padded`, one `gather`), run left to right, reverse back.
# * **Previous-word targets:** position $t$ predicts the word at $t - 1$; `<S>` predicts
#   nothing (`-100`).
# * **Causality:** the forward vector at $k$ depends on words $\le k$, the backward one on
#   words $\ge k$; ELMo concatenates the two, so each token's vector sees the whole sentence.
#
# **Read more:** Peters et al. (2018), Sec. 3.1 (the biLM objective) and 3.4 (the
# architecture); Józefowicz et al. (2016) for the character-CNN LSTM language model.
#
# **Next:** notebook 06 trains both directions jointly, with the shared (and sampled) softmax.

# %% [markdown]
# ## Check your understanding
#
# Answer each in a sentence or two before you open the instructor's answer.
#
# 1. Why is `torch.flip` wrong for running a backward LSTM over a right-padded batch?
#
# <!-- BEGIN ANSWER -->
# It puts a short sentence's padding first, so the LSTM reads padding before the sentence's last
# word. Zero inputs are not "nothing" to an LSTM (its biases still move the state), so every
# output of that sentence changes.
# <!-- END ANSWER -->
#
# 2. How does `reverse_padded` reverse a batch, and why does the same call reverse the outputs
#    back?
#
# <!-- BEGIN ANSWER -->
# In row $b$ it takes position $L_b - 1 - t$ for each $t < L_b$ and leaves the padding where it
# is. That permutation is its own inverse, so applying it to the outputs puts each one back at
# the token it describes.
# <!-- END ANSWER -->
#
# 3. A sentence is run alone and inside a padded batch of longer sentences. Why does the backward
#    stack give it the same vectors both times?
#
# <!-- BEGIN ANSWER -->
# Reversed within its own length, the sentence starts at its own last token and its padding comes
# after it, so the padding never reaches its states. A token's vector then depends on its
# sentence only, not on how the batch was formed.
# <!-- END ANSWER -->
#
# 4. What do the forward and backward LMs share, and what is trained by both directions?
#
# <!-- BEGIN ANSWER -->
# They share the character CNN and the softmax; each has its own LSTM stack. The joint loss adds
# both directions' NLL, so the shared parts get gradients from both, and each stack only from its
# own direction.
# <!-- END ANSWER -->
#
# 5. What is the backward LM's target at `<S>`, and at `</S>`?
#
# <!-- BEGIN ANSWER -->
# At `<S>` none (−100, ignored): nothing comes before it. At `</S>`, the sentence's last word.
# <!-- END ANSWER -->
#
# 6. The causality check uses an untrained biLM. Why is that enough?
#
# <!-- BEGIN ANSWER -->
# Which positions a word can influence depends on the wiring (which states read which inputs),
# not on the weights: random weights show the same pattern as trained ones.
# <!-- END ANSWER -->
#
# 7. Why does ELMo put the two directions' states side by side instead of using one of them?
#
# <!-- BEGIN ANSWER -->
# The forward state at $k$ depends only on the words up to $k$, the backward one only on the
# words from $k$ on. Concatenated, the token's vector depends on the whole sentence, and either
# side may hold the cue (notebook 00).
# <!-- END ANSWER -->
#
# 8. A batch holds sentences of 3, 7 and 5 positions, padded to 7. Write the positions
#    `reverse_padded` reads, row by row.
#
# <!-- BEGIN ANSWER -->
# Row 0: 2, 1, 0, 3, 4, 5, 6; row 1: 6, 5, 4, 3, 2, 1, 0; row 2: 4, 3, 2, 1, 0, 5, 6. Each row's
# first $L_b$ positions are read backwards, its padding stays where it is.
# <!-- END ANSWER -->
#
# 9. Could a two-layer `nn.LSTM(..., bidirectional=True)` over packed sequences replace ELMo's
#    two stacks for training the language models? What would go wrong?
#
# <!-- BEGIN ANSWER -->
# Packing reverses each sentence within its own length correctly, but in a bidirectional
# `nn.LSTM` the second layer reads both directions' outputs of the first. Its forward half
# would then see the words after $k$ through the backward states below it, and predicting
# word $k + 1$ would be trivial. ELMo keeps two separate stacks, each reading only its own
# direction.
# <!-- END ANSWER -->
