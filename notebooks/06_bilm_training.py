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
# # 06 · Training the biLM: joint loss, shared softmax, sampled softmax, a real run
#
# Notebooks 04 and 05 built a forward and a backward LM. ELMo trains them **together**
# (Peters et al. 2018, Sec. 3.1): one character CNN, two LSTM stacks, one softmax, and the
# joint objective
#
# $$\sum_{k=1}^{N} \Big( \log p(t_k \mid t_1 .. t_{k-1};
#   \Theta_x, \overrightarrow{\Theta}_{LSTM}, \Theta_s)
#   + \log p(t_k \mid t_{k+1} .. t_N; \Theta_x, \overleftarrow{\Theta}_{LSTM}, \Theta_s) \Big)$$
#
# where the token representation $\Theta_x$ and the softmax $\Theta_s$ are shared.
#
# **You will:**
# 1. compute the joint loss from the two directions' logits and match `BidirectionalLM`;
# 2. see what sharing the softmax saves, and why the paper's 793 k-word vocabulary needs a
#    *sampled* softmax (predict its loss, sweep its candidates);
# 3. train a small biLM with our `Trainer` (checkpoints, log, loss curve), and compare it and
#    the same preset trained to the end with a Kneser-Ney trigram;
# 4. generate sentences forward from a prefix and backward up to a suffix, at several
#    temperatures;
# 5. write the joint loss yourself.
#
# **Prerequisites:** notebooks 02 (LM batches), 04-05 (the two LMs), cross-entropy.
#
# **Runtime:** about 18 s on 2 quiet CPU cores.

# %% slideshow={"slide_type": "subslide"} tags=["hide-input"]
try:
    from elmo_tutorial.figures import you_are_here
except ModuleNotFoundError as missing:  # opened before `make lab` installed the course
    raise ModuleNotFoundError(
        f"this notebook's kernel cannot import {missing.name}: start JupyterLab with "
        "`make lab` from the repository root (or run `pip install -e .` there, in this "
        "kernel's environment), then restart the kernel") from None

you_are_here("bilm")

# %%
# %matplotlib inline
import math
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F

from elmo_tutorial import checks
from elmo_tutorial.claims import approx, claim
from elmo_tutorial.data.sense_corpus import sense_corpus
from elmo_tutorial.model.batching import make_lm_batch
from elmo_tutorial.model.config import MODEL_PRESETS
from elmo_tutorial.model.lm import BidirectionalLM
from elmo_tutorial.model.vocab import Vocabulary
from elmo_tutorial.runtime import setup_notebook

device = setup_notebook(seed=0)

# %% [markdown]
# ## 1. The joint loss from two sets of logits
#
# A batch of three sentences from the corpus shipped with the package, and an untrained biLM
# with the `tiny` architecture. `make_lm_batch` adds `<S>`/`</S>` and builds both target
# rows: position $t$ predicts the word at $t+1$ (forward) and at $t-1$ (backward); -100 marks
# "nothing to predict" (padding, and the ends).

# %%
train_sentences = sense_corpus("train")
vocab = Vocabulary.from_sentences(train_sentences)
config = replace(MODEL_PRESETS["tiny"], vocab_size=len(vocab))
bilm = BidirectionalLM(config).eval()
batch = make_lm_batch(train_sentences[:3], vocab)
print(len(vocab), "words;", tuple(batch.char_ids.shape), "char ids")
print(batch.forward_targets[0].tolist())
print(batch.backward_targets[0].tolist())

# %% [markdown]
# Both directions' top LSTM layer go through the **same** softmax weights $W$ (V × P) and
# bias $b$: logits $= h W^\top + b$. The loss is the forward mean NLL plus the backward mean NLL.

# %%
with torch.no_grad():
    states = bilm.encode(batch.char_ids)
    W, b = bilm.softmax.weight, bilm.softmax.bias
    fwd_logits = states["forward"][-1] @ W.T + b  # (B, T, V)
    bwd_logits = states["backward"][-1] @ W.T + b  # (B, T, V)
    fwd_nll = F.cross_entropy(fwd_logits.flatten(0, 1), batch.forward_targets.flatten(),
                              ignore_index=-100)
    bwd_nll = F.cross_entropy(bwd_logits.flatten(0, 1), batch.backward_targets.flatten(),
                              ignore_index=-100)
    out = bilm(batch)
print(f"from scratch: {fwd_nll.item():.4f} + {bwd_nll.item():.4f} = "
      f"{(fwd_nll + bwd_nll).item():.4f}")
print(f"BidirectionalLM:                  {out.loss.item():.4f}")
print(f"untrained perplexity ≈ exp(NLL) = {math.exp(fwd_nll.item()):.1f} "
      f"(a uniform guess over {len(vocab)} words would give {len(vocab)})")

# %% [markdown]
# ## 2. One softmax for both directions, and the cost of a large vocabulary
#
# Sharing $\Theta_s$ halves the output layer. For the paper's vocabulary (793 471 words,
# $P = 512$) one softmax has $V (P + 1)$ = 407 M parameters, over four times the rest of the
# model, and costs $V \cdot P$ multiply-adds **per predicted token**.

# %%
def n_params(module):
    return sum(p.numel() for p in module.parameters())


paper = MODEL_PRESETS["paper"]
with torch.device("meta"):  # shapes only: no memory, no initialisation
    encoder = n_params(BidirectionalLM(replace(paper, vocab_size=0)))
V, P = 793_471, paper.projection_dim
print(f"paper encoder: {encoder / 1e6:.1f} M parameters")
print(f"one shared softmax: {V * (P + 1) / 1e6:.1f} M ({V * (P + 1) / encoder:.1f} × the "
      f"encoder); two separate ones: {2 * V * (P + 1) / 1e6:.1f} M")
print(f"full softmax: {V * P / 1e6:.0f} M multiply-adds per token; sampled with 8192 "
      f"candidates: {(8192 + 1) * P / 1e6:.1f} M")

# %% [markdown]
# ### Exercise 1 (explain): why one softmax for both directions?
#
# The paper ties the token representation and the softmax of the two directions and keeps
# separate LSTMs (Sec. 3.1). Give two reasons to share the softmax, and say why sharing it
# does not let one direction see what the other has read.

# %% [markdown]
# **Model answer.**
# <!-- BEGIN ANSWER -->
# - **Size and cost.** With a large vocabulary the softmax is the largest block (about 4 times
#   the encoder); a second one would double it, for memory, optimiser state and time.
# - **Training signal.** A word's output vector $W_w$ gets gradients from both directions'
#   predictions of it, twice as many updates, which matters most for rare words.
# - **One output space.** "Predicts *bank*" is the same direction in the forward and the
#   backward state, which suits ELMo, which puts the two side by side.
#
# Sharing does not leak information: the softmax only reads each direction's state, and a
# state has read only its own side of the sentence (notebook 05). The directions share
# *parameters*, not *states*.
# <!-- END ANSWER -->

# %% [markdown]
# The **sampled softmax** (Jean et al. 2015; bilm-tf's `tf.nn.sampled_softmax_loss`) scores the
# true word against $S$ candidates drawn once per batch from a log-uniform (Zipfian)
# distribution $Q$ over the frequency-sorted ids, subtracting $\log e_w$ from each logit, with
# $e_w \approx S \cdot Q(w)$ the expected number of times word $w$ is drawn, so the estimate is
# not biased towards frequent words. It is a training shortcut: evaluation always uses the
# full softmax. Our `Softmax` module does both from the same weights.

# %% [markdown]
# ### Exercise 2 (predict): the sampled loss of a model that knows nothing
#
# Set every weight to zero, so that all logits are equal. The full loss is then exactly
# $\log V$. The cell below draws $S = 1024$ candidates among $V = 50\,000$ ids, and 64 targets
# uniformly among the 50 000. Will the sampled loss be close to $\log V$, to $\log(S + 1)$,
# or somewhere else, and above or below $\log(S + 1)$?

# %% [markdown]
# **Prediction.**
# <!-- BEGIN ANSWER -->
# Far below $\log V$: the sampled softmax normalises over $S + 1$ words, not $V$. With zero
# logits the loss of target $t$ is $\log\bigl(1 + \sum_c e_t / e_c\bigr)$ (accidental hits
# left out), which is $\log(S + 1)$ only when the target is as likely to be drawn as every
# candidate. Here the candidates are mostly frequent words (large $e_c$), the uniform targets
# mostly rare ones (small $e_t$), so the loss is **below** $\log(S + 1)$.
# <!-- END ANSWER -->

# %%
from elmo_tutorial.model.softmax import Softmax

big = Softmax(dim=16, vocab_size=50_000, num_samples=1024)
with torch.no_grad():
    big.weight.zero_()
    big.bias.zero_()
h = torch.randn(64, 16)  # (N, P)
targets = torch.randint(0, 50_000, (64,))
full, n = big(h, targets)
torch.manual_seed(0)
sampled, _ = big(h, targets, sampled=True)
print(f"full: {full.item() / n:.4f} = log V = {math.log(50_000):.4f};  "
      f"sampled: {sampled.item() / n:.4f};  log(S + 1) = {math.log(1025):.4f}")

# %% [markdown]
# The same number by hand, from the same 1024 candidates (same seed) and the formula of the
# prediction:

# %%
from elmo_tutorial.model.softmax import expected_count, sample_log_uniform

torch.manual_seed(0)
ids, num_tries = sample_log_uniform(1024, 50_000)  # the draw the sampled loss made
e_candidates = expected_count(ids, num_tries, 1024, 50_000)  # (S,)
e_targets = expected_count(targets, num_tries, 1024, 50_000)  # (N,)
ratios = e_targets[:, None] / e_candidates[None, :]  # (N, S)
ratios = ratios.masked_fill(ids[None, :] == targets[:, None], 0.0)  # accidental hits
per_target = torch.log1p(ratios.sum(dim=1))  # (N,)
print(f"by hand: {per_target.mean():.4f};  median candidate id {int(ids.median())}, "
      f"median target id {int(targets.median())}")
print(f"targets with a loss below log(S + 1): {(per_target < math.log(1025)).float().mean():.0%}")
claim(abs(per_target.mean() - sampled / n) < 1e-4 and sampled / n < math.log(1025) - 0.3,
      "the sampled loss is log(1 + Σ_c e_t/e_c), well below log(S + 1) for these rare targets")

# %% [markdown]
# ### Exercise 3 (experiment): how many candidates?
#
# bilm-tf draws $S = 8192$ candidates for 793 471 words. What does $S$ do to the sampled loss?
# For each $S$ below, build the zero-weight softmax of Exercise 2 with $S$ candidates (one
# line); the cell computes its sampled loss on the same 64 targets, same seed, and plots it
# beside $\log(S + 1)$ and $\log V$.

# %%
sizes = [16, 64, 256, 1024, 4096, 16384]
sampled_by_size = []
for S in sizes:
    # BEGIN SOLUTION
    candidates = Softmax(dim=16, vocab_size=50_000, num_samples=S)
    # END SOLUTION
    with torch.no_grad():
        candidates.weight.zero_()
        candidates.bias.zero_()
    torch.manual_seed(0)
    loss, count = candidates(h, targets, sampled=True)
    sampled_by_size.append(loss.item() / count)
print(f"{'S':>6}{'sampled loss':>14}{'log(S + 1)':>12}   "
      f"(full loss: log V = {math.log(50_000):.4f})")
for S, value in zip(sizes, sampled_by_size, strict=True):
    print(f"{S:>6}{value:14.4f}{math.log(S + 1):12.4f}")
claim(abs(sampled_by_size[sizes.index(1024)] - sampled.item() / n) < 1e-6,
      "at S = 1024 the sweep gives the sampled loss of Exercise 2")

fig, ax = plt.subplots(figsize=(7, 3.6))
ax.plot(sizes, sampled_by_size, "o-", label="sampled loss")
ax.plot(sizes, [math.log(S + 1) for S in sizes], "s:", color="grey", label="log(S + 1)")
ax.axhline(math.log(50_000), color="black", linestyle="--", label="full loss, log V")
ax.set_xscale("log", base=2)
ax.set_xticks(sizes, [str(S) for S in sizes])
ax.tick_params(labelsize=11)
ax.set_xlabel("sampled candidates S (V = 50 000)", fontsize=11)
ax.set_ylabel("loss per target (nats)", fontsize=11)
ax.legend(fontsize=11)
fig.tight_layout()
plt.show()

# %% [markdown]
# **What do you see?** Write your interpretation before opening the answer.
#
# **Model answer.**
# <!-- BEGIN ANSWER -->
# The sampled loss grows with $S$, from far below $\log V$ towards it, and stays below
# $\log(S + 1)$ by a gap that closes as $S$ grows.
#
# It measures how well the model ranks the target among $S + 1$ words, so its value depends on
# $S$; once the candidates cover most of the vocabulary it approaches the full softmax. The gap
# is Exercise 2's mismatch: with more draws the rare targets are drawn more often ($e_t$
# grows), while a frequent word's expected count cannot pass 1, so the ratios approach 1.
#
# So a sampled loss is not a perplexity and cannot be compared between runs with different
# $S$: evaluation uses the full softmax (`evaluate_perplexity`). And $S$ trades cost for
# fidelity: bilm-tf's 8192 candidates are about 1 % of its vocabulary, a hundred times cheaper
# than the full softmax.
# <!-- END ANSWER -->

# %%
# After your interpretation: the finding, checked on these measurements
checks.exercise_done(3, "how many candidates?", len(sampled_by_size) == len(sizes))
below = [math.log(S + 1) - value for S, value in zip(sizes, sampled_by_size, strict=True)]
claim(all(sampled_by_size[k] < sampled_by_size[k + 1] for k in range(len(sizes) - 1))
      and all(gap > 0 for gap in below) and below[-1] < 0.5 * below[0]
      and math.log(50_000) - sampled_by_size[-1] < 0.15 * math.log(50_000),
      "the sampled loss grows with S and stays below log(S + 1), the gap shrinking by more "
      "than half, and at the largest S it is within 15 % of the full loss")

# %% [markdown]
# ## 3. A real training run
#
# `Trainer` is the package's one training loop. It trains on **whole sentences**, bucketed by
# length: our LSTM is stateless and ELMo is used on sentences (bilm-tf streamed 20-token
# windows and carried the state across them). Each step: joint loss, backward, gradient
# clipping, optimiser step, learning-rate schedule; every few steps a log line, a held-out
# evaluation and an atomic checkpoint. Here: the `tiny` preset, cut to 80 of its 600 steps of
# 32 sentences (`elmo-tutorial train --config tiny` trains all 600; section 4 shows the
# result), on this notebook's device.

# %%
from elmo_tutorial.training.train import Trainer
from elmo_tutorial.training.train_config import TrainConfig, apply_overrides
from elmo_tutorial.training.train_log import plot_log, read_log

run_dir = Path(tempfile.mkdtemp()) / "tiny"
cfg = apply_overrides(TrainConfig.preset("tiny"), {
    "out_dir": str(run_dir), "max_steps": 80, "eval_interval": 20,
    "eval_sentences": 500, "checkpoint_interval": 40, "log_interval": 5, "warmup_steps": 10,
    "progress": False,  # no progress bar: a saved notebook would show it frozen mid-run
    "device": "cuda" if device.type == "cuda" else "cpu"})  # the Trainer runs on CUDA or CPU
trainer = Trainer(cfg)
print(f"{len(trainer.train_sents)} training sentences, {trainer.steps_per_epoch} batches of "
      f"{cfg.batch_size} per epoch; optimiser {cfg.optimizer}, lr {cfg.lr}")

# %%
# NBVAL_IGNORE_OUTPUT
start = time.perf_counter()
metrics = trainer.fit()  # `elmo-tutorial train` shows a progress bar; log.jsonl has every step
print(f"{trainer.step} of {trainer.total_steps} steps done in {time.perf_counter() - start:.0f} s")

# %% [markdown]
# Numbers that come out of training are printed with `≈` from here on. The run is seeded, so
# one machine gives the same numbers every time; another CPU adds floats in another order, and
# 80 steps turn the last bits into a perplexity a few units away (about 67 here). The claims
# marked `✓` are checked on every machine.
#
# The run directory holds everything needed to resume (`--resume`) or to use the model
# (`load_elmo(run_dir)`): `checkpoints/` keeps the two newest, each written under a temporary
# name and renamed into place, so a crash never leaves half a checkpoint.
#
# **Same seed, same bits.** Every random draw of a step (dropout masks, sampled candidates)
# comes from PyTorch's global generator, seeded once. Each checkpoint keeps its state (and
# NumPy's and Python's), and `--resume` restores it, so a resumed run draws exactly what the
# uninterrupted run drew.

# %%
drop, units = torch.nn.Dropout(0.5), torch.ones(2, 6)  # a module in training mode
saved = torch.get_rng_state()  # what a checkpoint keeps
mask = drop(units)
torch.set_rng_state(saved)  # what --resume restores
print("the generator restored, the same mask again ->", torch.equal(mask, drop(units)))

# %%
print(sorted(p.name for p in run_dir.iterdir()))
print(sorted(p.name for p in (run_dir / "checkpoints").iterdir()))
print({k: approx(v, ".1f") for k, v in metrics.items() if k.endswith("ppl")})

# %% [markdown]
# `loss.png` is the loss curve `Trainer` draws from `log.jsonl`; `plot_log` draws it here: the
# training and held-out loss (NLL per token and direction), and the held-out perplexities.

# %%
plot_log(read_log(run_dir))

# %% [markdown]
# ## 4. Against a Kneser-Ney trigram
#
# Perplexity means something only next to a baseline. `KneserNeyBaseline` fits interpolated
# Kneser-Ney trigrams (nltk.lm) in both directions with **our** vocabulary and `<UNK>`, and
# scores the same predictions on the same held-out sentences (the first 500 of `valid`). Its
# discount is estimated from the training counts, $d = n_1 / (n_1 + 2 n_2)$ with $n_1$, $n_2$
# the trigrams seen once and twice (Chen & Goodman 1998): the standard choice, a baseline
# worth beating.
#
# Beside our 80 steps, the same preset **trained to the end** (600 steps, 0.9 epochs), shipped
# in `data/models/tiny` and made by `elmo-tutorial train --config tiny --out runs/tiny` (about
# a minute on two free CPU cores; see its `MODEL_CARD.md`). To use your own, run it from the
# repository root and pass `load_run("../runs/tiny")` below; on another CPU its perplexities
# differ a little, and it still passes the trigram.

# %% [markdown]
# ### Exercise 4 (predict): forward or backward, which is harder?
#
# The table below gives each model's forward and backward perplexity on the same 500
# sentences: our 80-step run, the same preset trained to the end, and the trigram. Before
# running it: for the model trained to the end and for the trigram, will the backward
# perplexities be higher than the forward ones, lower, or about the same? Why? And why may the
# 80-step run's two differ by more?

# %% [markdown]
# **Prediction.**
# <!-- BEGIN ANSWER -->
# About the same. Both directions factorise the same probability of the sentence,
# $p(t_1 .. t_N) = \prod_k p(t_k \mid t_{<k}) = \prod_k p(t_k \mid t_{>k})$, with the same
# number of predictions, so a model that knew the true distribution would have *exactly* the
# same perplexity both ways; real models differ a little. The 80-step run's two stacks start
# from their own random weights, and after an eighth of an epoch one can simply be further
# along: that says how far training has got, not which direction is harder. The paper found
# its two "approximately equal, with the backward value slightly lower", and reports their
# average (39.7 on the 1B Word Benchmark, over its 793,471-word vocabulary; Sec. 3.4).
# <!-- END ANSWER -->

# %%
from elmo_tutorial.training.evaluation import evaluate_perplexity
from elmo_tutorial.training.ngram import KneserNeyBaseline
from elmo_tutorial.training.run_folder import load_run, shipped_model

tiny_dir = shipped_model("tiny")  # or Path("../runs/tiny"), your own run
tiny_config, tiny_state, tiny_vocab, tiny_settings = load_run(tiny_dir)
assert tiny_vocab.words == trainer.vocab.words  # same corpus, same vocabulary
full_tiny = BidirectionalLM(tiny_config)
full_tiny.load_state_dict(tiny_state)
full = evaluate_perplexity(full_tiny.to(device), trainer.valid_sents, tiny_vocab, device)

held_out = trainer.valid_sents
kn = KneserNeyBaseline(order=3).fit(trainer.train_sents, trainer.vocab).perplexity(held_out)
print(f"{len(held_out)} held-out sentences, {kn['n_tokens']} predictions per direction\n")
print(f"{'':22}{'fwd':>8}{'bwd':>8}{'avg':>8}")
for name, r in (("biLM, 80 steps", metrics), ("biLM, 600 steps (tiny)", full),
                ("3-gram Kneser-Ney", kn)):
    show = approx if r is metrics else format  # only the 80 steps were trained here
    print(f"{name:22}" + "".join(f"{show(r[k], '.2f'):>8}"
                                 for k in ("fwd_ppl", "bwd_ppl", "avg_ppl")))

# %% [markdown]
# The full run's log (`log.jsonl`, shipped with it) against the trigram's perplexity:

# %%
plot_log(read_log(tiny_dir), baseline=kn["avg_ppl"])

# %%
claim(metrics["avg_ppl"] > 3 * kn["avg_ppl"], "after 80 steps the biLM is far behind the trigram",
      detail=f"{metrics['avg_ppl']:.1f} vs {kn['avg_ppl']:.2f}")
claim(all(full[k] < kn[k] for k in ("fwd_ppl", "bwd_ppl")),
      "trained to the end, it beats the trigram in both directions")
claim(abs(full["fwd_ppl"] - full["bwd_ppl"]) < 0.1 * full["avg_ppl"],
      "its forward and backward perplexities differ by less than 10 %",
      detail=f"{full['fwd_ppl']:.2f} vs {full['bwd_ppl']:.2f}")

# %% [markdown]
# After 80 steps the biLM is far behind the trigram: the templated corpus makes the next word
# very predictable from the previous two, exactly what a trigram counts. Trained to the end,
# the same preset passes it in both directions, by about a sixth: the LSTMs add every earlier
# (or later) word of the sentence. Notebook 07 mixes this model's layers.
#
# ## 5. What the biLM has learned: generating sentences
#
# A language model is a generator: draw the first word after `<S>`, feed it back, draw the
# next, until `</S>` (`sample_sentences`). A **temperature** $\tau$ divides the logits before
# each draw, $p_\tau(w) \propto p(w)^{1/\tau}$. A **prefix** conditions the forward LM on the
# first words. The backward LM starts from `</S>` (and an optional **suffix**) and draws the
# word *before*, until `<S>`; the sentence is printed in reading order. Each sample carries its
# log-probability under the model at $\tau = 1$.

# %% [markdown]
# ### Exercise 5 (predict): colder and hotter
#
# Compared with $\tau = 1$, will the sentences drawn at $\tau = 0.5$ be more or less
# likely under the model (mean log-probability per word), and more or less varied?

# %% [markdown]
# **Prediction.**
# <!-- BEGIN ANSWER -->
# More likely and less varied. $\tau < 1$ sharpens the distribution towards the words the model
# already prefers, so the drawn words have higher probability and samples repeat the same
# phrases. At $\tau > 1$ it flattens: more varied, less likely, less grammatical.
# <!-- END ANSWER -->

# %% [markdown]
# The samples depend on every bit of the model's arithmetic, so another CPU may draw other
# sentences from the same seed; what the lesson claims about them is checked below.

# %%
# NBVAL_IGNORE_OUTPUT
from elmo_tutorial.model.generate import sample_sentences

full_tiny.eval()
by_temperature = {tau: sample_sentences(full_tiny, tiny_vocab, n=8, temperature=tau, seed=0)
                  for tau in (0.5, 1.0)}
for tau, samples in by_temperature.items():
    print(f"τ = {tau}:")
    for sample in samples[:4]:
        print(f"   {sample.mean_log_prob:6.2f}  {' '.join(sample.tokens)}")
prefix = ["She", "said", "that"]
with_prefix = sample_sentences(full_tiny, tiny_vocab, n=3, given=prefix, temperature=0.7)
suffix = ["on", "the", "bank", "."]
backward = sample_sentences(full_tiny, tiny_vocab, n=3, direction="backward", given=suffix,
                            temperature=0.7)
print("forward, from a prefix:")
for sample in with_prefix:
    print("   ", " ".join(sample.tokens))
print("backward, up to a suffix:")
for sample in backward:
    print("   ", " ".join(sample.tokens))

# %%
forward_samples = by_temperature[0.5] + by_temperature[1.0] + with_prefix
claim(all(s.finished and s.tokens[-1] == "</S>" for s in forward_samples),
      "every forward sample ends with </S>, drawn by the model")
claim(all(s.tokens[:3] == prefix for s in with_prefix), "the prefix is kept")
claim(all(s.tokens[0] == "<S>" and s.tokens[-4:] == suffix for s in backward),
      "every backward sample starts with <S> and ends with the suffix")
mean_log_prob = {tau: sum(s.mean_log_prob for s in samples) / len(samples)
                 for tau, samples in by_temperature.items()}
print({tau: approx(value, ".2f") for tau, value in mean_log_prob.items()})
claim(mean_log_prob[0.5] > mean_log_prob[1.0] + 0.3,
      "τ = 0.5 draws likelier words than τ = 1 (by more than 0.3 nats per word)")

# %% [markdown]
# Most forward samples follow the corpus's templates; whether they make sense is another
# matter: this small model knows which *kind* of word goes in a slot better than which word.
# The backward samples, written from the last word to the first, are often less fluent: each
# must end with the given suffix, and a start chosen from the right need not fit a template.
#
# ## 6. The joint loss

# %% [markdown]
# ### Exercise 6 (implement): the joint loss
#
# Complete `my_joint_loss(fwd_logits, bwd_logits, fwd_targets, bwd_targets)`: logits are
# `(B, T, V)`, targets `(B, T)` with -100 where nothing is predicted. Return the forward mean
# NLL plus the backward mean NLL over real targets only, as `BidirectionalLM` does, from the
# formula: the log-softmax over the vocabulary, each target's log-probability, minus their
# mean over the positions that have a target (`F.cross_entropy` and `F.nll_loss` are not
# available to it). (bilm-tf averages the two directions instead; the check accepts either and
# says which one you wrote.)

# %%
def my_joint_loss(fwd_logits, bwd_logits, fwd_targets, bwd_targets):
    # BEGIN SOLUTION
    total = 0
    for logits, targets in ((fwd_logits, fwd_targets), (bwd_logits, bwd_targets)):
        real = targets != -100  # (B, T)
        log_p = logits.log_softmax(-1)  # (B, T, V)
        picked = log_p.gather(-1, targets.clamp(min=0).unsqueeze(-1)).squeeze(-1)  # (B, T)
        total = total - picked[real].mean()  # the mean NLL over real targets
    return total
    # END SOLUTION


checks.check_joint_loss(my_joint_loss)

# %% [markdown]
# ## Summary
#
# - The biLM maximises the forward and backward log likelihoods together (Sec. 3.1); the
#   character CNN and the softmax are shared, the LSTMs are not.
# - The softmax dominates a word-level LM with a large vocabulary; bilm-tf trains with a
#   sampled softmax of 8192 candidates and evaluates with the full one.
# - Training details of the paper's model (Sec. 3.4 and bilm-tf): Adagrad, lr 0.2, gradients
#   clipped to norm 10, dropout 0.1, 10 epochs of the 1B Word Benchmark; the `paper` preset
#   in `elmo_tutorial/training/train_config.py` documents each.
# - A trained LM generates: draw a word, feed it back; the temperature trades likelihood for
#   variety; the backward LM writes sentences from their end (`sample_sentences`).
# - Our `Trainer` checkpoints atomically and resumes exactly; `torchrun` (or
#   `elmo-tutorial train --nproc N`) spreads each batch over processes (notebook 11).
#
# Next: notebook 07 mixes the trained layers into one ELMo vector.

# %% [markdown]
# ## Check your understanding
#
# Answer each in a sentence or two before you open the instructor's answer.
#
# 1. The joint loss adds the forward and the backward mean NLL. What does training them together
#    give the shared character CNN and softmax that two separate models would not?
#
# <!-- BEGIN ANSWER -->
# Gradients from both directions at every step: a word's output vector learns from both
# directions' predictions of it. Each LSTM stack still learns only from its own direction.
# <!-- END ANSWER -->
#
# 2. Why does the sampled softmax subtract $\log e_w$ from each candidate's logit?
#
# <!-- BEGIN ANSWER -->
# Frequent words are drawn far more often than rare ones; subtracting the log of each word's
# expected count corrects for that, so the estimate is not biased towards frequent words.
# <!-- END ANSWER -->
#
# 3. Why is perplexity always measured with the full softmax, even for a model trained with a
#    sampled one?
#
# <!-- BEGIN ANSWER -->
# The sampled loss normalises over the $S + 1$ scored words, not the vocabulary, so it is not
# the model's probability of the word. Only the full softmax gives a comparable perplexity.
# <!-- END ANSWER -->
#
# 4. After 80 steps the biLM is far behind the Kneser-Ney trigram; trained to the end, it beats
#    it. Why is the trigram so strong here, and what do the LSTMs add?
#
# <!-- BEGIN ANSWER -->
# The templated corpus makes the next word predictable from the previous two, which a trigram
# counts without training. Trained, the LSTMs add every earlier (or later) word.
# <!-- END ANSWER -->
#
# 5. Why does the course's `Trainer` train on whole sentences, where bilm-tf streamed 20-token
#    windows?
#
# <!-- BEGIN ANSWER -->
# ELMo is used on sentences and our LSTM is stateless: in training as in use, every sentence
# starts from zero state. bilm-tf carried the state from window to window.
# <!-- END ANSWER -->
#
# 6. The run is seeded, yet another CPU prints a somewhat different perplexity after 80 steps.
#    Why, and how does the notebook deal with it?
#
# <!-- BEGIN ANSWER -->
# Another CPU adds floats in another order, and many steps turn the last bits into visible
# differences. Such numbers are printed with ≈, and the lesson's claims are checked (✓) on
# every machine.
# <!-- END ANSWER -->
#
# 7. On held-out text the forward LM's mean NLL is 4.5 nats per word and the backward one's
#    4.7. What are the two perplexities, and the "average" `evaluate` prints?
#
# <!-- BEGIN ANSWER -->
# $e^{4.5} \approx 90$ and $e^{4.7} \approx 110$; the average is $e^{(4.5 + 4.7)/2} = e^{4.6}
# \approx 99.5$, the geometric mean of the two perplexities (not their arithmetic mean, 100).
# <!-- END ANSWER -->
#
# 8. With 30,000 words and projections of 128, how many multiply-adds does the full softmax
#    spend per predicted word, and how many does a sampled softmax of 2,048 candidates?
#
# <!-- BEGIN ANSWER -->
# Full: $30{,}000 \times 128 = 3.84$ million. Sampled: $2{,}048 \times 128 \approx 262{,}000$,
# about 15 times fewer.
# <!-- END ANSWER -->
