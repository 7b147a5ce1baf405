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
# # 04 · The forward language model: LSTM → projection → clipping → residual stack
#
# ELMo's vectors are the hidden states of two language models. This notebook builds the
# forward one: it reads a sentence left to right and, at every position, predicts the next
# word (Peters et al. 2018, Sec. 3.1):
#
# $$p(t_1, \dots, t_N) = \prod_{k=1}^{N} p(t_k \mid t_1, \dots, t_{k-1}).$$
#
# Its parts: the character CNN of notebook 03 turns each token into a vector; a stack of
# LSTM layers carries the left context; a softmax over the vocabulary scores the next word.
#
# **You will:**
# 1. write one LSTM step from its equations and check it against `torch.nn.LSTMCell`, then
#    bilm-tf's step from its weight file's tensors;
# 2. add LSTMP's projection (Sak et al. 2014) and check it against
#    `torch.nn.LSTM(proj_size=...)`;
# 3. add the released weights' cell and projection clipping, and see why the fused LSTM can
#    no longer be used then;
# 4. stack layers with a residual connection, and measure what it does for the gradient at
#    every depth;
# 5. assemble the forward LM, predict and measure its perplexity, train it briefly, and
#    explain what keeps the perplexity above 1.
#
# **Prerequisites:** notebooks 02 (LM batches) and 03 (the character CNN); an LSTM's gates and
# memory cell.
#
# **Runtime:** about 20 s on 2 quiet CPU cores.

# %% slideshow={"slide_type": "subslide"} tags=["hide-input"]
try:
    from elmo_tutorial.figures import you_are_here
except ModuleNotFoundError as missing:  # opened before `make lab` installed the course
    raise ModuleNotFoundError(
        f"this notebook's kernel cannot import {missing.name}: start JupyterLab with "
        "`make lab` from the repository root (or run `pip install -e .` there, in this "
        "kernel's environment), then restart the kernel") from None

you_are_here("forward_lstm", "softmax")

# %%
import math
import time
import warnings
from dataclasses import replace

import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F

from elmo_tutorial import checks
from elmo_tutorial.claims import approx, claim
from elmo_tutorial.data.sense_corpus import sense_corpus
from elmo_tutorial.model.batching import bucket_batches, make_lm_batch
from elmo_tutorial.model.config import MODEL_PRESETS
from elmo_tutorial.model.lm import ForwardLM
from elmo_tutorial.model.lstm import LSTMStack
from elmo_tutorial.model.lstmp import LSTMCellWithProjection, lstmp_step
from elmo_tutorial.model.vocab import Vocabulary
from elmo_tutorial.runtime import setup_notebook

# One thread: a small recurrent model spends its time in many tiny operations, which more
# threads only slow down.
device = setup_notebook(seed=0, threads=1)
# On the CPU, torch notes that oneDNN has no LSTMP kernel and uses its own (exact) one.
warnings.filterwarnings("ignore", message="LSTM with projections")

# %% [markdown]
# ## 1. One LSTM step from the equations
#
# At step $t$ the LSTM reads the input $x_t$ and its previous output $h_{t-1}$, and updates
# a memory $c_t$ through three gates:
#
# $$\begin{aligned}
# i_t &= \sigma(W_{ii} x_t + b_{ii} + W_{hi} h_{t-1} + b_{hi}) && \text{input gate}\\
# f_t &= \sigma(W_{if} x_t + b_{if} + W_{hf} h_{t-1} + b_{hf}) && \text{forget gate}\\
# g_t &= \tanh(W_{ig} x_t + b_{ig} + W_{hg} h_{t-1} + b_{hg}) && \text{candidate memory}\\
# o_t &= \sigma(W_{io} x_t + b_{io} + W_{ho} h_{t-1} + b_{ho}) && \text{output gate}\\
# c_t &= f_t \odot c_{t-1} + i_t \odot g_t, \qquad h_t = o_t \odot \tanh(c_t)
# \end{aligned}$$
#
# The four weight matrices are stacked into one `(4C, I)` matrix, in PyTorch's block order
# **(i, f, g, o)**. (TensorFlow, and so bilm-tf, stacks **(i, j, f, o)** with $j = g$: the
# weight loader reorders the blocks.)
#
# TensorFlow's `LSTMCell` also adds a constant **`forget_bias` = 1.0** to the forget gate's
# pre-activation, $f_t = \sigma(\ldots + b_f + 1)$, which is not in the weight file. It makes a
# fresh LSTM keep its memory ($\sigma(1) \approx 0.73$; Józefowicz et al. 2015), and the
# released weights are only right with it. PyTorch has two bias vectors whose sum is what
# counts: `load_allennlp` puts the file's bias in `bias_ih` and the constant in `bias_hh`, and
# `save_allennlp` takes it out again (`tests/formats/test_allennlp_format.py` checks that the
# outputs match bilm-tf's with it and not without it).
#
# Take the weights from a `torch.nn.LSTMCell`:

# %%
I, C, B = 3, 4, 2  # input width, memory cells, batch
cell = torch.nn.LSTMCell(I, C)
x_t = torch.randn(B, I)
h_prev, c_prev = torch.randn(B, C), torch.randn(B, C)
print("weight_ih", tuple(cell.weight_ih.shape), " weight_hh", tuple(cell.weight_hh.shape))

# %% [markdown]
# Both products at once, then split the `4C` pre-activations into the four gates:

# %%
gates = x_t @ cell.weight_ih.T + cell.bias_ih + h_prev @ cell.weight_hh.T + cell.bias_hh  # (B, 4C)
i, f, g, o = gates.chunk(4, dim=-1)  # each (B, C)
c_t = torch.sigmoid(f) * c_prev + torch.sigmoid(i) * torch.tanh(g)
h_t = torch.sigmoid(o) * torch.tanh(c_t)

h_ref, c_ref = cell(x_t, (h_prev, c_prev))
print("h_t equals nn.LSTMCell:", torch.allclose(h_t, h_ref, atol=1e-6),
      "| c_t equals nn.LSTMCell:", torch.allclose(c_t, c_ref, atol=1e-6))

# %% [markdown]
# ## 2. Projection: LSTMP
#
# ELMo's LSTM layers have $C = 4096$ memory cells but a 512-wide output. Feeding a
# 4096-wide $h_{t-1}$ back into the gates would cost $4 \cdot 4096 \cdot 4096$ weights per
# layer; LSTMP (Sak et al. 2014; used for large LMs by Józefowicz et al. 2016) first
# projects the output down with a matrix $W_{hr}$ of shape $(P, C)$:
#
# $$h_t = W_{hr}\,\bigl(o_t \odot \tanh(c_t)\bigr) \in \mathbb{R}^P,$$
#
# and the recurrence then reads the narrow $h_{t-1}$: $W_{h\cdot}$ is $(4C, P)$.
# `torch.nn.LSTM` has exactly this as `proj_size`; run our step over a short sequence and
# compare:

# %%
P, T = 2, 5
lstm = torch.nn.LSTM(I, C, proj_size=P, batch_first=True)
x = torch.randn(B, T, I)  # (B, T, I)


def my_lstmp_sequence(x, lstm):
    h, c = torch.zeros(x.shape[0], P), torch.zeros(x.shape[0], C)
    outputs = []
    for t in range(x.shape[1]):
        gates = (x[:, t] @ lstm.weight_ih_l0.T + lstm.bias_ih_l0
                 + h @ lstm.weight_hh_l0.T + lstm.bias_hh_l0)  # (B, 4C)
        i, f, g, o = gates.chunk(4, dim=-1)
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)  # (B, C)
        h = (torch.sigmoid(o) * torch.tanh(c)) @ lstm.weight_hr_l0.T  # (B, C) → (B, P)
        outputs.append(h)
    return torch.stack(outputs, dim=1)  # (B, T, P)


with torch.no_grad():
    ours, torchs = my_lstmp_sequence(x, lstm), lstm(x)[0]
print("output shape", tuple(ours.shape), "| equals nn.LSTM(proj_size=2):",
      torch.allclose(ours, torchs, atol=1e-6))

# %% [markdown]
# ## 3. Clipping
#
# bilm-tf builds its cells with `cell_clip` and `proj_clip` (3.0 in the released weights):
# the memory is clipped **after** its update, and the output **after** the projection:
#
# $$c_t = \mathrm{clip}(f_t \odot c_{t-1} + i_t \odot g_t,\ \pm c_{\text{clip}}), \qquad
#   h_t = \mathrm{clip}\bigl(W_{hr}(o_t \odot \tanh c_t),\ \pm p_{\text{clip}}\bigr).$$
#
# AllenNLP's `LstmCellWithProjection` does the same, in the same order. The package's
# `lstmp_step` is this step, and `LSTMCellWithProjection` wraps it as a module. With small
# clip values the effect is easy to see:

# %%
torch.manual_seed(0)
clipped_cell = LSTMCellWithProjection(I, C, P, cell_clip=0.5, proj_clip=0.1)
h, c = clipped_cell(3 * torch.randn(B, I), (torch.zeros(B, P), 3 * torch.randn(B, C)))
print("largest |c_t|:", round(c.abs().max().item(), 4), " largest |h_t|:",
      round(h.abs().max().item(), 4))

# %% [markdown]
# `nn.LSTM` has no clipping, so once the weights clip, its fused kernel (cuDNN on a GPU)
# computes a *different function*. That is why the package's `LSTMStack` has two paths over
# the same parameters: the **faithful** path loops over time in Python and clips (used for
# the official weights), the **fused** path calls `nn.LSTM` (used when nothing is clipped, as
# in the `tiny` and `small` presets). Without clipping they agree:

# %%
torch.manual_seed(0)
stack = LSTMStack(8, 16, 8, n_layers=1)  # no clipping → fused by default
x = torch.randn(3, 6, 8)
mask = torch.ones(3, 6, dtype=torch.bool)
with torch.no_grad():
    stack.fused = True
    fused = stack(x, mask)[0]
    stack.fused = False
    faithful = stack(x, mask)[0]
print("faithful == fused:", torch.allclose(fused, faithful, atol=1e-5))

# %% [markdown]
# ## 4. A residual stack
#
# ELMo stacks $L = 2$ LSTMP layers per direction, with "a residual connection from the first
# to second layer" (Peters et al. 2018, Sec. 3.4; bilm-tf's `ResidualWrapper`): from the
# second layer on, each layer's input is added to its output,
#
# $$h^{(1)}_t = \mathrm{LSTMP}_1(x)_t, \qquad h^{(2)}_t = \mathrm{LSTMP}_2(h^{(1)})_t + h^{(1)}_t.$$
#
# **Why.** The gradient that reaches a lower layer has to pass through every layer above it,
# shrinking (or growing) at each. With the residual, layer 2 only learns a *correction*
# $\mathrm{LSTMP}_2(h^{(1)})$ to what layer 1 says, and since
# $\partial h^{(2)} / \partial h^{(1)} = I + \partial\,\mathrm{LSTMP}_2 / \partial h^{(1)}$,
# the gradient reaches layer 1 through the identity term directly, undiminished by layer 2
# (He et al. 2016 for deep CNNs; Wu et al. 2016 stack eight residual LSTM layers in GNMT).
# Exercise 3 measures this. It needs equal widths, which the projection provides.
#
# With the skip connection off, the two stacks differ by exactly the first layer's output:

# %%
torch.manual_seed(0)
with_skip = LSTMStack(8, 16, 8, n_layers=2, cell_clip=3.0, proj_clip=3.0)
without = LSTMStack(8, 16, 8, n_layers=2, cell_clip=3.0, proj_clip=3.0,
                    use_skip_connections=False)
without.load_state_dict(with_skip.state_dict())
with torch.no_grad():
    (a1, a2), (b1, b2) = with_skip(x, mask), without(x, mask)
print(with_skip)
print("layer 2 with skip − without skip == layer 1:", torch.allclose(a2 - b2, a1, atol=1e-6))

# %% [markdown] slideshow={"slide_type": "skip"}
# How much does the fused path save? Measure rather than assume. On a CPU little, running or
# training alike (PyTorch has no oneDNN kernel for LSTMP). On a GPU cuDNN wins by far. Each
# path runs once untimed, then the paths take turns three times and keep their median:

# %% slideshow={"slide_type": "skip"}
# NBVAL_IGNORE_OUTPUT
big = LSTMStack(64, 256, 64, n_layers=2)
xb, mb = torch.randn(32, 25, 64, requires_grad=True), torch.ones(32, 25, dtype=torch.bool)


def ms_per_batch(fused, backward, repeats=3):
    big.fused = fused
    start = time.perf_counter()
    for _ in range(repeats):
        if backward:
            big(xb, mb)[-1].sum().backward()
        else:
            with torch.no_grad():
                big(xb, mb)
    return (time.perf_counter() - start) / repeats * 1000


times = {(fused, backward): [] for fused in (False, True) for backward in (False, True)}
for fused, backward in times:
    ms_per_batch(fused, backward, repeats=1)  # warm-up
for _ in range(3):
    for (fused, backward), measured in times.items():
        measured.append(ms_per_batch(fused, backward))
median = {key: sorted(measured)[1] for key, measured in times.items()}
for fused in (False, True):
    print(f"fused={fused!s:5}: forward {median[fused, False]:5.1f} ms, "
          f"forward + backward {median[fused, True]:5.1f} ms per batch")
print(f"the loop's time / the fused path's: {median[False, False] / median[True, False]:.2f}× "
      f"running, {median[False, True] / median[True, True]:.2f}× training (above 1: fused wins)")

# %% [markdown]
# ### Exercise 1 (implement): bilm-tf's LSTM step, from its weight file's tensors
#
# The released weights are TensorFlow tensors, laid out differently from `nn.LSTM`'s. Write
# one step of bilm-tf's cell on them directly, without converting them to torch's layout:
#
# - `kernel` is `(I + P, 4C)`: one matrix for the concatenated $[x_t; h_{t-1}]$, multiplied
#   from the right (`[x_t; h] @ kernel`), and `bias` is `(4C,)`, one vector;
# - the four gate blocks come in TensorFlow's order (section 1);
# - the forget gate gets TensorFlow's constant `forget_bias` = 1.0, which is in no tensor;
# - `proj_kernel` is `(C, P)`; `cell_clip`/`proj_clip` may be `None` (no clipping).
#
# Return `(h_t, c_t)`. The self-check compares your step with the package's `lstmp_step` on
# the same tensors.

# %%
def my_tf_lstmp_step(x_t, h, c, kernel, bias, proj_kernel, cell_clip, proj_clip):
    # BEGIN SOLUTION
    gates = torch.cat([x_t, h], dim=-1) @ kernel + bias  # (B, 4C)
    i, j, f, o = gates.chunk(4, dim=-1)  # TensorFlow's order; j is the candidate memory
    c = torch.sigmoid(f + 1.0) * c + torch.sigmoid(i) * torch.tanh(j)
    if cell_clip is not None:
        c = c.clamp(-cell_clip, cell_clip)
    h = (torch.sigmoid(o) * torch.tanh(c)) @ proj_kernel  # (B, C) @ (C, P)
    if proj_clip is not None:
        h = h.clamp(-proj_clip, proj_clip)
    return h, c
    # END SOLUTION


checks.check_tf_lstmp_step(my_tf_lstmp_step)

# %% [markdown]
# ## 5. The forward language model
#
# Characters → `CharCNN` (notebook 03) → `LSTMStack` → softmax over the vocabulary, with
# dropout on the LSTM's input and output in training. We use the `tiny` preset and the
# synthetic corpus that ships with the package, on the notebook's `device`:

# %%
train_sentences, valid_sentences = sense_corpus("train"), sense_corpus("valid")
vocab = Vocabulary.from_sentences(train_sentences)
config = replace(MODEL_PRESETS["tiny"], vocab_size=len(vocab))
torch.manual_seed(0)
model = ForwardLM(config).to(device)
print(f"{len(train_sentences)} training sentences, vocabulary of {len(vocab)} words")
print(f"{sum(p.numel() for p in model.parameters()):,} parameters")
print(model.forward_lstm)

# %% [markdown]
# A batch holds `<S> w1 .. wn </S>` per sentence; the forward target at position $t$ is the
# word at $t + 1$ (`-100` where there is nothing to predict: after `</S>`, and at padding).
# The model's loss is the mean next-word negative log-likelihood (NLL) in nats, and
# **perplexity** $= e^{\text{NLL}}$: a model that is as unsure as a uniform choice among
# $k$ words has perplexity $k$.

# %% [markdown]
# ### Exercise 2 (predict): the perplexity of an untrained model
#
# The model above has random weights: the softmax weights are drawn with standard deviation
# $1/\sqrt{P}$, the biases are zero. Before running the next cell, write down roughly what its
# validation perplexity will be, and why.

# %% [markdown]
# **Prediction.**
# <!-- BEGIN ANSWER -->
# Close to the vocabulary size, 599. With small random weights the logits are all near 0, so
# the softmax is close to uniform over the $V$ words: every target gets $p \approx 1/V$, the
# NLL is $\approx \log V$ and the perplexity $\approx V$. It cannot be much *below* $V$
# without knowing something about the text, and small random logits cannot make it much
# *above* either.
# <!-- END ANSWER -->

# %%
batch = make_lm_batch(valid_sentences[:2], vocab)
for t in range(6):
    print(f"position {t}: reads {vocab.word(int(batch.word_ids[0, t])):>10}  → target "
          f"{vocab.word(int(batch.forward_targets[0, t]))}")
valid_batch = make_lm_batch(valid_sentences[:400], vocab)
model.eval()
with torch.no_grad():
    before = model(valid_batch.to(device))
print(f"untrained: NLL {before.forward_nll.item():.3f} nats (log V = {math.log(len(vocab)):.3f}),"
      f" perplexity {before.forward_perplexity:.1f} (uniform: {len(vocab)})")
claim(0.9 * len(vocab) < before.forward_perplexity < 1.1 * len(vocab),
      "the untrained model's perplexity is within 10 % of the vocabulary size")

# %% [markdown]
# Under the hood `forward` computes the top LSTM layer, the softmax's log-probabilities and
# picks each target's:

# %%
with torch.no_grad():
    on_device = valid_batch.to(device)
    top = model.encode(on_device.char_ids)["forward"][-1]  # (B, T, P)
    log_probs = model.softmax.log_probs(top)  # (B, T, V)
    keep = on_device.forward_targets != -100
    nll = -log_probs[keep].gather(1, on_device.forward_targets[keep].unsqueeze(1)).mean()
print(f"by hand: {nll.item():.3f} nats")

# %% [markdown]
# ### Exercise 3 (experiment): design the control for the residual
#
# Section 4 claimed that the residual lets the gradient reach the first LSTM layer directly.
# `layer_gradients` builds an untrained forward LM from a config (same seed, so the same
# weights), computes the loss on one batch and returns the norms of the gradients that reach
# each layer's input weights, first layer first. Design the control: which second model,
# compared with `config`, would show that the residual and nothing else decides what reaches
# layer 1? Build its config as `no_residual`; the check fails on a control that differs from
# `config` in anything more.

# %%
def layer_gradients(config, batch=valid_batch):
    """‖∂loss/∂W_ih‖ of each forward LSTM layer, untrained, one batch, no dropout."""
    torch.manual_seed(0)
    lm = ForwardLM(config).to(device).eval()  # eval: no dropout, so only the wiring differs
    lm(batch.to(device)).loss.backward()
    return [layer.weight_ih_l0.grad.norm().item() for layer in lm.forward_lstm.layers]


with_residual = layer_gradients(config)
# BEGIN SOLUTION
no_residual = replace(config, use_skip_connections=False)
# END SOLUTION
without_residual = layer_gradients(no_residual)
print("norm of the gradient at each layer's input weights")
for name, (layer_1, layer_2) in (("with the residual", with_residual),
                                 ("without", without_residual)):
    print(f"{name:>17}: layer 1 {approx(layer_1, '.4f')}, layer 2 {approx(layer_2, '.4f')}")
checks.check_residual_experiment(no_residual, config, with_residual[0], without_residual[0])

fig, ax = plt.subplots(figsize=(6, 3.2))
for shift, (name, values) in zip((-0.2, 0.2), (("with the residual", with_residual),
                                               ("without", without_residual)), strict=True):
    ax.bar([k + shift for k in range(2)], values, 0.4, label=name)
ax.set_xticks(range(2), ["layer 1", "layer 2"], fontsize=11)
ax.tick_params(axis="y", labelsize=11)
ax.set_ylabel(r"$\|\partial\,\mathrm{loss} / \partial W_{ih}\|$", fontsize=11)
ax.set_title("gradient at each layer's input weights (untrained, one batch)", fontsize=11)
ax.legend(fontsize=11)
fig.tight_layout()
plt.show()

# %% [markdown]
# Layer 2's gradient hardly changes: in both stacks the loss reaches layer 2 through the
# softmax alone, and an untrained softmax is close to uniform whatever it reads. Layer 1 gets
# about nine times less without the residual (≈9× in the check above, on one batch): all it
# receives must pass through layer 2's gates
# and projection. With the residual, most of it is the loss's gradient at the top, passed down
# unchanged. (Adam or Adagrad rescale the step per weight, but not what the gradient says.)

# %%
# After your interpretation: the finding, checked on these measurements
checks.exercise_done(3, "design the control for the residual",
                     "without_residual" in globals())
claim(abs(with_residual[1] - without_residual[1]) < 0.01 * with_residual[1],
      "layer 2's gradient norm is the same with and without the residual, to within 1 %",
      detail=f"{with_residual[1]:.6f} vs {without_residual[1]:.6f}")

# %% [markdown]
# ### Exercise 4 (experiment): deeper stacks
#
# ELMo stacks two layers; GNMT stacks eight, with residuals. Sweep the depth: build the config
# for each number of layers, with and without the residual (the same kind of control as in
# Exercise 3), and measure the gradients on a batch of 32 sentences. The plot shows the first
# layer's gradient (solid) and the top layer's (dashed), on a log scale.

# %%
depths = [1, 2, 3, 4, 6]
small_batch = make_lm_batch(valid_sentences[:32], vocab)
configs, norms = {}, {}  # (depth, residual) → its config, its layers' gradient norms
for depth in depths:
    for residual in (True, False):
        # BEGIN SOLUTION
        configs[depth, residual] = replace(config, n_layers=depth, use_skip_connections=residual)
        # END SOLUTION
        norms[depth, residual] = layer_gradients(configs[depth, residual], small_batch)
print("norm of the gradient at the input weights of the first / the top layer")
print(f"{'layers':>6}  {'with the residual':^19}  {'without':^19}")
for depth in depths:
    print(f"{depth:>6}  " + "  ".join(f"{approx(norms[depth, r][0], '.1e')} / "
                                      f"{approx(norms[depth, r][-1], '.1e')}"
                                      for r in (True, False)))
checks.check_depth_sweep(configs, config, depths)

fig, ax = plt.subplots(figsize=(7, 3.6))
for residual, color in ((True, "C0"), (False, "C1")):
    name = "with the residual" if residual else "without"
    ax.plot(depths, [norms[d, residual][0] for d in depths], "o-", color=color,
            label=f"first layer, {name}")
    ax.plot(depths, [norms[d, residual][-1] for d in depths], "s--", color=color,
            label=f"top layer, {name}")
ax.set_yscale("log")
ax.set_xticks(depths, [str(d) for d in depths], fontsize=11)
ax.tick_params(axis="y", labelsize=11)
ax.set_xlabel("LSTM layers in the stack", fontsize=11)
ax.set_ylabel(r"$\|\partial\,\mathrm{loss} / \partial W_{ih}\|$", fontsize=11)
ax.legend(fontsize=10, loc="lower left")
fig.tight_layout()
plt.show()

# %% [markdown]
# **What do you see?** Write your interpretation before opening the answer.
#
# **Model answer.**
# <!-- BEGIN ANSWER -->
# With one layer the two coincide. With the residual, the first layer's gradient stays about
# the same at every depth (within 1.5×): the identity path carries it down past every layer.
# Without it, each layer added divides it by seven to ten, so with six layers almost nothing
# arrives: the vanishing gradient, compounded.
#
# Without the residual even the *top* layer's gradient collapses. A weight's gradient is the
# error arriving at its layer times the input it reads, and in a plain untrained stack the
# signal also shrinks on its way *up*: each layer's output is several times shorter than its
# input, so the upper layers read almost nothing. The residual fixes both directions: it
# carries each layer's input up unchanged, and the gradient down.
#
# So a deep plain LSTM stack starts with its lower layers nearly frozen, which is why GNMT
# needs residuals; ELMo's two layers lose one factor of about nine (Exercise 3). Caution: one
# batch of an untrained model; and an optimiser that rescales each step makes up for a
# gradient's size, not for a signal that never reaches the softmax.
# <!-- END ANSWER -->

# %%
# After your interpretation: the finding, checked on these measurements
checks.exercise_done(4, "deeper stacks", len(norms) == 2 * len(depths))
first = {r: [norms[d, r][0] for d in depths] for r in (True, False)}
top_6 = {r: norms[6, r][-1] for r in (True, False)}
claim(first[True][0] == first[False][0]  # one layer: no residual to switch off
      and all(first[False][k] > 4 * first[False][k + 1] for k in range(len(depths) - 1))
      and max(first[True]) < 1.5 * min(first[True]) and first[True][-1] > 1e4 * first[False][-1]
      and top_6[False] < top_6[True] / 100,
      "one layer: the same gradient either way; with the residual the first layer's stays "
      "within 1.5× at every depth; without it each layer added divides it by more than 4, and "
      "at 6 layers even the top layer's is 100× smaller")

# %% [markdown]
# ## 6. A short training run
#
# A few hundred steps of Adam on length-bucketed batches of 32 sentences (the real recipe,
# Adagrad on 800 M tokens, is in notebook 06). A unigram model, which ignores the context,
# gives a baseline perplexity:

# %%
counts = torch.zeros(len(vocab))
for sentence in train_sentences:
    for word_id in vocab.encode([*sentence, "</S>"]):
        counts[word_id] += 1
unigram = counts / counts.sum()
targets = valid_batch.forward_targets[valid_batch.forward_targets != -100]
unigram_perplexity = math.exp(-unigram[targets].log().mean().item())
print(f"unigram perplexity: {unigram_perplexity:.1f}")

# %% [markdown]
# The numbers below come out of training, so they are printed with `≈`: another CPU sums
# floats in another order, which changes the last digit (notebook 06). The `✓` claims hold on
# every machine.

# %%
torch.manual_seed(0)
batches = bucket_batches([len(s) for s in train_sentences], batch_size=32, shuffle=True, seed=0)
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
losses = []
model.train()
for indices in batches[:250]:
    out = model(make_lm_batch([train_sentences[i] for i in indices], vocab).to(device))
    optimizer.zero_grad()
    out.loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 10.0)
    optimizer.step()
    losses.append(out.loss.item())
model.eval()
with torch.no_grad():
    after = model(valid_batch.to(device))
print(f"validation perplexity after 250 steps: {approx(after.forward_perplexity, '.1f')} "
      f"(unigram: {unigram_perplexity:.1f})")
claim(after.forward_perplexity < unigram_perplexity / 3,
      "250 steps leave the unigram model far behind: the LSTM uses the context",
      detail=f"{after.forward_perplexity:.1f} vs unigram {unigram_perplexity:.1f}")

# %%
fig, ax = plt.subplots(figsize=(7, 3))
ax.plot(losses, label="training batch")
ax.axhline(math.log(len(vocab)), color="gray", ls="--", label="uniform (log V)")
ax.axhline(after.forward_nll.item(), color="C1", ls=":", label="validation after training")
ax.set_xlabel("step")
ax.set_ylabel("next-word NLL (nats)")
ax.legend()
fig.tight_layout()

# %% [markdown]
# The five most likely continuations of a prefix (the list below the first can differ on
# another machine):

# %%
# NBVAL_IGNORE_OUTPUT
prefix = ["She", "said", "that", "the"]
prefix_batch = make_lm_batch([prefix], vocab)
with torch.no_grad():
    top = model.encode(prefix_batch.char_ids.to(device))["forward"][-1]  # (1, T, P)
    next_log_probs = model.softmax.log_probs(top[0, len(prefix)])  # after the last word
best = next_log_probs.topk(5)
print(" ".join(prefix), "…")
for lp, word_id in zip(best.values, best.indices, strict=True):
    print(f"   {vocab.word(int(word_id)):>10}  p = {approx(lp.exp(), '.3f')}")

# %% [markdown]
# A unigram model ranks the most frequent words first (`the`, `</S>`, `.`) whatever came
# before. Every one of the trained LM's five guesses follows *the* somewhere in the training
# text, and the first is far likelier here than in text at large.

# %%
print("the unigram's first three:", [vocab.word(int(i)) for i in unigram.topk(3).indices])
after_the = {s[i + 1] for s in train_sentences for i in range(len(s) - 1) if s[i] == "the"}
guesses = [vocab.word(int(i)) for i in best.indices]
claim(all(word in after_the for word in guesses),
      "each of the five most likely next words follows 'the' in the training text")
first = int(best.indices[0])
claim(best.values[0].exp() > 10 * unigram[first],
      "after this prefix, the first guess is over ten times likelier than the unigram makes it",
      detail=f"{best.values[0].exp():.3f} vs {unigram[first]:.4f}")

# %% [markdown]
# ### Exercise 5 (explain): what keeps the perplexity above 1?
#
# After 250 steps the validation perplexity is far below the unigram's, and notebook 06's
# fully trained model reaches about 5.4. Even a perfect model of this corpus would not
# reach 1. Why not, and what decides where its floor lies?

# %% [markdown]
# **Model answer.**
# <!-- BEGIN ANSWER -->
# Perplexity 1 means every next word is certain. The corpus is generated from templates with
# words drawn at random for their slots, and a random choice cannot be predicted: the best
# model spreads its probability over the words that fit. Its perplexity is $e^{H}$, $H$ the
# generator's entropy per word. A model approaches that floor from above; the gap is what
# more data, steps or capacity could still win. Real text has a floor too, unknown.
# <!-- END ANSWER -->

# %% [markdown]
# ## Summary
#
# * An **LSTM step** computes four gates from $x_t$ and $h_{t-1}$ (block order i, f, g, o in
#   PyTorch; i, j, f, o in TensorFlow) and updates the memory $c_t$. TensorFlow adds a
#   constant forget bias of 1.0 that the weight files leave out; the loader restores it.
# * **LSTMP** projects the output to $P \ll C$ dimensions: ELMo has $C = 4096$, $P = 512$
#   (Peters et al. 2018, Sec. 3.4; Józefowicz et al. 2016; Sak et al. 2014). Without
#   clipping it is exactly `torch.nn.LSTM(proj_size=P)`.
# * The released weights **clip** the memory (after its update) and the output (after the
#   projection) to ±3; then only the explicit loop is exact, which is why `LSTMStack` has a
#   faithful and a fused path over the same parameters.
# * Layers are stacked with a **residual** connection from the second layer on: the gradient
#   reaches the lower layer directly (about nine times more of it in our untrained two-layer
#   model).
# * The **forward LM** = character CNN + LSTM stack + softmax, trained on next-word NLL;
#   perplexity $= e^{\text{NLL}}$ (Sec. 3.1).
#
# **Read more:** Peters et al. (2018), Sec. 3.1 (the biLM) and 3.4 (the architecture);
# Józefowicz et al. (2016), *Exploring the Limits of Language Modeling* (the CNN-LSTM LM ELMo
# builds on); Sak et al. (2014) for LSTMP; Józefowicz, Zaremba & Sutskever (2015), *An
# Empirical Exploration of Recurrent Network Architectures* (the forget bias of 1); He et al.
# (2016), *Deep Residual Learning for Image Recognition*, and Wu et al. (2016), *Google's
# Neural Machine Translation System* (residual connections in deep stacks).
#
# **Next:** notebook 05 runs the same machinery right to left: the backward LM.

# %% [markdown]
# ## Check your understanding
#
# Answer each in a sentence or two before you open the instructor's answer.
#
# 1. Why are ELMo's 4096-cell LSTM outputs projected down to 512 (LSTMP)?
#
# <!-- BEGIN ANSWER -->
# The output is fed back into the gates at every step: at 4096 wide, $W_{hh}$ alone would be
# 4 × 4096 × 4096 weights per layer. The projection makes it $4C \times P$ and keeps the
# interface narrow, while the 4096 cells keep a large memory.
# <!-- END ANSWER -->
#
# 2. Why can the fused `nn.LSTM` (cuDNN on a GPU) not run the released ELMo weights exactly?
#
# <!-- BEGIN ANSWER -->
# The released weights clip at ±3 and `nn.LSTM` cannot: once a value would be clipped it
# computes a different function.
# <!-- END ANSWER -->
#
# 3. What goes wrong if bilm-tf's weights are loaded without TensorFlow's constant forget
#    bias of 1?
#
# <!-- BEGIN ANSWER -->
# Every forget gate's pre-activation is 1 lower than in training, so the cells forget faster
# and every output differs from bilm-tf's.
# <!-- END ANSWER -->
#
# 4. And if the gate blocks are not reordered from TensorFlow's (i, j, f, o) to PyTorch's
#    (i, f, g, o)?
#
# <!-- BEGIN ANSWER -->
# The shapes still match, so nothing fails: the gates silently use each other's weights, and
# the outputs are wrong.
# <!-- END ANSWER -->
#
# 5. Switching the residual off hardly changes layer 2's own gradient. Why?
#
# <!-- BEGIN ANSWER -->
# The loss reaches layer 2 only through the softmax, and an untrained softmax is close to
# uniform whatever it reads. The residual changes only the path to layer 1.
# <!-- END ANSWER -->
#
# 6. What does a perplexity of $k$ mean, and what does the gap to the unigram model measure?
#
# <!-- BEGIN ANSWER -->
# The model is as unsure as a uniform choice among $k$ words. A unigram model ignores the
# context, so the gap measures what the context adds.
# <!-- END ANSWER -->
#
# 7. At the position of *bank* in a sentence, which words has the forward LM's state read, and
#    what can it therefore not know?
#
# <!-- BEGIN ANSWER -->
# Only *bank* and the words before it: a sense that only the right context gives away is the
# backward LM's part (notebook 05).
# <!-- END ANSWER -->
#
# 8. You feed the trained forward LM a sentence written backwards. What does its state at
#    position $k$ now summarise, and could it serve as the backward LM without training?
#
# <!-- BEGIN ANSWER -->
# The words after $k$ in the original sentence: the backward LM's context. But its weights
# learned English left to right, so it would predict badly; the backward LM has its own stack
# (notebook 05).
# <!-- END ANSWER -->
