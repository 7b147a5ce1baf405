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
# # 01 · Layer normalisation, and the masked variant ELMo's scalar mix uses
#
# ELMo mixes the layers of its biLM with learned weights (notebook 07). The layers live on
# different scales, so the paper notes that it *"in some cases"* helps to apply layer
# normalisation to each layer before weighting (Peters et al. 2018, Sec. 3.2). This notebook
# builds layer normalisation (Ba et al. 2016) from its formula, then the variant ELMo actually
# uses: **one** mean and variance for a whole batch, computed over the real tokens only.
#
# **You will:**
# 1. compute layer norm by hand in a few lines and check it against our `LayerNorm` and
#    `torch.nn.LayerNorm`;
# 2. see what it does to a batch of activations (histograms before and after);
# 3. build the masked, whole-batch variant and show why the mask matters: padding must not
#    move the statistics, or a sentence's vectors would depend on its batch neighbours;
# 4. predict what layer norm does to a constant vector; normalise a left-padded batch given
#    by its lengths, and a batch with one mean and variance per sentence; explain why text
#    models use layer norm rather than batch norm.
#
# **Prerequisites:** PyTorch tensors, broadcasting, mean and variance.
#
# **Runtime:** about 6 s on 2 quiet CPU cores.

# %% slideshow={"slide_type": "subslide"} tags=["hide-input"]
try:
    from elmo_tutorial.figures import you_are_here
except ModuleNotFoundError as missing:  # opened before `make lab` installed the course
    raise ModuleNotFoundError(
        f"this notebook's kernel cannot import {missing.name}: start JupyterLab with "
        "`make lab` from the repository root (or run `pip install -e .` there, in this "
        "kernel's environment), then restart the kernel") from None

you_are_here("layer_norm")

# %%
import matplotlib.pyplot as plt
import torch

from elmo_tutorial import checks
from elmo_tutorial.model.layer_norm import LayerNorm, masked_layer_norm
from elmo_tutorial.runtime import setup_notebook

setup_notebook(seed=0)  # seeds, threads, print precision; small enough for the CPU

# %% [markdown]
# ## 1. Layer norm from the formula
#
# For one vector $x \in \mathbb{R}^D$ (one token's activations):
#
# $$\mu = \frac{1}{D}\sum_i x_i, \qquad \sigma^2 = \frac{1}{D}\sum_i (x_i - \mu)^2, \qquad
#   y_i = \gamma_i \frac{x_i - \mu}{\sqrt{\sigma^2 + \epsilon}} + \beta_i .$$
#
# Each vector is standardised **on its own** (unlike batch norm, which standardises each
# feature across the batch), then scaled by a learned gain $\gamma$ and shifted by a learned
# bias $\beta$. A batch of 2 sentences × 3 tokens × 8 features, with a different offset and
# scale per token:

# %%
B, T, D = 2, 3, 8
offset = torch.randn(B, T, 1) * 4
scale = torch.rand(B, T, 1) * 5 + 0.5
x = torch.randn(B, T, D) * scale + offset  # (B, T, D)
print(x[0, 0])

# %% [markdown]
# The mean and the (biased) variance over the last dimension. `keepdim=True` keeps a
# trailing axis of size 1, so both broadcast against `x`:

# %%
mu = x.mean(dim=-1, keepdim=True)  # (B, T, 1)
var = ((x - mu) ** 2).mean(dim=-1, keepdim=True)  # (B, T, 1): divide by D, not D - 1
print("per-token mean    ", mu.squeeze(-1))
print("per-token variance", var.squeeze(-1))

# %% [markdown]
# Standardise, then scale and shift. $\epsilon$ goes *inside* the square root (Exercise 1
# asks what it is for).

# %%
eps = 1e-5
gamma = torch.rand(D) + 0.5  # (D,) learned in a real model; random here so that it shows
beta = torch.randn(D)  # (D,)
x_hat = (x - mu) / torch.sqrt(var + eps)  # (B, T, D): mean 0, variance 1 per token
y = gamma * x_hat + beta  # (B, T, D)
print("x_hat per-token mean", x_hat.mean(-1).abs().max().item() < 1e-6)
print("x_hat per-token var ", x_hat.var(-1, unbiased=False))

# %% [markdown]
# ### Exercise 1 (predict): a constant vector
#
# Feed the constant vector $x = (3, 3, \dots, 3) \in \mathbb{R}^8$ through the layer norm
# above (the same $\gamma$, $\beta$, $\epsilon = 10^{-5}$). What comes out? And what would come
# out without $\epsilon$?
#
# **Prediction.**
# <!-- BEGIN ANSWER -->
# $\mu = 3$ and $\sigma^2 = 0$, so $x - \mu = 0$ and $\hat x = 0 / \sqrt{0 + \epsilon} = 0$:
# the output is exactly $\beta$, whatever the constant (3 or −7 alike). All information about
# the vector's level is gone; only the learned bias remains. Without $\epsilon$ it is
# $0 / 0$: NaN in every component.
# <!-- END ANSWER -->

# %%
constant = torch.full((2, D), 3.0)  # (2, 8)
constant[1] = -7.0
mu_c = constant.mean(-1, keepdim=True)
var_c = ((constant - mu_c) ** 2).mean(-1, keepdim=True)
out = gamma * (constant - mu_c) / torch.sqrt(var_c + eps) + beta  # (2, 8)
print("output == beta for both rows:", torch.equal(out, beta.expand(2, D)))
print("without eps:", ((constant - mu_c) / torch.sqrt(var_c))[0])

# %% [markdown]
# The same with the package's `LayerNorm` (written from this formula) and with PyTorch's:

# %%
ours = LayerNorm(D, eps=eps)
theirs = torch.nn.LayerNorm(D, eps=eps)
with torch.no_grad():
    for norm in (ours, theirs):
        norm.weight.copy_(gamma)
        norm.bias.copy_(beta)
    print("ours  == by hand:", torch.allclose(ours(x), y, atol=1e-6))
    print("torch == by hand:", torch.allclose(theirs(x), y, atol=1e-6))
print(ours)

# %% [markdown]
# ## 2. What it does to activations
#
# Four tokens, 512 features each, with very different offsets and spreads (as the outputs of
# a layer can have). Before: four separate bumps. After: each token's values have mean 0 and
# variance 1 (with $\gamma = 1$, $\beta = 0$), so the four histograms lie on top of each other.

# %%
token_offsets = torch.tensor([-12.0, -2.0, 3.0, 15.0]).unsqueeze(1)  # (4, 1)
token_scales = torch.tensor([1.0, 4.0, 0.5, 2.0]).unsqueeze(1)  # (4, 1)
tokens = torch.randn(4, 512) * token_scales + token_offsets  # (4, 512)
with torch.no_grad():
    tokens_normed = LayerNorm(512)(tokens)  # (4, 512)

fig, axes = plt.subplots(1, 2, figsize=(9, 3))
for k in range(4):
    axes[0].hist(tokens[k].numpy(), bins=40, alpha=0.6, label=f"token {k}")
    axes[1].hist(tokens_normed[k].numpy(), bins=40, alpha=0.5, label=f"token {k}")
axes[0].set_title("before: each token on its own scale")
axes[1].set_title("after LayerNorm (γ = 1, β = 0)")
axes[0].legend(fontsize=8)
for ax in axes:
    ax.set_xlabel("activation value")
fig.tight_layout()
print("before: per-token mean", tokens.mean(-1), " std", tokens.std(-1, unbiased=False))
print("after:  per-token mean ≈ 0:", bool(tokens_normed.mean(-1).abs().max() < 1e-5),
      " std", tokens_normed.std(-1, unbiased=False))

# %% [markdown]
# ## 3. The masked, whole-batch variant of ELMo's scalar mix
#
# ELMo's `ScalarMix(do_layer_norm=True)` (AllenNLP, and `elmo_tutorial.model.scalar_mix`) does not
# normalise each token. It normalises **each layer as a whole**: one $\mu$ and one $\sigma^2$
# over every feature of every *real* token in the batch, no $\gamma$/$\beta$ (the mix has its
# own scale $\gamma$), and $\epsilon = 10^{-12}$:
#
# $$\mu = \frac{1}{N}\sum_{(t,d)\ \mathrm{real}} h_{t,d}, \qquad
#   \sigma^2 = \frac{1}{N}\sum_{(t,d)\ \mathrm{real}} (h_{t,d} - \mu)^2, \qquad
#   N = (\text{number of real tokens}) \times D .$$
#
# Per-token differences in size survive (a per-token norm would erase them); only the layer's
# overall offset and scale are removed, so that layers of different magnitude can be mixed.
#
# Batches are padded. Say three sentences of 6, 2 and 3 tokens: the padded positions hold
# zeros, and the mask says which positions are real.

# %%
lengths = torch.tensor([6, 2, 3])
mask = torch.arange(6) < lengths.unsqueeze(1)  # (3, 6) True at real tokens
h = torch.randn(3, 6, 4) * 2 + 3  # (3, 6, 4): a layer's activations, mean ≈ 3, std ≈ 2
h = h.masked_fill(~mask.unsqueeze(-1), 0.0)  # padding holds zeros
print(mask.int())

# %% [markdown]
# From scratch: zero the padding out of the sums and divide by the number of real elements.

# %%
keep = mask.unsqueeze(-1)  # (3, 6, 1)
n_real = keep.sum() * h.shape[-1]  # real tokens × D
mean = (h * keep).sum() / n_real
variance = (((h - mean) * keep) ** 2).sum() / n_real
by_hand = (h - mean) / torch.sqrt(variance + 1e-12) * keep  # (3, 6, 4), zeros at padding
print(f"mean {mean:.4f}, variance {variance:.4f} over {int(n_real)} real elements")
print("package == by hand:", torch.allclose(masked_layer_norm(h, mask), by_hand, atol=1e-6))

# %% [markdown]
# **Why the mask.** Leave it out and the padding zeros join the statistics: the mean is pulled
# towards 0 and the variance grows (the zeros sit far from the mean of 3).

# %%
mean_all = h.mean()
print(f"with the mask:    mean {mean:.4f}, variance {variance:.4f}")
print(f"padding included: mean {mean_all:.4f}, variance {h.var(unbiased=False):.4f}")

# %% [markdown]
# Worse, the result would depend on **how much padding the batch has**, which is an accident
# of batching (the longest sentence decides it). Pad the same three sentences to 10 positions
# instead of 6 and normalise again, with and without the mask:

# %%
h_longer = torch.cat([h, torch.zeros(3, 4, 4)], dim=1)  # (3, 10, 4): 4 more padded positions
mask_longer = torch.cat([mask, torch.zeros(3, 4, dtype=torch.bool)], dim=1)  # (3, 10)
for name, use_mask in [("with the mask", True), ("padding counted", False)]:
    m6 = mask if use_mask else torch.ones_like(mask)
    m10 = mask_longer if use_mask else torch.ones_like(mask_longer)
    short, long_ = masked_layer_norm(h, m6), masked_layer_norm(h_longer, m10)[:, :6]
    change = (short - long_)[mask].abs().max()
    print(f"{name:16s}: real tokens change by up to {change:.4f} when padded to 10")

# %% [markdown]
# With the mask nothing moves; counted in, the extra zeros shift every real token. The values
# at padded positions do not matter at all either:

# %%
garbage = h.clone()
garbage[~mask] = 1e6
print("padding values ignored:",
      torch.equal(masked_layer_norm(garbage, mask), masked_layer_norm(h, mask)))

# %% [markdown]
# One honest caveat: the statistics are shared by the *real* tokens of the whole batch, so
# with `do_layer_norm=True` a sentence's mixed vectors do depend (a little) on the other
# sentences in its batch. That is how AllenNLP defines it; the default `do_layer_norm=False`
# has no such dependence.

# %% [markdown]
# ### Exercise 2 (implement): a left-padded batch given by its lengths
#
# Some libraries pad at the **start** of a sentence (left padding, common for decoders that
# generate after the last real token), and pass the lengths rather than a mask. Write
# `my_left_padded_layer_norm(x, lengths)` for `x` (B, T, D), in which sentence `b` occupies
# the **last** `lengths[b]` positions: the same whole-batch normalisation as
# `masked_layer_norm` (one mean, one variance over the real elements, ε = 1e-12, no γ/β).
# The padding may hold anything. Here is such a batch, the same three sentences moved to the
# right:

# %%
left_mask = torch.arange(6) >= 6 - lengths.unsqueeze(1)  # (3, 6) only to build the example
h_left = torch.zeros_like(h)
h_left[left_mask] = h[mask]  # the same real tokens, in the same order, padding first
print(left_mask.int())


# %%
def my_left_padded_layer_norm(x, lengths):
    # BEGIN SOLUTION
    T = x.shape[1]
    real = torch.arange(T) >= T - lengths.unsqueeze(1)  # (B, T): the last lengths[b] positions
    keep = real.unsqueeze(-1)  # (B, T, 1)
    n = keep.sum() * x.shape[-1]
    mean = x.masked_fill(~keep, 0.0).sum() / n
    centred = (x - mean).masked_fill(~keep, 0.0)
    return centred / torch.sqrt(centred.pow(2).sum() / n + 1e-12)
    # END SOLUTION


checks.check_left_padded_layer_norm(my_left_padded_layer_norm)

# %% [markdown]
# Where the padding sits does not matter to the statistics, only which elements are real:
# the real tokens come out as in the right-padded batch.

# %%
moved = my_left_padded_layer_norm(h_left, lengths)
print("same real tokens as right-padded:",
      torch.allclose(moved[left_mask], masked_layer_norm(h, mask)[mask], atol=1e-6))

# %% [markdown]
# ### Exercise 3 (implement): one mean and variance per sentence
#
# The caveat above comes from sharing the statistics across the batch. Write
# `my_per_sentence_layer_norm(x, mask)` (right padding, `mask` (B, T)) that gives **each
# sentence** its own mean and variance, over its real tokens and all D features; ε = 1e-12,
# no γ/β. It sits between the two norms of this notebook: per token (layer norm) and per
# batch (ELMo's scalar mix).

# %%
def my_per_sentence_layer_norm(x, mask):
    # BEGIN SOLUTION
    keep = mask.unsqueeze(-1)  # (B, T, 1)
    n = keep.sum(dim=(1, 2), keepdim=True) * x.shape[-1]  # (B, 1, 1): real elements per sentence
    mean = x.masked_fill(~keep, 0.0).sum(dim=(1, 2), keepdim=True) / n  # (B, 1, 1)
    centred = (x - mean).masked_fill(~keep, 0.0)
    variance = centred.pow(2).sum(dim=(1, 2), keepdim=True) / n  # (B, 1, 1)
    return centred / torch.sqrt(variance + 1e-12)
    # END SOLUTION


checks.check_per_sentence_layer_norm(my_per_sentence_layer_norm)

# %% [markdown]
# Now a sentence's vectors no longer depend on its batch neighbours. Replace the second
# sentence by a very different one (ten times larger) and compare the first sentence's
# output with each version:

# %%
h_other = h.clone()
h_other[1] = h_other[1] * 10
for name, norm in [("whole batch", masked_layer_norm),
                   ("per sentence", my_per_sentence_layer_norm)]:
    change = (norm(h, mask)[0] - norm(h_other, mask)[0]).abs().max()
    print(f"{name:12s}: sentence 0 changes by up to {change:.4f}")

# %% [markdown]
# The price: a per-sentence norm also removes differences *between* sentences (a loud
# sentence and a quiet one come out alike), and a one-token sentence with D features gets
# statistics from D numbers only. ELMo's scalar mix keeps AllenNLP's whole-batch definition.
#
# ### Exercise 4 (explain): layer norm, not batch norm
#
# Batch normalisation standardises each *feature* with a mean and variance over the batch
# (and, for sequences, over the time steps). Give two reasons why language models over
# padded, variable-length sentences use layer normalisation instead.
#
# **Model answer.**
# <!-- BEGIN ANSWER -->
# 1. Batch statistics depend on the batch: on which sentences and how much padding it holds,
#    so a token's output depends on its neighbours (the caveat above, for every feature), and
#    padding must be masked out of every statistic. Layer norm reads one token's own vector:
#    no mask, no dependence on the batch.
# 2. At test time batch norm needs running averages collected in training (a sentence may be
#    processed alone, batch size 1), and train and test then behave differently; in a
#    recurrent network it would also need separate statistics per time step, while sentences
#    have different lengths. Layer norm computes the same thing in training and at test time,
#    for any batch size and length (Ba et al. 2016, Sec. 1 and 3).
# <!-- END ANSWER -->

# %% [markdown]
# ## Summary
#
# * **Layer norm** standardises each vector over its features, then applies a learned gain
#   and bias: $y = \gamma (x - \mu)/\sqrt{\sigma^2 + \epsilon} + \beta$, biased variance,
#   $\epsilon$ inside the root (`elmo_tutorial.model.layer_norm.LayerNorm` = `torch.nn.LayerNorm`).
# * **ELMo's scalar mix** optionally normalises each biLM layer with *one* mean and variance
#   over all real tokens of the batch (`masked_layer_norm`, AllenNLP's `ScalarMix`): layers
#   of different scale become comparable, per-token differences survive.
# * The **mask** keeps padding out of the statistics, so padding cannot shift them and the
#   padded positions' values are irrelevant; where the padding sits (left or right) does not
#   matter. Per-sentence statistics would remove the dependence on the batch neighbours.
#
# **Read more:** Ba, Kiros & Hinton (2016), *Layer Normalization*, Sec. 3. Peters et al.
# (2018), Sec. 3.2 (Eq. 1: the scalar mix, and the remark on layer normalisation) and
# Sec. 3.3 and 5.1, Table 2 (the regulariser $\lambda\lVert w\rVert^2$ on the mix weights).
#
# **Next:** notebook 02 turns text into the character ids the biLM reads.

# %% [markdown]
# ## Check your understanding
#
# Answer each in a sentence or two before you open the instructor's answer.
#
# 1. Layer norm and batch norm both standardise with a mean and a variance. Over what does each
#    compute them?
#
# <!-- BEGIN ANSWER -->
# Layer norm uses the features of one vector (one token), so each token is standardised on its
# own. Batch norm uses, for each feature separately, all the vectors of the batch (and, for
# sequences, the time steps).
# <!-- END ANSWER -->
#
# 2. Why does the layer norm of ELMo's scalar mix use one mean and variance for a whole layer
#    instead of standardising each token on its own?
#
# <!-- BEGIN ANSWER -->
# Its purpose is to bring layers of different overall scale to a common one before they are
# mixed. A per-token norm would also erase the differences in size between the tokens of a layer,
# which may carry information; one mean and variance per layer removes only the layer's offset
# and scale.
# <!-- END ANSWER -->
#
# 3. Why does that layer norm have no learned gain $\gamma$ and bias $\beta$?
#
# <!-- BEGIN ANSWER -->
# The mix has its own learned scale: each layer is multiplied by its weight and the sum by the
# mix's $\gamma$ (notebook 07), so a gain per layer would duplicate it.
# <!-- END ANSWER -->
#
# 4. The same batch is padded to 10 positions instead of 6. What happens to the normalised values
#    of its real tokens, with the mask and without it?
#
# <!-- BEGIN ANSWER -->
# With the mask nothing changes: only real elements enter the mean and the variance. Without it
# the extra zeros pull the mean towards 0 and change the variance, so every real token shifts
# with the amount of padding, an accident of how the batch was formed (its longest sentence
# decides it).
# <!-- END ANSWER -->
#
# 5. Do the masked statistics depend on whether the batch is padded on the left or on the right,
#    or on the values the padded positions hold?
#
# <!-- BEGIN ANSWER -->
# No: they depend only on which elements are real. Padded values are left out of every sum (even
# $10^6$ there changes nothing), and a left-padded batch gives the same real outputs as the
# right-padded one.
# <!-- END ANSWER -->
#
# 6. With the mask, can a sentence's normalised vectors still depend on the other sentences of
#    its batch?
#
# <!-- BEGIN ANSWER -->
# Yes: the mean and the variance are shared by the real tokens of the whole batch, so replacing
# another sentence (say by one ten times larger) changes them. That is how AllenNLP defines
# `do_layer_norm=True`; the default, no layer norm, has no such dependence.
# <!-- END ANSWER -->
#
# 7. Per-sentence statistics remove that dependence. What do they cost?
#
# <!-- BEGIN ANSWER -->
# They also remove the differences between sentences: a loud sentence and a quiet one come out
# alike. And a short sentence gets its statistics from few numbers, a one-token sentence from its
# D features only.
# <!-- END ANSWER -->
#
# 8. Why can it help to normalise each biLM layer before taking a weighted sum of them?
#
# <!-- BEGIN ANSWER -->
# The layers live on different scales. Without normalisation the layer with the largest
# activations dominates the sum merely by its scale, and the learned weights would partly just
# compensate for it; normalised, the weights compare layers of the same scale.
# <!-- END ANSWER -->
#
# 9. A token's vector is $(2, 4, 4, 6)$. What does `LayerNorm(4)` (its initial $\gamma = 1$,
#    $\beta = 0$, $\epsilon$ left out) make of it?
#
# <!-- BEGIN ANSWER -->
# The mean is 4, the (biased) variance $(4 + 0 + 0 + 4) / 4 = 2$, so the result is
# $(-2, 0, 0, 2) / \sqrt 2 \approx (-1.41, 0, 0, 1.41)$: mean 0, variance 1.
# <!-- END ANSWER -->
#
# 10. A batch of two sentences of 3 and 5 real tokens is padded to 5 positions, with vectors
#     of 100 features. How many numbers enter the masked layer norm's mean, and how many
#     would without the mask?
#
# <!-- BEGIN ANSWER -->
# With the mask $(3 + 5) \times 100 = 800$, the real tokens' features; without it
# $2 \times 5 \times 100 = 1{,}000$, the 200 padded zeros among them.
# <!-- END ANSWER -->
