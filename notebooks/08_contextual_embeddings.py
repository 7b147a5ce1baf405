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
# # 08 · What the layers know: contextual vectors of a trained biLM
#
# Notebooks 01–07 built every part of ELMo. Now we look inside a **trained** biLM and ask the
# question of Peters et al. (2018, Sec. 5.3): *what* does each layer know? Layer 0 is the same
# vector for *bank* in every sentence; layers 1 and 2 have read the sentence both ways.
#
# **You will:**
# 1. embed sentences with the course's small trained biLM and read its layers;
# 2. build PCA from an SVD for five uses of *work*, then (bonus) *bank*, *program*, *point*
#    and *put*;
# 3. redo the paper's Table 4: the neighbours of *play*, static and in context;
# 4. **measure** how well each layer separates senses, on the course corpus and SemCor,
#    beside notebook 00's baselines, and sweep the window of the average;
# 5. measure how much of each layer comes from the context, write the sense score yourself,
#    and (bonus) explore neighbours with a widget.
#
# Sections marked **(bonus)** are optional, but run their cells.
#
# **Prerequisites:** notebooks 00 (static vectors, the window average) and 07 (the scalar mix).
#
# **Runtime:** about 30 s on 2 quiet CPU cores the first time.

# %% slideshow={"slide_type": "subslide"} tags=["hide-input"]
try:
    from elmo_tutorial.figures import you_are_here
except ModuleNotFoundError as missing:  # opened before `make lab` installed the course
    raise ModuleNotFoundError(
        f"this notebook's kernel cannot import {missing.name}: start JupyterLab with "
        "`make lab` from the repository root (or run `pip install -e .` there, in this "
        "kernel's environment), then restart the kernel") from None

you_are_here("contextual")

# %%
# %matplotlib inline
from collections import Counter

import matplotlib.pyplot as plt
import numpy as np

from elmo_tutorial import ELMo, Embedder, checks, load_allennlp, load_elmo, shipped_model
from elmo_tutorial.analyses.embedding_cache import embed_corpus
from elmo_tutorial.analyses.neighbours import NeighbourIndex, neighbour_explorer
from elmo_tutorial.analyses.sense_separation import (
    balanced_sample,
    cosine_matrix,
    example_vectors,
    mix_layers,
    nearest_neighbour_agreement,
    pca,
    sense_separation,
    static_example_vectors,
    wsd_examples,
)
from elmo_tutorial.analyses.static_vectors import StaticVectors, context_vector
from elmo_tutorial.claims import claim
from elmo_tutorial.data.annotated import wsd_framework
from elmo_tutorial.data.sense_corpus import sense_corpus, sense_examples
from elmo_tutorial.figures import label_points
from elmo_tutorial.runtime import setup_notebook

# One thread: the biLM runs one small LSTM step after another, and a second thread costs
# more in waiting for it than it gives (on a busy machine, much more).
device = setup_notebook(seed=0, threads=1)

# %% [markdown]
# ## 1. The model and its layers
#
# The course ships a small biLM trained on English text (`data/models/small`, see its model
# card). Your own run (`elmo-tutorial train --out DIR`) or an official `options.json` and
# `weights.hdf5` pair (notebook 11, set `OFFICIAL`) work the same.

# %%
MODEL = shipped_model("small")  # data/models/small, found from any folder
OFFICIAL = None  # or ("options.json", "weights.hdf5")
model = load_allennlp(*OFFICIAL) if OFFICIAL else load_elmo(MODEL)
embedder = Embedder(model.to(device))
print(f"{sum(p.numel() for p in model.bilm.parameters()) / 1e6:.2f} M parameters, "
      f"{model.config.n_layers} LSTM layers, vectors of {2 * model.config.projection_dim}")

# %% [markdown]
# `Embedder.embed_sentence` returns one `(L + 1, T, 2P)` array: layer 0 is the token
# embedding written twice (so all layers have one width), layer $j$ the forward and backward
# LSTM states side by side.

# %%
tokens = "They sat on the bank of the river .".split()
layers = embedder.embed_sentence(tokens)  # (3, T, 2P)
half = layers.shape[-1] // 2
print("shape:", layers.shape)
print("layer 0 is one vector written twice:", np.array_equal(layers[0, :, :half],
                                                             layers[0, :, half:]))
for j in range(len(layers)):
    length = np.linalg.norm(layers[j], axis=-1).mean()
    print(f"layer {j}: mean length of a token's vector {length:.4f}")

# %% [markdown]
# **The mix as loaded.** ELMo gives a task $\gamma \sum_j s_j h_j$ with weights it *learns*
# for that task (notebook 07). A model fresh from pre-training has no task yet, so its mix is
# at its initial values. Everywhere below, "uniform mix" means **this untrained mix**,
# not a mix a task has learned:

# %%
s = model.scalar_mix.weights.detach().numpy()
print("s =", s.round(4), " γ =", round(model.scalar_mix.gamma.item(), 4))
print("the same as the plain average of the layers:",
      np.allclose(mix_layers(layers, model.scalar_mix), layers.mean(0), atol=1e-6))

# %% [markdown]
# With equal weights, the layers with the longest vectors dominate the sum; a task that learns
# $s$ and $\gamma$ can undo that.
#
# ## 2. Five uses of *work*, projected with PCA
#
# Three sentences use *work* for a thing someone made, two for the activity. We project the
# 256-dim vectors on the two directions of largest variance (PCA), by hand first: centre them,
# take the SVD $X - \bar{x} = U \Sigma V^\top$, project on the first two rows of $V^\top$.

# %%
WORK = [
    ("The symphony is the finest work of a young composer .", "made"),
    ("The museum bought an early work by Picasso .", "made"),
    ("Her first published work was a slim book of poems .", "made"),
    ("They work in the fields from dawn to dusk .", "activity"),
    ("Hard work in the fields made him strong .", "activity"),
]
NAMES = ["layer 0", "layer 1", "layer 2", "uniform mix"]


def word_layers(sentences, word):
    """(4, N, 2P): the vectors of `word` in each sentence, layers 0, 1, 2 and the mix."""
    rows = []
    for text in sentences:
        toks = text.split()
        emb = embedder.embed_sentence(toks)  # (3, T, 2P)
        stacked = np.concatenate([emb, mix_layers(emb, model.scalar_mix)[None]])  # (4, T, 2P)
        rows.append(stacked[:, toks.index(word)])
    return np.stack(rows, axis=1)


work = word_layers([text for text, _ in WORK], "work")  # (4, 5, 2P)
x = work[2]
centred = x - x.mean(axis=0)
_, sigma, vt = np.linalg.svd(centred, full_matrices=False)
by_hand = centred @ vt[:2].T  # (5, 2)
package = pca(x, k=2)
print("same projection as analysis.pca (up to the sign of each axis):",
      np.allclose(np.abs(by_hand), np.abs(package.coords)))
print("the same share of the variance:", np.allclose(sigma[:2] ** 2 / (sigma**2).sum(),
                                                     package.explained))

# %% [markdown]
# Each point is labelled with a word of its sentence (*symphony* for the first, and so on):

# %%
SHORT = ["symphony", "Picasso", "poems", "they work", "hard work"]  # one per sentence of WORK
USES = {"made": ("tab:blue", "a work someone made"), "activity": ("tab:orange", "the activity")}
fig, axes = plt.subplots(2, 2, figsize=(10, 7.2))
projected = {}  # panel → (5, 2) coordinates
for ax, name, layer_vectors in zip(axes.flat, NAMES, work, strict=True):
    ax.set_title(f"'work', {name}", fontsize=13)
    ax.set_xticks([])
    ax.set_yticks([])
    if np.allclose(layer_vectors, layer_vectors[0], atol=1e-5):  # equal to float rounding
        ax.text(0.5, 0.5, "one point:\nthe same vector\nin every sentence", ha="center",
                va="center", transform=ax.transAxes, fontsize=13)
        continue
    projected[ax] = pca(layer_vectors, k=2).coords  # (5, 2)
    for use, (colour, meaning) in USES.items():
        chosen = [k for k, (_, u) in enumerate(WORK) if u == use]
        ax.scatter(*projected[ax][chosen].T, c=colour, s=70, label=meaning)
    ax.margins(0.3)  # room for the labels
fig.legend(*axes.flat[1].get_legend_handles_labels(), loc="lower center", ncol=2, fontsize=12)
fig.tight_layout(rect=(0, 0.06, 1, 1))
for ax, xy in projected.items():  # once the panels have their final size
    label_points(ax, xy, SHORT, fontsize=12)
plt.show()

# %% [markdown]
# A picture of five points can mislead, so here are the numbers. As PCA does, we subtract the
# occurrences' mean vector, then compare the rest by cosine (raw cosines are all high: the
# occurrences share the word and a direction common to the layer). A layer that separates the
# uses has a higher mean cosine within a kind than across kinds.

# %%
def centred_cosines(v):
    """(N, N) cosines of the occurrences after subtracting their mean; 0 where nothing is left."""
    return cosine_matrix(v - v.mean(axis=0))


def report(word, vectors, groups):
    groups = np.asarray(groups)
    same = groups[:, None] == groups[None, :]
    off_diagonal = ~np.eye(len(groups), dtype=bool)
    print(f"'{word}': mean cosine (centred) within a group / across groups")
    for name, v in zip(NAMES, vectors, strict=True):
        if np.allclose(v, v[0], atol=1e-5):  # equal up to float rounding
            print(f"  {name:11s} the same vector in every sentence: nothing to compare")
            continue
        sims = centred_cosines(v)
        within, across = sims[same & off_diagonal].mean(), sims[~same].mean()
        print(f"  {name:11s} {within:+.4f} / {across:+.4f}   gap {within - across:+.4f}")


report("work", work, [use for _, use in WORK])

# %% [markdown] slideshow={"slide_type": "subslide"}
# ## 3. *bank*, *program*, *point* and *put* (bonus)
#
# *bank* by a river, as an institution, and as an aircraft's turn; *program* as a broadcast,
# software and a course of study; *point* as an idea vs a tip; *put* in the present vs the
# past, the same string, told apart only by context (*yesterday*; *she put*, not *she puts*).

# %%
BANK = [
    ("They sat on the bank of the river and watched the boats .", "river"),
    ("The canoe drifted towards the muddy bank of the stream .", "river"),
    ("She opened an account with an Indian bank in Mumbai .", "money"),
    ("The largest Indian bank raised its interest rates again .", "money"),
    ("The pilot put the plane into a steep bank to the left .", "turn"),
    ("The aircraft went into a sharp bank before it landed .", "turn"),
]
PROGRAM = [
    ("We watched a television program about whales last night .", "broadcast"),
    ("The radio program was interrupted by the news .", "broadcast"),
    ("She wrote a computer program that sorts the data .", "software"),
    ("The program crashed when he opened the file .", "software"),
    ("He enrolled in a graduate program in chemistry .", "study"),
    ("The university offers a two-year program in nursing .", "study"),
]
POINT = [
    ("That is a valid point of reference for the whole discussion .", "idea"),
    ("Please keep your talk to the point .", "idea"),
    ("He made a good point about the budget .", "idea"),
    ("She placed the point of the compass on the map .", "tip"),
    ("He placed the point of the knife against the wood .", "tip"),
    ("The point of the needle was bent .", "tip"),
]
PUT = [
    ("Every morning I put the kettle on at seven .", "present"),
    ("They always put sugar in their tea .", "present"),
    ("We usually put the children to bed at eight .", "present"),
    ("Yesterday she put the letter in the drawer .", "past"),
    ("Last year he put all his savings into a boat .", "past"),
    ("The farmer put a new roof on the barn after the storm .", "past"),
]
examples = {"bank": BANK, "program": PROGRAM, "point": POINT, "put": PUT}
vectors = {word: word_layers([t for t, _ in pairs], word) for word, pairs in examples.items()}
for word, pairs in examples.items():
    report(word, vectors[word], [g for _, g in pairs])

# %% [markdown]
# The cosines behind these gaps, sentence by sentence (numbered as in the lists above; layer 0
# is left out):

# %%
def heatmaps(words):
    """One row of cosine heatmaps per word (layers 1, 2 and the mix), one colour bar."""
    fig, axes = plt.subplots(len(words), 3, figsize=(10, 3.3 * len(words)), layout="constrained")
    for row, word in zip(axes, words, strict=True):
        labels = [f"{g} {i + 1}" for i, (_, g) in enumerate(examples[word])]
        for ax, name, v in zip(row, NAMES[1:], vectors[word][1:], strict=True):
            im = ax.imshow(centred_cosines(v), vmin=-1, vmax=1, cmap="RdBu_r")
            ax.set_title(f"'{word}', {name}", fontsize=13)
            ax.set_xticks(range(len(labels)), range(1, len(labels) + 1), fontsize=12)
            ax.set_yticks(range(len(labels)), labels if ax is row[0] else [], fontsize=12)
    colorbar = fig.colorbar(im, ax=axes, shrink=0.8)
    colorbar.set_label("cosine after centring", fontsize=12)
    colorbar.ax.tick_params(labelsize=12)
    plt.show()


heatmaps(["bank", "program"])

# %%
heatmaps(["point", "put"])

# %% [markdown]
# * **Layer 0 cannot tell anything apart**: one vector per string, notebook 00's problem.
# * **Layers 1 and 2 can, for *bank*, *point*, *put* and *work*:** their gaps are positive;
#   in the heatmaps the river *bank*s and the compass and knife *point*s pair up.
# * **Not for *program*:** negative gaps. One candidate to test: in each pair one *program*
#   is the subject and the other an object, so sentence structure cuts across the senses.
# * Layer 1 has the larger gap for *bank*, *point* and *work*, layer 2 for *put*; six
#   sentences per word cannot tell habit from chance, so section 5 counts over many words.

# %% [markdown]
# ## 4. The neighbours of *play* (the paper's Table 4)
#
# Table 4 contrasts the neighbours of *play* by GloVe, a static vector, with those of the
# biLM's *play* in a given sentence, searched in SemCor (part of the Brown corpus, every
# content word tagged with its WordNet sense).
#
# Static vectors first: notebook 00's recipe (window of 4, PPMI, SVD to 50 dimensions) on
# SemCor's 37k sentences, with a randomized SVD.

# %%
semcor = wsd_framework("semcor")
semcor_words = [[w for token in s["tokens"] for w in token.split()] for s in semcor]
static = StaticVectors.from_sentences(semcor_words, dim=50, window=4, min_count=20,
                                      svd="randomized")
print(f"SemCor: {len(semcor)} sentences, {sum(map(len, semcor_words))} words; "
      f"static vectors for the {len(static)} words seen ≥ 20 times")
print("static neighbours of 'play':",
      ", ".join(f"{w} {sim:.2f}" for w, sim in static.nearest("play", k=10)))

# %% [markdown]
# One vector has to serve every use of *play*. The paper's GloVe row is almost all sport: in
# web text one sense dominates. SemCor has more of the other senses, so our neighbours mix
# games, music and theatre. A static vector summarizes the senses weighted by frequency.
#
# Now the biLM. The corpus to search: every SemCor sentence with *play*, *plays*, *played* or
# *playing*, plus the sense-tagged sentences that section 5 scores, chosen by this rule:
# **every lemma (with its part of speech) that has at least 2 senses with at least 10 tagged
# occurrences each; 10 occurrences of each such sense; 80 of these lemmas drawn at random**
# (`MAX_LEMMAS = None` takes all of them).

# %%
PLAY = {"play", "plays", "played", "playing"}
PER_SENSE, MAX_LEMMAS = 10, 80
tagged = wsd_examples(semcor)  # one per single-word, single-sense instance
qualifying = balanced_sample(tagged, per_sense=PER_SENSE, key=lambda e: (e.word, e.pos))
semcor_sample = balanced_sample(tagged, per_sense=PER_SENSE, max_words=MAX_LEMMAS,
                                key=lambda e: (e.word, e.pos))
play_tagged = [e for e in tagged if e.word == "play"]
play_sentences = [s for s in semcor_words if PLAY & {w.lower() for w in s}]
corpus = list({tuple(s): None for s in [*play_sentences, *(e.tokens for e in semcor_sample),
                                        *(e.tokens for e in play_tagged)]})
# On disk, keyed by the model's weights and the sentences: a rerun loads them in a second.
corpus_layers = list(embed_corpus(embedder, corpus, name="semcor-sample", progress=False))
layers_of = dict(zip(corpus, corpus_layers, strict=True))  # sentence → (3, T, 2P)
index = NeighbourIndex(corpus, corpus_layers, model.scalar_mix)
print(f"{len({(e.word, e.pos) for e in qualifying})} lemmas qualify, {MAX_LEMMAS} drawn: "
      f"{len(semcor_sample)} occurrences; {len(play_sentences)} sentences with 'play'")
print(f"embedded: {len(corpus)} sentences, {len(index)} tokens")

# %% [markdown]
# The paper's two source sentences are in SemCor. For each, the nearest occurrences of *play*
# in other sentences, layer by layer:

# %%
QUERIES = {  # the source sentence → the nearest sentence the paper's biLM found
    "Chico Ruiz made a spectacular play on Alusik 's grounder in the hole in the fourth and "
    "Wert came up with some good stops and showed a strong arm at third base .":
    "Kieffer , the only junior in the group , was commended for his ability to hit in the "
    "clutch , as well as his all-round excellent play .",
    "Olivia De Havilland signed to do a Broadway play for Garson Kanin this season , `` A "
    "Gift of Time '' .":
    "It seemed , indeed , that their house was not so much a home , but rather a perfect stage "
    "set , and that they were actors who had been handed fat roles in a successful play , and "
    "had talent enough to fill the roles competently , with nice understatement .",
}
n_play = sum(w.lower() in PLAY for s in index.sentences for w in s)
for query, papers_neighbour in QUERIES.items():
    toks = query.split()
    print(f"“{' '.join(toks[:12])} …”")
    for layer in index.layers:
        vector = index.vector_of(embedder, toks, toks.index("play"), layer)
        hits = index.search(vector, layer, k=n_play, words=PLAY, exclude=toks)
        sims = np.array([h.similarity for h in hits])
        theirs = next(h.similarity for h in hits if " ".join(h.tokens) == papers_neighbour)
        best, worst = (sims > theirs + 1e-6).sum() + 1, (sims >= theirs - 1e-6).sum()
        rank = f"rank {best}" if best == worst else f"tied at ranks {best}-{worst}"
        name = "uniform mix" if layer == "elmo" else f"layer {layer}"
        print(f"  {name} (the paper's neighbour: {rank} of {len(hits)}):")
        for hit in hits[:3]:
            print(f"    {hit.similarity:.3f}  {hit.context(7)}")

# %% [markdown]
# Layer 0 is the static case: every *play* ties at 1.000, verbs and nouns alike. In layers 1
# and 2 the nearest are all nouns, like the queries: the context has settled the part of
# speech. Not the sense: each list mixes plays in a game with plays on a stage, and the
# paper's first neighbour is not among our first three in any layer. The paper's biLM saw a
# billion words; ours a few million (see its model card).
#
# Two queries are anecdotes. Over all of them: is each sense-tagged *play*'s nearest other
# tagged *play* of the same WordNet sense? Of the same part of speech? (Ties share the credit.)

# %%
play_vectors = example_vectors([layers_of[tuple(e.tokens)] for e in play_tagged], play_tagged)
play_all = {f"layer {j}": v for j, v in enumerate(play_vectors)}
play_all["uniform mix"] = mix_layers(play_vectors, model.scalar_mix)
print(f"{len(play_tagged)} tagged occurrences of 'play', "
      f"{len({e.sense for e in play_tagged})} senses")
print(f"{'':12s}{'same sense':>12s}{'same POS':>10s}")
for name, v in play_all.items():
    print(f"{name:12s}{nearest_neighbour_agreement(v, [e.sense for e in play_tagged]):12.4f}"
          f"{nearest_neighbour_agreement(v, [e.pos for e in play_tagged]):10.4f}")

# %% [markdown]
# The LSTM layers find a same-sense neighbour more than twice as often as layer 0 (29 senses,
# many rare, so the rates stay low), and a same-POS one almost always: the paper's observation
# about *play*, at small scale. Layer 0's three in four come from the form (*plays*).
#
# ## 5. How well does each layer separate senses? A number, not a picture
#
# The score: **leave-one-out nearest-centroid accuracy**. For each occurrence of a word: hold
# it out, average the (unit) vectors of the other occurrences of each sense, and predict the
# sense whose average is most similar by cosine, after subtracting the mean of all the word's
# occurrences (section 2). Every sense has the same number of occurrences, so a vector that
# knows nothing scores $1/\#\text{senses}$ (chance).
#
# **Which words:** by section 4's rule for SemCor; for the course corpus, every word with at
# least two senses, 20 occurrences of each sense from its test split (all six qualify).
#
# **Baselines**, from notebook 00: the word's static vector (PPMI + SVD on the same corpus),
# plus the mean of its neighbours' within 4 or 8 tokens (the "window average"); and the same
# average of the biLM's layer-0 vectors, the LSTMs' input combined without a language model.

# %%
def representations(sample, embeddings, static):
    """name → (N, D): each representation of every occurrence in `sample`."""
    layer_vectors = example_vectors(embeddings, sample)  # (3, N, 2P)
    out = {"static (PPMI)": static_example_vectors(static, sample)}
    for window in (4, 8):
        out[f"window {window} (PPMI)"] = static_example_vectors(static, sample, window=window)
    for window in (4, 8):  # the same average over the biLM's layer 0, the LSTMs' input
        out[f"window {window} (layer 0)"] = np.stack([
            context_vector(layers[0], list(range(len(e.tokens))), e.index, window)
            for layers, e in zip(embeddings, sample, strict=True)])
    out.update({f"layer {j}": v for j, v in enumerate(layer_vectors)})
    out["uniform mix"] = mix_layers(layer_vectors, model.scalar_mix)
    return out


def score_table(sample, embeddings, static, key):
    """name → per-word accuracies (an array), and chance (the mean of 1 / #senses)."""
    words, senses = [key(e) for e in sample], [e.sense for e in sample]
    scores = {name: np.array(list(sense_separation(v, words, senses).values()))
              for name, v in representations(sample, embeddings, static).items()}
    n_senses = Counter(w for w, _ in {(w, s) for w, s in zip(words, senses, strict=True)})
    return scores, np.mean([1 / n for n in n_senses.values()])


course_sample = balanced_sample(sense_examples("test"), per_sense=20)
course_static = StaticVectors.from_sentences(sense_corpus("train"), dim=50, window=4)
course_layers = list(embed_corpus(embedder, [e.tokens for e in course_sample],
                                  name="course-senses-test", progress=False))  # disk cache
course_scores, course_chance = score_table(course_sample, course_layers, course_static,
                                           key=lambda e: e.word)
semcor_scores, semcor_chance = score_table(
    semcor_sample, [layers_of[tuple(e.tokens)] for e in semcor_sample], static,
    key=lambda e: (e.word, e.pos))


def cell(scores):
    return f"{scores.mean():.4f} ± {scores.std(ddof=1) / np.sqrt(len(scores)):.4f}"


print(f"{'':20s}{'course corpus':>17s}{'SemCor':>19s}")
n_words, n_lemmas = len(course_scores["layer 0"]), len(semcor_scores["layer 0"])
print(f"{'':20s}{n_words:>11d} words{n_lemmas:>12d} lemmas")
for name in course_scores:
    print(f"{name:20s}{cell(course_scores[name]):>17s}{cell(semcor_scores[name]):>19s}")
print(f"{'chance':20s}{course_chance:>17.4f}{semcor_chance:>19.4f}")
paired = {}  # "corpus: layer − baseline" → the per-word differences
for corpus_name, scores in (("course corpus", course_scores), ("SemCor", semcor_scores)):
    best_layer = max(("layer 1", "layer 2"), key=lambda n: scores[n].mean())
    for source in ("PPMI", "layer 0"):  # the best window average of each kind of input
        baseline = max((n for n in scores if n.startswith("window") and source in n),
                       key=lambda n: scores[n].mean())
        difference = scores[best_layer] - scores[baseline]
        paired[f"{corpus_name}: {best_layer} − {baseline}"] = difference
        ratio = difference.mean() / (difference.std(ddof=1) / np.sqrt(len(difference)))
        print(f"{corpus_name + ':':15s}{best_layer} − {baseline:18s} = {cell(difference)}"
              f"  ({ratio:+.1f} standard errors)")

# %% [markdown]
# The same 18 scores as a picture: a dot per mean, one standard error on each side (each
# corpus on its own scale). Below, the four paired differences with their paired standard
# errors.

# %%
def dots(ax, rows, colours):
    """One dot ± one standard error per row of `rows` (name → per-word values), top down."""
    for y, (name, values) in enumerate(reversed(rows.items())):
        error = values.std(ddof=1) / np.sqrt(len(values))
        ax.errorbar(values.mean(), y, xerr=error, fmt="o", capsize=4, markersize=7,
                    color=colours(name))
    ax.set_yticks(range(len(rows)), list(reversed(rows)), fontsize=11)
    ax.tick_params(axis="x", labelsize=11)
    ax.grid(axis="x", alpha=0.3)


def colour(name):
    if "PPMI" in name:
        return "tab:gray"
    if "window" in name:
        return "tab:purple"
    return "tab:orange" if "mix" in name else "tab:blue"


fig, axes = plt.subplot_mosaic([["course", "SemCor"], ["paired", "paired"]], figsize=(10, 7.5),
                               height_ratios=[2.2, 1], layout="constrained")
for key, scores, chance, n in (("course", course_scores, course_chance, f"{n_words} words"),
                               ("SemCor", semcor_scores, semcor_chance, f"{n_lemmas} lemmas")):
    dots(axes[key], scores, colour)
    axes[key].axvline(chance, color="black", linestyle=":", label="chance")
    axes[key].set_title(f"{'course corpus' if key == 'course' else 'SemCor'} ({n})", fontsize=12)
    axes[key].set_xlabel("sense accuracy, mean over words", fontsize=11)
    axes[key].legend(fontsize=11, loc="upper right")
axes["SemCor"].set_yticklabels([])
dots(axes["paired"], paired, lambda name: "tab:green")
axes["paired"].axvline(0, color="black", linewidth=1)
axes["paired"].set_xlabel("difference in accuracy, word by word (± one paired standard error)",
                          fontsize=11)
plt.show()

# %% [markdown]
# (Rows: mean accuracy over words ± its standard error. The paired lines compare the best LSTM
# layer with the best window average of each kind word by word, which removes the differences
# between words from the noise. One or two standard errors is a hint, not a finding.)
#
# * **Static vectors score chance** on the course corpus; on SemCor a little above (a lemma's
#   form says something about its sense).
# * **On SemCor, layer 2 scores highest**, ahead of layer 1 and the mix by about one standard
#   error of either mean; no paired test here compares the layers, so their order is a hint.
#   The paper finds layer 2 ahead in Table 5 (notebook 09 runs that test).
# * **The uniform mix is not better than layer 2**: it averages layer 2 with the weaker
#   layer 1, and with layer 0 (Exercise 1). A task that learns its weights can put them where
#   the information is (notebook 10).
# * **On the course corpus, the PPMI window average wins by far.** That does not show that
#   averaging beats a language model: the corpus was generated with every sense's cue words
#   within 8 tokens (notebook 00), exactly what a window of 8 averages, and the PPMI vectors
#   were counted on it, while the biLM never saw it. Given the biLM's own input instead (the
#   "layer 0" window rows), the window average scores below layers 1 and 2: by about two
#   paired standard errors over the course corpus's 6 words, a hint, and by about three over
#   SemCor's 80 lemmas. On SemCor layer 2 also leads the PPMI window averages, by about one
#   and a half: suggestive, not established.
#
# ### Exercise 1 (experiment): the mix without layer 0
#
# The reading above blames the mix's score partly on layer 0. Test it: set the weights to
# $s = (0, \tfrac12, \tfrac12)$, so that layer 0 drops out, and score that mix on the SemCor
# sample with the same per-lemma score (`sense_separation`, which centres each lemma's vectors).
# Before you run it: will it land below layer 1, between the two layers, or above
# layer 2? (Hint: centring removes whatever is the same in all occurrences of a lemma. How
# much of layer 0 is left after that?)

# %%
semcor_layers = example_vectors([layers_of[tuple(e.tokens)] for e in semcor_sample],
                                semcor_sample)  # (3, N, 2P)
semcor_lemmas = [(e.word, e.pos) for e in semcor_sample]
semcor_senses = [e.sense for e in semcor_sample]
# BEGIN SOLUTION
without_layer0 = 0.5 * semcor_layers[1] + 0.5 * semcor_layers[2]  # (N, 2P)
mix_scores = np.array(list(sense_separation(without_layer0, semcor_lemmas,
                                            semcor_senses).values()))
# END SOLUTION
checks.check_mix_without_layer0(mix_scores, semcor_layers, semcor_lemmas, semcor_senses)
for name, scores in (("layer 1", semcor_scores["layer 1"]), ("layer 2", semcor_scores["layer 2"]),
                     ("uniform mix (1/3)", semcor_scores["uniform mix"]),
                     ("mix (0, 1/2, 1/2)", mix_scores)):
    print(f"{name:20s}{cell(scores):>19s}")

# %% [markdown]
# Dropping layer 0 moves the mix by less than one standard error, between the two LSTM layers.
# Centring explains why: it leaves of layer 0 only the differences between word forms. The
# uniform mix falls short of layer 2 mostly because it averages in layer 1.

# %% [markdown]
# ### Exercise 2 (experiment): how wide a window?
#
# The table's window averages look 4 and 8 tokens to each side. Sweep the window: for each
# width below, compute the PPMI window-average vectors of every occurrence (one line, with
# `static_example_vectors` as in `representations`); the cell scores them on both corpora.
# Dashed lines: layer 2 on each corpus.

# %%
windows = [1, 2, 4, 8, 16, 32]
course_words, course_senses = [e.word for e in course_sample], [e.sense for e in course_sample]
window_scores = {"course corpus": [], "SemCor": []}  # per window: the per-word accuracies
for corpus_name, sample, static_vectors, words, senses in (
        ("course corpus", course_sample, course_static, course_words, course_senses),
        ("SemCor", semcor_sample, static, semcor_lemmas, semcor_senses)):
    for window in windows:
        # BEGIN SOLUTION
        averaged = static_example_vectors(static_vectors, sample, window=window)  # (N, 50)
        # END SOLUTION
        window_scores[corpus_name].append(
            np.array(list(sense_separation(averaged, words, senses).values())))
print(f"{'window':>6}{'course corpus':>19}{'SemCor':>19}")
for k, window in enumerate(windows):
    print(f"{window:>6}" + "".join(f"{cell(window_scores[c][k]):>19}" for c in window_scores))
claim(all(np.allclose(window_scores[c][windows.index(8)], table["window 8 (PPMI)"])
          for c, table in (("course corpus", course_scores), ("SemCor", semcor_scores))),
      "at a window of 8 the sweep gives the table's 'window 8 (PPMI)' rows")

course_means = [v.mean() for v in window_scores["course corpus"]]
semcor_means = [v.mean() for v in window_scores["SemCor"]]

fig, ax = plt.subplots(figsize=(7, 3.8))
for (corpus_name, means), colour_of in zip((("course corpus", course_means),
                                            ("SemCor", semcor_means)), ("C0", "C1"), strict=True):
    ax.plot(windows, means, "o-", color=colour_of, label=f"window average, {corpus_name}")
    layer_2 = (course_scores if corpus_name == "course corpus" else semcor_scores)["layer 2"]
    ax.axhline(layer_2.mean(), color=colour_of, linestyle="--", label=f"layer 2, {corpus_name}")
ax.set_xscale("log", base=2)
ax.set_xticks(windows, [str(w) for w in windows])
ax.tick_params(labelsize=11)
ax.set_xlabel("window: tokens on each side", fontsize=11)
ax.set_ylabel("sense accuracy", fontsize=11)
ax.legend(fontsize=10, loc="center right")
fig.tight_layout()
plt.show()

# %% [markdown]
# **What do you see?** Write your interpretation before opening the answer.
#
# **Model answer.**
# <!-- BEGIN ANSWER -->
# On the course corpus the window average climbs steeply from 1 to 8 tokens, then levels off.
# On SemCor it is almost flat, within one standard error from 1 to 32, and below layer 2 at
# every width. The generator put each sense's cues within 8 tokens, so a wider window only
# adds words that say nothing about the sense; real text has no planted distance. A window
# average is only as good as its window's match to where the text keeps its cues.
#
# Also: the paired lines compare the *best* window with the *best* layer, chosen on the same
# words, which flatters a little.
# <!-- END ANSWER -->

# %%
# After your interpretation: the finding, checked on these measurements
checks.exercise_done(2, "how wide a window?",
                     all(len(v) == len(windows) for v in window_scores.values()))
semcor_error = max(v.std(ddof=1) / np.sqrt(len(v)) for v in window_scores["SemCor"])
at_8 = windows.index(8)
claim(all(course_means[k] < course_means[k + 1] for k in range(at_8))
      and course_means[at_8] > course_means[0] + 0.25
      and all(abs(m - course_means[at_8]) < 0.05 for m in course_means[at_8:])
      and course_means[-1] < course_means[at_8]
      and max(semcor_means) - min(semcor_means) < semcor_error
      and max(semcor_means) < semcor_scores["layer 2"].mean() < min(course_means[at_8:]),
      "on the course corpus the gap grows with the window up to 8, then stays within 0.05 of "
      "it (a little lower at the widest); on SemCor the windows are within noise of each "
      "other, below layer 2")

# %% [markdown]
# ## 6. Why the layers differ
#
# Layer 0 is context-free by construction. How much of each layer comes from the context?
#
# On the embedded SemCor sentences: left, for words in at least five of them, the mean cosine
# between two occurrences of the same word, after subtracting the layer's mean vector (raw
# cosines, printed below, are positive even between different words); right, how often a
# token's nearest other token is the same word.
#
# ### Exercise 3 (predict): the same word in two contexts
#
# Before you run the next cell: in which layer will two occurrences of the same word be most
# alike (after centring), and in which least? Where will the uniform mix land?

# %% [markdown]
# **Prediction.**
# <!-- BEGIN ANSWER -->
# Layer 0 most: the same vector for every occurrence, cosine exactly 1. Then layer 1, then
# layer 2 least, since each LSTM layer adds more context. The equal-weight mix lands above
# both LSTM layers: it averages in layer 0's identical vectors, the longest of the three
# (section 1).
# <!-- END ANSWER -->

# %%
raw = {layer: index.same_word_similarity(layer) for layer in index.layers}
centred = {layer: index.same_word_similarity(layer, centre=True)[0] for layer in index.layers}
neighbour_rate = {layer: index.same_word_neighbour_rate(layer, queries=1000)
                  for layer in index.layers}
labels = ["uniform mix" if layer == "elmo" else f"layer {layer}" for layer in index.layers]
fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
at = np.arange(len(labels))
left.bar(at, [centred[layer] for layer in index.layers], 0.5)
left.set_ylabel("mean cosine similarity", fontsize=11)
left.set_title("the same word in two contexts\n(common direction removed)", fontsize=12)
right.bar(at, [neighbour_rate[layer] for layer in index.layers], 0.5, color="tab:green")
right.set_ylabel("share of tokens", fontsize=11)
right.set_title("nearest other token\nis the same word", fontsize=12)
for ax in (left, right):
    ax.set_xticks(at, labels)
    ax.set_ylim(0, 1)
    ax.tick_params(labelsize=11)
fig.tight_layout()
plt.show()
print(f"{'':12s}{'same word':>10s}{'(raw)':>8s}{'different words (raw)':>23s}{'nearest':>9s}")
for layer, label in zip(index.layers, labels, strict=True):
    print(f"{label:12s}{centred[layer]:10.4f}{raw[layer][0]:8.4f}{raw[layer][1]:23.4f}"
          f"{neighbour_rate[layer]:9.4f}")

# %% [markdown]
# Layer 1 lets the context in, layer 2 more: two occurrences of a word are less alike, and
# fewer tokens have their own word as nearest neighbour. Still, a word stays far more similar
# to itself than to other words: context adds to its identity rather than replacing it.
#
# A common explanation: the top layer feeds the softmax that predicts the *next* and
# *previous* word, so training pushes it to carry what the sentence says, while layer 1 keeps
# more of the word's form and part of speech (the paper's Table 6; in this biLM the two
# layers are within a few tenths on part of speech, notebook 10). The paper reports the
# layers' differences (Tables 5 and 6) but does not test this, and neither does the figure:
# that the layer taking in the most context is the one under the softmax fits the
# explanation; it does not show the objective is the cause.
#
# ### Exercise 4 (explain): from correlation to cause
#
# Describe an experiment that would test whether the *language-model training* is what makes
# layer 2 carry more context than layer 1, rather than, say, its mere position in the stack.

# %% [markdown]
# **Model answer.**
# <!-- BEGIN ANSWER -->
# Hold the architecture fixed and change only the training. The simplest control is the same
# biLM with random, untrained weights (`ELMo(model.config)`): run this section's figure on it.
# If its layer 2 moves as far from the word as the trained one, position explains the
# pattern; if not, training made the difference. Stronger: train the architecture on the same
# text with another objective (say, the current word's part of speech) and compare.
# <!-- END ANSWER -->

# %% [markdown]
# ## 7. The sense score, by hand
#
# ### Exercise 5 (implement): the sense score
#
# Write `my_nearest_centroid_accuracy(vectors, labels)`: `vectors` is `(N, D)`, `labels` a
# list of `N` senses. For each `i`: hold out `vectors[i]`; for each sense, average the **unit**
# vectors (each scaled to length 1) of its occurrences other than `i`; predict the sense whose
# average has the highest cosine with `vectors[i]`. Return the fraction predicted right.
# (No centring here: the package does that before calling it.) The check compares with the
# package's `analysis.nearest_centroid_accuracy` and refuses an answer that calls it, or
# `sense_separation`, which does.

# %%
def my_nearest_centroid_accuracy(vectors, labels):
    # BEGIN SOLUTION
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    senses, right = sorted(set(labels)), 0
    for i, label in enumerate(labels):
        best, best_cos = None, -np.inf
        for sense in senses:
            others = [unit[j] for j in range(len(labels)) if j != i and labels[j] == sense]
            centroid = np.mean(others, axis=0)
            cos = unit[i] @ centroid / np.linalg.norm(centroid)
            if cos > best_cos:
                best, best_cos = sense, cos
        right += best == label
    return right / len(labels)
    # END SOLUTION


checks.check_nearest_centroid_accuracy(my_nearest_centroid_accuracy)

# %% [markdown]
# Your function on the six *bank* sentences of section 3, centred: each held-out sentence is
# compared with its one partner and the other senses' pairs (layer 0 is left out).

# %%
bank_senses = [sense for _, sense in BANK]
for bank_layer, bank_vectors in zip(NAMES[1:], vectors["bank"][1:], strict=True):
    bank_centred = bank_vectors - bank_vectors.mean(axis=0)
    print(f"{bank_layer:11s} {my_nearest_centroid_accuracy(bank_centred, bank_senses):.4f}")

# %% [markdown] slideshow={"slide_type": "subslide"}
# ## 8. Explore: neighbours in context (bonus)
#
# Type a sentence, name a word of it and pick a layer: the table lists the nearest tokens of
# the embedded SemCor sentences. Below, the default query as text; in a running Jupyter the
# form under it searches for yours.

# %%
explorer = neighbour_explorer(index, embedder, "The children went out to play in the garden .",
                              "play", layer="2", k=8,
                              static=[{}, {"layer": "0"}, {"neighbours": "same word only"}])

# %% [markdown]
# Layer 2 finds *play* in similar uses (children playing, games) and, without the "same word
# only" filter, other verbs in the same slot (*to fight*): in context, a vector is about the
# use as much as the word. Try *bank*, *point*, *work* or *put* in sentences of your own.

# %% [markdown]
# ## Summary
#
# * A trained biLM gives each token one vector per layer: layer 0 one per string, layers 1
#   and 2 from the sentence. A loaded model's mix is the untrained plain average.
# * Layers 1 and 2 pull *bank*, *point*, *work* and *put* apart; *play*'s neighbours share its
#   part of speech but mix its senses: here context settles part of speech more than sense.
# * On SemCor layer 2 has the highest sense score, one standard error above layer 1 (no paired
#   test). Given the same inputs, the LSTM layers lead a window average (by about two paired
#   standard errors over 6 course words, a hint, and three over 80 SemCor lemmas).
# * A word's similarity to itself falls from layer 1 to layer 2; that the objective causes
#   this is untested (Exercise 4).
#
# **Run it on more.** `MAX_LEMMAS = None` scores all qualifying SemCor lemmas (a minute or
# two); set `MODEL` or `OFFICIAL` to compare models.
#
# **Read more:** Peters et al. (2018), Sec. 3.2 (Eq. 1), Sec. 5.3 (Table 4, the neighbours of
# *play*; Table 5, sense disambiguation, where the second layer beats the first; Table 6,
# part-of-speech tagging, where the first beats the second). Ethayarajh (2019), *How
# Contextual are Contextualized Word Representations?*, measures section 6's same-word
# similarity for ELMo, BERT and GPT-2.
#
# **Next:** notebook 09 (senses, Table 5); notebook 10 (parts of speech, a tagger).

# %% [markdown]
# ## Check your understanding
#
# Answer each in a sentence or two before you open the instructor's answer.
#
# 1. Why is the mix of a freshly loaded biLM the plain average of its layers, and why is that
#    not what a task would use?
#
# <!-- BEGIN ANSWER -->
# No task has trained it, so its weights are at their initial values ($s_j = 1/3$,
# $\gamma = 1$). A task learns its own $s$ and $\gamma$ and can move weight to where the
# information it needs is.
# <!-- END ANSWER -->
#
# 2. Why are the occurrences' vectors centred before they are compared by cosine?
#
# <!-- BEGIN ANSWER -->
# Every pair of occurrences shares the word and a direction common to the layer, so raw
# cosines are all high. The senses differ in what is left when that shared part is removed.
# <!-- END ANSWER -->
#
# 3. Why does the sense score use the same number of occurrences of every sense?
#
# <!-- BEGIN ANSWER -->
# Then a vector that knows nothing scores exactly chance; with unbalanced senses, always
# choosing the frequent sense would look like knowledge.
# <!-- END ANSWER -->
#
# 4. On the course corpus the PPMI window average beats every biLM layer. Why is that not
#    evidence that averaging neighbours beats a language model?
#
# <!-- BEGIN ANSWER -->
# The corpus put every sense's cue words within 8 tokens, and the PPMI vectors were counted on
# it; the biLM never saw it. Given the biLM's own layer 0, the window average scores below the
# LSTM layers.
# <!-- END ANSWER -->
#
# 5. Why compare two representations word by word (the paired difference) rather than by their
#    two mean scores?
#
# <!-- BEGIN ANSWER -->
# Some words are easy for every representation, others hard. The paired difference removes
# those differences from the noise, so a smaller real difference can show.
# <!-- END ANSWER -->
#
# 6. Two occurrences of *bank* have raw cosine 0.95, and every pair of *different* words in
#    the layer has raw cosine about 0.9. What does 0.95 say, and what must you do before
#    reading it?
#
# <!-- BEGIN ANSWER -->
# Little by itself: every vector of the layer shares a common direction. Compare after
# subtracting the layer's mean vector, or against the cosine of different words: 0.95 against
# 0.9 is a small gap, not near-identity.
# <!-- END ANSWER -->
