"""``elmo-tutorial embed``: contextual vectors of sentences from a trained run."""

from __future__ import annotations

from elmo_tutorial.commands import at_least

DESCRIPTION = """\
Show the vectors ELMo gives each token of a sentence (Peters et al. 2018, Sec. 3.2).

Layer 0 is the character CNN's token embedding: the same vector for a word wherever it
appears. Layers 1 and 2 are the forward and backward LSTM outputs side by side: they depend
on the whole sentence. "elmo" is the scalar mix gamma * sum_j s_j h_j with untrained (equal)
weights s_j. Each token prints its vector's norm and first dimensions; with two sentences the
cosine similarity of their shared words shows how context moves a word's vector.

Sentences are split into tokens with the package tokenizer (no punkt needed).

Examples:
  elmo-tutorial embed runs/tiny "She sat on the bank of the river ."
  elmo-tutorial embed runs/tiny "She sat on the bank ." "He paid into the bank ." --layer 2
"""


def add_arguments(parser) -> None:
    parser.add_argument("run_dir", metavar="RUN_DIR", help="a run directory (from `train`)")
    parser.add_argument("sentences", nargs="+", metavar="SENTENCE", help="text to embed")
    parser.add_argument("--layer", default="elmo", choices=["0", "1", "2", "elmo"],
                        help="which representation to show (default: elmo)")
    parser.add_argument("--dims", type=at_least(1), default=6,
                        help="dimensions to print per token")


def run(args) -> int:
    import numpy as np

    from elmo_tutorial.analyses.embedder import Embedder
    from elmo_tutorial.analyses.sense_separation import cosine_matrix, mix_layers
    from elmo_tutorial.data.tokenize import tokenize_words
    from elmo_tutorial.training.run_folder import load_elmo

    model = load_elmo(args.run_dir)
    tokens = [tokenize_words(s) for s in args.sentences]
    empty = [i for i, sentence in enumerate(tokens, start=1) if not sentence]
    if empty:
        raise ValueError(f"sentence {empty[0]} is empty: give the text to embed, e.g. "
                         '"She sat on the bank ."')
    vectors = []  # (T_i, 2P) per sentence: layer 0 is duplicated to 2P, as in AllenNLP
    for layers in Embedder(model, fast=False).embed_sentences(tokens):  # (3, T_i, 2P)
        vectors.append(mix_layers(layers, model.scalar_mix) if args.layer == "elmo"
                       else layers[int(args.layer)])
    for toks, vecs in zip(tokens, vectors, strict=True):
        print(f"layer {args.layer}, {len(toks)} tokens × {vecs.shape[1]} dims")
        for tok, v in zip(toks, vecs, strict=True):
            head = " ".join(f"{x:+.3f}" for x in v[: args.dims].tolist())
            print(f"  {tok:<14} |v|={np.linalg.norm(v):7.3f}  [{head} ...]")
    if len(tokens) < 2:
        return 0
    # every occurrence of a word in sentence 2 against each of the same word in sentence 1
    cosines = cosine_matrix(vectors[0], vectors[1])  # (T_1, T_2)
    shared = [(tok, i + 1, j + 1, cosines[i, j]) for j, tok in enumerate(tokens[1])
              for i, other in enumerate(tokens[0]) if other == tok]
    if shared:
        print("How far context moved each shared word: cosine of its vectors in the two "
              "sentences (1.000 = not at all, what layer 0 gives every word):")
    for tok, i, j, cosine in shared:
        print(f"  cos({tok!r}, word {i} of sentence 1, word {j} of sentence 2) = {cosine:.3f}")
    return 0
