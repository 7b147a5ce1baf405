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
# # 14 · Capstone: your own biLM on real English, trained and probed
#
# Notebooks 01-06 built the parts of ELMo's biLM one at a time, and 06 trained one on a
# 600-word synthetic corpus. The biLM of notebooks 08-13 was trained elsewhere, on more text
# than a lecture allows. Here you put the parts together yourself and train the result on
# real English, on your own machine.
#
# **You will:**
# 1. assemble ELMo's biLM from the plain parts of the package: the character CNN (03), two
#    LSTM stacks (04, 05), one shared softmax and the joint loss (06); a self-check shows, on a
#    small model, that it computes what `BidirectionalLM` computes;
# 2. train it on the first 120,000 sentences of `english_mix` (Brown, Gutenberg, speeches,
#    web text and MASC: about 2.6 M words) for about 17 minutes on 2 quiet CPU cores, with a
#    progress bar and a checkpoint every 100 steps, so that an interrupted run goes on where it
#    stopped;
# 3. predict, then watch, its held-out perplexity: untrained, during training, and against a
#    Kneser-Ney trigram fitted on the same text;
# 4. probe each of its layers for part of speech (notebook 10's linear probe), beside the
#    shipped `small` biLM, and explain the difference.
#
# This is a project for after notebook 07 (or at the end of the course): work through it at
# home, or in a lab session while the run trains.
#
# **Prerequisites:** notebooks 03-07; notebook 10's probe helps with section 5.
#
# **Runtime:** about 19 minutes on 2 quiet CPU cores, 17 of them training. For a one-minute look
# (50 steps on 10,000 sentences; this is what CI runs), start JupyterLab with the environment
# variable `ELMO_TUTORIAL_CAPSTONE=quick`.

# %% slideshow={"slide_type": "subslide"} tags=["hide-input"]
try:
    from elmo_tutorial.figures import you_are_here
except ModuleNotFoundError as missing:  # opened before `make lab` installed the course
    raise ModuleNotFoundError(
        f"this notebook's kernel cannot import {missing.name}: start JupyterLab with "
        "`make lab` from the repository root (or run `pip install -e .` there, in this "
        "kernel's environment), then restart the kernel") from None

you_are_here("bilm")

# %% slideshow={"slide_type": "skip"}
# %matplotlib inline
import os
from collections import Counter

import matplotlib.pyplot as plt
import torch
from torch import nn

from elmo_tutorial import ELMo, checks, load_elmo, shipped_model
from elmo_tutorial.analyses import probes
from elmo_tutorial.analyses.embedder import Embedder
from elmo_tutorial.claims import approx, claim
from elmo_tutorial.data.annotated import treebank_pos
from elmo_tutorial.model.char_cnn import CharCNN
from elmo_tutorial.model.chars import check_char_ids
from elmo_tutorial.model.lm import LMOutput
from elmo_tutorial.model.lstm import LSTMStack
from elmo_tutorial.model.softmax import Softmax
from elmo_tutorial.runtime import REPOSITORY, setup_notebook
from elmo_tutorial.training.checkpoints import latest_checkpoint
from elmo_tutorial.training.ngram import KneserNeyBaseline
from elmo_tutorial.training.train import Trainer
from elmo_tutorial.training.train_config import TrainConfig, apply_overrides
from elmo_tutorial.training.train_log import read_log

device = setup_notebook(seed=0)

# %% [markdown]
# ## 1. The parts, and how they fit
#
# Section 3.1 of the paper in one line: a token representation $\mathbf{x}_k$ from the
# characters, shared; a forward and a backward LSTM stack on top of it, each its own; one
# softmax, shared, that scores the next word from the forward stack's top layer and the
# previous word from the backward one; the loss, the two directions' mean negative
# log-likelihoods added.
#
# The parts are the package's plain modules, the ones your own code was checked against in
# notebooks 03-06:
#
# - `CharCNN(config)`, the character CNN with its highway layers and projection (03): char ids
#   `(B, T, 50)` → `(B, T, P)`;
# - `LSTMStack(P, lstm_dim, P, n_layers, go_forward=…)`, a stack of LSTMs with projections
#   (04, 05): `(B, T, P)` and the mask → a list of `n_layers` tensors `(B, T, P)`;
# - `Softmax(P, vocab_size)`, the shared softmax (06): `(B, T, P)` and targets `(B, T)` → the
#   NLL sum and the number of targets;
# - `nn.Dropout(p)`, dropout (06): `x` → `x` with units zeroed while training.
#
# The backward stack (`go_forward=False`) reverses each sentence inside itself, padding
# included (notebook 05), so both stacks read the same embeddings. A batch from
# `make_lm_batch` holds `char_ids` and, per direction, `forward_targets` and
# `backward_targets`, with -100 where nothing is predicted.

# %% [markdown]
# ### Exercise 1 (implement): assemble the biLM
#
# Write `MyBiLM`, a `torch.nn.Module`, from the four parts above.
#
# - `__init__(config)`: a `char_cnn`, a `forward_lstm` and a `backward_lstm` (sizes, clipping,
#   skip connections and dropout from `config`, a `ModelConfig`), a `softmax` over
#   `config.vocab_size` words and a `dropout`. The names matter: the trainer saves your
#   model's weights under them, and `load_elmo` reads them back.
# - `forward(batch, sampled=False)`: the embeddings of `batch.char_ids`, dropped out once for
#   both directions; then per direction, forward first: its stack, its top layer dropped out,
#   the softmax's NLL sum over its count, with `sampled=sampled and self.training`. Return
#   `LMOutput(loss, forward_nll, backward_nll, n_tokens)`, the loss being the two means added.
#   (The check draws the same random numbers for both models, so the order of the draws
#   matters: the one above.)
#
# The check builds your model and `BidirectionalLM` with the same weights and compares their
# losses in evaluation, with dropout and with the sampled softmax.

# %%
class MyBiLM(nn.Module):
    def __init__(self, config):
        super().__init__()
        # BEGIN SOLUTION
        P = config.projection_dim
        self.char_cnn = CharCNN(config)  # shared by both directions
        for direction in ("forward", "backward"):
            stack = LSTMStack(P, config.lstm_dim, P, config.n_layers,
                              cell_clip=config.cell_clip, proj_clip=config.proj_clip,
                              use_skip_connections=config.use_skip_connections,
                              go_forward=direction == "forward", dropout=config.dropout)
            self.add_module(f"{direction}_lstm", stack)
        self.softmax = Softmax(P, config.vocab_size)  # shared by both directions
        self.dropout = nn.Dropout(config.dropout)
        # END SOLUTION

    def forward(self, batch, sampled=False):
        # BEGIN SOLUTION
        mask = check_char_ids(batch.char_ids)  # (B, T)
        x = self.dropout(self.char_cnn(batch.char_ids))  # (B, T, P)
        nll = {}
        for direction in ("forward", "backward"):
            stack = getattr(self, f"{direction}_lstm")
            top = self.dropout(stack(x, mask)[-1])  # (B, T, P)
            targets = getattr(batch, f"{direction}_targets")  # (B, T)
            total, n_tokens = self.softmax(top, targets, sampled=sampled and self.training)
            nll[direction] = total / max(n_tokens, 1)
        return LMOutput(nll["forward"] + nll["backward"], nll["forward"], nll["backward"],
                        n_tokens)
        # END SOLUTION


checks.check_bilm_assembly(MyBiLM)

# %% [markdown]
# ## 2. The text, and the run
#
# `TrainConfig.preset("capstone")` is the run: notebook 06's `tiny` architecture (two layers,
# LSTMs of 256 cells projected to 64) on the first 120,000 training sentences of
# `english_mix`, which takes documents from its six corpora in turn; the 10,000 most frequent
# words; 1,875 steps of 64 sentences (each sentence seen once), Adam with a cosine schedule; a
# held-out evaluation every 375 steps on the first 500 sentences of the valid split; a
# checkpoint every 100 steps. `Trainer(..., build=MyBiLM)` trains *your* class: it checks that
# your model's parameters are `BidirectionalLM`'s, name for name, and calls your `forward` at
# every step.
#
# The run lives in `runs/capstone` at the repository root. Interrupted (Kernel → Interrupt),
# the training cell saves a checkpoint; run it again and it goes on. After a restart of the
# kernel or a closed laptop, run the notebook from the top: this cell finds the newest
# checkpoint and resumes from it, and once the run is complete it loads the result instead
# of training again. Delete the folder to start afresh.

# %%
QUICK = os.environ.get("ELMO_TUTORIAL_CAPSTONE") == "quick"  # a one-minute look (CI)
RUNS = REPOSITORY / os.environ.get("ELMO_TUTORIAL_RUNS", "runs")  # the tests': a temporary one
run_dir = RUNS / ("capstone-quick" if QUICK else "capstone")  # a student copy's: its own
settings = ({"train_sentences": 10_000, "max_steps": 50, "eval_interval": 10,
             "checkpoint_interval": 20} if QUICK else {})
config = apply_overrides(TrainConfig.preset("capstone"),
                         {**settings, "out_dir": str(run_dir), "device": device.type})
# A checkpoint to resume from, or the final weights of a run complete (checkpoints deleted)
started = latest_checkpoint(run_dir) is not None or (run_dir / "model.safetensors").exists()
trainer = Trainer(config, resume=started, build=MyBiLM)  # no force: it never deletes a run
words = Counter(w for sentence in trainer.train_sents for w in sentence)
kept = sum(n for w, n in words.items() if w in trainer.vocab) / sum(words.values())
print(f"{approx(len(trainer.train_sents), ',d')} training sentences, "
      f"{approx(sum(words.values()), ',d')} words, {approx(len(words), ',d')} distinct")
print(f"vocabulary: {len(trainer.vocab):,} entries (3 special), covering "
      f"{approx(100 * kept, '.1f')} % of the training words; the rest become <UNK>")
print(f"held-out: {len(trainer.valid_sents)} sentences of the valid split")
print(" ".join(trainer.train_sents[0]))

# %% [markdown]
# ### Exercise 2 (predict): a biLM that has learned nothing
#
# The cell below evaluates your biLM before its first step (or finds that evaluation in the
# run's log), when all its weights are small and random. What held-out perplexity do you
# expect, roughly, and why? And what would it be with a vocabulary of 20,000 words?

# %% [markdown]
# **Prediction.**
# <!-- BEGIN ANSWER -->
# About 10,000, the size of the vocabulary. Perplexity is $\exp$ of the mean negative
# log-likelihood; a model that spreads its probability evenly over $V$ words gives each target
# $1/V$, a negative log-likelihood of $\log V$, and a perplexity of exactly $V$. The small
# random weights make the probabilities a little uneven, so the perplexity lands near $V$,
# slightly above or below it. With 20,000 words, about 20,000: perplexity is "a uniform choice
# among this many words", and an untrained model chooses among all of them.
# <!-- END ANSWER -->

# %%
checks.exercise_done(1, "assemble the biLM", "trainer" in globals())
if trainer.step == 0:
    trainer.evaluate()  # step 0: the untrained model, written to log.jsonl
evaluations = [e for e in read_log(run_dir) if e["kind"] == "eval"]
untrained = next(e for e in evaluations if e["step"] == 0)
print(f"untrained: forward {approx(untrained['fwd_ppl'], ',.0f')}, backward "
      f"{approx(untrained['bwd_ppl'], ',.0f')}; vocabulary {len(trainer.vocab):,} words")
claim(abs(untrained["avg_ppl"] / len(trainer.vocab) - 1) < 0.25,
      "untrained, the perplexity is within 25 % of the vocabulary's size")

# %% [markdown]
# ## 3. Training
#
# About 17 minutes on two quiet CPU cores (a faster machine or a GPU takes less; the progress bar
# shows the steps, the training perplexity of the last batch and the tokens per second). Your
# `forward` computes each step's loss; the trainer does the rest, as in notebook 06: batches
# of similar length, backward, gradient clipping, Adam, the learning rate schedule, the
# evaluations and the checkpoints.

# %%
# NBVAL_IGNORE_OUTPUT
checks.exercise_done(1, "assemble the biLM", "trainer" in globals())
metrics = trainer.fit()
print(f"{trainer.step} of {trainer.total_steps} steps; the run is in "
      f"{os.path.relpath(run_dir, REPOSITORY)} at the repository root")

# %% [markdown]
# ## 4. Held-out perplexity, against a trigram
#
# A perplexity means something only next to a baseline. `KneserNeyBaseline` (notebook 06)
# counts the trigrams of the same training sentences, maps words outside the same vocabulary
# to `<UNK>`, and scores the same held-out sentences in both directions. Counting 2.6 M words in
# pure Python takes a minute or so.

# %% [markdown]
# ### Exercise 3 (predict): your biLM or the trigram?
#
# The trigram sees the two words next to the one it predicts, and has counted every trigram
# of the 120,000 sentences exactly, in a minute; its discount is set from those counts
# (notebook 06). Your biLM sees the whole sentence on one side and takes 1,875 small gradient
# steps, each sentence seen once. At the end of the run, which of the two has the lower
# held-out perplexity, and by roughly how much? If the biLM is behind, what would close the
# gap?

# %% [markdown]
# **Prediction.**
# <!-- BEGIN ANSWER -->
# After the full run, level: a few percent apart. The trigram is a strong baseline at 2.6 M
# words: two words of context predict much of English, a count needs no training, and a
# discount estimated from the counts makes it a well-tuned model; the biLM starts fifty times
# worse. But many trigrams of held-out text were never seen in training, and there the trigram
# falls back on bigrams and single words, while the biLM reads every earlier word and the
# spelling of each. It closes the gap over the run, its curve still falling at the end: more
# steps over more text would take it further. In the quick look (50 steps) the biLM has only
# begun, and ends far above the trigram.
# <!-- END ANSWER -->

# %%
checks.exercise_done(1, "assemble the biLM", "trainer" in globals())
kn = KneserNeyBaseline(order=3).fit(trainer.train_sents, trainer.vocab)
trigram = kn.perplexity(trainer.valid_sents)
# One evaluation per step (a resumed run that was already complete evaluates its end again)
evaluations = list({e["step"]: e for e in read_log(run_dir) if e["kind"] == "eval"}.values())
steps = [e["step"] for e in evaluations]
held_out = [e["avg_ppl"] for e in evaluations]
print(f"{'step':>6}{'biLM':>10}{'trigram':>10}")
for step, ppl in zip(steps, held_out, strict=True):
    print(f"{approx(step, 'd'):>6}{approx(ppl, ',.0f'):>10}"
          f"{approx(trigram['avg_ppl'], ',.0f'):>10}")

fig, ax = plt.subplots(figsize=(7, 3.6))
ax.plot(steps, held_out, "o-", label="your biLM (held-out)")
ax.axhline(trigram["avg_ppl"], color="tab:red", ls="--", label="Kneser-Ney trigram")
ax.set(yscale="log", xlabel="step", ylabel="perplexity (log scale)",
       title="Held-out perplexity on 500 sentences")
ax.legend()
plt.show()

claim(all(later < earlier for earlier, later in zip(held_out, held_out[1:], strict=False)),
      "the held-out perplexity fell at every evaluation")

# %%
# NBVAL_IGNORE_OUTPUT
# The full run's claims, or the quick look's
gap = held_out[-1] / trigram["avg_ppl"] - 1  # the biLM's end against the trigram
numbers = f"biLM {held_out[-1]:.1f}, trigram {trigram['avg_ppl']:.1f}"
if QUICK:
    claim(gap > 1, "after 50 steps the biLM's perplexity is over twice the trigram's", numbers)
else:
    claim(abs(gap) < 0.10, "the biLM ends level with the trigram: within 10 %", numbers)
    claim(held_out[0] / held_out[-1] > 40, "over the run its perplexity fell over forty-fold",
          numbers)

# %% [markdown]
# On the machine that executed this notebook, a shared one (48 minutes at about 1.5 s a step,
# against 0.55 s on two quiet cores), the full run ended level with the trigram (192 against
# 195), its curve still falling. A gap of a few percent is within what another CPU or another
# seed changes (three seeds of notebook 06's `tiny` preset ended between 5.4 and 6.2,
# `data/models/tiny/MODEL_CARD.md`), so read it as a tie: after
# 1,875 steps your biLM predicts held-out English as well as a well-tuned trigram. The quick
# look (50 steps) ends far above the trigram: it shows the run working, not where it ends.
#
# ## 5. What its layers know: a part-of-speech probe
#
# Notebook 10 probed the shipped biLM's layers with a linear classifier for Penn Treebank
# tags. The same probe on your biLM's layers, beside the shipped model's: 600 training
# sentences, the whole test set. `load_elmo` reads your run folder as it reads any
# other, because your model's parameters have `BidirectionalLM`'s names.

# %% [markdown]
# ### Exercise 4 (experiment): which of your layers knows the tags?
#
# Complete the loop: for each model (yours, then the shipped `small`), build an `Embedder`
# from `load_elmo(...)` and probe its layers with
# `probes.probe_layers(embedder, ptb_train, ptb_test, name, cache=False)`, storing the result
# in `accuracy[name]`. Then interpret: which of your layers tags best, how far behind the
# shipped model's layers are yours, and is the order of the layers the same in both?

# %%
ptb_train, ptb_test = treebank_pos("train")[:600], treebank_pos("test")
majority = probes.most_frequent_tag_accuracy(ptb_train, ptb_test)  # the baseline of notebook 10
models = {"yours": run_dir, "shipped small": shipped_model("small")}
accuracy = {}
for name, folder in models.items():
    # BEGIN SOLUTION
    embedder = Embedder(load_elmo(folder))
    accuracy[name] = probes.probe_layers(embedder, ptb_train, ptb_test, name, cache=False)
    # END SOLUTION
checks.check_probe_accuracies(accuracy, models, ptb_train, ptb_test)
print(f"{'':>14}{'layer 0':>9}{'layer 1':>9}{'layer 2':>9}")
for name, result in accuracy.items():
    print(f"{name:>14}" + "".join(f"{approx(result[f'layer{j}'], '.1f'):>9}" for j in range(3)))
print(f"most frequent tag of each word: {approx(majority, '.1f')}")

# %%
checks.exercise_done(4, "which of your layers knows the tags?", len(accuracy) == 2)
fig, ax = plt.subplots(figsize=(7, 3.4))
for i, (name, result) in enumerate(accuracy.items()):
    ax.bar([j + 0.38 * i for j in range(3)], [result[f"layer{j}"] for j in range(3)], 0.38,
           label=name)
ax.axhline(majority, color="gray", ls="--", label="most frequent tag")
ax.set(xticks=[0.19, 1.19, 2.19], xticklabels=["layer 0", "layer 1", "layer 2"],
       ylabel="PTB tag accuracy (%)", title="A linear probe per layer",
       ylim=(min(majority, *(min(r.values()) for r in accuracy.values())) - 5, 100))
ax.legend(loc="upper left", ncol=3, fontsize=9)
plt.show()

# %% [markdown]
# **What do you see?** Write your interpretation before opening the answer.
#
# **Model answer.**
# <!-- BEGIN ANSWER -->
# After the full run, every layer of yours tags better than the most frequent tag of each word,
# and both LSTM layers 2 to 3 points better than layer 0 (the characters alone): context
# helps. Layers 1 and 2 are close (82.9 and 83.6 on the machine that executed this notebook,
# a difference this notebook does not test). The shipped model is about 10 points ahead at its
# LSTM layers and 9 at layer 0; its layers 1 and 2 are level too (93.6 and 93.6), both well
# above layer 0. The order of the two LSTM layers need not be the same in both models, and
# neither difference is tested: what both show is context over characters, not an order
# between their LSTM layers. After the quick look (50 steps) your LSTM layers tag worse than
# your layer 0, and worse than the most frequent tag: they have not yet learned to pass on what
# the characters give them.
# <!-- END ANSWER -->

# %%
# After your interpretation: the finding, checked on these measurements
checks.exercise_done(4, "which of your layers knows the tags?", len(accuracy) == 2)
best = {name: max(result.values()) for name, result in accuracy.items()}
claim(best["shipped small"] > best["yours"],
      "the shipped model's best layer tags better than your best layer")
shipped = accuracy["shipped small"]
claim(abs(shipped["layer1"] - shipped["layer2"]) < 1
      and min(shipped["layer1"], shipped["layer2"]) > shipped["layer0"] + 2,
      "the shipped model's LSTM layers are level (within a point), over 2 above its layer 0")

# %%
# NBVAL_IGNORE_OUTPUT
# The full run's claims, or the quick look's
yours = accuracy["yours"]
if QUICK:
    claim(max(yours["layer1"], yours["layer2"]) < min(yours["layer0"], majority),
          "after 50 steps your LSTM layers tag worse than your layer 0 and the most frequent tag")
else:
    claim(min(yours.values()) > majority, "every layer of yours beats the most frequent tag")
    claim(min(yours["layer1"], yours["layer2"]) - yours["layer0"] > 1,
          "both your LSTM layers are over a point above your layer 0")
    claim(abs(yours["layer1"] - yours["layer2"]) < 2, "your LSTM layers are within 2 points")
    leads = [shipped[f"layer{j}"] - yours[f"layer{j}"] for j in range(3)]
    claim(all(6 < lead < 12 for lead in leads),
          "the shipped model leads yours by 6 to 12 points at every layer", str(leads))

# %% [markdown]
# ### Exercise 5 (explain): why is the shipped biLM ahead?
#
# Both biLMs are built from the same parts and trained with the same loss. Name two
# differences that explain why the shipped `small` model's layers tag better than yours, and
# say for each how you would check that it matters. (Its `MODEL_CARD.md`, in
# `data/models/small`, says how it was trained.)

# %% [markdown]
# **Model answer.**
# <!-- BEGIN ANSWER -->
# *Text.* The shipped model read 691,200 sentences of `english_mix` (2,700 steps of 256, about
# 3.3 passes over the split's 207,875 training sentences), yours 120,000 (one pass): about six
# times as many sentences read, from under twice as much distinct text. Check: train yours for
# twice and four times as many steps on more sentences (`train_sentences`), and probe each.
#
# *Size.* Its LSTMs have 512 cells projected to 128 and its character CNN more filters and two
# highway layers; yours are 256 → 64 with one. Larger layers hold more features a linear probe
# can read. Check: train the `small` architecture (`model="small"`) on your 120,000 sentences
# for the same time; if it does not beat yours there, size was not the limit at this much text.
#
# Its vocabulary differs too, but only its softmax sees it: the probe reads layers computed
# from characters.
# <!-- END ANSWER -->

# %% [markdown]
# ## Summary
#
# - ELMo's biLM is four parts (a character CNN, two LSTM stacks, a shared softmax) and one
#   loss, the two directions' mean NLLs added (Sec. 3.1); you assembled it and trained your
#   own class on real English.
# - Untrained, its perplexity is about the vocabulary's size. After 1,875 steps on 2.6 M words
#   it has fallen fifty-fold and drawn level with a Kneser-Ney trigram counted on the same text:
#   at this scale counting is a strong baseline, and a biLM needs more text and steps to
#   leave it behind.
# - A linear probe reads part of speech from its layers, better from the LSTM layers than
#   from the characters alone; the shipped biLM, with larger layers, read about six times as
#   many sentences (from under twice the distinct text) and is about 10 points ahead. The
#   paper's biLM saw 10 epochs of the 1B Word Benchmark's 800 M words with LSTMs 16 times wider
#   (Sec. 3.4, notebook 11).
# - Your run is in `runs/capstone`: `load_elmo("runs/capstone")` gives its ELMo vectors,
#   `elmo-tutorial evaluate runs/capstone --split test` its test perplexity beside the
#   trigram's, and `elmo-tutorial train --config capstone --out runs/capstone --resume`
#   goes on from a terminal.

# %% [markdown]
# ## Check your understanding
#
# Answer each in a sentence or two before you open the instructor's answer.
#
# 1. Your biLM and `BidirectionalLM` are different classes. Why can `load_elmo` load your
#    run as if the package had trained it?
#
# <!-- BEGIN ANSWER -->
# The run folder holds a state dict and a config, not a class. Your parts have the names and
# shapes of `BidirectionalLM`'s (the trainer checked that before the first step), so the
# package's model loads the same tensors under the same names and computes the same function.
# <!-- END ANSWER -->
#
# 2. The run is stopped at step 730 and resumed. From which step does it go on, and what does
#    the resumed run compute differently from one that was never stopped?
#
# <!-- BEGIN ANSWER -->
# From step 700, the newest checkpoint (one every 100 steps). It then computes exactly what the
# uninterrupted run computed: the checkpoint holds the weights, the optimiser's state, the
# schedule, the position in the epoch and the state of every random generator (notebook 06).
# Only 30 steps of time are lost.
# <!-- END ANSWER -->
#
# 3. A classmate trains with `vocab_max_size=50000` and reports a held-out perplexity 20 %
#    higher than yours. Has their biLM learned less? What would you compare instead?
#
# <!-- BEGIN ANSWER -->
# Not necessarily: with a larger vocabulary, fewer words become `<UNK>` (an easy, frequent
# target), and each rare word is a hard prediction, so the same model scores a higher
# perplexity. Perplexities compare only over the same vocabulary and held-out text: compare
# both against a trigram with their own vocabulary, or probe their layers, which do not
# depend on the softmax.
# <!-- END ANSWER -->
#
# 4. Your run takes 1,875 steps of 64 sentences in about 17 minutes. Roughly how long would the
#    same machine need for one pass over `english_mix`'s 207,875 training sentences, and for the
#    paper's 10 epochs of the 1B Word Benchmark (30 M sentences) at this model size?
#
# <!-- BEGIN ANSWER -->
# One pass is $207{,}875 / 64 \approx 3{,}250$ steps, about 30 minutes at 0.55 s a step. Ten
# epochs of 30 M sentences are $4.7$ M steps, about 720 hours: 30 days, for a model whose
# LSTMs are 16 times narrower than the paper's (notebook 11 counts the paper model's cost).
# <!-- END ANSWER -->
#
# 5. A test sentence holds *Brontë*, a word outside your 10,000. What does your biLM's layer 0
#    give it, and what does its softmax predict when *Brontë* is the next word?
#
# <!-- BEGIN ANSWER -->
# Layer 0 computes a vector from its characters (B-r-o-n-t-ë, the ë as two UTF-8 bytes), as
# for any word: the character CNN has no vocabulary. The softmax can only predict `<UNK>`
# there: the target is `<UNK>`, and the perplexity counts the probability it gives `<UNK>`.
# <!-- END ANSWER -->
#
# 6. Why does the probe read layers computed from characters, and not your model's softmax?
#
# <!-- BEGIN ANSWER -->
# ELMo uses the biLM's layers, not its predictions: the softmax is dropped after training
# (`vocab_size=0` builds the encoder alone). The layers describe every token, including words
# outside the vocabulary, from their characters and context, which is what a task model (or a
# probe) needs.
# <!-- END ANSWER -->
