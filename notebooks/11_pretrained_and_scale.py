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
# # 11 · Official weights, export, GPUs, and what the paper's model costs
#
# Notebooks 02-07 built ELMo and trained small biLMs. This one connects them to the real
# thing: the weights Peters et al. (2018) released, their format, and the hardware the
# paper's model needs.
#
# **You will:**
# 1. load a biLM in the official bilm-tf / AllenNLP format, read its outputs under the TF-Hub
#    names, and check them against the original TensorFlow implementation's outputs;
# 2. see where the released models are and how to download and verify them;
# 3. (bonus) export a model trained with this package to the official format and load it back;
# 4. predict, then count, the parameters and FLOPs per token of the paper's model, see why it
#    projects its 4096 cells to 512, measure how the cost grows with the cells, and work out
#    what training took then and (bonus) would take on one GPU today.
#
# Sections 4, 5 and 9 are **engineering appendices** (a GPU, several GPUs, the fast modules).
# Skip them and the **(bonus)** parts in a lecture, but run them.
#
# **Prerequisites:** notebooks 03, 04 and 07.
#
# **Runtime:** about 9 s on 2 quiet CPU cores, no GPU; nothing is downloaded but AllenNLP's 0.6 MB
# test model.

# %% slideshow={"slide_type": "subslide"} tags=["hide-input"]
try:
    from elmo_tutorial.figures import you_are_here
except ModuleNotFoundError as missing:  # opened before `make lab` installed the course
    raise ModuleNotFoundError(
        f"this notebook's kernel cannot import {missing.name}: start JupyterLab with "
        "`make lab` from the repository root (or run `pip install -e .` there, in this "
        "kernel's environment), then restart the kernel") from None

you_are_here("scale")

# %%
# %matplotlib inline
import json
import tempfile
from dataclasses import replace
from pathlib import Path

import h5py
import matplotlib.pyplot as plt
import numpy as np
import torch

from elmo_tutorial import ELMo, batch_to_ids, checks, load_allennlp, load_elmo, shipped_model
from elmo_tutorial.claims import claim
from elmo_tutorial.data import registry
from elmo_tutorial.data.corpora import load_sentences
from elmo_tutorial.data.downloads import DatasetNotAvailable
from elmo_tutorial.fast import speed_up
from elmo_tutorial.fast.dropout import FastDropout
from elmo_tutorial.formats.export import export_allennlp
from elmo_tutorial.model.batching import make_lm_batch
from elmo_tutorial.model.config import MODEL_PRESETS
from elmo_tutorial.model.lm import BidirectionalLM
from elmo_tutorial.model.vocab import Vocabulary
from elmo_tutorial.runtime import setup_notebook
from elmo_tutorial.training.cost import (
    TRAINING_FACTOR,
    flops_by_part,
    flops_per_token,
    measure_flops,
    parameter_counts,
)
from elmo_tutorial.training.distributed import DistInfo, shard
from elmo_tutorial.training.train_config import TrainConfig

device = setup_notebook(seed=0)

# %% [markdown]
# ## 1. Official weights, offline: AllenNLP's test model
#
# A model in the official format is two files: `options.json` (the architecture, our
# `ModelConfig`'s fields) and an hdf5 file with one dataset per bilm-tf TensorFlow variable.
# AllenNLP tests its ELMo with a tiny model in that format and the original TensorFlow
# outputs for 30 sentences; the registry finds it (or downloads it once, sha256-checked):

# %%
fixture = registry.fetch("allennlp-elmo-fixture")  # a folder; never downloads unverified bytes
options = json.loads((fixture / "options.json").read_text())
print(json.dumps(options["lstm"]), "\n", json.dumps(options["char_cnn"]))

# %% [markdown]
# The released models' architecture in miniature (5 filter widths, projections of 16, 64
# cells, clipping at 3). `load_allennlp` converts every variable (gate order, TF's constant
# forget bias, the highway gate's sign; notebook 04):

# %%
elmo = load_allennlp(fixture / "options.json", fixture / "lm_weights.hdf5").to(device)
sentences = [["The", "bank", "raised", "its", "rates", "."], ["We", "sat", "on", "the", "bank"]]
with torch.inference_mode():
    out = elmo(batch_to_ids(sentences).to(device))
for name, value in out.items():
    print(f"{name:<14} {str(tuple(value.shape)):<12} {value.dtype}")

# %% [markdown]
# These are the TF-Hub ELMo module's names: `word_emb` is layer 0 ($P$ wide); `lstm_outputs1`
# and `lstm_outputs2` the biLSTM layers, forward and backward concatenated ($2P$); `elmo` their
# scalar mix; `default` `elmo` averaged over real tokens; `mask` (ours) marks them. For the
# released "original" model $P = 512$:

# %%
P = MODEL_PRESETS["paper"].projection_dim
for name, shape in [("word_emb", f"(B, T, {P})"), ("lstm_outputs1", f"(B, T, {2 * P})"),
                    ("lstm_outputs2", f"(B, T, {2 * P})"), ("elmo", f"(B, T, {2 * P})"),
                    ("default", f"(B, {2 * P})"), ("mask", "(B, T)")]:
    print(f"{name:<14} {shape}")

# %% [markdown] slideshow={"slide_type": "subslide"}
# ### The same numbers as TensorFlow (bonus)
#
# `lm_embeddings_k.hdf5` holds bilm-tf's top layer for sentence `k` of each of 10 batches of 3.
# bilm-tf carries LSTM state from batch to batch; its first batch, like every call of ours,
# starts from zero, so batch 0 must match as it is:

# %%
corpus = json.loads((fixture / "sentences.json").read_text())  # corpus[k][i]: row k of batch i
batch0 = [corpus[k][0].split() for k in range(3)]
with torch.inference_mode():
    top = elmo(batch_to_ids(batch0).to(device))["lstm_outputs2"].cpu().numpy()  # (3, T, 2P)
for k, tokens in enumerate(batch0):
    with h5py.File(fixture / f"lm_embeddings_{k}.hdf5", "r") as file:
        tensorflow = np.concatenate(file["0"][...], axis=-1)  # (2, n, P) → (n, 2P): [fwd; bwd]
    error = np.abs(top[k, : len(tokens)] - tensorflow).max()
    print(f"sentence {k}: {len(tokens)} tokens, largest difference from TensorFlow "
          f"{error:.5f} → {'match' if error < 1e-5 else 'DIFFERENT'}")
    claim(error < 1e-5, f"sentence {k} matches TensorFlow's top layer to 5 decimals")

# %% [markdown]
# ## 2. The released models, online
#
# AllenNLP published several English biLMs trained on the 1B Word Benchmark (about 800 M
# tokens of news text) at <https://allennlp.org/elmo>. The registry knows where they are:

# %%
for name in ("elmo-small", "elmo-medium", "elmo-original"):
    ds = registry.get_dataset(name)
    print(f"{name:<14} {ds.size:>7}  {ds.description.split(', trained')[0]}")
    for remote in ds.files:
        print(f"{'':16}{remote.urls[0]}")

# %% [markdown]
# AllenNLP publishes no checksum for these files, so the registry will not download them (a
# corrupted or substituted file would pass unnoticed). It says what to do instead:

# %%
try:
    registry.fetch("elmo-original")
except DatasetNotAvailable as refusal:
    print(refusal)

# %% [markdown]
# Once the two files sit in a folder `elmo-original/` where the registry looks, one line loads
# them (shapes are checked against the options, so a wrong or truncated file fails by name):
#
# ```python
# from elmo_tutorial.formats.allennlp_format import load_model  # a run, or options + weights
# elmo_original = load_model([registry.locate("elmo-original")])
# ```

# %% [markdown]
# The file names say the architecture: `2x4096_512_2048cnn_2xhighway` is 2 LSTM layers of 4096
# cells projected to 512, 2048 character filters, 2 highway layers: our `paper` preset. We
# count all three without the files, leaving out what TensorFlow lacks (`nn.LSTM`'s second
# bias, the padding row of the character table):

# %%
paper = MODEL_PRESETS["paper"]
released = {"small": replace(paper, lstm_dim=1024, projection_dim=128, n_highway=1),
            "medium": replace(paper, lstm_dim=2048, projection_dim=256, n_highway=1),
            "original": paper}
published = {"small": 13.6, "medium": 28.0, "original": 93.6}  # allennlp.org/elmo, millions
for name, config in released.items():
    n_ours = sum(parameter_counts(config, vocab_size=0).values())
    tensorflow = n_ours - 2 * config.n_layers * 4 * config.lstm_dim - config.char_embed_dim
    print(f"{name:<9} ours {n_ours / 1e6:6.2f} M, as TensorFlow counts {tensorflow / 1e6:6.2f} M,"
          f" allennlp.org {published[name]} M")

# %% [markdown] slideshow={"slide_type": "subslide"}
# ## 3. Export a model you trained (bonus)
#
# `export_allennlp` (the command `elmo-tutorial export RUN --allennlp OUT`) writes a run's
# biLM in the official format. Here the shipped `tiny` biLM of notebook 06
# (`data/models/tiny`; your own `runs/tiny` works the same), into a temporary folder:

# %%
shipped = shipped_model("tiny")  # a run directory, as `elmo-tutorial train` writes it
ours = load_elmo(shipped).to(device)
workdir = tempfile.TemporaryDirectory()
options_file, weight_file = export_allennlp(shipped, Path(workdir.name) / "tiny-allennlp")
print(options_file.name, json.dumps(json.loads(options_file.read_text())["lstm"]))
datasets = {}  # name → shape of every array in the hdf5 file
with h5py.File(weight_file, "r") as file:
    file.visititems(lambda name, item: datasets.update({name: item.shape})
                    if isinstance(item, h5py.Dataset) else None)
print(f"{weight_file.name}: {len(datasets)} datasets, {weight_file.stat().st_size / 1e6:.1f} MB")
for name in ["char_embed", "CNN/W_cnn_3", "CNN_high_0/W_carry", "CNN_proj/W_proj",
             *(n for n in datasets if n.startswith("RNN_0") and "Cell1" in n)]:
    print(f"  {name:<50} {datasets[name]}")

# %% [markdown]
# The LSTM weights sit under bilm-tf's names, one `W_0` holding input and recurrent weights in
# TensorFlow's gate order. `cell_clip` and `proj_clip` are `null`: `tiny` does not clip, and
# AllenNLP reads `null` as "no clipping". Loading the files back gives the same model:

# %%
reloaded = load_allennlp(options_file, weight_file).to(device)
ids = batch_to_ids([["She", "sat", "on", "the", "bank", "of", "the", "river", "."],
                    ["The", "bank", "raised", "its", "rates", "."]]).to(device)
with torch.inference_mode():
    a, b = ours(ids), reloaded(ids)
differences = {name: (a[name] - b[name]).abs().max().item()
               for name in ("word_emb", "lstm_outputs1", "lstm_outputs2", "elmo")}
for name, difference in differences.items():
    print(f"{name:<14} largest difference {difference:.6f}")
workdir.cleanup()
claim(max(differences.values()) < 2e-6, "the reloaded model's outputs are within 2e-6 of the "
      "original's")

# %% [markdown]
# The same to about 6 decimals (not to the last bit: the file holds our two LSTM biases' sum
# less TensorFlow's constant forget bias, so float32 additions happen in another order).
# AllenNLP reads the same two files, with a learned scalar mix per output and dropout 0.5:
#
# ```python
# from allennlp.modules.elmo import Elmo, batch_to_ids
# elmo = Elmo(options_file, weight_file, num_output_representations=1, dropout=0.5)
# out = elmo(batch_to_ids(sentences))  # {"elmo_representations": [(B, T, 2P)], "mask": (B, T)}
# ```
#
# So does bilm-tf's `BidirectionalLanguageModel`. Their LSTMs keep state between batches; ours
# start every sentence from zero.

# %% [markdown] slideshow={"slide_type": "subslide"}
# ## 4. Appendix A: a notebook on a GPU (bonus)
#
# `setup_notebook()` returns the CPU unless `ELMO_TUTORIAL_DEVICE` names another device:
#
# ```bash
# ELMO_TUTORIAL_DEVICE=cuda make lab      # or: export ELMO_TUTORIAL_DEVICE=cuda; jupyter lab
# ```
#
# The notebooks move models and inputs `.to(device)`:

# %%
print("this notebook runs on:", device)

# %% [markdown]
# Two things change on a GPU. First, the LSTM: `tiny` and `small` do not clip, so they run one
# `nn.LSTM` call, cuDNN's fused kernel; the official weights and `paper` clip at 3, so they run
# the step-by-step loop (notebook 04) on any device:

# %%
for name, model in [("shipped tiny model", ours), ("official-format fixture", elmo)]:
    print(f"{name:<24} clipping {model.config.clipping!s:<5} → fused nn.LSTM path: "
          f"{model.bilm.forward_lstm.fused}")

# %% [markdown]
# Second, training: `elmo-tutorial train` picks the GPU by itself and runs under bfloat16
# autocast (`amp`): matrix products take bfloat16 inputs (8 bits of mantissa, float32's range),
# the weights stay float32, as for the shipped `small` model (`benchmarks/RESULTS.md`):

# %%
print("amp (bfloat16 autocast on CUDA):", TrainConfig.preset("small").amp)

# %% [markdown] slideshow={"slide_type": "subslide"}
# With 8 bits of mantissa a number keeps 2 to 3 significant digits, so ELMo's outputs move by a
# few parts in a thousand (the trainer autocasts only on CUDA, where it pays):

# %%
with torch.inference_mode(), torch.autocast("cpu", dtype=torch.bfloat16):
    low = ours.cpu()(ids.cpu())["lstm_outputs2"].float()
with torch.inference_mode():
    full = ours.cpu()(ids.cpu())["lstm_outputs2"]
relative = ((low - full).norm() / full.norm()).item()
print(f"bfloat16 autocast vs float32: relative difference {relative:.3f}")
claim(1e-3 <= relative < 1e-2, "bfloat16 moves the outputs by a few parts in a thousand")

# %% [markdown] slideshow={"slide_type": "subslide"}
# ## 5. Appendix B: several GPUs and several machines (bonus)
#
# Training runs data-parallel under `torchrun`: one process per GPU, each with a copy of the
# model; `DistributedDataParallel` averages the gradients in every backward pass, so every
# copy takes the same step. One machine, 4 GPUs:
#
# ```bash
# torchrun --nproc_per_node=4 -m elmo_tutorial train --config paper --out runs/paper
# elmo-tutorial train --config paper --out runs/paper --nproc 4     # starts the same torchrun
# ```
#
# Two machines with 8 GPUs each: the same command on both, a shared rendezvous point, and
# `--out` on storage both see, so that any node can resume:
#
# ```bash
# torchrun --nnodes=2 --nproc_per_node=8 --rdzv_backend=c10d \
#          --rdzv_endpoint=HOST_OF_NODE0:29500 --rdzv_id=elmo-paper \
#          -m elmo_tutorial train --config paper --out /shared/runs/paper
# ```
#
# Every process builds the same global batches and takes its share; rank 0 alone evaluates,
# logs and checkpoints:

# %%
global_batch = list(range(10))  # sentence indices of one global batch
for rank in range(4):
    print(f"rank {rank} of 4 trains on sentences {shard(global_batch, DistInfo(rank, 4))}")

# %% [markdown]
# `batch_size` counts sentences per step over **all** processes, so more GPUs change how fast,
# not what is learned. bilm-tf's 128 was per GPU, on 3 GPUs: `--batch_size=384` comes close
# (its rows were 20-token windows, ours are sentences):

# %%
print("paper preset, sentences per step over all GPUs:", TrainConfig.preset("paper").batch_size)

# %% [markdown]
# ## 6. What the paper's model costs
#
# ### Parameters
#
# The `paper` preset (Sec. 3.4: 2048 character filters, 2 highway layers, 2 layers of 4096
# cells projected to 512), with a softmax over the 1B Word Benchmark's 793,471 words.
# `parameter_counts` adds them up; a model on PyTorch's `meta` device confirms the total.
#
# ### Exercise 1 (predict): the parameters of the paper's LSTMs
#
# Before you run the next cell, write down how many parameters the `lstm` row will show. Each
# direction has 2 LSTMP layers; each layer has $W_{ih}$ ($4C \times I$), $W_{hh}$
# ($4C \times P$), two bias vectors of $4C$ (PyTorch's `bias_ih` and `bias_hh`) and the
# projection $W_{hr}$ ($P \times C$), with $C = 4096$ cells and $I = P = 512$.

# %% [markdown]
# **Prediction.**
# <!-- BEGIN ANSWER -->
# One layer in one direction: $4 \cdot 4096 \cdot (512 + 512) = 16{,}777{,}216$ weights in the
# gates, $2 \cdot 4 \cdot 4096 = 32{,}768$ biases and $512 \cdot 4096 = 2{,}097{,}152$ in the
# projection: $18{,}907{,}136$. Two layers in each of two directions: $4 \times$ that,
# $75{,}628{,}544$, about 75.6 M.
# <!-- END ANSWER -->

# %%
V_PAPER = 793_471
counts = parameter_counts(paper, vocab_size=V_PAPER)
for part, n in counts.items():
    print(f"{part:<15} {n:>12,}  {n / sum(counts.values()):6.1%}")
print(f"{'total':<15} {sum(counts.values()):>12,}")
with torch.device("meta"):
    shapes_only = BidirectionalLM(replace(paper, vocab_size=V_PAPER))
print("the module on the meta device:", f"{sum(p.numel() for p in shapes_only.parameters()):,}")
one_layer = 4 * 4096 * (512 + 512) + 2 * 4 * 4096 + 512 * 4096  # one LSTMP layer, one direction
claim(counts["lstm"] == 2 * 2 * one_layer, "the lstm row is 2 layers × 2 directions × "
      f"{one_layer:,} parameters")
encoder = sum(counts.values()) - counts["softmax"]
claim(abs(counts["softmax"] / sum(counts.values()) - 0.8) < 0.02
      and abs(encoder / 1e6 - 93.7) < 0.05 and abs(counts["lstm"] / encoder - 0.81) < 0.005,
      "four parameters in five are the softmax's; the encoder's 93.7 M are 81 % LSTMs")

# %% [markdown]
# Four parameters in five are the softmax, used only in training: ELMo keeps the encoder's
# 93.7 M, 81 % of it in the LSTMs.
#
# ### Exercise 2 (explain): 4096 cells, projected to 512
#
# The paper's LSTMs have 4096 cells, yet each layer passes on (and feeds back to itself) only a
# 512-dimensional projection of its output. Why not use 4096 everywhere, or 512 cells and no
# projection? Use the counts above.

# %% [markdown]
# **Model answer.**
# <!-- BEGIN ANSWER -->
# The cells are the LSTM's memory: more of them lower perplexity. But the recurrent state is
# multiplied by $W_{hh}$ at every step, read by the next layer and scored by the softmax.
# Without the projection, $W_{hh}$ alone would be $4 \cdot 4096 \cdot 4096 \approx 67$ M
# per layer and direction (not 8.4 M), and the softmax $793{,}471 \times 4096 \approx 3.25$
# billion parameters (not 407 M). Projecting to $P = 512$ (LSTMP, Sak et al. 2014) keeps a
# large memory behind a narrow interface: cost grows with $C \cdot P$, not $C^2$.
# <!-- END ANSWER -->
#
# ### FLOPs per token
#
# Per token, each weight matrix of $I \times O$ costs $2IO$ FLOPs in the forward pass (a
# multiply and an add per weight). The exceptions: bilm-tf slides each filter over all 50
# character positions, and the paper's softmax scores 8192 sampled candidates per prediction,
# not all 793,471 words (notebook 06). `flops_per_token` writes this out, per token position,
# forward, both directions.
#
# ### Exercise 3 (predict): a full softmax instead of a sampled one
#
# The last line of the next cell compares the sampled softmax (8192 candidates) with a full one
# over all 793,471 words. About how many times more does the full one cost per token? Write
# your estimate first.

# %% [markdown]
# **Prediction.**
# <!-- BEGIN ANSWER -->
# The softmax costs $2 P$ FLOPs per scored word, so the ratio is the number of words scored:
# $793{,}471 / 8192 \approx 97$. Everything else in the model costs the same either way.
# <!-- END ANSWER -->

# %%
SAMPLED = TrainConfig.preset("paper").sampled_softmax  # 8192, as bilm-tf
forward = flops_per_token(paper, vocab_size=V_PAPER, sampled_softmax=SAMPLED)
full_softmax = flops_per_token(paper, vocab_size=V_PAPER)["softmax"]
for part, flops in forward.items():
    print(f"{part:<15} {flops / 1e6:8.1f} MFLOP")
print(f"{'total':<15} {sum(forward.values()) / 1e6:8.1f} MFLOP forward; "
      f"× {TRAINING_FACTOR} to train = {TRAINING_FACTOR * sum(forward.values()) / 1e6:.0f} MFLOP")
print(f"a full softmax instead: {full_softmax / 1e6:.0f} MFLOP forward, "
      f"{full_softmax / forward['softmax']:.0f}× the sampled one")

# %% [markdown]
# ### Exercise 4 (experiment): what more cells cost
#
# The paper chose 4096 cells per LSTM layer. What would 1024, or 8192, have cost? For every
# cell count in `cells`, take `replace(paper, lstm_dim=C)` (all else stays) and keep,
# in a dict `cost` from the cell count to a pair, its parameter counts
# (`parameter_counts(config, vocab_size=V_PAPER)`) and its forward FLOPs per token with the
# sampled softmax (`flops_per_token(config, vocab_size=V_PAPER, sampled_softmax=SAMPLED)`).
# The cell prints and draws what each costs; try other counts too (keep 4096, which the check
# reads).

# %%
cells = [512, 1024, 2048, 4096, 8192]  # LSTM cells per layer; the paper's is 4096
# BEGIN SOLUTION
cost = {}
for C in cells:
    config = replace(paper, lstm_dim=C)
    cost[C] = (parameter_counts(config, vocab_size=V_PAPER),
               flops_per_token(config, vocab_size=V_PAPER, sampled_softmax=SAMPLED))
# END SOLUTION
checks.check_cell_costs(cost, paper, V_PAPER, SAMPLED)
claim(cost[4096] == (counts, forward), "your row for 4096 cells is the paper's model above")
encoder_params = {C: sum(n.values()) - n["softmax"] for C, (n, _) in cost.items()}
training_flops = {C: TRAINING_FACTOR * sum(f.values()) for C, (_, f) in cost.items()}  # per token
print(f"{'cells':>6}  {'encoder':>9}  {'LSTMs':>5}  {'softmax':>7}  {'training / token':>16}  "
      f"{'LSTMs':>5}  {'softmax':>7}")
for C, (n, f) in cost.items():
    print(f"{C:>6,}  {encoder_params[C] / 1e6:>7.1f} M  {n['lstm'] / encoder_params[C]:>5.0%}  "
          f"{n['softmax'] / 1e6:>5.0f} M  {training_flops[C] / 1e6:>10.0f} MFLOP  "
          f"{TRAINING_FACTOR * f['lstm'] / training_flops[C]:>5.0%}  "
          f"{TRAINING_FACTOR * f['softmax'] / training_flops[C]:>7.0%}")
print("(encoder parameters and the LSTMs' share of them; the softmax's parameters; training "
      "FLOPs per token and the shares of the LSTMs and the sampled softmax)")

fig, (ax_n, ax_f) = plt.subplots(1, 2, figsize=(9.5, 3.4))
for ax, values, label in ((ax_n, encoder_params, "encoder parameters (millions)"),
                          (ax_f, training_flops, "training MFLOP per token")):
    ax.plot(cells, [values[C] / 1e6 for C in cells], "o-", label="the paper's model, C cells")
    ax.plot([0, max(cells)], [0, values[4096] / 1e6 * max(cells) / 4096], ":", color="grey",
            label="in proportion to C")
    ax.set(xlabel="LSTM cells C", title=label, xlim=(0, None), ylim=(0, None))
    ax.set_xticks([0, 2048, 4096, 6144, 8192])
ax_n.legend()
plt.tight_layout()
plt.show()

# %% [markdown]
# Write down your reading before you open the model answer: (a) how do the LSTMs' parameters
# and FLOPs grow with the number of cells, and why not with its square? (b) Which parts do not
# change, and where do they dominate? (c) bilm-tf trained the paper's model in about two weeks.
# At the same speed, about how long would 8192 cells have taken?
#
# **Model answer.**
# <!-- BEGIN ANSWER -->
# (a) In proportion to $C$: every LSTMP matrix has the cells on one side and the projection's
# 512 on the other, so each curve is a straight line; without the projection, $W_{hh}$ would
# be $4C \times C$ (Exercise 2).
# (b) The character CNN, highway, projection and softmax do not depend on $C$. With 512 cells
# they dominate (the LSTMs hold a third of the encoder, a fifth of the FLOPs); with 4096, 81 %
# and 68 %. The softmax's 407 M parameters outweigh the encoder at every size.
# (c) 1116 MFLOP per training token instead of 663, 1.7 times: three and a half weeks.
# <!-- END ANSWER -->

# %%
# After your reading: the model answer's numbers, checked
checks.exercise_done(4, "what more cells cost", "cost" in globals())
lstm_share = {C: (n["lstm"] / encoder_params[C], TRAINING_FACTOR * f["lstm"] / training_flops[C])
              for C, (n, f) in cost.items()}
claim(abs(lstm_share[512][0] - 1 / 3) < 0.03 and abs(lstm_share[512][1] - 1 / 5) < 0.03,
      "with 512 cells the LSTMs hold a third of the encoder and do a fifth of its FLOPs")
claim(round(100 * lstm_share[4096][0]) == 81 and round(100 * lstm_share[4096][1]) == 68,
      "with 4096 cells, 81 % and 68 %")
claim(all(n["softmax"] > encoder_params[C] for C, (n, _) in cost.items()),
      "the softmax's parameters outweigh the encoder's at every size")
claim(abs(training_flops[8192] / training_flops[4096] - 1.7) < 0.05,
      "8192 cells cost 1.7 times the training FLOPs of 4096")

# %% [markdown] slideshow={"slide_type": "subslide"}
# ### Checking the formula with PyTorch's FLOP counter (bonus)
#
# `torch.utils.flop_counter.FlopCounterMode` counts the FLOPs of every matrix product and
# convolution that runs. The formula has the same terms at every size, so we check it on the
# `small` preset (full softmax) with 16 sentences:

# %%
text = load_sentences("embedded", "valid", max_sentences=16)
vocab = Vocabulary.from_sentences(text)
small = replace(MODEL_PRESETS["small"], vocab_size=len(vocab.words))
lm = speed_up(BidirectionalLM(small).eval())  # the fast modules training runs (section 9)
batch = make_lm_batch(text, vocab)
total, by_module = measure_flops(lambda: lm(batch))
counted, per_token = flops_by_part(by_module), flops_per_token(small)

B, T = batch.mask.shape
distinct = len(torch.unique(batch.char_ids.view(B * T, -1), dim=0))
runs = {"convolutions": distinct, "highway": distinct, "projection": distinct,  # per word
        "lstm": B * T, "softmax": int((batch.forward_targets != -100).sum())}  # per prediction
ratio = {part: counted[part] / (per_token[part] * n) for part, n in runs.items()}
for part, n in runs.items():
    print(f"{part:<13} counted {counted[part]:>12,}   formula × {n:>3} = "
          f"{per_token[part] * n:>12,}   ratio {ratio[part]:.3f}")
claim(all(ratio[part] == 1 for part in ("lstm", "softmax", "highway", "projection"))
      and ratio["convolutions"] < 1,
      "the counter and the formula agree exactly but for the fast CNN, which costs less")

# %% [markdown]
# The LSTMs (all $B \times T$ positions, padding included), the softmax and the highway and
# projection layers agree exactly. The fast character CNN (section 9) runs once per
# **distinct** token and keeps only the columns each group needs, so it costs less than the
# formula, an upper bound (the plain `CharCNN` costs exactly the formula). Backward adds two
# products per forward product:

# %%
both, _ = measure_flops(lambda: lm(batch).loss.backward())
print(f"forward + backward = {both / total:.2f} × forward")
claim(2.8 < both / total < 3, "a training step costs not quite 3 forward passes")

# %% [markdown]
# (Not quite 3: the first LSTM step needs no gradient for its zero initial state.)
#
# ### What training took then
#
# bilm-tf's `train_elmo.py` sets `n_train_tokens = 768,648,884` and `n_epochs = 10`; its README
# says the model "was trained on 3 GTX 1080 for 10 epochs, taking about two weeks":

# %%
tokens = 10 * 768_648_884  # 10 epochs of the 1B Word Benchmark (bilm-tf's train_elmo.py)
train_flops = TRAINING_FACTOR * sum(forward.values()) * tokens
print(f"training: {tokens:.3g} tokens × {train_flops / tokens / 1e6:.0f} MFLOP "
      f"= {train_flops:.2g} FLOPs")

gpus, seconds = 3, 14 * 24 * 3600  # 3 GTX 1080, about two weeks (bilm-tf's README)
gtx1080 = 2560 * 2 * 1.733e9  # CUDA cores × 2 FLOPs (a fused multiply-add) × boost clock
per_gpu = tokens / seconds / gpus
print(f"bilm-tf: {per_gpu:,.0f} tokens/s per GPU, {per_gpu * train_flops / tokens / 1e12:.2f} "
      f"TFLOP/s, {per_gpu * train_flops / tokens / gtx1080:.0%} of a GTX 1080's "
      f"{gtx1080 / 1e12:.1f} TFLOP/s (float32)")

# %% [markdown]
# That fraction of the peak is the model FLOPs utilisation (MFU).

# %% [markdown] slideshow={"slide_type": "subslide"}
# ### The same training on one H100 today (bonus)
#
# Our trainer on the `paper` preset on one H100 (`benchmarks/RESULTS.md`, bfloat16 autocast):
# 13,500 tokens/s with the clipping LSTM, 23,800 with the fused cuDNN LSTM, which cannot clip;
# 0.590 GFLOP per token counted (less than 0.663: distinct words only). The paper's 10 epochs
# would take:

# %%
measured = {"faithful LSTM (clips)": 13_500, "fused cuDNN LSTM": 23_800}  # tokens/s, one H100
for path, rate in measured.items():
    print(f"{path:<22} {rate:>6,} tokens/s → {tokens / rate / 86400:.1f} days, "
          f"{rate / per_gpu:.1f}× a GTX 1080 under bilm-tf")
h100_peak = 771e12  # bfloat16 matrix products, measured on the same machine
print(f"the H100's measured peak is {h100_peak / gtx1080:.0f}× a GTX 1080's (bfloat16 against "
      "float32)")
print(f"MFU: {13_500 * 0.590e9 / h100_peak:.1%} of the H100's measured peak; at bilm-tf's "
      f"16 % it would need {train_flops / (0.16 * h100_peak) / 3600:.0f} hours (hypothetical)")
claim(round(h100_peak / gtx1080) == 87 and round(13_500 / per_gpu) == 6
      and round(100 * 13_500 * 0.590e9 / h100_peak) == 1,
      "an H100 has 87 times the peak, our trainer runs 6 times faster and uses 1 % of it")

# %% [markdown]
# An H100 has 87 times a GTX 1080's peak, yet our trainer is only 6 times faster per GPU than
# bilm-tf was: it uses 1 % of the arithmetic, because one Python process builds every batch
# between steps and an LSTM is a sequence of small matrix products (`benchmarks/RESULTS.md`).

# %% [markdown]
# ## 7. The FLOPs of one LSTM layer
#
# ### Exercise 5 (implement): count them
#
# Complete `my_lstm_flops(input_size, cell_size, proj_size)`: the forward FLOPs per token of
# **one** LSTMP layer in **one** direction. Each step multiplies the input $x_t$ by $W_{ih}$
# ($4C \times I$), the previous output $h_{t-1}$ by $W_{hh}$ ($4C \times P$), and the cell
# output by the projection $W_{hr}$ ($P \times C$). Count 2 FLOPs per multiply-add; leave out
# the gates' element-wise work.

# %%
def my_lstm_flops(input_size, cell_size, proj_size):
    # BEGIN SOLUTION
    gates = 4 * cell_size * (input_size + proj_size)  # W_ih and W_hh, multiply-adds
    return 2 * (gates + proj_size * cell_size)  # + W_hr; 2 FLOPs per multiply-add
    # END SOLUTION


checks.check_lstm_flops(my_lstm_flops)

# %% [markdown]
# The paper's model has 2 layers in each of 2 directions, each with input and projection 512:

# %%
mine = 2 * 2 * my_lstm_flops(512, 4096, 512)
print(f"{mine / 1e6:.1f} MFLOP per token, flops_per_token says {forward['lstm'] / 1e6:.1f}")

# %% [markdown]
# ## 8. The three presets side by side
#
# Parameters and training FLOPs per token of the three presets, each with its softmax: `tiny`
# full over 599 words, `small` 1024 sampled of 30,000, `paper` 8192 of 793,471 (logarithmic
# scales):

# %%
vocab_sizes = {"tiny": len(Vocabulary.from_sentences(load_sentences("embedded", "train")).words),
               "small": 30_000, "paper": V_PAPER}
rows = {}
for name, V in vocab_sizes.items():
    config, sampled = MODEL_PRESETS[name], TrainConfig.preset(name).sampled_softmax
    params = parameter_counts(config, vocab_size=V)
    flops = flops_per_token(config, vocab_size=V, sampled_softmax=sampled)
    rows[name] = (sum(params.values()) - params["softmax"], params["softmax"],
                  TRAINING_FACTOR * (sum(flops.values()) - flops["softmax"]),
                  TRAINING_FACTOR * flops["softmax"])
    print(f"{name:<6} V = {V:>7,}: encoder {rows[name][0] / 1e6:6.2f} M + softmax "
          f"{rows[name][1] / 1e6:6.2f} M parameters; training {sum(rows[name][2:]) / 1e6:6.1f}"
          " MFLOP per token")
tiny, big = rows["tiny"], rows["paper"]
print(f"paper / tiny: encoder parameters × {big[0] / tiny[0]:.0f}, "
      f"encoder FLOPs per token × {big[2] / tiny[2]:.0f}")
claim(round(big[0] / tiny[0]) == 145 and round(big[2] / tiny[2]) == 130,
      "from tiny to paper: encoder parameters × 145, FLOPs per token × 130")
claim(big[1] > big[0] and forward["lstm"] > sum(forward.values()) / 2 > forward["softmax"],
      "the paper's softmax holds most parameters; sampled, the LSTMs do most of the work")

# %%
fig, (ax_params, ax_flops) = plt.subplots(1, 2, figsize=(9.5, 3.6))
x, width = np.arange(len(rows)), 0.38
for ax, first, label in [(ax_params, 0, "parameters"), (ax_flops, 2, "training FLOPs / token")]:
    encoder = [row[first] for row in rows.values()]
    softmax = [row[first + 1] for row in rows.values()]
    ax.bar(x - width / 2, encoder, width, label="encoder (ELMo keeps it)")
    ax.bar(x + width / 2, softmax, width, label="softmax (training only)")
    ax.set_xticks(x, list(rows))
    ax.set_yscale("log")
    ax.set_ylabel(label)
ax_params.legend()
ax_params.set_title("Parameters per preset")
ax_flops.set_title("Training FLOPs per token")
plt.tight_layout()
plt.show()

fig, ax_parts = plt.subplots(figsize=(7.5, 2.8))
parts = {part: TRAINING_FACTOR * flops for part, flops in forward.items() if flops}
parts[f"softmax ({SAMPLED} sampled)"] = parts.pop("softmax")
ax_parts.barh(list(parts), [v / 1e6 for v in parts.values()], color="tab:green")
ax_parts.invert_yaxis()
ax_parts.set_xlabel("MFLOP per token (training)")
ax_parts.set_title("Where the paper model's compute goes")
plt.tight_layout()
plt.show()

# %% [markdown]
# From `tiny` to `paper` the encoder's parameters grow 145-fold and its FLOPs per token
# 130-fold. The softmax holds most of the paper model's parameters but, sampled, does a small
# part of its work; the LSTMs do most of it.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 9. Appendix C: the same model, faster
#
# The modules of notebooks 01-07 (`elmo_tutorial/model/`) are written to be read beside the
# paper; the trainer, the `Embedder` and the task models run faster versions
# (`elmo_tutorial/fast/`). Each is a **subclass** of its plain module that changes how
# `forward` computes, never what it holds, so `fast.speed_up(model)` only switches classes in
# place.
#
# - `CharCNN` → `FastCharCNN`: each distinct token once; length groups drop all-padding
#   columns; a convolution as one `unfold` + `addmm`. *Exact:* a token's vector depends on its
#   characters only, and a convolution *is* a product over windows.
# - `Highway` → `FastHighway` and `LSTMStack` → `FastLSTMStack` (clipping models): vectors as
#   columns. *Exact:* the same sums, in another order.
# - `nn.Dropout` → `FastDropout`: the mask from `rand_like(x) >= p`. *Exact in distribution:*
#   each unit kept with probability 1 - p.
# - `BidirectionalLM` → `FastBidirectionalLM` (training `tiny`: no dropout, no sampled
#   softmax): both directions at once, one thread each. *Exact:* the same operations.
#
# Equal first, then faster: a clipping biLM, a fast copy, the same 64 sentences through both.

# %%
import copy
import time

clipped = replace(MODEL_PRESETS["tiny"], cell_clip=3.0, proj_clip=3.0)
plain_lm = BidirectionalLM(clipped).eval()
fast_lm = speed_up(copy.deepcopy(plain_lm))
print("plain:", type(plain_lm.char_cnn).__name__, type(plain_lm.forward_lstm).__name__)
print("fast: ", type(fast_lm.char_cnn).__name__, type(fast_lm.forward_lstm).__name__)
print("same state_dict keys:", list(plain_lm.state_dict()) == list(fast_lm.state_dict()))

sentences = load_sentences("embedded", "valid", max_sentences=64)
char_ids = batch_to_ids([["<S>", *s, "</S>"] for s in sentences])
with torch.no_grad():
    slow_out, fast_out = plain_lm.encode(char_ids), fast_lm.encode(char_ids)
layers = [(d, k) for d in ("forward", "backward") for k in range(clipped.n_layers)]
gap = max((slow_out[d][k] - fast_out[d][k]).abs().max().item() for d, k in layers)
gap = max(gap, (slow_out["word_emb"] - fast_out["word_emb"]).abs().max().item())
claim(gap < 1e-5, "the plain and the fast biLM give the same layers, to float32 rounding",
      detail=f"largest difference {gap:.1e}")

# %% [markdown]
# The time each part takes, plain and fast (best of five runs; compare the ratios):

# %%
# NBVAL_IGNORE_OUTPUT
def best_ms(fn, repeats=5):
    """The fastest of ``repeats`` runs of ``fn()``, in milliseconds."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return 1000 * min(times)


mask = char_ids.ne(0).any(-1)
embedded = plain_lm.char_cnn(char_ids).detach()
units = torch.randn(64, 40, 512)
plain_dropout, fast_dropout = torch.nn.Dropout(0.5), FastDropout(0.5)  # training mode
jobs = {
    "character CNN": (lambda: plain_lm.char_cnn(char_ids), lambda: fast_lm.char_cnn(char_ids)),
    "LSTM stack (clipping)": (lambda: plain_lm.forward_lstm(embedded, mask),
                              lambda: fast_lm.forward_lstm(embedded, mask)),
    "dropout": (lambda: plain_dropout(units), lambda: fast_dropout(units)),
    "whole encoder": (lambda: plain_lm.encode(char_ids), lambda: fast_lm.encode(char_ids)),
}
gain = {}  # plain time / fast time
with torch.no_grad():
    for name, (slow, fast) in jobs.items():
        slow_ms, fast_ms = best_ms(slow), best_ms(fast)
        gain[name] = slow_ms / fast_ms
        print(f"{name:<22} plain {slow_ms:7.1f} ms   fast {fast_ms:7.1f} ms   "
              f"{gain[name]:4.1f}× faster")
claim(max(gain, key=gain.get) == "character CNN", "the character CNN gains the most")

# %% [markdown]
# In the saved run (on a busy machine) the character CNN gains most, 96.8×: these sentences
# repeat "the", "," and the sentence marks, most words are far shorter than 50 characters, and
# the plain module convolves every padded position. The column-major LSTM loop gains nothing
# here (0.6×), the cheaper dropout mask 3.0×, the whole encoder 5.0× (once the CNN is fast, the
# LSTMs take most of its time). Your ratios depend on the machine; `tests/fast/` proves each
# fast module equal to its plain twin.
#
# ## Summary
#
# - The official format is `options.json` + hdf5 with bilm-tf's variable names; `load_allennlp`
#   and `save_allennlp` (`elmo-tutorial export --allennlp`) convert both ways. On AllenNLP's
#   fixture our outputs match the original TensorFlow code's to 5 decimals, under TF-Hub's
#   output names.
# - The released models (13.6, 28.0, 93.6 M parameters) have no published checksum, so the
#   registry says how to download them rather than doing it.
# - The paper's biLM (Sec. 3.4) has 93.7 M encoder parameters and a 407 M-parameter softmax over
#   793,471 words; sampled, a training token costs about 0.66 GFLOP, 5 × 10¹⁸ FLOPs for the 10
#   epochs that took bilm-tf two weeks on 3 GTX 1080s and ended at perplexity 39.7 on the 1B
#   Word Benchmark. Our trainer, measured on one H100, would
#   take 6.6 days, using 1 % of its arithmetic.
# - Appendices: `ELMO_TUTORIAL_DEVICE=cuda` for a GPU; `torchrun` (or `--nproc`) trains
#   data-parallel, `batch_size` counted over all processes; `fast.speed_up` switches on fast
#   modules with the same parameters, proven equal: the model you read is the model that runs.
# - Further: Peters et al. (2018), Sec. 3 and 3.4, Appendix A; bilm-tf's `bin/train_elmo.py`
#   and its README's FAQ; AllenNLP's `allennlp/modules/elmo.py`.

# %% [markdown]
# ## Check your understanding
#
# Answer each in a sentence or two before you open the instructor's answer.
#
# 1. Why does the dataset registry refuse to download the released ELMo weights?
#
# <!-- BEGIN ANSWER -->
# AllenNLP publishes no checksum, so a corrupted or substituted file would pass unnoticed.
# <!-- END ANSWER -->
#
# 2. Why does the official-format model run the step-by-step LSTM loop even on a GPU, while the
#    shipped tiny model uses cuDNN?
#
# <!-- BEGIN ANSWER -->
# The official weights clip at 3, which `nn.LSTM` cannot do; the tiny preset does not clip.
# <!-- END ANSWER -->
#
# 3. A run trains with `batch_size=128` on 4 GPUs. How many sentences does each GPU read per
#    step? Moved to 8 GPUs with the same settings, how many, and does the model it learns
#    change?
#
# <!-- BEGIN ANSWER -->
# 32 per GPU on 4, 16 on 8: `batch_size` counts a step's sentences over all processes. The
# model does not change (up to the order of float additions): every step still averages the
# same 128 sentences' gradients.
# <!-- END ANSWER -->
#
# 4. The paper's sampled softmax scores 8192 candidate words per prediction out of a vocabulary
#    of 793,471. About what share of the full softmax's cost per predicted word is that? If
#    the vocabulary doubled, what would happen to that cost, and to the parameters ELMo keeps?
#
# <!-- BEGIN ANSWER -->
# About 1 %. With twice the words the sampled cost stays the same while the softmax's
# parameters double; ELMo keeps none of them, only the encoder.
# <!-- END ANSWER -->
#
# 5. Why does a training step cost about three times the forward pass?
#
# <!-- BEGIN ANSWER -->
# For every matrix product of the forward pass, the backward pass computes two: the gradients
# with respect to its input and to its weights.
# <!-- END ANSWER -->
#
# 6. `speed_up` changes the class of the modules inside a model and nothing else. Why does that
#    matter for an optimiser built before it, and for a checkpoint saved after it?
#
# <!-- BEGIN ANSWER -->
# The parameters stay the same tensor objects under the same names: the optimiser still
# updates them, and a checkpoint trained fast loads into the plain model of notebook 07.
# <!-- END ANSWER -->
