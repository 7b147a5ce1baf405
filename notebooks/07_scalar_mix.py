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
#    optional layer norm, and the $\lambda \lVert w \rVert^2$ penalty, checked against
#    `ScalarMix`, and watch $\lambda$ pull the weights towards the plain average;
# 2. run the `ELMo` module on official weights, with both of TF-Hub's input forms, and read
#    its TF-Hub outputs;
# 3. mix the layers of notebook 06's tiny biLM yourself, with sliders, and see which layers
#    tell a word's senses apart;
# 4. exercises: predict a mixed vector's length, measure the mix without layer 0, sweep
#    layer 0's weight, explain why a task wants more than the top layer, and choose raw
#    weights for a mix.
#
# **Prerequisites:** notebooks 01 (masked layer norm) and 06 (the trained biLM), softmax, a
# gradient step.
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

you_are_here("layer_norm", "scalar_mix", "elmo")

# %%
# %matplotlib inline
import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F

from elmo_tutorial import ELMo, batch_to_ids, checks, load_allennlp, load_elmo, shipped_model
from elmo_tutorial.claims import approx, claim
from elmo_tutorial.data.registry import fetch
from elmo_tutorial.data.sense_corpus import sense_examples
from elmo_tutorial.model.layer_norm import masked_layer_norm
from elmo_tutorial.model.scalar_mix import ScalarMix
from elmo_tutorial.runtime import setup_notebook
from elmo_tutorial.widgets import Choice, Slider, explore

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
# ## 4. The penalty $\lambda \lVert w \rVert^2$
#
# Sec. 3.3 of the paper sometimes regularises the mix "by adding $\lambda \lVert w \rVert^2_2$ to
# the loss. This imposes an inductive bias on the ELMo weights to stay close to an average of all
# biLM layers." bilm-tf applies it to the **raw** weights $w$, before the softmax
# (`l2_coef * reduce_sum(square(ELMo_W))` in `bilm/elmo.py`), as do AllenNLP's configs.
# `ScalarMix.penalty()` returns $\sum_j w_j^2$; the caller multiplies by $\lambda$. It pulls
# towards the average because $w = 0$ gives $s_j = 1/(L+1)$ for every layer.
#
# A second reading penalises the normalised weights, $\lVert s \rVert^2 = \sum_j s_j^2$
# (`penalty(on="weights")`), also smallest, $1/(L+1)$, at the average. Not the same
# regulariser:
# - $\lVert w \rVert^2$ grows without bound as one layer takes over, while
#   $\lVert s \rVert^2$ never exceeds 1, and its gradient fades as the softmax saturates;
# - the softmax ignores a constant added to every $w_j$, but $\lVert w \rVert^2$ does not: it
#   also picks the smallest of those equivalent $w$.
#
# So a $\lambda$ tuned for one does not carry over to the other. Sec. 5.1 (Table 2) compares
# $\lambda = 1$ with $\lambda = 0.001$, with the penalty on $w$.

# %%
with torch.no_grad():
    print("our w:     ‖w‖² =", round(float((w**2).sum()), 4), "=", round(float(mix.penalty()), 4),
          "  ‖s‖² =", round(float((s**2).sum()), 4), "=",
          round(float(mix.penalty(on="weights")), 4))
    uniform = ScalarMix(3)
    print("uniform:   ‖w‖² =", round(float(uniform.penalty()), 4), "        ‖s‖² =",
          round(float(uniform.penalty(on="weights")), 4), "= 1/3")

# %% [markdown]
# A toy task makes the effect visible: the target is mostly the top layer,
# $0.1 h_0 + 0.1 h_1 + 0.8 h_2$. We learn $w$ and $\gamma$ by gradient descent on the squared
# error plus $\lambda$ times each penalty, for several $\lambda$:

# %%
target = 0.1 * layers[0] + 0.1 * layers[1] + 0.8 * layers[2]
lambdas = [0.0, 0.01, 0.1, 1.0, 10.0]
learned = {"parameters": [], "weights": []}
for on in learned:
    for lam in lambdas:
        torch.manual_seed(0)
        task_mix = ScalarMix(3)
        optimizer = torch.optim.Adam(task_mix.parameters(), lr=0.05)
        for _ in range(300):
            optimizer.zero_grad()
            error = ((task_mix(layers) - target)[mask] ** 2).mean()
            (error + lam * task_mix.penalty(on=on)).backward()
            optimizer.step()
        learned[on].append(task_mix.weights.detach())
        s_learned = [round(v, 3) for v in task_mix.weights.tolist()]
        gamma_learned = task_mix.gamma.item()
        print(f"penalty on {on:<10}  λ = {lam:<5}  s = {s_learned}  γ = {gamma_learned:.3f}")

# %%
fig, axes = plt.subplots(1, 2, figsize=(10, 3.9), sharey=True)
for ax, (on, title) in zip(axes, [("parameters", "λ‖w‖² (bilm-tf, the default)"),
                                  ("weights", "λ‖s‖² (penalty(on='weights'))")], strict=True):
    weights = torch.stack(learned[on])  # (len(lambdas), 3)
    for j in range(3):
        ax.plot(range(len(lambdas)), weights[:, j], marker="o", label=f"$s_{j}$")
    ax.axhline(1 / 3, color="grey", linestyle=":", label="uniform")
    ax.set_xticks(range(len(lambdas)), [str(v) for v in lambdas])
    ax.tick_params(labelsize=11)
    ax.set_xlabel("λ", fontsize=11)
    ax.set_title(title, fontsize=12)
axes[0].set_ylabel("learned weight", fontsize=11)
fig.legend(*axes[0].get_legend_handles_labels(), loc="lower center", ncol=4, fontsize=11)
fig.suptitle("A larger λ pulls the mix towards the average of the layers", fontsize=12)
plt.tight_layout(rect=(0, 0.09, 1, 1))
plt.show()

# %% [markdown]
# Both pull the weights towards $1/3$ as $\lambda$ grows; at the same $\lambda$ the penalty
# on $w$ pulls harder here, because it keeps growing while the mix sharpens.

# %% [markdown]
# ## 5. The ELMo module on official weights
#
# `load_allennlp` reads a biLM in the official bilm-tf/AllenNLP format, here AllenNLP's small
# test model (the released models' architecture, 16-dimensional projections). `ELMo` adds
# `<S>`/`</S>` itself, runs the biLM, mixes the layers and returns TF-Hub's output names. The
# registry finds the files on disk, or downloads them once (0.6 MB, sha256-checked).

# %%
fixture = fetch("allennlp-elmo-fixture")  # the folder with options.json and lm_weights.hdf5
elmo = load_allennlp(fixture / "options.json", fixture / "lm_weights.hdf5").to(device)
sentences = [["The", "bank", "raised", "its", "rates", "."], ["We", "sat", "on", "the", "bank"]]
with torch.inference_mode():
    out = {k: v.cpu() for k, v in elmo(batch_to_ids(sentences).to(device)).items()}
for name, value in out.items():
    print(f"{name:<14} {tuple(value.shape)}")

# %% [markdown]
# The TF-Hub module has two input *signatures*: `default` takes untokenized sentences and
# splits them on spaces; `tokens` takes token lists padded with `""` to one length, and each
# sentence's length (tokens past it are ignored). `ELMo.embed` takes both and gives the same
# vectors as the character ids above:

# %%
with torch.inference_mode():
    from_strings = elmo.embed(["The bank raised its rates .", "We sat on the bank"])
    from_tokens = elmo.embed({"tokens": [["The", "bank", "raised", "its", "rates", "."],
                                         ["We", "sat", "on", "the", "bank", ""]],
                              "sequence_len": [6, 5]}, signature="tokens")
for name, inputs in (("default", from_strings), ("tokens", from_tokens)):
    same = all(torch.equal(inputs[key].cpu(), out[key]) for key in out)
    print(f"signature {name!r:9}: every output equal to the character ids' → {same}")

# %% [markdown]
# `word_emb` is layer 0 (width $P$ = 16); `lstm_outputs1`, `lstm_outputs2` the biLSTM layers
# ($2P$); `elmo` the scalar mix of the three, layer 0 duplicated to $2P$; `default` `elmo`
# averaged over each sentence's real tokens. The mix's four scalars, $w_j$ and $\gamma$, are the
# only parameters the TF-Hub module lets a task train (`trainable=True`): the task-specific
# part of Eq. 1; the biLM stays frozen.

# %%
n = out["mask"][1].sum()
print("default == mean over the 5 real tokens:",
      bool(torch.allclose(out["default"][1], out["elmo"][1, :n].mean(0), atol=1e-6)))
print("padding is zero:", float(out["elmo"][1, n:].abs().max()))

# %% [markdown]
# The layers differ in scale, which is what $\gamma$ and the optional layer norm are for. The
# next cell prints the mean vector norm per layer over the real tokens, then the mix's, with
# and without layer norm (uniform weights, $\gamma = 1$).

# %% [markdown]
# ### Exercise 1 (predict): how long is the average of three vectors?
#
# With uniform weights and $\gamma = 1$, `elmo` is the average of the three layers at each
# token. Will its mean norm be larger than the average of the three layers' mean norms,
# equal, or smaller? By how much?

# %% [markdown]
# **Prediction.**
# <!-- BEGIN ANSWER -->
# Smaller, or at most equal: by the triangle inequality,
# $\lVert \tfrac13 (h_0 + h_1 + h_2) \rVert \le \tfrac13 (\lVert h_0 \rVert + \lVert h_1 \rVert +
# \lVert h_2 \rVert)$ at every token, with equality only if the three point the same way. A
# biLM's layers point in quite different directions, so the average is clearly shorter.
# <!-- END ANSWER -->

# %%
m = out["mask"]
layer_list = [torch.cat([out["word_emb"]] * 2, -1), out["lstm_outputs1"], out["lstm_outputs2"]]
for j, h in enumerate(layer_list):
    print(f"layer {j}: mean norm {h[m].norm(dim=-1).mean():.4f}")
elmo_ln = load_allennlp(fixture / "options.json", fixture / "lm_weights.hdf5",
                        do_layer_norm=True).to(device)
with torch.inference_mode():
    out_ln = {k: v.cpu() for k, v in elmo_ln(batch_to_ids(sentences).to(device)).items()}
print(f"elmo:               mean norm {out['elmo'][m].norm(dim=-1).mean():.4f}")
print(f"elmo (layer norm):  mean norm {out_ln['elmo'][m].norm(dim=-1).mean():.4f}")
mean_layer_norm = sum(h[m].norm(dim=-1).mean() for h in layer_list) / 3
claim(out["elmo"][m].norm(dim=-1).mean() < 0.9 * mean_layer_norm,
      "the mix is shorter than its layers on average: they point in different directions")

# %% [markdown]
# Fixed weights select layers: un-normalised weights $(-\infty, -\infty, 0)$ give the top layer
# alone (AllenNLP's `scalar_mix_parameters`), here $-10^4$ for $-\infty$:

# %%
top_only = load_allennlp(fixture / "options.json", fixture / "lm_weights.hdf5",
                         scalar_mix_parameters=[-1e4, -1e4, 0.0]).to(device)
with torch.inference_mode():
    out_top = top_only(batch_to_ids(sentences).to(device))
print("elmo == lstm_outputs2:", bool(torch.allclose(out_top["elmo"], out_top["lstm_outputs2"])))

# %% [markdown]
# ## 6. Mix the layers of your own biLM
#
# The fixture's weights come from a test model and mean little. Notebook 06 trained the `tiny`
# preset on the course's corpus, whose polysemous words carry sense labels; the run trained to
# the end (600 steps) ships in `data/models/tiny`, made by exactly
# `elmo-tutorial train --config tiny --out runs/tiny` (see its `MODEL_CARD.md`), and we mix
# **its** layers. If you ran that command from the repository root, load your own run instead:
# `load_elmo("../runs/tiny")`.
#
# Its layers for 80 test occurrences each of *play*, *work*, *point* and *bank*:

# %%
elmo_tiny = load_elmo(shipped_model("tiny")).to(device)  # or load_elmo("../runs/tiny")
words = ("play", "work", "point", "bank")
test_senses = sense_examples("test")
examples = []  # 80 labelled occurrences per word, one sentence each
for word in words:
    examples += [e for e in test_senses if e.word == word][:80]
with torch.inference_mode():
    out_tiny = elmo_tiny(batch_to_ids([e.tokens for e in examples]).to(device))
    out_tiny = {name: value.cpu() for name, value in out_tiny.items()}
tiny_layers = [torch.cat([out_tiny["word_emb"]] * 2, dim=-1),  # layer 0, duplicated to 2P
               out_tiny["lstm_outputs1"], out_tiny["lstm_outputs2"]]  # 3 × (N, T, 2P)
tiny_mask = out_tiny["mask"]  # (N, T)
rows = torch.arange(len(examples))
at_word = torch.tensor([e.index for e in examples])  # (N,): where each labelled word sits
print(len(examples), "sentences; layers:", [tuple(h.shape) for h in tiny_layers])

# %% [markdown]
# How well does a layer tell the senses apart? A simple measure, the **sense gap**: the mean
# cosine between two occurrences of a word **with the same sense**, minus the mean between two
# **with different senses**. 0 means the vectors ignore the sense (notebook 08 measures it
# more carefully).

# %%
def sense_gap(vectors, word):
    """Mean cosine within senses minus across senses, over the occurrences of `word`."""
    chosen = [i for i, e in enumerate(examples) if e.word == word]
    unit = F.normalize(vectors[chosen], dim=-1)  # (n, 2P)
    similarity = unit @ unit.T  # (n, n)
    senses = [examples[i].sense for i in chosen]
    same = torch.tensor([[a == b for b in senses] for a in senses])
    off_diagonal = ~torch.eye(len(chosen), dtype=torch.bool)
    return float(similarity[same & off_diagonal].mean() - similarity[~same].mean())


print(f"{'':10}" + "".join(f"{word:>8}" for word in words) + "   mean ‖h‖")
for j, h in enumerate(tiny_layers):
    at = h[rows, at_word]  # (N, 2P): the labelled word's vector in layer j
    print(f"layer {j}:  " + "".join(f"{sense_gap(at, word):8.3f}" for word in words)
          + f"   {at.norm(dim=-1).mean():8.2f}")

# %% [markdown]
# Layer 0, one vector per word type, cannot separate anything. Both LSTM layers separate the
# senses of *play* and *point*, and *work* a little, the top layer more than the first.
# *bank*'s gap is about 0 everywhere: this small biLM has not learned its senses. The three
# layers are about equally long here (14.8 to 16.3), so none dominates a mix by length alone;
# in other biLMs they differ (the fixture's: 4.1 to 5.6), which is what layer norm is for.
#
# **The explorer.** Set the raw weights $w_j$, $\gamma$ and the layer norm, and see the cosine
# similarities of ten occurrences (two per sense of *play* and of *work*) and every word's
# sense gap for that mix, with the package's `ScalarMix`. The ten sentences, the labelled word
# in brackets:

# %%
shown = []  # indices into `examples`: two occurrences per sense
for word, sense in [("play", "GAME"), ("play", "MUSIC"), ("play", "THEATRE"),
                    ("work", "ARTWORK"), ("work", "JOB")]:
    shown += [i for i, e in enumerate(examples) if (e.word, e.sense) == (word, sense)][:2]
for k, i in enumerate(shown):
    tokens, index = list(examples[i].tokens), examples[i].index
    tokens[index] = f"[{tokens[index]}]"
    print(f"{k}  {examples[i].word}/{examples[i].sense:<8} {' '.join(tokens)}")


# %%
def draw_mix(w0, w1, w2, gamma, layer_norm):
    mix = ScalarMix(3, do_layer_norm=layer_norm, initial_scalar_parameters=[w0, w1, w2],
                    trainable=False)
    with torch.no_grad():
        mix.gamma.fill_(gamma)
        mixed = mix(tiny_layers, tiny_mask)[rows, at_word]  # (N, 2P): ELMo at each labelled word
    unit = F.normalize(mixed[shown], dim=-1)  # (10, 2P)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10.5, 4.6), width_ratios=[1.4, 1])
    image = ax1.imshow(unit @ unit.T, vmin=0, vmax=1, cmap="viridis")
    ax1.set_yticks(range(len(shown)),
                   [f"{k} {examples[i].word}/{examples[i].sense}" for k, i in enumerate(shown)],
                   fontsize=11)
    ax1.set_xticks(range(len(shown)), range(len(shown)), fontsize=11)
    ax1.set_title("cosine similarity", fontsize=12)
    colorbar = fig.colorbar(image, ax=ax1, fraction=0.046)
    colorbar.ax.tick_params(labelsize=11)
    ax2.bar(words, [sense_gap(mixed, word) for word in words])
    ax2.set_ylim(-0.05, 0.3)
    ax2.tick_params(labelsize=11)
    ax2.set_title("sense gap: same-sense minus\ndifferent-sense cosine", fontsize=12)
    s = mix.weights.tolist()
    fig.suptitle(f"s = ({s[0]:.2f}, {s[1]:.2f}, {s[2]:.2f}),  γ = {gamma:g},  layer norm "
                 f"{'on' if layer_norm else 'off'},  mean ‖ELMo‖ = {mixed.norm(dim=-1).mean():.1f}",
                 fontsize=12)
    fig.tight_layout()
    return fig


weight = Slider(-4.0, 4.0, 0.0, step=0.5)
explore(draw_mix, {"w0": weight, "w1": weight, "w2": weight,
                   "gamma": Slider(0.25, 4.0, 1.0, step=0.25, description="γ"),
                   "layer_norm": Choice((False, True), description="layer norm")},
        static=[{}, {"layer_norm": True}, {"w0": -4.0, "w1": -4.0, "w2": 4.0}])

# %% [markdown]
# Above, three settings (with a running kernel, the controls redraw on every move):
#
# 1. **uniform weights**, no layer norm: a third of every vector is layer 0, the same for
#    every occurrence of a word, so occurrences look more alike and the gaps of *play*,
#    *work* and *point* are smaller than either LSTM layer's own;
# 2. **uniform weights with layer norm**: the layers are about equally long already, so the
#    gaps hardly change; the vectors get shorter (the mean length in the titles): each
#    normalised layer has root-mean-square length $\sqrt{2P} = \sqrt{128} \approx 11$, and
#    their average is shorter still (Exercise 1);
# 3. **the top layer alone** ($s_2 \approx 1$): *play* in the THEATRE sense (a noun) stands
#    apart from the GAME and MUSIC senses (both verbs), which this layer barely tells apart;
#    *work*'s two senses hardly differ.
#
# Move $\gamma$: the mean length changes, no cosine does. $\gamma$ matters to the task model
# that reads the vectors, not to their directions. In this tiny biLM the top layer has the
# largest sense gaps, so a mix that keeps senses apart leans on it; that does not say where a
# task's learned mix will put its weight: the task models of notebook 13 all put their largest
# weight on layer 1. Which mix is best depends on the task, which is why ELMo learns $s$ per
# task instead of fixing it.

# %% [markdown]
# ### Exercise 2 (experiment): the mix without layer 0
#
# Setting 1 showed that layer 0 dilutes the uniform mix. Leave it out: choose raw weights `w`
# that give layer 0 (almost) no weight and the two LSTM layers equal weights, mix with them
# ($\gamma = 1$, no layer norm), and measure each word's sense gap. How much do the gaps grow
# compared with the uniform mix over all three layers?

# %%
def mix_with(w):
    """ELMo vectors (N, T, 2P) of the tiny biLM for fixed raw weights w, γ = 1."""
    with torch.no_grad():
        return ScalarMix(3, initial_scalar_parameters=w, trainable=False)(tiny_layers, tiny_mask)


uniform_mix = mix_with([0.0, 0.0, 0.0])
# BEGIN SOLUTION
without_layer_0 = mix_with([-1e4, 0.0, 0.0])  # softmax: (0, 1/2, 1/2)
# END SOLUTION
checks.check_lstm_layers_mix(without_layer_0, tiny_layers, tiny_mask)
gaps = {name: [sense_gap(mixed[rows, at_word], word) for word in words]
        for name, mixed in (("uniform", uniform_mix), ("without layer 0", without_layer_0))}
for name, values in gaps.items():
    print(f"{name:>16}: " + "  ".join(f"{word} {approx(g, '.3f')}"
                                      for word, g in zip(words, values, strict=True)))

# %% [markdown]
# Layer 0 holds no sense information and adds the same vector to every occurrence of a word,
# pulling them together. Without it the gaps of *play*, *work* and *point* grow by roughly a
# quarter to a half (in the saved output: *work* 28 %, *play* 39 %, *point* 44 %), though they
# stay below the top layer's alone: averaging with layer 1, which separates senses less well,
# dilutes them a little.

# %%
# After your interpretation: the finding, checked on these measurements
checks.exercise_done(2, "the mix without layer 0", "without_layer_0" in globals())
top_gaps = [sense_gap(tiny_layers[2][rows, at_word], word) for word in words]
claim(all(gaps["uniform"][i] < gaps["without layer 0"][i] < top_gaps[i] for i in range(3)),
      "without layer 0, the gaps of play, work and point grow, and stay below the top layer's")
growth = [gaps["without layer 0"][i] / gaps["uniform"][i] - 1 for i in range(3)]
claim(all(0.2 < g < 0.5 for g in growth), "they grow by roughly a quarter to a half (20 to 50 %)",
      detail=", ".join(f"{g:.0%}" for g in growth))

# %% [markdown]
# ### Exercise 3 (experiment): how much layer 0 can a mix take?
#
# Exercise 2 tried layer 0's raw weight $w_0 = 0$ (the uniform mix) and $-10^4$ (no layer 0).
# Sweep the values in between and beyond: for each $w_0$ below, mix with raw weights
# $(w_0, 0, 0)$ (one line, with `mix_with`); the cell measures each word's sense gap and plots
# it against layer 0's weight $s_0$.

# %%
raw_w0 = [-4.0, -2.0, -1.0, 0.0, 1.0, 2.0, 4.0]
share_of_layer_0, sweep_gaps = [], []
for w0 in raw_w0:
    # BEGIN SOLUTION
    swept = mix_with([w0, 0.0, 0.0])
    # END SOLUTION
    share_of_layer_0.append(float(torch.softmax(torch.tensor([w0, 0.0, 0.0]), dim=0)[0]))
    sweep_gaps.append([sense_gap(swept[rows, at_word], word) for word in words])
print(f"{'w0':>5}{'s0':>7}  " + "".join(f"{word:>8}" for word in words))
for w0, s0, row in zip(raw_w0, share_of_layer_0, sweep_gaps, strict=True):
    print(f"{w0:>5}{s0:7.3f}  " + "".join(f"{approx(round(g, 3) + 0.0, '.3f'):>8}" for g in row))
uniform_gaps = [sense_gap(uniform_mix[rows, at_word], word) for word in words]
claim(all(abs(a - b) < 1e-6 for a, b in zip(sweep_gaps[raw_w0.index(0.0)], uniform_gaps,
                                             strict=True)),
      "at w0 = 0 the sweep gives the uniform mix of Exercise 2")

fig, ax = plt.subplots(figsize=(7, 3.6))
for i, word in enumerate(words):
    ax.plot(share_of_layer_0, [g[i] for g in sweep_gaps], "o-", label=word)
ax.axvline(1 / 3, color="grey", linestyle=":", label="uniform mix")
ax.tick_params(labelsize=11)
ax.set_xlabel("$s_0$, the weight of layer 0 (layers 1 and 2 share the rest)", fontsize=11)
ax.set_ylabel("sense gap", fontsize=11)
ax.legend(fontsize=11)
fig.tight_layout()
plt.show()

# %% [markdown]
# **What do you see?** Write your interpretation before opening the answer.
#
# **Model answer.**
# <!-- BEGIN ANSWER -->
# The gaps of *play*, *work* and *point* shrink as layer 0's weight grows and vanish as it
# nears 1; *bank*'s stays at 0. Not a straight line: below $s_0 \approx 0.06$ ($w_0 = -2$)
# hardly anything is lost, at the uniform mix about a quarter of the gap is gone, beyond
# $s_0 \approx 0.6$ most of it.
#
# Layer 0 adds the same vector to every occurrence of a word. While its share is small, the
# LSTM layers' differences decide the cosines; as it grows, every occurrence nears the one
# layer-0 vector, all cosines approach 1, and the gap is squeezed out.
#
# So a learned mix need not find $w_0 = -\infty$: a moderately negative $w_0$ does. The
# penalty pulls $w$ towards 0, that is $s_0 = 1/3$, so a large $\lambda$ would keep about a
# quarter of the gap out of reach here (section 4).
# <!-- END ANSWER -->

# %%
# After your interpretation: the finding, checked on these measurements
checks.exercise_done(3, "how much layer 0 can a mix take?",
                     len(sweep_gaps) == len(raw_w0))
claim(all(sweep_gaps[k][i] > sweep_gaps[k + 1][i]
          for k in range(len(raw_w0) - 1) for i in range(3))
      and all(abs(g[3]) < 0.01 for g in sweep_gaps)
      and all(g < 0.1 * first for g, first in zip(sweep_gaps[-1][:3], sweep_gaps[0][:3],
                                                  strict=True))
      and all(g > 0.9 * first for g, first in zip(sweep_gaps[1][:3], sweep_gaps[0][:3],
                                                  strict=True)),
      "the more weight layer 0 gets, the smaller every sense gap (to under a tenth at the "
      "most), a little of it costing under 10 %; the control word's gap stays near 0")

# %% [markdown]
# ### Exercise 4 (explain): why not just the top layer?
#
# For telling senses apart, the top layer alone beats every mix above. Yet the paper finds the
# learned mix of all layers better than the top layer alone on every task it tries (Sec. 5.1,
# Table 2), and its tasks learn weights that differ between tasks (Fig. 2). Why would a task
# want the lower layers as well?

# %% [markdown]
# **Model answer.**
# <!-- BEGIN ANSWER -->
# The layers hold different information. The paper's probes (Sec. 5.3) find the first LSTM
# layer better for part of speech, the top layer for word senses, and layer 0 carries the
# word's spelling (rare words, names). A task needs a mix of these, and learned weights let
# each task take what it needs; $\lambda$ pulls them towards the average (Table 2: a small
# $\lambda$ does better). Whether the lower layers pay depends on the task and the biLM: this
# course's small biLM does not show the paper's finding (notebook 13: the top layer alone is
# level with the mix on chunking; notebook 10: layer 1's lead on part of speech is not established).
# <!-- END ANSWER -->

# %% [markdown]
# ## 7. Raw weights for a given mix

# %% [markdown]
# ### Exercise 5 (implement): the raw weights that give the mix you want
#
# You want to fix the mix to given weights $s$ (positive, summing to 1), e.g.
# $s = (0.25, 0.25, 0.5)$, through AllenNLP's `scalar_mix_parameters`, which takes the raw
# $w$. Many $w$ give the same $s$ (section 4). Complete `my_raw_weights(s)`: return the one
# with $\mathrm{softmax}(w) = s$ and the **smallest** $\lVert w \rVert^2$, the one the
# penalty $\lambda \lVert w \rVert^2$ would prefer.

# %%
def my_raw_weights(s):
    # BEGIN SOLUTION
    w = torch.log(s)  # softmax(log s) = s / Σ s = s
    return w - w.mean()  # Σ_j (w_j + c)² is smallest at c = −mean(w)
    # END SOLUTION


checks.check_scalar_parameters(my_raw_weights)

# %% [markdown]
# ## Summary
#
# - ELMo is a learned, task-specific average of **all** biLM layers (Eq. 1, Sec. 3.2):
#   softmax-normalised weights $s_j$ times one scale $\gamma$; layer 0 is the token embedding,
#   duplicated so that every layer has width $2P$.
# - Layer norm before mixing (optional) uses one mean and variance over the batch's real tokens
#   (notebook 01); it keeps a layer with long vectors from dominating the mix.
# - $\lambda \lVert w \rVert^2$ on the raw weights (bilm-tf; `ScalarMix.penalty()`) keeps the
#   mix near the plain average; $\lambda \lVert s \rVert^2$ is a different, bounded
#   regulariser. Sec. 5.1 (Table 2) finds $\lambda = 0.001$ better than $\lambda = 1$ on SQuAD,
#   SNLI and SRL, and both better than the top layer alone.
# - In the tiny biLM the top layer has the largest sense gaps and layer 0 none; layer 0, the
#   same vector for every occurrence of a word, dilutes the senses in a uniform mix.
# - The $w$ for a mix $s$ is $\log s$ up to a constant; $\lVert w \rVert^2$ is smallest for
#   $\log s - \overline{\log s}$.
# - Sec. 3.3 shows where ELMo goes in a task model (concatenated with the task's own token
#   input, sometimes also at its output), with dropout on the ELMo vectors.
# - `ELMo` returns TF-Hub names (`word_emb`, `lstm_outputs1`, `lstm_outputs2`, `elmo`,
#   `default`, `mask`) and takes TF-Hub's two input forms; `load_allennlp` reads the official
#   weights (notebook 11).
#
# Next: notebook 08 looks at the same layers in a larger biLM trained on real English.

# %% [markdown]
# ## Check your understanding
#
# Answer each in a sentence or two before you open the instructor's answer.
#
# 1. Why does the task learn unconstrained numbers $w$ and turn them into the weights with a
#    softmax, instead of learning the weights $s$ directly?
#
# <!-- BEGIN ANSWER -->
# The softmax makes the weights positive and sum to 1 whatever $w$ is, so the mix is always a
# weighted average, and $w$ can be optimised without constraints.
# <!-- END ANSWER -->
#
# 2. What does $\gamma$ change in the ELMo vectors, and what does it leave unchanged?
#
# <!-- BEGIN ANSWER -->
# It rescales every vector alike: lengths change, no cosine does. It matters to the task model
# that reads them, and the paper notes it helps the optimisation.
# <!-- END ANSWER -->
#
# 3. Why does the penalty $\lambda \lVert w \rVert^2$ pull the mix towards the plain average of
#    the layers?
#
# <!-- BEGIN ANSWER -->
# It pulls $w$ towards 0, and $w = 0$ gives every layer the weight $1/(L+1)$.
# <!-- END ANSWER -->
#
# 4. Why does a $\lambda$ tuned for the penalty on $w$ not carry over to the penalty on
#    $s = \mathrm{softmax}(w)$?
#
# <!-- BEGIN ANSWER -->
# $\lVert w \rVert^2$ grows without bound as one layer takes over, while $\lVert s \rVert^2$
# never exceeds 1 and its gradient fades as the softmax saturates; $\lVert w \rVert^2$ also
# tells apart the many $w$ that give the same $s$.
# <!-- END ANSWER -->
#
# 5. Why is layer 0 duplicated to width $2P$ before it is mixed?
#
# <!-- BEGIN ANSWER -->
# Layers 1 and 2 are forward and backward states side by side, $2P$ wide; the character CNN
# gives one $P$-wide vector. Written twice, it can be summed with them.
# <!-- END ANSWER -->
#
# 6. In the tiny biLM, layer 0's sense gap is exactly 0. Why, and what does layer 0 do to the
#    gaps of a uniform mix?
#
# <!-- BEGIN ANSWER -->
# Layer 0 is the same vector for every occurrence of a word, so it separates nothing; in a mix
# it pulls every occurrence towards that vector, so the gaps shrink.
# <!-- END ANSWER -->
#
# 7. What is the `default` output, and why must padding be left out of it?
#
# <!-- BEGIN ANSWER -->
# The mean of `elmo` over each sentence's real tokens. Padded positions hold zeros; counted
# in, they would shrink a sentence's vector by an amount that depends on its batch.
# <!-- END ANSWER -->
#
# 8. Three layers $h_0 = (1, 0)$, $h_1 = (0, 1)$, $h_2 = (1, 1)$, mix weights $w = (0, 0,
#    \ln 2)$ and $\gamma = 2$, no layer norm: what is the ELMo vector?
#
# <!-- BEGIN ANSWER -->
# $s = \mathrm{softmax}(w) = (1, 1, 2) / 4 = (0.25, 0.25, 0.5)$, so the mix is
# $0.25 (1, 0) + 0.25 (0, 1) + 0.5 (1, 1) = (0.75, 0.75)$, and $\gamma$ doubles it: $(1.5, 1.5)$.
# <!-- END ANSWER -->
