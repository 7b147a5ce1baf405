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
# # 07 · The scalar mix: from biLM layers to one ELMo vector
#
# A biLM with $L$ LSTM layers gives every token $k$ a stack of $L + 1$ vectors: the
# character-based token embedding (layer 0) and one $[\overrightarrow{h}; \overleftarrow{h}]$ per
# LSTM layer. ELMo does not pick one of them: a downstream task *learns* how to mix them
# (Peters et al. 2018, Eq. 1):
#
# $$\mathrm{ELMo}_k^{task} = \gamma^{task} \sum_{j=0}^{L} s_j^{task} \, h_{k,j}^{LM},
#   \qquad s^{task} = \mathrm{softmax}(w^{task}).$$
#
# **You will:**
# 1. build the mix from scratch: the weights $s_j$ as a softmax, the scale $\gamma$, the
#    optional layer norm, and the $\lambda \lVert s \rVert^2$ penalty, checking each against
#    our `ScalarMix`;
# 2. watch how $\lambda$ pulls the learned weights towards the plain average (a plot);
# 3. run the `ELMo` module on a biLM with official weights and read its TF-Hub outputs;
# 4. write the scalar mix yourself and let a self-check grade it.
#
# **Prerequisites:** notebook 01 (masked layer norm), softmax, a gradient step.
#
# **Runtime:** about 10 s on a 2-core CPU.

# %% slideshow={"slide_type": "subslide"} tags=["hide-input"]
from elmo_tutorial.figures import you_are_here

you_are_here("layer_norm", "scalar_mix", "elmo")

# %%
# %matplotlib inline
import matplotlib.pyplot as plt
import torch

from elmo_tutorial import batch_to_ids, checks, load_allennlp
from elmo_tutorial.layer_norm import masked_layer_norm
from elmo_tutorial.registry import fetch
from elmo_tutorial.runtime import setup_notebook
from elmo_tutorial.scalar_mix import ScalarMix

device = setup_notebook(seed=0)

# %% [markdown]
# ## 1. The weights $s_j$: a softmax over the layers
#
# Three toy layers for a batch of 2 sentences × 4 tokens × 6 features, on different scales
# (as real biLM layers are), and a mask: the second sentence has only 2 tokens.

# %%
B, T, D = 2, 4, 6
mask = torch.tensor([[True, True, True, True], [True, True, False, False]])  # (B, T)
layers = [torch.randn(B, T, D) * (j + 1) * mask.unsqueeze(-1) for j in range(3)]  # 3 × (B, T, D)
print([round(float(h[mask].std()), 4) for h in layers])

# %% [markdown]
# The task learns **unconstrained** numbers $w_j$ (AllenNLP calls them `scalar_parameters`).
# A softmax turns them into weights that are positive and sum to 1, so the mix is a weighted
# average of the layers whatever values $w$ takes during training:

# %%
w = torch.tensor([0.5, -1.0, 2.0])
s = torch.exp(w) / torch.exp(w).sum()  # softmax, written out
print("s =", s, " sum =", round(float(s.sum()), 4))

# %% [markdown]
# ## 2. The mix and its scale $\gamma$
#
# The weighted sum, then one scalar $\gamma$ for the whole vector. The paper (Sec. 3.2) notes
# that $\gamma$ "is of practical importance to aid the optimization process": the biLM's
# activations have their own scale, and $\gamma$ lets the task rescale them as a whole.

# %%
gamma = 1.5
mixed = gamma * sum(s_j * h for s_j, h in zip(s, layers, strict=True))  # (B, T, D)

mix = ScalarMix(3, initial_scalar_parameters=w.tolist())
with torch.no_grad():
    mix.gamma.fill_(gamma)
    package = mix(layers)
print("largest difference from ScalarMix:", round(float((mixed - package).abs().max()), 6))

# %% [markdown]
# ## 3. Optional: layer norm before weighting
#
# With `do_layer_norm=True` each layer is normalised first, with **one** mean and variance
# over the real tokens of the whole batch (notebook 01), so that a layer with large
# activations does not dominate the sum merely by its scale. The padding stays out of the
# statistics:

# %%
def whole_batch_norm(h, mask, eps=1e-12):
    real = h[mask]  # (number of real tokens, D)
    mean, var = real.mean(), real.var(unbiased=False)
    return (h - mean) / torch.sqrt(var + eps)


normed = gamma * sum(s_j * whole_batch_norm(h, mask) for s_j, h in zip(s, layers, strict=True))
mix_ln = ScalarMix(3, do_layer_norm=True, initial_scalar_parameters=w.tolist())
with torch.no_grad():
    mix_ln.gamma.fill_(gamma)
    package_ln = mix_ln(layers, mask)
difference = (normed - package_ln)[mask].abs().max()
print("largest difference at real tokens:", round(float(difference), 6))
print("matches masked_layer_norm:",
      bool(torch.allclose(whole_batch_norm(layers[2], mask)[mask],
                          masked_layer_norm(layers[2], mask)[mask], atol=1e-5)))

# %% [markdown]
# ## 4. The penalty $\lambda \lVert s \rVert^2$
#
# Sec. 3.3 adds $\lambda \lVert w \rVert_2^2$ to the task loss; as in AllenNLP we apply it to
# the normalised weights $s$. $\sum_j s_j^2$ is smallest, $1/(L+1)$, when all $s_j$ are equal,
# so a large $\lambda$ holds the mix near the plain average of the layers and a small one lets
# the task choose (Sec. 5.2 compares $\lambda = 1$ with $\lambda = 0.001$).

# %%
with torch.no_grad():
    print("penalty at our s:", round(float((s**2).sum()), 4), "=", round(float(mix.penalty()), 4))
    print("penalty, uniform:", round(float(ScalarMix(3).penalty()), 4), "= 1/3")

# %% [markdown]
# A toy task makes the effect visible: the target is mostly the top layer,
# $0.1 h_0 + 0.1 h_1 + 0.8 h_2$. We learn $w$ and $\gamma$ by gradient descent on the squared
# error plus $\lambda \lVert s \rVert^2$, for several $\lambda$:

# %%
target = 0.1 * layers[0] + 0.1 * layers[1] + 0.8 * layers[2]
lambdas = [0.0, 0.01, 0.1, 1.0, 10.0]
learned = []
for lam in lambdas:
    torch.manual_seed(0)
    task_mix = ScalarMix(3)
    optimizer = torch.optim.Adam(task_mix.parameters(), lr=0.05)
    for _ in range(300):
        optimizer.zero_grad()
        error = ((task_mix(layers) - target)[mask] ** 2).mean()
        (error + lam * task_mix.penalty()).backward()
        optimizer.step()
    learned.append(task_mix.weights.detach())
    print(f"λ = {lam:<5}  s = {[round(v, 3) for v in task_mix.weights.tolist()]}  "
          f"γ = {task_mix.gamma.item():.3f}")

# %%
weights = torch.stack(learned)  # (len(lambdas), 3)
fig, ax = plt.subplots(figsize=(6, 3.2))
for j in range(3):
    ax.plot(range(len(lambdas)), weights[:, j], marker="o", label=f"$s_{j}$")
ax.axhline(1 / 3, color="grey", linestyle=":", label="uniform")
ax.set_xticks(range(len(lambdas)), [str(v) for v in lambdas])
ax.set_xlabel("λ")
ax.set_ylabel("learned weight")
ax.set_title("A larger λ pulls the mix towards the average of the layers")
ax.legend()
plt.tight_layout()
plt.show()

# %% [markdown]
# ## 5. The ELMo module on official weights
#
# `load_allennlp` reads a biLM in the official bilm-tf/AllenNLP format. Here it is AllenNLP's
# small test model (16-dimensional projections, the same architecture as the released ones);
# the released models load the same way. `ELMo` adds `<S>`/`</S>` itself, runs the biLM, mixes
# the layers and returns the outputs under the TF-Hub module's names. The dataset registry finds
# the files on disk, or downloads them once (0.6 MB, checked against their sha256).

# %%
fixture = fetch("allennlp-elmo-fixture")  # the folder with options.json and lm_weights.hdf5
elmo = load_allennlp(fixture / "options.json", fixture / "lm_weights.hdf5")
sentences = [["The", "bank", "raised", "its", "rates", "."], ["We", "sat", "on", "the", "bank"]]
with torch.inference_mode():
    out = elmo(batch_to_ids(sentences))
for name, value in out.items():
    print(f"{name:<14} {tuple(value.shape)}")

# %% [markdown]
# `word_emb` is layer 0 (width $P$ = 16); `lstm_outputs1`, `lstm_outputs2` are the two biLSTM
# layers ($2P$); `elmo` is the scalar mix of the three, with layer 0 duplicated to $2P$;
# `default` averages `elmo` over each sentence's real tokens (padding excluded):

# %%
n = out["mask"][1].sum()
print("default == mean over the 5 real tokens:",
      bool(torch.allclose(out["default"][1], out["elmo"][1, :n].mean(0), atol=1e-6)))
print("padding is zero:", float(out["elmo"][1, n:].abs().max()))

# %% [markdown]
# The layers differ in scale, which is what $\gamma$ and the optional layer norm are for.
# Mean vector norm per layer over the real tokens, then the mixed vector with and without
# layer norm (uniform weights, $\gamma = 1$, as before any task training):

# %%
m = out["mask"]
layer_list = [torch.cat([out["word_emb"]] * 2, -1), out["lstm_outputs1"], out["lstm_outputs2"]]
for j, h in enumerate(layer_list):
    print(f"layer {j}: mean norm {h[m].norm(dim=-1).mean():.4f}")
elmo_ln = load_allennlp(fixture / "options.json", fixture / "lm_weights.hdf5", do_layer_norm=True)
with torch.inference_mode():
    out_ln = elmo_ln(batch_to_ids(sentences))
print(f"elmo:               mean norm {out['elmo'][m].norm(dim=-1).mean():.4f}")
print(f"elmo (layer norm):  mean norm {out_ln['elmo'][m].norm(dim=-1).mean():.4f}")

# %% [markdown]
# Fixed weights select layers: un-normalised weights $(-\infty, -\infty, 0)$ give the top layer
# alone (AllenNLP's `scalar_mix_parameters`), here $-10^4$ for $-\infty$:

# %%
top_only = load_allennlp(fixture / "options.json", fixture / "lm_weights.hdf5",
                         scalar_mix_parameters=[-1e4, -1e4, 0.0])
with torch.inference_mode():
    out_top = top_only(batch_to_ids(sentences))
print("elmo == lstm_outputs2:", bool(torch.allclose(out_top["elmo"], out_top["lstm_outputs2"])))

# %% [markdown]
# ## 6. Exercise: write the scalar mix
#
# Complete `my_scalar_mix(layers, w, gamma)`: `layers` is a list of same-shape tensors, `w` the
# un-normalised weights (one per layer), `gamma` a float. Return
# $\gamma \sum_j \mathrm{softmax}(w)_j \, h_j$.

# %%
def my_scalar_mix(layers, w, gamma):
    # BEGIN SOLUTION
    s = torch.softmax(w, dim=0)  # (L,)
    return gamma * sum(s_j * h for s_j, h in zip(s, layers, strict=True))
    # END SOLUTION


checks.check_scalar_mix(my_scalar_mix)

# %% [markdown]
# ## Summary
#
# - ELMo is a learned, task-specific average of **all** biLM layers (Eq. 1, Sec. 3.2):
#   softmax-normalised weights $s_j$ times one scale $\gamma$; layer 0 is the token embedding,
#   duplicated so that every layer has width $2P$.
# - Layer norm before mixing (optional) uses one mean and variance over the real tokens of the
#   batch, so padding does not move the statistics (notebook 01).
# - $\lambda \lVert s \rVert^2$ keeps the mix near the plain average; Sec. 5.2 finds a small
#   $\lambda$ (letting the task choose) better for most tasks, with $\lambda = 1$ close behind.
# - Sec. 3.3 shows where ELMo goes in a task model (concatenated with the task's own token
#   input, sometimes also at its output), with dropout on the ELMo vectors.
# - `ELMo` returns TF-Hub names: `word_emb`, `lstm_outputs1`, `lstm_outputs2`, `elmo`,
#   `default`, `mask`; `load_allennlp` reads the official weights (notebook 11).
#
# Next: notebook 08 uses these layers to tell the senses of *bank* apart.
