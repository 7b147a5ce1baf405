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
# # 11 · Official weights, export, GPUs, and what the paper's model costs
#
# Notebooks 02-07 built every part of ELMo and trained small biLMs. This last notebook
# connects them to the real thing: the weights that Peters et al. (2018) released, the format
# that AllenNLP and bilm-tf read, the hardware the paper's model needs, and how to use it.
#
# **You will:**
# 1. load a biLM in the official bilm-tf / AllenNLP format, read its outputs under the TF-Hub
#    names, and check them against the original TensorFlow implementation's outputs;
# 2. see where the released models are and how to download and verify them;
# 3. (bonus) export a model trained with this package to the official format and load it
#    back;
# 4. (bonus) run a notebook on a GPU, and training on several GPUs and machines with
#    `torchrun`;
# 5. count the parameters and FLOPs per token of the paper's model, check the count against
#    PyTorch's FLOP counter (bonus), and work out what training it took then and (bonus)
#    would take on one GPU today;
# 6. predict a parameter count and a FLOP ratio before computing them, explain why the paper
#    projects its 4096 cells to 512, measure how the cost grows with the number of cells, and
#    count the FLOPs of an LSTM layer yourself;
# 7. make the model you built faster without changing what it computes: the package's fast
#    modules, what each one buys, and why each one is exact.
#
# The sections and subsections marked **(bonus)** are optional: a first reading, or a shorter
# lecture, can pass over them. Run them all the same: the notebook runs top to bottom.
#
# **Prerequisites:** notebooks 03 (character CNN), 04 (LSTM with projection) and 07 (the ELMo
# module and its outputs).
#
# **Runtime:** about 15 s on 2 CPU cores; no GPU is needed. Nothing is downloaded but
# AllenNLP's 0.6 MB test model, if it is not on disk already.

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

from elmo_tutorial import ELMo, batch_to_ids, checks, load_allennlp
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
from elmo_tutorial.model.run_dir import shipped_model
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
# A model in the official format is two files: `options.json` (the architecture, the fields
# of our `ModelConfig`) and an hdf5 file with one dataset per TensorFlow variable of bilm-tf.
# AllenNLP tests its ELMo with a tiny model in that format, together with the outputs that the
# original TensorFlow code computed for 30 sentences. The dataset registry finds it on disk
# (or downloads it once, 0.6 MB, checked against its sha256):

# %%
fixture = registry.fetch("allennlp-elmo-fixture")  # a folder; never downloads unverified bytes
options = json.loads((fixture / "options.json").read_text())
print(json.dumps(options["lstm"]), "\n", json.dumps(options["char_cnn"]))

# %% [markdown]
# The architecture of the released models, in miniature: 5 filter widths instead of 7,
# projections of 16 instead of 512, 64 LSTM cells instead of 4096, and cell and projection
# clipping at 3 as in the paper. `load_allennlp` converts every variable (gate order, TF's
# constant forget bias, the highway gate's sign; notebook 04 and `allennlp_format`):

# %%
elmo = load_allennlp(fixture / "options.json", fixture / "lm_weights.hdf5").to(device)
sentences = [["The", "bank", "raised", "its", "rates", "."], ["We", "sat", "on", "the", "bank"]]
with torch.inference_mode():
    out = elmo(batch_to_ids(sentences).to(device))
for name, value in out.items():
    print(f"{name:<14} {str(tuple(value.shape)):<12} {value.dtype}")

# %% [markdown]
# These are the names of the TF-Hub ELMo module, with the same meaning: `word_emb` is layer 0,
# the character-based token vector ($P$ wide); `lstm_outputs1` and `lstm_outputs2` are the two
# biLSTM layers, forward and backward concatenated ($2P$); `elmo` is their scalar mix (with
# layer 0 duplicated to $2P$); `default` is `elmo` averaged over each sentence's real tokens;
# `mask` marks those tokens (ours, not TF-Hub's). For the released "original" model $P = 512$:

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
# bilm-tf carries each LSTM's state from one batch to the next
# (`tests/formats/test_allennlp_format.py` explains and checks this); its first batch, like
# every call of our model, starts from zero state. So batch 0, three long sentences of news
# text, must match as it is:

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
# AllenNLP publishes no checksum for these files, so the registry will not download them for
# you (a corrupted or substituted file would pass unnoticed). It says what to do instead:

# %%
try:
    registry.fetch("elmo-original")
except DatasetNotAvailable as refusal:
    print(refusal)

# %% [markdown]
# Once the two files sit in a folder `elmo-original/` where the registry looks, one line loads
# them (`load_allennlp` checks every weight's shape against the options, so a wrong or
# truncated file fails with the name of the dataset):
#
# ```python
# from elmo_tutorial.formats.allennlp_format import load_model  # a run, or options + weights
# elmo_original = load_model([registry.locate("elmo-original")])
# ```

# %% [markdown]
# The file names say the architecture: `2x4096_512_2048cnn_2xhighway` is 2 LSTM layers of 4096
# cells projected to 512, 2048 character filters, 2 highway layers, which is our `paper`
# preset. We can count the parameters of all three without the files and compare them with
# allennlp.org's table. TensorFlow holds one bias per LSTM layer where `nn.LSTM` holds two
# (loading official weights puts TF's constant forget bias of 1 into `bias_hh`), and has no
# padding row in its character table, so we leave those out:

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
# biLM in the official format. Here the `tiny` biLM of notebook 06, which the course ships
# trained to the end (`data/models/tiny`, see its model card; your own `runs/tiny` works the
# same), into a temporary folder:

# %%
shipped = shipped_model("tiny")  # a run directory, as `elmo-tutorial train` writes it
ours = ELMo.from_run(shipped).to(device)
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
# The LSTM weights sit under bilm-tf's variable names, one `W_0` holding input and recurrent
# weights in TensorFlow's gate order. `cell_clip` and `proj_clip` are `null`: the `tiny` preset
# does not clip, and AllenNLP reads `null` as "no clipping". Loading the files back gives the
# same model:

# %%
reloaded = load_allennlp(options_file, weight_file).to(device)
ids = batch_to_ids([["She", "sat", "on", "the", "bank", "of", "the", "river", "."],
                    ["The", "bank", "raised", "its", "rates", "."]]).to(device)
with torch.inference_mode():
    a, b = ours(ids), reloaded(ids)
for name in ("word_emb", "lstm_outputs1", "lstm_outputs2", "elmo"):
    print(f"{name:<14} largest difference {(a[name] - b[name]).abs().max().item():.6f}")
workdir.cleanup()

# %% [markdown]
# The same to 6 decimals. (Not always to the last bit: our trained model has two LSTM biases,
# `bias_ih` and `bias_hh`, and the file holds their sum less TensorFlow's constant forget bias
# (notebook 04), so float32 additions happen in another order.) In AllenNLP the same two files
# give the ELMo of its own models, with AllenNLP's defaults, a learned scalar mix per output
# and dropout 0.5 on it:
#
# ```python
# from allennlp.modules.elmo import Elmo, batch_to_ids
# elmo = Elmo(options_file, weight_file, num_output_representations=1, dropout=0.5)
# out = elmo(batch_to_ids(sentences))  # {"elmo_representations": [(B, T, 2P)], "mask": (B, T)}
# ```
#
# bilm-tf's `BidirectionalLanguageModel(options_file, weight_file)` reads them too. One
# difference to remember: AllenNLP's and bilm-tf's LSTMs keep their state from one batch to
# the next, ours start every sentence from zero, so a sentence's vectors here never depend on
# what ran before.

# %% [markdown] slideshow={"slide_type": "subslide"}
# ## 4. A notebook on a GPU (bonus)
#
# Every notebook starts with `device = setup_notebook()`. It returns the CPU unless the
# environment variable `ELMO_TUTORIAL_DEVICE` names another device, so CI checks the
# notebooks on the CPU and you can run them elsewhere:
#
# ```bash
# ELMO_TUTORIAL_DEVICE=cuda make lab      # or: export ELMO_TUTORIAL_DEVICE=cuda; jupyter lab
# ```
#
# The notebooks move their models and inputs `.to(device)`, as the cells above do:

# %%
print("this notebook runs on:", device)

# %% [markdown]
# Two things change on a GPU. First, the LSTM. The `tiny` and `small` presets do not clip, so
# their LSTM layers run as one `nn.LSTM` call, which is cuDNN's fused kernel on a GPU. The
# official weights and the `paper` preset clip cells and projections at 3, which `nn.LSTM`
# cannot do, so they run the step-by-step loop (notebook 04) on any device:

# %%
for name, model in [("shipped tiny model", ours), ("official-format fixture", elmo)]:
    print(f"{name:<24} clipping {model.config.clipping!s:<5} → fused nn.LSTM path: "
          f"{model.bilm.forward_lstm.fused}")

# %% [markdown]
# Second, training: `elmo-tutorial train` picks the GPU by itself (`--device=cuda` insists) and
# runs the forward and backward passes under bfloat16 autocast (`amp`, on by default): matrix
# products take bfloat16 inputs (8 bits of mantissa, float32's range) and the weights stay
# float32. The shipped `small` model was trained that way on one H100
# (`benchmarks/RESULTS.md`):

# %%
print("amp (bfloat16 autocast on CUDA):", TrainConfig.preset("small").amp)

# %% [markdown] slideshow={"slide_type": "subslide"}
# What bfloat16 does: with 8 bits of mantissa a number keeps 2 to 3 significant digits, so
# ELMo's outputs move by a few parts in a thousand. (The CPU can autocast too; the trainer does
# it only on CUDA, where it pays.)

# %%
with torch.inference_mode(), torch.autocast("cpu", dtype=torch.bfloat16):
    low = ours.cpu()(ids.cpu())["lstm_outputs2"].float()
with torch.inference_mode():
    full = ours.cpu()(ids.cpu())["lstm_outputs2"]
relative = ((low - full).norm() / full.norm()).item()
print(f"bfloat16 autocast vs float32: relative difference {relative:.3f}")

# %% [markdown] slideshow={"slide_type": "subslide"}
# ## 5. Several GPUs and several machines (bonus)
#
# Training runs data-parallel under `torchrun`: one process per GPU, each with a copy of the
# model; during every backward pass `DistributedDataParallel` averages the gradients over the
# processes (NCCL on GPUs, Gloo on CPUs), so every copy takes the same step. On one machine
# with 4 GPUs:
#
# ```bash
# torchrun --nproc_per_node=4 -m elmo_tutorial train --config paper --out runs/paper
# elmo-tutorial train --config paper --out runs/paper --nproc 4     # starts the same torchrun
# ```
#
# On two machines with 8 GPUs each, start the same command on both, with a shared rendezvous
# point (and `--out` on storage both see, so that any node can resume):
#
# ```bash
# torchrun --nnodes=2 --nproc_per_node=8 --rdzv_backend=c10d \
#          --rdzv_endpoint=HOST_OF_NODE0:29500 --rdzv_id=elmo-paper \
#          -m elmo_tutorial train --config paper --out /shared/runs/paper
# ```
#
# Every process builds the same list of global batches (same seed) and takes its own share of
# each; rank 0 alone evaluates, logs and writes checkpoints. The share of process `rank` of
# `world_size`:

# %%
global_batch = list(range(10))  # sentence indices of one global batch
for rank in range(4):
    print(f"rank {rank} of 4 trains on sentences {shard(global_batch, DistInfo(rank, 4))}")

# %% [markdown]
# `batch_size` counts sentences per optimiser step over **all** processes, so adding GPUs
# does not change what is learned, only how fast. bilm-tf's 128 was per GPU, on 3 GPUs: to
# match it, pass `--batch_size=384` (bilm-tf's rows were 20-token windows, ours are
# sentences, so this is close, not identical):

# %%
print("paper preset, sentences per step over all GPUs:", TrainConfig.preset("paper").batch_size)

# %% [markdown]
# ## 6. What the paper's model costs
#
# ### Parameters
#
# The `paper` preset (Sec. 3.4: 2048 character filters, 2 highway layers, 4096 LSTM cells
# projected to 512, 2 layers) trained with a softmax over the 1B Word Benchmark's vocabulary of
# 793,471 words (bilm-tf's README). `parameter_counts` adds them up part by part; building the
# model on PyTorch's `meta` device (shapes, no memory) confirms the total.
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

# %% [markdown]
# Four parameters in five are the softmax, which is used only in training: ELMo keeps the
# 93.7 M of the encoder. Of those, the LSTMs hold 81 %.
#
# ### Exercise 2 (explain): 4096 cells, projected to 512
#
# The paper's LSTMs have 4096 cells, yet each layer passes on (and feeds back to itself) only a
# 512-dimensional projection of its output. Why not use 4096 everywhere, or 512 cells and no
# projection? Use the counts above.

# %% [markdown]
# **Model answer.**
# <!-- BEGIN ANSWER -->
# The cells are the LSTM's memory: more of them let it remember more about the sentence so
# far, which lowers perplexity. But every step multiplies the recurrent state by $W_{hh}$
# ($4C \times$ its width), the next layer reads it through $W_{ih}$, and the softmax scores
# every word against it. Without the projection $W_{hh}$ alone would be
# $4 \cdot 4096 \cdot 4096 \approx 67$ M per layer and direction (instead of 8.4 M), and the
# softmax $793{,}471 \times 4096 \approx 3.25$ billion parameters (instead of 407 M), with
# FLOPs per token growing alike. Projecting to $P = 512$ (the LSTMP of Sak et al. 2014, used
# for language models by Jozefowicz et al. 2016) keeps a large memory behind a narrow
# interface: cost grows with $C \cdot P$ instead of $C^2$. It also fixes ELMo's vector width:
# every layer ELMo mixes is $2P = 1024$ wide.
# <!-- END ANSWER -->
#
# ### FLOPs per token
#
# Per token, each weight matrix is used once in the forward pass: a matrix of $I \times O$
# costs $2IO$ FLOPs (a multiply and an add per weight). The convolutions are the exception:
# bilm-tf slides each filter over all 50 character positions. The softmax is the other big
# item: the paper's training scores 8192 sampled candidates per prediction, not all 793,471
# words (notebook 06). `flops_per_token` writes this out; per token position, forward, both
# directions.
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
# cell count in `cells`, take the paper's architecture with that many cells
# (`replace(paper, lstm_dim=C)`: the projection stays 512, so does everything else) and keep,
# in a dict `cost` from the cell count to a pair, its parameter counts
# (`parameter_counts(config, vocab_size=V_PAPER)`) and its forward FLOPs per token with the
# sampled softmax (`flops_per_token(config, vocab_size=V_PAPER, sampled_softmax=SAMPLED)`).
# The cell prints and draws what each costs. Formulas only: it runs in an instant, so try
# other counts too (one line; keep 4096, which the check reads).

# %%
cells = [512, 1024, 2048, 4096, 8192]  # LSTM cells per layer; the paper's is 4096
# BEGIN SOLUTION
cost = {}
for C in cells:
    config = replace(paper, lstm_dim=C)
    cost[C] = (parameter_counts(config, vocab_size=V_PAPER),
               flops_per_token(config, vocab_size=V_PAPER, sampled_softmax=SAMPLED))
# END SOLUTION
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
# Read the table and the plots, and write down your reading before you open the model answer:
# (a) how do the LSTMs' parameters and FLOPs grow with the number of cells, and why not with
# its square? (b) Which parts do not change, and where do they dominate? (c) bilm-tf trained
# the paper's model in about two weeks (its README; more in the subsection "What training took
# then" below). At the same speed, about how long would 8192 cells have taken?
#
# **Model answer.**
# <!-- BEGIN ANSWER -->
# (a) In proportion to $C$. Every matrix of an LSTMP layer has the cells on one side and the
# projection's 512 on the other ($W_{ih}$ and $W_{hh}$ are $4C \times 512$, $W_{hr}$ is
# $512 \times C$), so doubling the cells doubles the LSTMs' parameters and FLOPs, and each
# curve is a straight line. Without the projection, $W_{hh}$ would be $4C \times C$, and the
# cost would grow with $C^2$ (Exercise 2).
# (b) The character CNN, the highway layers, the projection to 512 and the softmax do not
# depend on $C$: they are why the lines, extended to $C = 0$, would not reach 0, and why they
# lie above the grey lines at small $C$. With 512 cells they dominate: the LSTMs hold a third
# of the encoder's parameters and do a fifth of the training FLOPs; with 4096 cells, 81 % and
# 68 %. The softmax's 407 M parameters outweigh the whole encoder at every size in the table,
# even with 8192 cells (169 M).
# (c) 8192 cells cost 1116 MFLOP per training token instead of 663, 1.7 times as many (less
# than twice, because the fixed parts do not grow): at the same speed, the two weeks would
# have been three and a half.
# <!-- END ANSWER -->

# %% [markdown] slideshow={"slide_type": "subslide"}
# ### Checking the formula with PyTorch's FLOP counter (bonus)
#
# `torch.utils.flop_counter.FlopCounterMode` counts the FLOPs of every matrix product and
# convolution that actually runs. The paper's model is slow to build on a CPU, and the formula
# has the same terms at every size, so we check it on the `small` preset (full softmax) with 16
# sentences of the embedded corpus:

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
for part, n in runs.items():
    print(f"{part:<13} counted {counted[part]:>12,}   formula × {n:>3} = "
          f"{per_token[part] * n:>12,}   ratio {counted[part] / (per_token[part] * n):.3f}")

# %% [markdown]
# The LSTMs (run at all $B \times T$ positions, padding included), the softmax (one prediction
# per direction at each position but the last) and the highway and projection layers agree
# exactly. The trainer's fast character CNN (section 9) runs once per **distinct** token of the
# batch, and its convolutions cost less than the formula because each group of words keeps only
# the columns it needs; the plain `CharCNN` of notebook 03 costs exactly the formula. So
# bilm-tf's way of counting is an upper bound for our trainer. Backward adds two products per
# product of the forward pass:

# %%
both, _ = measure_flops(lambda: lm(batch).loss.backward())
print(f"forward + backward = {both / total:.2f} × forward")

# %% [markdown]
# (Not quite 3: the first LSTM step needs no gradient for its zero initial state.)
#
# ### What training took then
#
# bilm-tf's `train_elmo.py` sets `n_train_tokens = 768,648,884` and `n_epochs = 10`; its README
# says that the model "was trained on 3 GTX 1080 for 10 epochs, taking about two weeks". With
# the FLOPs per token above:

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
# Our trainer has been measured on the `paper` preset on one H100 (`benchmarks/RESULTS.md`:
# 40 steps of 128 sentences, bfloat16 autocast): 13,500 tokens/s with the faithful LSTM, which
# clips as the paper's does, and 23,800 with the fused cuDNN LSTM, which cannot clip.
# `FlopCounterMode` counted 0.590 GFLOP per token in that run, less than bilm-tf's 0.663 above
# because our character CNN runs once per distinct word. So the paper's 10 epochs on one H100
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

# %% [markdown]
# An H100 has 87 times a GTX 1080's peak (bfloat16 against float32), yet our trainer is only
# 6 times faster per GPU than bilm-tf was: it uses 1 % of the GPU's arithmetic.
# `benchmarks/RESULTS.md` names the causes: one Python process builds every batch on the host
# between steps, and an LSTM is a sequence of small matrix products (a Python loop over the
# time steps when it clips). With `torchrun` on 8 GPUs the days would divide by up to 8, if
# data-parallel training scales that well (not measured). A run of this size would want its
# batches built ahead of time, in parallel with the GPU.

# %% [markdown]
# ## 7. The FLOPs of one LSTM layer
#
# ### Exercise 5 (implement): count them
#
# Most of the paper's compute is in its LSTMs. Complete `my_lstm_flops(input_size, cell_size,
# proj_size)`: the forward FLOPs per token of **one** LSTMP layer in **one** direction. Each
# step multiplies the input $x_t$ by $W_{ih}$ ($4C \times I$), the previous output $h_{t-1}$
# by $W_{hh}$ ($4C \times P$), and the cell output by the projection $W_{hr}$ ($P \times C$).
# Count 2 FLOPs per multiply-add; leave out the gates' element-wise work.

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
# Parameters and training FLOPs per token of the course's three presets, each with the softmax
# it trains with: `tiny` the full softmax over the embedded corpus's 599 words, `small` its
# preset's 1024 sampled candidates out of 30,000 words (the shipped model's vocabulary),
# `paper` 8192 out of 793,471. Note the logarithmic scales.

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
# part of its work; the LSTMs do most of it, then the character CNN. A full softmax would cost
# more than everything else together (section 6).

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 9. The same model, faster
#
# The modules of notebooks 01-07 (`elmo_tutorial/model/`) are written to be read beside the
# paper: every token through the character CNN, one LSTM step as the equations write it. The
# trainer, the `Embedder` and the task models run faster versions of them
# (`elmo_tutorial/fast/`). Each fast module is a **subclass** of its plain module that changes
# how `forward` computes, never what it holds, so `fast.speed_up(model)` only switches classes
# in place: the parameters, their names and the `state_dict` stay the same objects.
#
# - `CharCNN` → `FastCharCNN`: each distinct token once; groups of similar length drop their
#   all-padding columns; a convolution as one `unfold` + `addmm`. *Exact:* a token's vector
#   depends on its characters only, a dropped window is a copy of one kept, and a convolution
#   *is* a product over windows.
# - `Highway` → `FastHighway`: vectors as columns (`W @ x`) and `lerp` for the gate. *Exact:*
#   the same sums, in an order the matrix library runs faster.
# - `LSTMStack` → `FastLSTMStack` (clipping models): the step loop with vectors as columns.
#   *Exact:* the same products, transposed.
# - `nn.Dropout` → `FastDropout`: the mask from `rand_like(x) >= p`. *Exact in distribution:*
#   each unit kept with probability 1 - p (other masks than `nn.Dropout`'s for one seed).
#
# Equal first, then faster: a clipping biLM (the faithful loop, like the official weights), a
# copy of it made fast, the same 64 sentences through both.

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
# Now the time each part takes, plain and fast, on this machine (the best of five runs; the
# numbers move with the machine and its load, so compare the ratios):

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
with torch.no_grad():
    for name, (slow, fast) in jobs.items():
        slow_ms, fast_ms = best_ms(slow), best_ms(fast)
        print(f"{name:<22} plain {slow_ms:7.1f} ms   fast {fast_ms:7.1f} ms   "
              f"{slow_ms / fast_ms:4.1f}× faster")

# %% [markdown]
# Read the ratios, not the milliseconds. The character CNN gains most (several times on a quiet
# 2-core machine): these 64 sentences repeat "the", "," and the sentence marks, most words are far
# shorter than 50 characters, and the plain module convolves every padded position too. The
# column-major LSTM loop gains least, from nothing to a few tens of percent, and the cheaper
# dropout mask two to four times. The whole encoder gains less than its character CNN, because the
# LSTMs, which gain little, take a larger part of its time once the CNN is fast. Running the
# two directions at once, one thread each, was tried and removed: it gained 1.1× on a quiet
# machine and lost on a busy one, and a fast path must earn 1.2× on a whole command;
# `benchmarks/RESULTS.md` measures every trick on one machine, and `tests/fast/` proves each fast
# module equal to its plain twin, down to float64 rounding.
#
# ## Summary
#
# - The official format is `options.json` + hdf5 with bilm-tf's variable names; `load_allennlp`
#   and `save_allennlp` (`export_allennlp`, `elmo-tutorial export --allennlp`) convert in both
#   directions, and AllenNLP's `Elmo(options_file, weight_file, ...)` and bilm-tf read what we
#   write. On AllenNLP's fixture our outputs match the original TensorFlow code's to 5 decimals.
# - The outputs carry TF-Hub's names: `word_emb`, `lstm_outputs1`, `lstm_outputs2`, `elmo`,
#   `default`, plus `mask`.
# - The released models (small, medium, original: 13.6, 28.0, 93.6 M parameters) have no
#   published checksum, so the registry tells you how to download them rather than doing it.
# - `ELMO_TUTORIAL_DEVICE=cuda` moves a notebook to a GPU; training uses cuDNN's fused LSTM when
#   the model does not clip, and bfloat16 autocast. `torchrun` (or `--nproc`) trains
#   data-parallel on several GPUs and machines, with `batch_size` counted over all of them.
# - The paper's biLM (Sec. 3.4) has 93.7 M encoder parameters and a 407 M-parameter softmax over
#   793,471 words; sampled, a training token costs about 0.66 GFLOP, 5 × 10¹⁸ FLOPs for the 10
#   epochs that took bilm-tf two weeks on 3 GTX 1080s and ended at perplexity 39.7 (Sec. 3.4).
#   Our trainer, measured on one H100, would take 6.6 days, using 1 % of its arithmetic.
# - The package runs fast versions of the plain modules (`elmo_tutorial/fast/`: distinct tokens,
#   length groups, convolutions as one product, column-major products, cheaper dropout),
#   switched on in one place, `fast.speed_up`, with the same parameters and
#   proven equal by tests: the model you read is the model that runs.
# - Further: Peters et al. (2018), Sec. 3 (the biLM and ELMo), Sec. 3.4 (the pre-trained
#   model and its training), Appendix A.1 (fine-tuning the biLM on task data) and A.2-A.8 (γ and
#   the task models); bilm-tf's `bin/train_elmo.py` and its README's FAQ (how the model was
#   trained); AllenNLP's `allennlp/modules/elmo.py`.

# %% [markdown]
# ## Check your understanding
#
# Short questions on the whole notebook; answer each in a sentence or two before you open the
# instructor's answer.
#
# 1. Only the first batch of bilm-tf's reference outputs is compared with ours as it is. Why?
#
# <!-- BEGIN ANSWER -->
# bilm-tf carries each LSTM's state from one batch to the next, while our model starts every call
# from zero state. Its first batch also starts from zero, so it must match; later batches depend
# on what ran before them.
# <!-- END ANSWER -->
#
# 2. Why does the dataset registry refuse to download the released ELMo weights?
#
# <!-- BEGIN ANSWER -->
# AllenNLP publishes no checksum for them, so a corrupted or substituted file would pass
# unnoticed. The registry says where to get them instead, and `load_allennlp` then checks every
# weight's shape against the options file.
# <!-- END ANSWER -->
#
# 3. Why does the official-format model run the step-by-step LSTM loop even on a GPU, while the
#    shipped tiny model uses cuDNN?
#
# <!-- BEGIN ANSWER -->
# The official weights clip cells and projections at 3, which `nn.LSTM` (cuDNN's fused kernel)
# cannot do, so only the loop computes their function. The tiny and small presets do not clip,
# and there the fused kernel computes the same thing faster.
# <!-- END ANSWER -->
#
# 4. A run trains with `batch_size=128` on 4 GPUs. How many sentences does each GPU read per
#    step? Moved to 8 GPUs with the same settings, how many, and does the model it learns
#    change?
#
# <!-- BEGIN ANSWER -->
# 32 per GPU on 4, 16 on 8: `batch_size` counts the sentences of a step over all processes. The
# model does not change: every step still averages the gradients of the same 128 sentences, so
# 8 GPUs take the same steps as 4, only each step is shared more widely (up to the order in
# which floats are added, which moves the last bits).
# <!-- END ANSWER -->
#
# 5. The paper's sampled softmax scores 8192 candidate words per prediction out of a vocabulary
#    of 793,471. About what share of the full softmax's cost per predicted word is that? If
#    the vocabulary doubled, what would happen to that cost, and to the parameters ELMo keeps?
#
# <!-- BEGIN ANSWER -->
# 8192 / 793,471 ≈ 1 %. With twice the words the sampled cost per prediction stays the same
# (still 8192 scored: about 0.5 % of the new full cost), while the softmax's parameters double.
# ELMo keeps none of them either way: the softmax only serves to train the language model, and
# ELMo keeps the encoder (the character CNN and the LSTMs).
# <!-- END ANSWER -->
#
# 6. The softmax holds most of the parameters but, sampled, does only a small part of the
#    training compute. How can both be true?
#
# <!-- BEGIN ANSWER -->
# It has a row for each of the 793,471 words, but the sampled softmax scores only 8192 of them
# per prediction, and the cost per token grows with the words scored. The LSTMs, whose weights
# are all used at every position, do most of the work.
# <!-- END ANSWER -->
#
# 7. Why does bilm-tf's FLOP formula overestimate what our trainer spends on the character CNN?
#
# <!-- BEGIN ANSWER -->
# The formula slides every filter over all 50 character positions of every token, as the plain
# `CharCNN` does. The fast encoder the trainer runs works once per distinct token of the batch,
# and drops the trailing padding columns that a group of words does not need.
# <!-- END ANSWER -->
#
# 8. Why does a training step cost about three times the forward pass?
#
# <!-- BEGIN ANSWER -->
# For every matrix product of the forward pass, the backward pass computes two: one for the
# gradient with respect to the product's input, one for its weights. (A little less than 3, since
# the first LSTM step needs no gradient for its zero initial state.)
# <!-- END ANSWER -->
#
# 9. An H100 has 87 times a GTX 1080's peak arithmetic, yet our trainer (with the clipping LSTM)
#    is only about 6 times faster per GPU than bilm-tf was. Where does the difference go?
#
# <!-- BEGIN ANSWER -->
# Our trainer uses about 1 % of the H100's arithmetic: one Python process builds every batch on
# the host between steps, and an LSTM is a sequence of small matrix products (a Python loop over
# the time steps when it clips), which cannot keep the GPU busy.
# <!-- END ANSWER -->
#
# 10. `speed_up` changes the class of the modules inside a model and nothing else. Why does that
#     matter for an optimiser built before it, and for a checkpoint saved after it?
#
# <!-- BEGIN ANSWER -->
# The parameters stay the very same tensor objects under the same names, so the optimiser still
# updates them, and the checkpoint's `state_dict` has the same keys and shapes as the plain
# model's: a model trained fast loads into the plain one of notebook 07 and back.
# <!-- END ANSWER -->
