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
    from elmo_tutorial.analyses.contextual_vectors import embed_text, shared_word_similarities

    tokens, vectors = embed_text(args.run_dir, args.sentences, args.layer)
    for toks, vecs in zip(tokens, vectors, strict=True):
        print(f"layer {args.layer}, {len(toks)} tokens × {vecs.shape[1]} dims")
        for tok, v in zip(toks, vecs, strict=True):
            head = " ".join(f"{x:+.3f}" for x in v[: args.dims].tolist())
            print(f"  {tok:<14} |v|={v.norm():7.3f}  [{head} ...]")
    shared = shared_word_similarities(tokens, vectors) if len(tokens) > 1 else []
    if shared:
        print("How far context moved each shared word: cosine of its vectors in the two "
              "sentences (1.000 = not at all, what layer 0 gives every word):")
    for word in shared:
        print(f"  cos({word.token!r}, word {word.in_first} of sentence 1, word {word.in_second} "
              f"of sentence 2) = {word.cosine:.3f}")
    return 0
