"""Writing a trained run in other forms: an encoder-only run, a compact copy, or the official
AllenNLP files; ``elmo-tutorial export`` calls these.

Taught in notebook 11 (``11_pretrained_and_scale``).

``out_dir`` must be new or empty unless ``force`` (else ``WouldOverwrite``, naming its files).
Each file is written atomically and ``SHA256SUMS`` last; the run itself is only read.

Example:
    >>> export_encoder("runs/small", "my_model", float16=True)     # doctest: +SKIP
    PosixPath('my_model')
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import torch

from elmo_tutorial.files.overwrite import check_output_folder
from elmo_tutorial.files.safe_files import atomic_write_bytes, write_sha256sums
from elmo_tutorial.formats.allennlp_format import save_allennlp
from elmo_tutorial.training.checkpoints import load_weights, save_weights
from elmo_tutorial.training.run_folder import load_elmo, load_run, write_run_config

__all__ = ["export_allennlp", "export_copy", "export_encoder"]


def _half(state: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """Floating-point tensors as float16 (half the size on disk); the rest as they are."""
    return {k: v.to(torch.float16) if v.is_floating_point() else v for k, v in state.items()}


def export_encoder(run_dir: str | Path, out_dir: str | Path, float16: bool = False,
                   force: bool = False) -> Path:
    """Write the encoder of a run (no softmax) as a minimal run directory ``out_dir``
    (``config.json``, ``model.safetensors``, ``SHA256SUMS``); return it."""
    out = Path(out_dir)
    check_output_folder(out, force)
    config, state, _, _ = load_run(run_dir)
    encoder = {k: v for k, v in state.items() if not k.startswith("softmax.")}
    out.mkdir(parents=True, exist_ok=True)
    save_weights(out / "model.safetensors", _half(encoder) if float16 else encoder)
    write_run_config(out, replace(config, vocab_size=0), {})
    write_sha256sums(out, ["config.json", "model.safetensors"])
    return out


def export_copy(run_dir: str | Path, out_dir: str | Path, float16: bool = False,
                force: bool = False) -> Path:
    """Copy a finished run without its checkpoints (weights optionally float16) into
    ``out_dir``; return it."""
    run, out = Path(run_dir), Path(out_dir)
    if not (run / "model.safetensors").exists():
        raise FileNotFoundError(f"{run} has no final model.safetensors; finish (or --resume) "
                                "its training first")
    check_output_folder(out, force)
    weights = load_weights(run / "model.safetensors", dtype=None)
    out.mkdir(parents=True, exist_ok=True)
    save_weights(out / "model.safetensors", _half(weights) if float16 else weights)
    names = ["model.safetensors"]
    for name in ("config.json", "vocab.txt", "log.jsonl"):
        if (run / name).exists():
            atomic_write_bytes(out / name, (run / name).read_bytes())
            names.append(name)
    write_sha256sums(out, sorted(names))
    return out


def export_allennlp(run_dir: str | Path, out_dir: str | Path,
                    force: bool = False) -> tuple[Path, Path]:
    """Write a run's biLM as ``OUT_DIR/options.json`` and ``OUT_DIR/weights.hdf5``; return both.

    The softmax is left out, as in the released ELMo files.
    """
    out = Path(out_dir)
    check_output_folder(out, force)
    model = load_elmo(run_dir)
    save_allennlp(model, out / "options.json", out / "weights.hdf5")
    return out / "options.json", out / "weights.hdf5"
