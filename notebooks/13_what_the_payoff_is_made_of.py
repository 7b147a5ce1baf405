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
# # 13 · What ELMo's payoff is made of
#
# Notebook 12 added the frozen biLM to a task model and measured the gain (Table 1, Figure 1).
# This notebook takes the gain apart, as the paper's sections 5.1-5.5 do: is it the biLM's
# characters or its context? Which layers, mixed how, and where in the task model? Would a
# better biLM buy more?
#
# **You will:**
# 1. predict, then split the gain into what the context-free layer 0 gives and what the
#    context layers add, with little and with much labelled data;
# 2. read where ELMo goes (Table 3) and add it at the LSTM's output yourself;
# 3. read which layers and how strongly regularised (Table 2, Figure 2), and train a tagger on
#    the top layer alone;
# 4. see what biLMs of one corpus, trained for more or fewer words, buy (the quality figure);
# 5. see what changed after ELMo, in GPT and BERT.
#
# **Prerequisites:** notebook 12 (the task model, the report, paired intervals).
#
# **Runtime:** about 31 s on 2 quiet CPU cores (four small taggers for Exercise 3).

# %% slideshow={"slide_type": "subslide"} tags=["hide-input"]
try:
    from elmo_tutorial.figures import you_are_here
except ModuleNotFoundError as missing:  # opened before `make lab` installed the course
    raise ModuleNotFoundError(
        f"this notebook's kernel cannot import {missing.name}: start JupyterLab with "
        "`make lab` from the repository root (or run `pip install -e .` there, in this "
        "kernel's environment), then restart the kernel") from None

you_are_here("payoff")

# %%
# %matplotlib inline
import json
import time

import matplotlib.pyplot as plt
import numpy as np
import torch
from IPython.display import Markdown, display
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from elmo_tutorial import ELMo, Embedder, checks, load_elmo, shipped_model
from elmo_tutorial.analyses.paired import paired_difference, verdict
from elmo_tutorial.claims import approx, claim
from elmo_tutorial.runtime import setup_notebook
from elmo_tutorial.tasks import TaskSplit, draw, prepare_task, task_word_vectors, train_arms

device = setup_notebook(seed=0, threads=1)
start_of_notebook = time.perf_counter()

# %% slideshow={"slide_type": "skip"}
# The shipped model's task report, and two ways to print its numbers
report_dir = shipped_model("small")  # data/models/small, found from any folder
report = json.loads((report_dir / "tasks.json").read_text(encoding="utf-8"))
markdown = (report_dir / "TASKS.md").read_text(encoding="utf-8")
tasks = report["tasks"]


def pm(arm):  # "mean ± std" over seeds
    return f"{arm['mean']:5.1f} ± {arm['std']:3.1f}"


def interval(d):  # a paired difference and its 95 % interval (seeds and test sentences)
    return f"{d['mean']:+5.1f} [{d['low']:+.1f}, {d['high']:+.1f}]"

# %% [markdown]
# ## 1. Characters or context?
#
# ELMo's layer 0 is the biLM's character CNN and highway layers: no context, but trained on
# 4.7 million words, far more text than any task's labels. So part of "ELMo's gain" could be
# what those characters learned about spellings and word shapes. The report's **+ layer 0**
# arm adds layer 0 alone where ELMo goes; what the context layers add on top is the
# difference + ELMo − (+ layer 0).
#
# ### Exercise 1 (predict): how much of the gain is context?
#
# Notebook 12 showed chunking's gain with 1 % of its training set (79 sentences) and with all
# of it. Before you run the next cell, predict: with which amount of labelled data does
# layer 0 alone give the larger share of the gain, and does context add anything with all
# 7,936 sentences?

# %% [markdown]
# **Prediction.**
# <!-- BEGIN ANSWER -->
# With 79 sentences the task model's own character CNN has seen too few words, so layer 0's
# characters, trained on 4.7 million words, should carry a large share; context helps too,
# since a chunk tag depends on the words around a token. With all 7,936 sentences the labels
# teach more, so both parts shrink; whether context still adds anything needs an interval.
# <!-- END ANSWER -->

# %%
rows = []
for task in ("chunking", "ner"):
    for point in report["sample_efficiency"][task]:
        if point.get("layer0") is None:
            continue
        rows.append(f"| {task} | {point['train_sentences']:,} | {pm(point['baseline'])} | "
                    f"{pm(point['layer0'])} | {pm(point['elmo'])} | "
                    f"{interval(point['layer0_difference'])} | "
                    f"{interval(point['context_difference'])} |")
display(Markdown("| task | sentences | baseline | + layer 0 | + ELMo | layer 0 − baseline | "
                 "ELMo − layer 0 (context) |\n|---|--:|---|---|---|---|---|\n"
                 + "\n".join(rows)))
draw(report, "sample_efficiency")  # notebook 12's Figure 1, now with + layer 0
plt.show()
chunking_curve = report["sample_efficiency"]["chunking"]
claim(all(verdict(p["context_difference"]) == "gain" for p in chunking_curve),
      "on chunking, context adds a gain to layer 0's at every amount of training data")
claim(all(p["layer0_difference"]["mean"] > p["context_difference"]["mean"]
          for p in chunking_curve),
      "on chunking, layer 0 alone gives the larger part of the gain at every amount of data")
ner = tasks["ner"]["differences"]
claim(verdict(ner["elmo_vs_layer0"]) == "gain" and verdict(ner["layer0_vs_baseline"]) != "gain",
      "on NER with all its training data, context adds a gain, and layer 0 alone shows none")
ner_1, ner_10 = report["sample_efficiency"]["ner"][:2]  # 1 % and 10 % of the training set
claim(verdict(ner_10["layer0_difference"]) == "gain"
      and verdict(ner_10["context_difference"]) == "no difference shown",
      "on NER with 10 % of the data, layer 0 alone gives a gain, and context shows none on top")
claim(all(verdict(ner_1[d]) == "no difference shown"
          for d in ("difference", "layer0_difference", "context_difference")),
      "on NER with 1 % of the data, no gain is shown, whole or in part")

# %% [markdown]
# Read each column against its interval: "layer 0 − baseline" is what the characters buy,
# "ELMo − layer 0" what context adds on top. An interval across 0 says "not shown", not
# "zero".
#
# - **Chunking**: layer 0 alone gives most of the gain, about three quarters with 79
#   sentences and three fifths with all of them; context adds a gain of its own at every
#   amount of data, shrinking as the labels grow (about 2.6, 1.5, then 1.0 F1).
# - **NER**: the parts change places as the labels grow. With 339 sentences layer 0 alone
#   gives a gain (about 5 F1) and context shows none on top; with all 3,394, layer 0 alone
#   shows none and context adds one (about 5 F1). With 34 sentences nothing is shown.
#
# Notebook 10's tagger, which reads the biLM's layers and nothing else, found the mix and
# layer 0 level on WNUT-17, and they stay level when it takes this task model's dropout,
# optimiser and mix one at a time (`LAYERS.md`). This task model has inputs of its own, word
# vectors and a character CNN, in both arms; with them, context shows a gain. Why those
# inputs let it show was not tested.
#
# ## 2. Where ELMo goes (the paper's Table 3)
#
# The paper adds ELMo at the task RNN's input, and for some tasks also at its output with a
# second mix: it helps SNLI and SQuAD, whose models attend over the RNN's states, and hurts
# SRL. The report tries the three places on chunking's 500-sentence sample and picks the
# taggers' place by mean **dev** F1, before Table 1 is trained:

# %%
display(Markdown(markdown[markdown.index("## Table 3"):markdown.index("## Table 2")]))

# %% [markdown]
# ### Exercise 2 (implement): ELMo at the output
#
# The paper also adds ELMo at the task RNN's *output*,
# $[h_k; \mathrm{ELMo}_k]$, with a second scalar mix of its own (Table 3: it helps SNLI and
# SQuAD, not SRL). Write the forward pass of a classifier that has ELMo at the output only:
# the LSTM reads the word vectors alone, then `model.elmo("output", layers, mask)` (the output
# mix, with dropout) is concatenated to its states before the pools. `model` is a
# `TaskModel(..., elmo_at=("output",))`; use its `words`, `unk`, `lstm` and `output`. The
# check refuses an answer that calls the model itself (`model(...)` or `model.forward`): that
# is what it compares with.

# %%
def my_elmo_at_output(model, words, mask, layers):
    # BEGIN SOLUTION
    x = torch.where((words == 0).unsqueeze(-1), model.unk, model.words(words))  # (B, T, d)
    packed = pack_padded_sequence(x, mask.sum(1), batch_first=True, enforce_sorted=False)
    h, _ = pad_packed_sequence(model.lstm(packed)[0], batch_first=True,
                               total_length=mask.shape[1])  # (B, T, 2H)
    h = torch.cat([h, model.elmo("output", layers, mask)], dim=-1)  # (B, T, 2H + D)
    keep = mask.unsqueeze(-1)
    mean = (h * keep).sum(1) / keep.sum(1)
    top = h.masked_fill(~keep, float("-inf")).max(1).values
    return model.output(torch.cat([mean, top], dim=-1))  # (B, n_classes)
    # END SOLUTION


checks.check_elmo_at_output(my_elmo_at_output)

# %% [markdown]
# ## 3. Which layers, and how strongly regularised (Table 2, Figure 2)
#
# Table 2 of the paper compares the learned mix of all layers ($\lambda = 0.001$) with the top
# layer alone and with a mix held near the plain average ($\lambda = 1$): on SQuAD, SNLI and
# SRL all layers beat the top layer, by 0.4 to 0.7 points, and the small $\lambda$ edges the
# large one by 0.2. The report asks the same on chunking's sample, with the biLM's layer 0 alone as
# a third variant:

# %%
display(Markdown(markdown[markdown.index("## Table 2"):markdown.index("## Figure 1")]))
table2 = report["table2"]
for variant, d in table2["differences"].items():
    print(f"{variant:<8} − all layers: {interval(d)}  {verdict(d)}")
top, lambda1, layer0 = (table2["differences"][v] for v in ("top", "lambda1", "layer0"))
claim(verdict(top) == verdict(lambda1) == "no difference shown" and -0.7 < top["low"] < -0.4,
      "the top layer alone and λ = 1 are level with the mix; the top layer's interval rules out "
      "an advantage of all layers as large as the paper's largest (0.7), not its smallest (0.4)")
claim(verdict(layer0) == "loss", "layer 0 alone (no context) scores below the mix")

# %% [markdown]
# On chunking with this biLM, the top layer alone is level with the learned mix, and
# $\lambda = 1$ with $\lambda = 0.001$; only taking context away (layer 0 alone) costs, about
# 1.8 F1. The top layer's interval (about −0.5 to +0.4) rules out an advantage of all layers
# as large as the paper's on SRL (0.7) but not one as small as on SNLI (0.4). So this small
# biLM **does not show** the paper's point that mixing all layers beats the top one: neither
# shown nor ruled out. That is plausible: with two layers that differ little (notebooks
# 08-10), the top layer already carries most of what the mix has; a deeper biLM trained on far
# more text, like the paper's, has layers that differ more.
#
# **Figure 2** of the paper plots the weights $\mathrm{softmax}(w)$ each task learned (§5.5): at
# the input every task favours the first biLSTM layer, strongly for coreference and SQuAD; at
# the output the weights are nearly balanced. The report's weights, each bar against the
# uniform 1/3 (grey line):

# %%
draw(report, "weights")
plt.show()

# %%
weights = {t: w["input"] for t, w in report["weights"].items() if "input" in w}
for task, w in weights.items():
    print(f"{task:<13} " + "  ".join(f"layer {j} {x:.2f}" for j, x in enumerate(w)))
claim(all(abs(sum(w) - 1) < 1e-6 for w in weights.values()), "each task's weights sum to 1")
claim(all(max(range(3), key=w.__getitem__) == 1 for w in weights.values()),
      "at the input, every task puts its largest weight on the first LSTM layer")

# %% [markdown]
# As in the paper's Figure 2, every task's input mix leans on the **first LSTM layer** (here
# 0.4 to 0.6 of the weight), chunking the most. Weights are not an ablation: Table 2 just
# showed that the top layer alone does as well as this mix on chunking. A mix can weight
# layer 1 and lose nothing when layer 1 is taken away, if the next layer carries much the same.

# %% [markdown]
# ### Exercise 3 (experiment): design the control for the mix
#
# Table 2's case for mixing every layer is a comparison with the top layer alone, the one
# representation earlier systems fed their task models. Design that control on notebook 12's
# chunking data (200 training sentences): `top_layer_only(split)` returns the split the
# control trains on, a copy of the `TaskSplit` that differs in one thing only, so that a
# difference in F1 can come from the mix and nothing else. Decide what changes and what must
# stay; the check says when your control differs in more, or keeps the wrong layer. The cell
# then trains the ELMo tagger on your splits and on all layers with the first two seeds, and
# compares them seed by seed.

# %%
vectors, index = task_word_vectors(report_dir)  # (V + 1, 100); row 0 is <UNK>
embedder = Embedder(load_elmo(report_dir))
chunks = prepare_task("chunking", embedder, index,
                      samples={"train": 200, "valid": 200, "test": 500})  # notebook 12's
protocol = {"round_updates": 1, "lr": 5e-3}  # notebook 12's: dev after every epoch
seeds = (0, 1)


def top_layer_only(split):
    # BEGIN SOLUTION
    return TaskSplit(split.words, [x[:, -1:] for x in split.layers], split.targets,
                     split.classes, split.chars)
    # END SOLUTION


checks.check_top_layer_only(top_layer_only)
top_splits = {name: top_layer_only(split) for name, split in chunks.items()}
top_runs = train_arms(top_splits, vectors, ("elmo",), seeds, protocol=protocol)["elmo"]
mix_runs = train_arms(chunks, vectors, ("elmo",), seeds, protocol=protocol)["elmo"]
top_only = np.array([r["score"] for r in top_runs])
mix = np.array([r["score"] for r in mix_runs])
print(f"top layer only {approx(top_only, '.1f')}   all layers, learned mix {approx(mix, '.1f')}")
top_gap = (mix - top_only).mean()
claim(abs(top_gap) < 8, "on 200 sentences the top layer alone and the mix are within "
      "8 F1 of each other", detail=f"difference {top_gap:.2f}")

# %% [markdown]
# Two seeds are too few for an interval (one difference per seed, and $t_{0.975, 1} = 12.7$):
# compare the difference with how much notebook 12's seeds moved. Table 2 above asks the same
# question with five seeds, on 500 training sentences.

# %% [markdown]
# ## 4. What a better biLM buys
#
# The paper's biLM read 800 million words. Does a biLM that predicts words better give a larger
# gain? The report runs + ELMo with biLMs of the same architecture, corpus and recipe, trained
# for 5 %, 20 % and 100 % of the shipped model's steps (`data/models/quality`), against the
# same baseline, beside each biLM's perplexity on the first 2,000 test sentences of that
# corpus. Chunking on Table 2's 500-sentence sample, NER on its whole training set.

# %%
draw(report, "quality")
plt.show()
quality = report["quality"]
for q in quality:
    ppl = "—" if q["perplexity"] is None else f"{q['perplexity']:.1f}"
    gains = "   ".join(f"{t} {interval(g)} {verdict(g)}" for t, g in q["gains"].items())
    name = "small (shipped)" if q["bilm"] == "main" else q["bilm"]  # "main": the report's biLM
    print(f"{name:<16} perplexity {ppl:>6}   {gains}")
by_perplexity = sorted(quality, key=lambda q: q["perplexity"])
best, weaker = by_perplexity[0], by_perplexity[1:]
claim(len(quality) >= 3 and weaker[-1]["perplexity"] > 1.5 * best["perplexity"],
      "at least three biLMs of one corpus, their perplexities spanning more than 1.5 times")
middle, weakest = weaker
claim(all(verdict(g) == "gain" for g in best["gains"].values())
      and verdict(middle["gains"]["chunking"]) == "gain"
      and verdict(middle["gains"]["ner"]) == "no difference shown"
      and all(verdict(g) == "no difference shown" for g in weakest["gains"].values()),
      "the lowest perplexity gives a gain on both tasks, the middle one on chunking alone, the "
      "highest on neither")
claim(middle["gains"]["chunking"]["mean"] < best["gains"]["chunking"]["mean"] / 5,
      "the middle biLM's chunking gain is less than a fifth of the best one's")
claim(all(a["gains"][t]["mean"] < b["gains"][t]["mean"] for t in best["gains"]
          for a, b in zip(by_perplexity[:0:-1], by_perplexity[-2::-1], strict=True)),
      "on both tasks the mean gain rises as the perplexity falls")

# %% [markdown]
# The perplexities span six times (about 650, 300 and 110). The shipped biLM buys a gain on
# both tasks, about 5 F1 on chunking and 6 on NER; the middle one a small gain on chunking
# (about 0.6, its interval just above 0) and none shown on NER; the weakest none on either. The
# mean gains rise as the perplexities fall, most in the last step: from 300 to 110 chunking's
# gain grows about eightfold. Whether it keeps growing beyond the shipped biLM needs a better
# one, trained on more words.

# %% [markdown]
# ## 5. After ELMo: GPT and BERT
#
# ELMo's recipe is *feature extraction*: pre-train a language model, freeze it, and let each
# task learn a mix of its layers as extra input to its own model. Two papers of the same year
# changed three things:
#
# - **The encoder**: a Transformer (Vaswani et al. 2017), self-attention over the whole
#   sentence at every layer, with 12 to 24 layers.
# - **The objective**: GPT (Radford et al. 2018) is a left-to-right language model, like
#   ELMo's forward half; BERT (Devlin et al. 2019) predicts *masked* words from both sides at
#   once, where no ELMo layer sees both sides of a word together.
# - **The adaptation**: both *fine-tune the whole network* on each task, with a small output
#   layer. Peters, Ruder and Smith (2019), *To Tune or Not to Tune?*, find that which way is
#   better depends on how similar the task is to pre-training.
#
# What stayed: pre-train a deep model on unlabelled text with a language-modelling objective,
# then reuse *all* of it; and the layers still differ (BERT's lower layers know more syntax:
# Tenney et al. 2019, *BERT Rediscovers the Classical NLP Pipeline*).
#
# **Beyond labelling text.** Contextual vectors also feed models that *write* text: a
# sequence-to-sequence model (Sutskever et al. 2014) encodes its input into one vector per
# token and its decoder reads them through attention (Bahdanau et al. 2015). CoVe (McCann et
# al. 2017), which the paper compares with ELMo in Tables 5 and 6, is exactly that: the
# encoder states of an English-German translation model, reused for other tasks. The reuse
# also runs the other way: Edunov, Baevski and Auli (2019) add a pre-trained language model to
# translation, and T5 (Raffel et al. 2020) and BART (Lewis et al. 2020) pre-train whole
# encoder-decoders on unlabelled text.

# %% [markdown]
# ### Exercise 4 (explain): frozen features or fine-tuning?
#
# ELMo freezes the biLM and learns only a scalar mix of its layers; BERT fine-tunes every
# weight for each task. Give one advantage of each, and say which one the paper's domain
# fine-tuning is (§3.4: it continues the biLM's language-model training on the task's
# sentences, labels ignored, before the task model is trained).

# %% [markdown]
# **Model answer.**
# <!-- BEGIN ANSWER -->
# Frozen features: the layers are computed once and cached (a dozen task models train in
# seconds), one biLM serves every task, and a small labelled set cannot make it forget.
# Fine-tuning: every layer adapts, usually scoring higher when the task differs from
# pre-training and labels are plentiful, at the cost of a network copy per task and a full
# backward pass. The paper's domain fine-tuning is neither: it continues the *language-model*
# training without labels, then freezes the biLM again.
# <!-- END ANSWER -->

# %% [markdown]
# ## Summary
#
# - The + layer 0 arm separates what the biLM's characters buy from what its context adds:
#   on chunking both add, the characters more; on NER the characters with a tenth of the
#   data, context with all of it.
# - Where ELMo goes and which layers it mixes are choices a task makes on dev (Tables 2-3,
#   Figure 2). On chunking at this scale the input is the place, and the top layer alone is
#   level with the mix: the paper's all-layers advantage is neither shown nor ruled out,
#   though the mix leans on the first LSTM layer as in the paper's Figure 2.
# - Of three biLMs of one corpus, the best buys a gain on both tasks, the middle one a small
#   one on chunking only, the weakest none.
# - GPT and BERT kept the pre-training and changed the encoder, the objective and the
#   adaptation.
#
# **Further:** Peters et al. (2018) §3.4 and Appendix A.1 (domain fine-tuning), §5.1-5.2
# (Tables 2-3), §5.5 (Figure 2);
# Radford et al. (2018) (GPT); Devlin et al. (2019), *BERT*; Peters, Ruder and Smith (2019),
# *To Tune or Not to Tune?*; the `tasks` command runs the experiments on your own biLM.

# %% [markdown]
# ## Check your understanding
#
# Answer each in a sentence or two before you open the instructor's answer.
#
# 1. What does the "+ layer 0" arm separate that "baseline vs + ELMo" cannot?
#
# <!-- BEGIN ANSWER -->
# "+ layer 0" measures what the biLM's context-free character layers buy; "+ ELMo − + layer 0"
# is what the contextual layers add on top.
# <!-- END ANSWER -->
#
# 2. Where does the taggers' ELMo go (input, output, both), and why was that decided on dev?
#
# <!-- BEGIN ANSWER -->
# Where the Table 3 runs scored best on *dev*, before Table 1 was trained: deciding on test
# would make every later test score too optimistic.
# <!-- END ANSWER -->
#
# 3. What does $\lambda$ do to the scalar mix, and what does a large $\lambda$ (Table 2's
#    $\lambda = 1$) force?
#
# <!-- BEGIN ANSWER -->
# $\lambda \lVert w \rVert^2$ pulls $w$ towards 0, softmax(w) towards uniform: with
# $\lambda = 1$ the mix stays near the plain average, with 0.001 the task may prefer layers.
# <!-- END ANSWER -->
#
# 4. Why can the quality figure compare perplexities only of biLMs trained on one corpus?
#
# <!-- BEGIN ANSWER -->
# Perplexity measures how well a model predicts *its own* held-out text; only biLMs scored on
# the same test text can be ranked by it.
# <!-- END ANSWER -->
#
# 5. Your biLM reaches a test perplexity of 200 on its English corpus; a colleague's, trained
#    on tweets, reaches 80 on tweets. Which would you expect to help WNUT-17 NER more, and what
#    would settle it?
#
# <!-- BEGIN ANSWER -->
# The perplexities cannot be compared (different test texts). The colleague's biLM read text
# like WNUT-17's, which argues for it; only both in the same task model, same seeds, paired
# intervals, settles it.
# <!-- END ANSWER -->
#
# 6. A task model's learned weights come out as softmax(w) = [0.1, 0.8, 0.1]. What does that
#    tell you, and what does it not?
#
# <!-- BEGIN ANSWER -->
# That this task, at this place, leaned on layer 1. Not that the other layers are useless:
# the weights are one solution among many, and only an ablation (the top layer alone against
# the mix, with paired intervals) measures what a layer adds.
# <!-- END ANSWER -->
