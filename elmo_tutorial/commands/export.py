"""``elmo-tutorial export``: a trained run in the official options.json + hdf5 format."""

from __future__ import annotations

import sys
from pathlib import Path

HELP = "Export a trained run to the official options.json + weights.hdf5 format."

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
how the course's shipped model was made; ELMo.from_run(OUT_DIR) loads it.

With --copy OUT_DIR it writes a compact copy of the whole run: config.json, vocab.txt,
log.jsonl and the final weights with the softmax (float16 with --float16), plus SHA256SUMS;
no checkpoints. The copy can still be evaluated (`elmo-tutorial evaluate OUT_DIR`) and loads
with ELMo.from_run and load_run. It refuses an OUT_DIR that is not empty unless --force.

Examples:
  elmo-tutorial export runs/tiny --allennlp exported/tiny
  elmo-tutorial export runs/small --encoder data/models/small --float16
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
                        help="with --copy: write into an OUT_DIR that is not empty")


def export_encoder(run_dir, out_dir, float16: bool = False, checkpoint: bool = False) -> Path:
    """Write the encoder of a run (no softmax) as a minimal run directory; return it."""
    import hashlib
    from dataclasses import replace

    import torch

    from elmo_tutorial import checkpoint as ckpt

    config, state, _ = ckpt.load_run(run_dir, checkpoint=checkpoint)
    out = Path(out_dir)
    encoder = {k: v.to(torch.float16) if float16 and v.is_floating_point() else v
               for k, v in state.items() if not k.startswith("softmax.")}
    ckpt.save_weights(out / "model.safetensors", encoder)
    ckpt.write_run_config(out, replace(config, vocab_size=0), {})
    sums = "".join(f"{hashlib.sha256((out / n).read_bytes()).hexdigest()}  {n}\n"
                   for n in ("config.json", "model.safetensors"))
    ckpt.atomic_write_text(out / "SHA256SUMS", sums)
    return out


def export_copy(run_dir, out_dir, float16: bool = False, force: bool = False) -> Path:
    """Copy a finished run without its checkpoints (weights optionally float16); return it.

    Raises:
        FileExistsError: ``out_dir`` holds files and ``force`` is False.
        FileNotFoundError: the run has no final weights (train it to the end first).
    """
    import hashlib
    import shutil

    import torch

    from elmo_tutorial import checkpoint as ckpt

    run, out = Path(run_dir), Path(out_dir)
    if not (run / "model.safetensors").exists():
        raise FileNotFoundError(f"{run} has no final model.safetensors; finish (or --resume) "
                                "its training first")
    if out.exists() and any(out.iterdir()) and not force:
        raise FileExistsError(f"{out} is not empty; choose another directory, or add --force "
                              "to overwrite the files of the copy in it")
    weights = ckpt.load_weights(run / "model.safetensors", dtype=None)
    if float16:
        weights = {k: v.to(torch.float16) if v.is_floating_point() else v
                   for k, v in weights.items()}
    ckpt.save_weights(out / "model.safetensors", weights)
    names = ["config.json", "vocab.txt", "log.jsonl", "model.safetensors"]
    for name in names[:3]:
        if (run / name).exists():
            shutil.copyfile(run / name, out / name)
    sums = "".join(f"{hashlib.sha256((out / n).read_bytes()).hexdigest()}  {n}\n"
                   for n in names if (out / n).exists())
    ckpt.atomic_write_text(out / "SHA256SUMS", sums)
    return out


def run(args) -> int:
    from elmo_tutorial.allennlp_format import save_allennlp
    from elmo_tutorial.elmo import ELMo

    if not (args.allennlp or args.encoder or args.copy):
        print("elmo-tutorial export: say where to: --allennlp OUT_DIR, --encoder OUT_DIR or "
              "--copy OUT_DIR", file=sys.stderr)
        return 2
    try:
        if args.copy:
            out = export_copy(args.run_dir, args.copy, args.float16, args.force)
            print(f"wrote {out}: model.safetensors, config.json, vocab.txt, log.jsonl, SHA256SUMS")
            if not (args.allennlp or args.encoder):
                return 0
        if args.encoder:
            out = export_encoder(args.run_dir, args.encoder, args.float16)
            print(f"wrote {out / 'model.safetensors'}, config.json and SHA256SUMS")
            if not args.allennlp:
                return 0
        model = ELMo.from_run(args.run_dir)
    except (FileNotFoundError, FileExistsError, ValueError) as err:
        print(f"elmo-tutorial export: {err}", file=sys.stderr)
        return 2
    out = Path(args.allennlp)
    save_allennlp(model, out / "options.json", out / "weights.hdf5")
    print(f"wrote {out / 'options.json'} and {out / 'weights.hdf5'}")
    return 0
