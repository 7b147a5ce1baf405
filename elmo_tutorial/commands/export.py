"""``elmo-tutorial export``: a trained run in the official options.json + hdf5 format."""

from __future__ import annotations

DESCRIPTION = """\
Write a run's biLM in the format of bilm-tf and AllenNLP: options.json (the architecture)
and weights.hdf5 (char CNN, highway, projection and both LSTM stacks; the softmax is left
out, as in the released ELMo files). The result loads in AllenNLP:

    from allennlp.modules.elmo import Elmo
    elmo = Elmo("OUT_DIR/options.json", "OUT_DIR/weights.hdf5", num_output_representations=1)

and back in this package with elmo_tutorial.load_allennlp(options, weights).

With --encoder OUT_DIR it writes a small run directory instead: config.json (vocab_size 0),
model.safetensors with the encoder only (no softmax: ELMo never uses it), optionally in
float16 (--float16, half the size; loading casts back to float32), and SHA256SUMS. That is
how the course's shipped model was made; load_elmo(OUT_DIR) loads it.
From Python: elmo_tutorial.formats.export.export_allennlp, export_encoder and export_copy.

With --copy OUT_DIR it writes a compact copy of the whole run: config.json, vocab.txt,
log.jsonl and the final weights with the softmax (float16 with --float16), plus SHA256SUMS;
no checkpoints. The copy can still be evaluated (`elmo-tutorial evaluate OUT_DIR`) and loads
with load_elmo and load_run; that is how data/models/tiny was made.

An OUT_DIR that is not empty is refused (nothing is overwritten) unless --force is given.
Each file is written whole or not at all (SHA256SUMS last): an interrupted export leaves no
half-written file; run it again with --force.

Examples:
  elmo-tutorial export runs/tiny --allennlp exported/tiny
  elmo-tutorial export runs/small --encoder data/models/small --float16 --force
  elmo-tutorial export runs/tiny --copy data/models/tiny --float16
"""


def add_arguments(parser) -> None:
    parser.add_argument("run_dir", metavar="RUN_DIR", help="a run directory (from `train`)")
    parser.add_argument("--allennlp", metavar="OUT_DIR",
                        help="directory for options.json and weights.hdf5")
    parser.add_argument("--encoder", metavar="OUT_DIR",
                        help="directory for an encoder-only run (config.json, safetensors)")
    parser.add_argument("--copy", metavar="OUT_DIR",
                        help="directory for a compact copy of the run (weights with softmax, "
                             "config, vocabulary, log; no checkpoints)")
    parser.add_argument("--float16", action="store_true",
                        help="with --encoder or --copy: store the weights as float16")
    parser.add_argument("--force", action="store_true",
                        help="write into OUT_DIR even if it is not empty (overwriting files)")


def _check_arguments(args) -> None:
    """Everything that can be refused, refused before the first file is written: a second
    export must not fail after the first one changed a folder.

    Raises:
        ValueError: one OUT_DIR for two formats, or OUT_DIR holding the run itself.
        OSError: RUN_DIR is not a run, or an OUT_DIR is not empty and --force is missing.
    """
    from pathlib import Path

    from elmo_tutorial.files.overwrite import check_output_folder
    from elmo_tutorial.training.run_folder import read_run_config

    outs = {flag: Path(out) for flag, out in (("--encoder", args.encoder),
                                              ("--allennlp", args.allennlp),
                                              ("--copy", args.copy)) if out}
    run = Path(args.run_dir).resolve()
    seen: dict[Path, str] = {}
    for flag, out in outs.items():
        where = out.resolve()
        if where in seen:
            raise ValueError(f"{flag} and {seen[where]} name the same folder {out}: each export "
                             "writes its own files there; give each its own OUT_DIR")
        if run == where or run.is_relative_to(where):
            raise ValueError(f"{flag} {out} holds the run {args.run_dir} itself: the export "
                             "would replace it; choose an OUT_DIR outside the run")
        seen[where] = flag
    read_run_config(args.run_dir)  # a run at all, before anything is written
    if args.copy and not (Path(args.run_dir) / "model.safetensors").exists():
        raise FileNotFoundError(f"{args.run_dir} has no final model.safetensors; finish (or "
                                "--resume) its training first")
    for out in outs.values():
        check_output_folder(out, args.force)


def run(args) -> int:
    from elmo_tutorial.formats.export import export_allennlp, export_copy, export_encoder

    if not (args.allennlp or args.encoder or args.copy):
        args.parser.error("say where to: --allennlp OUT_DIR, --encoder OUT_DIR or --copy OUT_DIR")
    _check_arguments(args)
    if args.copy:
        out = export_copy(args.run_dir, args.copy, args.float16, force=args.force)
        print(f"wrote {out}: model.safetensors, config.json, vocab.txt, log.jsonl, SHA256SUMS")
    if args.encoder:
        out = export_encoder(args.run_dir, args.encoder, args.float16, force=args.force)
        print(f"wrote {out / 'model.safetensors'}, config.json and SHA256SUMS")
    if args.allennlp:
        options, weights = export_allennlp(args.run_dir, args.allennlp, force=args.force)
        print(f"wrote {options} and {weights}")
    return 0
