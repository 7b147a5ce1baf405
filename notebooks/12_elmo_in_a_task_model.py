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
# # 12 · ELMo inside a task model: the recipe and what it buys
#
# Notebooks 08-10 measured what the biLM's layers *know*. This one does what ELMo was built
# for (Peters et al. 2018, §3.3): add the frozen biLM's layers to a supervised model and
# measure the gain. In the paper's Table 1, it helps every task.
#
# **You will:**
# 1. build a task model from scratch: static word vectors → a bidirectional LSTM → pooled →
#    softmax (the baseline), and check that it equals the package's `TaskModel`;
# 2. add ELMo exactly as §3.3 says: a task-specific scalar mix of the biLM's layers,
#    concatenated with each word vector, **one** dropout on the whole, $\lambda \lVert w \rVert^2$;
# 3. run the comparison yourself on chunking with 200 labelled sentences and read the gain
#    as a paired difference with its interval;
# 4. predict, then read the shipped model's report: the paper's six tasks, Table 1 on three
#    tasks of ours, Figure 1 and the learning curves;
# 5. see why an interval must cover the test sentences as well as the seeds, and find out how
#    many seeds a comparison needs.
#
# **Prerequisites:** notebooks 07 and 10; an LSTM in PyTorch.
#
# **Runtime:** about 42 s on 2 quiet CPU cores; the saved outputs come from a busy machine.

# %% slideshow={"slide_type": "subslide"} tags=["hide-input"]
try:
    from elmo_tutorial.figures import you_are_here
except ModuleNotFoundError as missing:  # opened before `make lab` installed the course
    raise ModuleNotFoundError(
        f"this notebook's kernel cannot import {missing.name}: start JupyterLab with "
        "`make lab` from the repository root (or run `pip install -e .` there, in this "
        "kernel's environment), then restart the kernel") from None

you_are_here("task_model")

# %%
# %matplotlib inline
import json
import time

import matplotlib.pyplot as plt
import torch
from IPython.display import Markdown, display
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from elmo_tutorial import ELMo, Embedder, checks, load_elmo, shipped_model
from elmo_tutorial.analyses.paired import paired_difference, t_quantile, verdict
from elmo_tutorial.claims import approx, claim
from elmo_tutorial.data.annotated import sst
from elmo_tutorial.model.scalar_mix import ScalarMix
from elmo_tutorial.runtime import setup_notebook
from elmo_tutorial.tasks import (
    TaskModel,
    draw,
    encode_words,
    prepare_task,
    task_word_vectors,
    train_arms,
)
from elmo_tutorial.tasks.report_markdown import table1_markdown

# One thread: the small LSTM steps gain nothing from a second one, and results do not depend
# on the machine's core count.
device = setup_notebook(seed=0, threads=1)
start_of_notebook = time.perf_counter()
report_dir = shipped_model("small")  # data/models/small, found from any folder

# %% [markdown]
# ## 1. The baseline from scratch
#
# To see what ELMo adds, the model without it must be serious, with the best *context-free*
# token vectors we can give it. The paper's baselines use GloVe; ours are learned the same
# count-based way (notebook 00: window of 4, PPMI, SVD to 100 dimensions) from **the same
# text the biLM was trained on** (`english_mix`, 4.7 million words), so both have seen the
# same unlabelled text. (The report's baseline also reads each token's characters through a
# small CNN, $x_k = [w_k; c_k]$, as the paper's do; we leave $c_k$ out here.)
#
# Counting 4.7 million words takes about a minute (`word_vectors("english_mix")`), so the
# report keeps the rows of the 16,574 words its three tasks use, in a file whose sha256 is
# checked when it is read. We load those.

# %%
vectors, index = task_word_vectors(report_dir)  # (V + 1, 100); row 0 is <UNK>
sentences = sst("dev", classes=2)[:4]  # four SST-2 sentences to check our model on
for tokens, label in sentences[:2]:
    print(["negative", "positive"][label], "|", " ".join(tokens))
print(f"{vectors.shape[0] - 1:,} words with a vector (those the three tasks use)")

# %% [markdown]
# A sentence classifier, the "bidirectional RNN with a single output" of sentiment: each word's
# vector $x_k$ goes into a BiLSTM; its states $h_k$ ($2 \times 64$) are pooled by their mean
# and maximum, so that both a general tone and one strong word can decide; a linear layer and
# a softmax give the class. Word vectors stay frozen; words without one share a trained
# `<UNK>` vector. Padding must stay out of both pools: its state is 0, which would pull the
# mean towards 0 and could win the maximum.

# %%
class SentenceClassifier(nn.Module):
    def __init__(self, vectors, n_classes=2, hidden_size=64, dropout=0.5):
        super().__init__()
        self.words = nn.Embedding.from_pretrained(vectors, freeze=True)  # (V + 1, d)
        self.unk = nn.Parameter(torch.zeros(vectors.shape[1]))  # the one trained word vector
        self.dropout = nn.Dropout(dropout)
        self.lstm = nn.LSTM(self.input_dim(vectors), hidden_size, batch_first=True,
                            bidirectional=True)
        self.output = nn.Linear(4 * hidden_size, n_classes)  # [mean; max] of 2H states

    def input_dim(self, vectors):
        return vectors.shape[1]

    def token_vectors(self, words, mask, layers):
        x = self.words(words)  # (B, T, d)
        return torch.where((words == 0).unsqueeze(-1), self.unk, x)

    def forward(self, words, mask, layers=None):
        x = self.dropout(self.token_vectors(words, mask, layers))  # (B, T, d_in), once
        packed = pack_padded_sequence(x, mask.sum(1), batch_first=True, enforce_sorted=False)
        h, _ = pad_packed_sequence(self.lstm(packed)[0], batch_first=True,
                                   total_length=mask.shape[1])  # (B, T, 2H)
        h, keep = self.dropout(h), mask.unsqueeze(-1)  # keep: (B, T, 1)
        mean = (h * keep).sum(1) / keep.sum(1)  # (B, 2H): real tokens only
        top = h.masked_fill(~keep, float("-inf")).max(1).values  # (B, 2H)
        return self.output(torch.cat([mean, top], dim=-1))  # (B, n_classes)

# %% [markdown]
# The package's `TaskModel` is the same model (it also tags tokens, for chunking and NER, and
# can read characters). With the same weights it gives the same scores:

# %%
torch.manual_seed(0)
ours = SentenceClassifier(vectors).eval()
package = TaskModel(vectors, n_classes=2, task="classify").eval()
package.load_state_dict(ours.state_dict())
words = encode_words([t for t, _ in sentences], index)
batch_words = nn.utils.rnn.pad_sequence(words, batch_first=True)  # (4, T)
batch_mask = batch_words.new_tensor([[k < len(w) for k in range(batch_words.shape[1])]
                                     for w in words]).bool()  # (4, T)
print("same logits:", torch.allclose(ours(batch_words, batch_mask),
                                     package(batch_words, batch_mask), atol=1e-6))

# %% [markdown]
# ## 2. Adding ELMo, as §3.3 of the paper says
#
# > "To add ELMo to the supervised model, we first freeze the weights of the biLM and then
# > concatenate the ELMo vector $\mathrm{ELMo}_k^{task}$ with $x_k$ and pass the ELMo enhanced
# > representation $[x_k; \mathrm{ELMo}_k^{task}]$ into the task RNN."
#
# $\mathrm{ELMo}_k^{task} = \gamma \sum_j s_j h_{k,j}$ is notebook 07's scalar mix, with
# $s = \mathrm{softmax}(w)$ and $\gamma$ learned by *this task*, and no layer norm (as in
# AllenNLP's reference task configurations). The paper regularises with dropout and
# $\lambda \lVert w \rVert^2$ ($\lambda = 0.001$). The dropout we have now acts on
# $[x_k; \mathrm{ELMo}_k]$, once.
#
# Once matters: a dropout on ELMo *and* one on the concatenation would drop each ELMo unit
# twice. With 0.5 and then 0.3:

# %%
torch.manual_seed(0)
units = torch.ones(100_000)
twice = nn.Dropout(0.3)(nn.Dropout(0.5)(units))  # dropout on ELMo, then on [x; ELMo]
once = nn.Dropout(0.5)(units)
share = {}  # the share of units kept
for name, dropped in (("twice (0.5, then 0.3)", twice), ("once (0.5)", once)):
    kept = dropped[dropped != 0]
    share[name] = kept.numel() / units.numel()
    print(f"{name:<22} keeps {approx(100 * share[name], '.0f')} % of the "
          f"units, each scaled by {approx(kept.mean().item(), '.2f')}")
claim(abs(share["twice (0.5, then 0.3)"] - 0.5 * 0.7) < 0.01,
      "twice keeps 0.5 × 0.7 = 35 % of the units, each scaled by 1 / 0.35 = 2.86")

# %% [markdown]
# Twice keeps about a third of ELMo's units, multiplied by 2.86: in training the model sees a
# much noisier, larger ELMo than at test time, so it learns slowly and transfers badly.
# `TaskModel` drops out once, and a test checks that ELMo's units are kept with probability
# 1 - p and scaled by 1 / (1 - p).

# %%
class ElmoSentenceClassifier(SentenceClassifier):
    def __init__(self, vectors, n_layers=3, elmo_dim=256, **kw):
        self.elmo_dim = elmo_dim
        super().__init__(vectors, **kw)
        self.mixes = nn.ModuleDict({"input": ScalarMix(n_layers)})  # no layer norm

    def input_dim(self, vectors):
        return vectors.shape[1] + self.elmo_dim  # [x_k; ELMo_k]

    def token_vectors(self, words, mask, layers):  # layers: (B, T, L + 1, D)
        x = super().token_vectors(words, mask, layers)  # (B, T, d)
        elmo = self.mixes["input"](list(layers.float().unbind(2)), mask)  # (B, T, D)
        return torch.cat([x, elmo], dim=-1)  # (B, T, d + D); forward drops out the whole


torch.manual_seed(0)
ours = ElmoSentenceClassifier(vectors).eval()
package = TaskModel(vectors, 2, "classify", elmo_layers=3, elmo_dim=256,
                    elmo_at=("input",)).eval()
package.load_state_dict(ours.state_dict())
fake_layers = torch.randn(*batch_words.shape, 3, 256)  # (4, T, 3, 256) stand-in layers
print("same logits:", torch.allclose(ours(batch_words, batch_mask, fake_layers),
                                     package(batch_words, batch_mask, fake_layers), atol=1e-6))

# %% [markdown]
# ## 3. Your own run: chunking with 200 labelled sentences
#
# Chunking (CoNLL-2000) cuts a sentence into phrases (B-NP, I-NP, B-VP, ... or O per token),
# scored by exact chunks (`conlleval`'s F1). `TaskModel` tags tokens with a softmax per token
# and reads their characters, $x_k = [w_k; c_k]$, as the report's taggers do. A random 200
# training, 200 dev and 500 test
# sentences.
#
# Each model trains as the report's do (`run_variant`): Adam, dev F1 after every epoch, the
# learning rate halved after 2 epochs without a better dev F1, **stop only when dev has not
# improved for 5 epochs**, keep the best epoch. Here a learning rate of 0.005 instead of
# 0.002 (200 sentences make 7 updates an epoch).
# Three seeds; seed i gives both arms the same batch order, initial weights and dropout.

# %%
embedder = Embedder(load_elmo(report_dir))
chunks = prepare_task("chunking", embedder, index,
                      samples={"train": 200, "valid": 200, "test": 500})
print({split: len(s) for split, s in chunks.items()}, "sentences;",
      len(chunks["train"].classes), "tags")
example = chunks["train"]
print("tags of the first training sentence:",
      " ".join(example.classes[t] for t in example.targets[0][:12].tolist()), "...")

# %%
# NBVAL_IGNORE_OUTPUT
start = time.perf_counter()
protocol = {"round_updates": 1, "lr": 5e-3}  # dev scored after every epoch (7 updates)
seeds = (0, 1, 2)
runs = train_arms(chunks, vectors, ("baseline", "elmo"), seeds, places=("input",),
                  protocol=protocol)  # {arm: [one result per seed]}
print(f"trained {len(seeds) * 2} taggers in {time.perf_counter() - start:.0f} s")

# %%
for arm, results in runs.items():
    kept, last = [r["best_epoch"] for r in results], [r["last_epoch"] for r in results]
    print(f"{arm:<9} test F1 {approx([r['score'] for r in results], '.1f')}   best epoch "
          f"{approx(kept, 'd')}, stopped after {approx(last, 'd')}")
live = paired_difference([r["score"] for r in runs["baseline"]],
                         [r["score"] for r in runs["elmo"]])
print(f"ELMo − baseline, paired by seed: {approx(live['mean'], '+.1f')} F1, 95 % interval "
      f"[{approx(live['low'], '+.1f')}, {approx(live['high'], '+.1f')}]: {verdict(live)}")
claim(all(r["stopped"] == "patience" for rs in runs.values() for r in rs),
      "every model stopped because dev had not improved for 5 epochs, none at a cap")
claim(verdict(live) == "gain" and live["low"] > 2,
      "with 200 training sentences, ELMo's gain on chunking has an interval above 2 F1")
claim(all(e["curve"][0] > b["curve"][0] and max(e["curve"]) > max(b["curve"])
          for b, e in zip(runs["baseline"], runs["elmo"], strict=True)),
      "on every seed the ELMo chunker is ahead on dev after the first epoch and at its best")

fig, ax = plt.subplots(figsize=(6, 3.2))
for arm, color in (("baseline", "#8ecae6"), ("elmo", "#023047")):
    for i, r in enumerate(runs[arm]):
        ax.plot(range(1, len(r["curve"]) + 1), r["curve"], color=color,
                label=("+ ELMo" if arm == "elmo" else arm) if i == 0 else None)
        ax.plot(r["best_epoch"], max(r["curve"]), "o", color=color)
ax.set(xlabel="epoch", ylabel="dev F1",
       title="Chunking, 200 training sentences (dots: kept epoch)")
ax.legend()
plt.tight_layout()
plt.show()

# %% [markdown]
# Every curve rises and flattens, and each run stops five epochs after its best (the dot). The
# ELMo model starts higher and ends higher: with 200 labelled sentences, the biLM's layers add
# much that the chunker cannot learn from its labels. This run does not say which part of the
# biLM does it, its context or its context-free layer 0: notebook 13 measures that.
#
# ## 4. Before the full report: a prediction
#
# ### Exercise 1 (predict): what will the full report say?
#
# Before you read section 5, predict two things. (a) On SST-5 sentiment with all 8,544
# training sentences, does ELMo from this small biLM help the classifier, hurt it, or make no
# difference the intervals can show? (b) Chunking with 1 % of its training set (79 sentences)
# and with all of it (7,936): with which is ELMo's gain larger, and why?

# %% [markdown]
# **Prediction.**
# <!-- BEGIN ANSWER -->
# (a) No difference the intervals can show, or a small one: sentiment depends on context, but
# this biLM is small and read mostly edited prose, and the baseline's static vectors were
# counted on the same text.
# (b) With 1 %: a model trained on 79 sentences cannot learn much about words from its labels,
# so what the biLM learned from 4.7 million words matters most; with 7,936 the labels teach
# more of it themselves. The paper's Figure 1 finds the same.
# <!-- END ANSWER -->

# %% [markdown]
# ## 5. The shipped model's report
#
# ### First, the paper's Table 1: six tasks
#
# Table 1 of the paper adds ELMo to a published model for each of six tasks, as section 2 did,
# and reports the test score (baseline → + ELMo):
#
# - **Question answering** (SQuAD, the span of a paragraph that answers a question): F1
#   81.1 → 85.8.
# - **Textual entailment** (SNLI: does one sentence entail, contradict or neither another?):
#   accuracy 88.0 → 88.7.
# - **Semantic role labelling** (OntoNotes, who did what to whom): F1 81.4 → 84.6.
# - **Coreference** (OntoNotes, the mentions that name one entity): average F1 67.2 → 70.4.
# - **Named entities** (CoNLL 2003): F1 90.15 → 92.22.
# - **Sentiment** (SST-5, five classes): accuracy 51.4 → 54.7.
#
# ### The course's report
#
# `elmo-tutorial tasks data/models/small` runs every experiment on three tasks: SST-5
# (accuracy), CoNLL-2000 chunking and WNUT-17 named entities (F1 of exact spans). Table 1 uses
# the **full** training sets and three arms on five seeds: the baseline ($x_k = [w_k; c_k]$),
# **+ layer 0** (the biLM's context-free layer alone, where ELMo would go; notebook 13 reads
# it) and **+ ELMo**. For SST-5 it adds two floors: the commonest class and a bag-of-words
# logistic regression. Every run trains until dev stops improving; the report counts any run
# that ended at a cap. It takes hours on a 2-core CPU, so we read the committed one:

# %%
report = json.loads((report_dir / "tasks.json").read_text(encoding="utf-8"))
markdown = (report_dir / "TASKS.md").read_text(encoding="utf-8")
display(Markdown(markdown[markdown.index("## Protocol"):markdown.index("## Table 1")]))


# %%
def pm(arm):  # "mean ± std" over seeds (the committed report's numbers: no rounding noise)
    return f"{arm['mean']:5.1f} ± {arm['std']:3.1f}"


def interval(d):  # a paired difference and its 95 % interval
    return f"{d['mean']:+5.1f} [{d['low']:+.1f}, {d['high']:+.1f}]"


at_cap = [r for r in report["runs"] if r["result"]["stopped"] == "cap"]
for r in at_cap:
    job = r["job"]
    print(f"ended at its cap of {r['result']['cap']} epochs: {job['task']} {job['variant']}, "
          f"{job['fraction']:.0%} of the training set, seed {job['seed']}, test score "
          f"{r['result']['score']:.1f}")
claim(all(r["result"]["score"] == 0 for r in at_cap), "every run of the committed report "
      "that found anything at all stopped on its own, none at a cap")
claim(len(report["seeds"]) >= 5, "Table 1 uses at least five seeds")
tasks = report["tasks"]
names = {"sst5": "SST-5", "sst5_phrases": "SST-5 (phrases)", "chunking": "chunking",
         "ner": "NER"}
display(Markdown(table1_markdown(report, layer0=False)))  # the layer-0 arm: notebook 13
claim(verdict(tasks["chunking"]["differences"]["elmo_vs_baseline"]) == "gain",
      "on chunking, + ELMo beats the baseline (the interval lies above 0)")

# %% [markdown]
# ### Figure 1: how much labelled data
#
# The paper's Figure 1 trains both models on part of the training set. The report does the same
# with 1 % and 10 % of chunking's and NER's training sets (another random part per seed, the
# same for every arm of a seed):

# %%
draw(report, "sample_efficiency", arms=("baseline", "elmo"))  # from its numbers; 13 adds layer 0
plt.show()
for task in ("chunking", "ner"):
    print(f"{task:<9} {'sentences':>9}  {'baseline':>11}  {'+ ELMo':>11}  ELMo − baseline [95 %]")
    for point in report["sample_efficiency"][task]:
        print(f"{'':<9} {point['train_sentences']:>9,}  {pm(point['baseline'])}  "
              f"{pm(point['elmo'])}  {interval(point['difference'])}  "
              f"{verdict(point['difference'])}")
chunking_curve = report["sample_efficiency"]["chunking"]
claim(all(verdict(p["difference"]) == "gain" for p in chunking_curve),
      "ELMo's chunking gain is a gain (95 % interval above 0) at every amount of training data")
claim(all(a["difference"]["mean"] > b["difference"]["mean"]
          for a, b in zip(chunking_curve[:-1], chunking_curve[1:], strict=True)),
      "the chunking gain shrinks at every step from 1 % of the training data to all of it")
ner_curve = report["sample_efficiency"]["ner"]
claim(verdict(ner_curve[0]["difference"]) != "gain"
      and all(verdict(p["difference"]) == "gain" for p in ner_curve[1:]),
      "on NER no gain is shown with 1 % of the training data, and a gain with 10 % and 100 %")

# %% [markdown]
# Chunking has the shape of the paper's Figure 1: with 1 % (79 sentences) the ELMo model is
# about 10 F1 ahead, with 10 % about 5, with all of it about 2.5, each a gain with its
# interval. NER does not: with 34 sentences neither arm finds more than a few entities and no
# difference is shown; with 339 and 3,394 the ELMo model gains, by amounts whose intervals
# overlap, so these points do not show the gain shrinking.

# %%
draw(report, "curves")
plt.show()

# %% [markdown]
# Each arm's dev score epoch by epoch, averaged over the seeds still training (dots: each
# seed's kept epoch). Chunking's curves climb for tens of epochs: a model stopped after 5
# would be compared half-trained.

# %% [markdown]
# ### Reading it honestly
#
# The report's sentences are generated from the intervals, so they say no more than the
# numbers. SST-5 is where this biLM is furthest from the paper:

# %%
sst5 = tasks["sst5"]
d = sst5["differences"]["elmo_vs_baseline"]
kept = {arm: [r["result"]["best_epoch"] for r in report["runs"]
              if r["job"]["task"] == "sst5" and r["job"]["fraction"] == 1.0
              and r["job"]["variant"] == arm] for arm in ("baseline", "elmo")}
correlation = report["convergence"]["best_epoch_vs_test"]["sst5"]["baseline"]
display(Markdown(
    f"- **SST-5, trained on its sentences.** + ELMo − baseline: {interval(d)} accuracy points, "
    f"*{verdict(d)}*; the baseline {pm(sst5['arms']['baseline'])}, + ELMo "
    f"{pm(sst5['arms']['elmo'])}, the bag-of-words floor {sst5['bag_of_words']['test']:.1f}, "
    f"the commonest class {sst5['majority']:.1f}. The baseline's runs kept epochs "
    f"{min(kept['baseline'])} to {max(kept['baseline'])}, + ELMo's {min(kept['elmo'])} to "
    f"{max(kept['elmo'])}; over the baseline's seeds, kept epoch and test score correlate "
    f"{correlation:+.2f}."))
claim(sst5["arms"]["baseline"]["mean"] > max(sst5["majority"] + 5,
                                            sst5["bag_of_words"]["test"]),
      "the SST-5 baseline beats the bag-of-words regression, and the commonest class by 5 points")
claim(verdict(d) == "no difference shown" and correlation > 0.88,
      "on SST-5's sentences no difference is shown, and the baseline's later-stopping runs "
      "score higher")
phrases = tasks["sst5_phrases"]
p = phrases["differences"]["elmo_vs_baseline"]
display(Markdown(
    f"- **SST-5, trained on its {phrases['sizes']['train']:,} labelled phrases** (the "
    f"paper's setup), scored on the same test sentences: baseline "
    f"{pm(phrases['arms']['baseline'])}, + ELMo {pm(phrases['arms']['elmo'])}; + ELMo − "
    f"baseline {interval(p)}, *{verdict(p)}*."))
claim(verdict(p) == "no difference shown"
      and all(0 < sst5["arms"][a]["mean"] - phrases["arms"][a]["mean"] < 2
              and phrases["arms"][a]["std"] > sst5["arms"][a]["std"]
              for a in ("baseline", "elmo")),
      "trained on the phrases, each arm scores up to 2 points below its sentence-trained self "
      "and spreads more over seeds; no difference is shown")
chunking_elmo = tasks["chunking"]["arms"]["elmo"]["runs"]
chunking_r = report["convergence"]["best_epoch_vs_test"]["chunking"]["elmo"]
print(f"chunking, + ELMo: kept epoch and test score correlate {chunking_r:+.2f}; its five "
      f"test scores span {min(chunking_elmo):.1f} to {max(chunking_elmo):.1f}")
claim(chunking_r > 0.88 and max(chunking_elmo) - min(chunking_elmo) < 0.6
      and tasks["chunking"]["differences"]["elmo_vs_baseline"]["low"] > 1.5,
      "on chunking + ELMo's later-stopping runs score higher too, within 0.6 F1 of each other, "
      "far less than its gain")

# %% [markdown]
# ELMo from this biLM shows no difference on SST-5, trained on the sentences or on the phrases,
# far from the paper's 51.4 → 54.7. The baseline is above the bag-of-words regression,
# though not by much, and far above the commonest class. What was tested, and what was not:
#
# - **the training data** was tested: trained on every labelled phrase, as the paper did, both
#   arms score a point or two lower;
# - **the biLM** was not: 512 cells and 4.7 million words, against the paper's 4096 cells and
#   800 million words;
# - **the task model** was not: one BiLSTM of 64 cells, against the paper's BCN;
# - **the stopping rule** is least settled: the baseline's SST-5 runs kept epochs 6 to 19, and
#   the later the kept epoch, the higher the test score (correlation +0.94 over five seeds).
#   The earliest stop (seed 3, epoch 6, 36.6 %) is the seed on which + ELMo leads most (+3.5).
#   A rule with more patience might move this row.
#
# On chunking's + ELMo arm the correlation is also large (+0.96, above) but moves scores by
# tenths of a point against a 2.5 F1 gain. "Trained until dev stops improving" is a rule
# every arm shares, not a proof that every run learned all it could.

# %% [markdown]
# ## 6. Two kinds of chance: the seeds and the test sentences
#
# A paired interval over seeds answers: *would another seed give the same difference?* Not:
# *would another test set?* WNUT-17's 1,287 test tweets hold about a thousand entities; other
# tweets could move an F1 difference as much as another seed does. So each run keeps, per test
# sentence, what its score is made of (right or wrong; or its correct, predicted and gold
# spans, since F1 is a ratio of sums). Drawing the test sentences again, the **same** draw for
# both arms of every seed, 2,000 times gives the standard error from the test sample,
# $\mathrm{SE}_{\text{test}}$. The interval adds the two variances:
#
# $$\bar d \pm t_{0.975,\, n-1} \sqrt{s_d^2 / n + \mathrm{SE}_{\text{test}}^2}.$$
#
# `elmo_tutorial.analyses.paired` does it; what each part contributes to Table 1:

# %%
print(f"{'task':<15} {'seeds: t·s/√n':>14} {'test: t·SE':>11} {'both':>6}   ELMo − baseline")
for task, entry in tasks.items():
    d = entry["differences"]["elmo_vs_baseline"]
    t = t_quantile(d["n"] - 1)
    seeds_part = t * d["std"] / d["n"] ** 0.5
    test_part = t * d.get("test_std", 0.0)
    print(f"{names[task]:<15} {seeds_part:>14.2f} {test_part:>11.2f} "
          f"{(d['high'] - d['low']) / 2:>6.2f}"
          f"   {interval(d)}  {verdict(d)}")
claim(all("test_std" in e["differences"]["elmo_vs_baseline"] for e in tasks.values()),
      "every Table 1 interval of the committed report covers the test sentences as well")
part = {task: e["differences"]["elmo_vs_baseline"] for task, e in tasks.items()}
claim(max(part, key=lambda t: part[t]["test_std"]) == "ner"
      and min(part, key=lambda t: part[t]["test_std"]) == "chunking"
      and part["chunking"]["test_std"] > part["chunking"]["std"] / 5 ** 0.5,
      "NER's test sentences widen its interval the most, chunking's the least, though still "
      "more than chunking's seeds do")

# %% [markdown]
# ### Exercise 2 (implement): relative error reduction
#
# The paper's Table 1 reports each gain as the share of the baseline's *errors* that ELMo
# removes: SST-5 51.4 → 54.7 is a 6.8 % reduction, NER 90.15 → 92.22 a 21 % one. Write it
# (scores in percent; the error is 100 minus the score).

# %%
def my_error_reduction(baseline, elmo):
    # BEGIN SOLUTION
    return 100.0 * ((100.0 - baseline) - (100.0 - elmo)) / (100.0 - baseline)
    # END SOLUTION


checks.check_error_reduction(my_error_reduction)

# %%
chunking = report["tasks"]["chunking"]
base, elmo = (chunking["arms"][arm]["mean"] for arm in ("baseline", "elmo"))
ours = my_error_reduction(base, elmo)
print(f"chunking, shipped model, full training set: {approx(base, '.1f')} → "
      f"{approx(elmo, '.1f')} F1, {approx(ours, '.1f')} % of the errors removed (a share of "
      "errors compares only between equal baselines: TagLM's chunking baseline is 95.0)")
claim(abs(ours - chunking["error_reduction"]) < 1e-9, "your error reduction is the report's")

# %% [markdown]
# ### Exercise 3 (experiment): how many seeds does a comparison need?
#
# The report's Table 1 pairs five seeds per task. What would fewer have shown? For every `n` in
# `seed_counts` and every task, compute the paired difference + ELMo − baseline from the
# report's first `n` seeds only: `tasks[task]["arms"][arm]["runs"]` holds an arm's test score
# per seed, in seed order, and `paired_difference(baseline, elmo)` pairs two such lists. Keep
# the results in a dict `by_n` from `(task, n)` to the difference. The cell prints and draws
# each interval with its $t$ quantile and verdict; nothing is trained.

# %%
seed_counts = [2, 3, 4, 5]  # the first n of the report's five seeds; keep 5 (the check)
# BEGIN SOLUTION
by_n = {}
for task, entry in tasks.items():
    for n in seed_counts:
        by_n[task, n] = paired_difference(entry["arms"]["baseline"]["runs"][:n],
                                          entry["arms"]["elmo"]["runs"][:n])
# END SOLUTION
checks.check_seed_counts(by_n, tasks, seed_counts)
claim(all(abs(by_n[task, 5][k] - e["differences"]["elmo_vs_baseline"][k]) < 1e-9
          for task, e in tasks.items() for k in ("mean", "std")),
      "with all five seeds, your differences and their spread are the report's Table 1 (its "
      "intervals are wider: they also cover the test sentences, section 6)")
print(f"{'task':<15} {'seeds':>5}  {'ELMo − baseline [95 %]':<24} {'t':>6}  verdict")
for (task, n), d in by_n.items():
    print(f"{names[task]:<15} {n:>5}  {interval(d):<24} {t_quantile(n - 1):>6.2f}  {verdict(d)}")

rows = (len(tasks) + 1) // 2  # two panels a row: readable on a slide
fig, axes = plt.subplots(rows, 2, figsize=(7, 3 * rows), squeeze=False)
for ax in axes.flat[len(tasks):]:
    ax.set_visible(False)
for ax, task in zip(axes.flat[:len(tasks)], tasks, strict=True):
    d = [by_n[task, n] for n in seed_counts]
    ax.errorbar(seed_counts, [x["mean"] for x in d], capsize=4, marker="o", color="#023047",
                yerr=[[x["mean"] - x["low"] for x in d], [x["high"] - x["mean"] for x in d]])
    ax.axhline(0, color="grey", linewidth=1)
    ax.set(xticks=seed_counts, xlabel="seeds", title=names[task])
for row in axes:
    row[0].set_ylabel("ELMo − baseline")
plt.tight_layout()
plt.show()

# %% [markdown]
# Write down your reading before you open the model answer: (a) Chunking's interval narrows
# from 2 seeds to 4, yet SST-5's and NER's are at their narrowest with 2 seeds, where $t$ is
# 12.7: how can that be? (b) Chunking and NER show their gain with 2 seeds already, SST-5 with
# none: what decides how many seeds a difference needs? (c) NER's 2-seed interval does not
# hold its 5-seed mean: what does that say about an interval from two seeds? (d) SST-5 on its
# phrases reads +4.6 with 2 seeds and +0.9 with 5: what does that say about a result reported
# from two seeds? (e) Section 3 ran three seeds: when can three seeds show a difference?
#
# **Model answer.**
# <!-- BEGIN ANSWER -->
# (a) The interval is the mean $\pm\, t \cdot s / \sqrt{n}$. With 2 seeds $t = 12.7$, but $s$
# comes from two numbers that may happen to agree: SST-5's first two differences are −0.14 and
# −0.05, NER's 4.77 and 4.69, so the interval is tiny (±0.6, ±0.5); the third seed shows the
# real spread (−1.22, 7.06). Chunking's seeds agree throughout (2.18 to 2.87), so its interval
# narrows as expected (±1.1, ±0.6, ±0.3).
# (b) The mean difference against the spread of the per-seed differences: chunking's lie
# within 2.18–2.87, NER's spread more (4.69–7.69) around a large mean, SST-5's run from −1.22
# to +3.53 around +0.47. "No difference shown" is not "no difference".
# (c) That its width was a guess: $s$ from one degree of freedom, and the first two seeds were
# the closest and lowest; seeds 3 to 5 gave 7.06 to 7.69.
# (d) A two-seed mean means little: the per-seed differences range from −4.21 to +5.34, and
# the first two were the largest. Its interval (−4.3 to +13.5) said so.
# (e) With 3 seeds the half-width is about $2.5\, s$: a difference shows only if its mean is
# more than two and a half times the spread, as section 3's chunking gain is.
# <!-- END ANSWER -->

# %% [markdown]
# ### Exercise 4 (explain): where does the test set matter most?
#
# In the table of section 6, the test sample widens some intervals much more than others: the
# check below it found NER's test set adding the most and chunking's the least. What about
# the tasks and their test sets makes it so, and how does each compare with its seeds' part?
# Would five more seeds make the test set's part smaller?

# %% [markdown]
# **Model answer.**
# <!-- BEGIN ANSWER -->
# A test set's part is large when few items decide the score and the arms disagree on them.
# WNUT-17's thousand gold entities, mostly rare names, make its test part the largest (about
# 2.7 points, more than its seeds' part). Chunking's 20,000 chunks, most right in both arms,
# move least (about 0.4), yet more than its agreeing seeds (0.3). SST-5's 2,210 sentences give
# about 1.5; there, and on the phrases (5.0 against 1.4), the seeds' part is larger. More seeds
# shrink only the seeds' part ($s_d / \sqrt{n}$): the same test sentences are scored on every
# seed.
# <!-- END ANSWER -->

# %% [markdown]
# ## Summary
#
# - ELMo is added to an *existing* task model (§3.3): freeze the biLM, mix its layers with a
#   task-specific scalar mix, concatenate it with each token's vector at the RNN's input (and
#   optionally, with a second mix, at its output); one dropout on the concatenation and
#   $\lambda \lVert w \rVert^2$ regularise it. `TaskModel` is that model.
# - A comparison is only as good as its protocol: every arm trained by the same rule until dev
#   stops improving, the same seeds, each difference paired by seed with an interval covering
#   both the seeds and the test sentences.
# - Read each gain of the report's Table 1 and Figure 1 against its interval. Notebook 13
#   takes the gain apart.
#
# **Further:** Peters et al. (2018) §3.3 (the recipe), §4 (Table 1), §5.4 (Figure 1); Peters
# et al. (2017), *Semi-supervised sequence tagging with bidirectional language models*
# (TagLM); Dror et al. (2018), *The Hitchhiker's Guide to Testing Statistical Significance in
# NLP*; `elmo-tutorial tasks --help` runs the experiments on your own biLM.

# %% [markdown]
# ## Check your understanding
#
# Answer each in a sentence or two before you open the instructor's answer.
#
# 1. Why is the biLM frozen, and its layers computed once per sentence, rather than trained
#    with the task model?
#
# <!-- BEGIN ANSWER -->
# The recipe (§3.3) adds ELMo as features: frozen layers can be cached, so task models train
# in seconds, one biLM serves every task, and a small labelled set cannot overwrite what the
# biLM learned from unlabelled text.
# <!-- END ANSWER -->
#
# 2. Two arms are trained for the same fixed number of epochs. Why is that not a fair
#    comparison, and what does halving the learning rate on a plateau add to "stop when dev
#    stops improving"?
#
# <!-- BEGIN ANSWER -->
# A slower learner is stopped while still improving, so the comparison ranks speed, not
# quality. With a constant rate a run can stop on a plateau that smaller steps would leave, so
# it tries half and a quarter of the rate first.
# <!-- END ANSWER -->
#
# 3. Why is each difference "paired by seed", and what does its 95 % interval say?
#
# <!-- BEGIN ANSWER -->
# Seed i gives both arms the same data order, initial weights and dropout, so shared variation
# cancels in the difference. The interval is where the true mean difference plausibly lies,
# given seeds and test sentences; a gain is claimed only when it excludes 0.
# <!-- END ANSWER -->
#
# 4. What goes wrong when ELMo gets its own dropout of 0.5 and then the shared dropout at the
#    input again?
#
# <!-- BEGIN ANSWER -->
# Its units are dropped twice: only 35 % survive, scaled by 2.86, so ELMo in training looks
# very different from ELMo in evaluation. One dropout on $[x_k; \mathrm{ELMo}_k]$ treats it
# like every other input.
# <!-- END ANSWER -->
#
# 5. Why could ELMo's gain shrink as the labelled training set grows, and why might a task not
#    show it?
#
# <!-- BEGIN ANSWER -->
# With many labelled sentences the task model learns more from the labels, leaving the biLM
# less to add. With very little data (WNUT-17 with a few dozen tweets) both arms stay at
# the floor and no gain shows.
# <!-- END ANSWER -->
#
# 6. Another research group reports "+0.8 F1 with ELMo, averaged over 5 seeds" on a test set
#    of 300 sentences. What would you ask before believing it?
#
# <!-- BEGIN ANSWER -->
# For the interval, not the mean: the per-seed paired differences and a bootstrap over the 300
# test sentences, which alone may move 0.8 F1; whether both arms were trained by the same rule
# until dev stopped improving; and whether settings were chosen on dev, not test.
# <!-- END ANSWER -->
