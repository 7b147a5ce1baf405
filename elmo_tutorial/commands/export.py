"""``elmo-tutorial export``: a trained run in the official options.json + hdf5 format."""

from __future__ import annotations

DESCRIPTION = """\
Write a run in one of three forms (functions of elmo_tutorial.formats.export):

--allennlp OUT_DIR  options.json and weights.hdf5 in the format of bilm-tf and AllenNLP,
                    without the softmax, as the released ELMo files: AllenNLP's
                    Elmo("OUT_DIR/options.json", "OUT_DIR/weights.hdf5", 1) loads them, and
                    so does elmo_tutorial.load_allennlp(options, weights).
--encoder OUT_DIR   config.json (vocab_size 0), model.safetensors with the encoder only (ELMo
                    never uses the softmax) and SHA256SUMS, for load_elmo: data/models/small.
--copy OUT_DIR      the run without its checkpoints (the final weights with the softmax,
                    config.json, vocab.txt, log.jsonl, SHA256SUMS), which can still be
                    evaluated: data/models/tiny.

--float16 stores the weights of --encoder or --copy as float16 (half the size; loading casts
back to float32). An OUT_DIR that is not empty is refused unless --force is given. Each file
is written whole (SHA256SUMS last): run an interrupted export again with --force.

Examples:
  elmo-tutorial export runs/tiny --allennlp exported/tiny
  elmo-tutorial export runs/small --encoder data/models/small --float16 --force
  elmo-tutorial export runs/tiny --copy data/models/tiny --float16
"""


def add_arguments(parser) -> None:
    parser.add_argument("run_dir", metavar="RUN_DIR", help="a run directory (from `train`)")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--allennlp", metavar="OUT_DIR",
                       help="directory for options.json and weights.hdf5")
    where.add_argument("--encoder", metavar="OUT_DIR",
                       help="directory for an encoder-only run (config.json, safetensors)")
    where.add_argument("--copy", metavar="OUT_DIR",
                       help="directory for a compact copy of the run (weights with softmax, "
                            "config, vocabulary, log; no checkpoints)")
    parser.add_argument("--float16", action="store_true",
                        help="with --encoder or --copy: store the weights as float16")
    parser.add_argument("--force", action="store_true",
                        help="write into OUT_DIR even if it is not empty (overwriting files)")


def run(args) -> int:
    from pathlib import Path

    from elmo_tutorial.formats.export import export_allennlp, export_copy, export_encoder

    out = Path(args.allennlp or args.encoder or args.copy)
    if Path(args.run_dir).resolve().is_relative_to(out.resolve()):
        raise ValueError(f"{out} holds the run {args.run_dir} itself: the export would "
                         "replace it; choose an OUT_DIR outside the run")
    if args.copy:
        export_copy(args.run_dir, out, args.float16, force=args.force)
        print(f"wrote {out}: model.safetensors, config.json, vocab.txt, log.jsonl, SHA256SUMS")
    elif args.encoder:
        export_encoder(args.run_dir, out, args.float16, force=args.force)
        print(f"wrote {out / 'model.safetensors'}, config.json and SHA256SUMS")
    else:
        options, weights = export_allennlp(args.run_dir, out, force=args.force)
        print(f"wrote {options} and {weights}")
    return 0
