"""Writing a trained run in other forms: an encoder-only run, or the official AllenNLP files.

* :func:`export_encoder` writes a minimal run directory: ``config.json`` (``vocab_size`` 0),
  ``model.safetensors`` with the encoder only (no softmax: ELMo never uses it), optionally in
  float16 (half the size; loading casts back to float32), and ``SHA256SUMS``. That is how the
  course's shipped model was made; ``ELMo.from_run(OUT_DIR)`` loads it.
* :func:`export_copy` writes a compact copy of a whole run: ``config.json``, ``vocab.txt``,
  ``log.jsonl`` and the final weights with the softmax (optionally float16), plus
  ``SHA256SUMS``; no checkpoints. It can still be evaluated; ``data/models/tiny`` is one.
* :func:`export_allennlp` writes ``options.json`` and ``weights.hdf5`` in the format of bilm-tf
  and AllenNLP (:mod:`elmo_tutorial.allennlp_format`); they load in AllenNLP's ``Elmo`` and back
  here with ``load_allennlp``.

``elmo-tutorial export`` calls these. Every export is written whole or not at all: the files
are written in a hidden staging folder inside ``OUT_DIR`` (``.export-<pid>-…``) and renamed
onto their final names only once all of them are complete, so a crash, ``kill -9`` or a full
disk leaves the previous files of ``OUT_DIR`` as they were (also with ``force``), and never
half a file under a final name. Existing files are replaced, never written through (a symbolic
link in ``OUT_DIR`` is replaced by the file, what it pointed to is untouched). A write that
fails raises :class:`ExportFailed`, one line naming the folder ("no space left on ..." for a
full disk); the staging folder is removed then, and that of a killed export the next time.

Example:
    >>> export_encoder("runs/small", "my_model", float16=True)     # doctest: +SKIP
    PosixPath('my_model')
"""

from __future__ import annotations

import errno
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import torch

from .checkpoint import load_weights, save_weights
from .overwrite import check_output_folder
from .run_dir import load_run, write_run_config
from .safe_files import process_alive, write_sha256sums

__all__ = ["ExportFailed", "export_allennlp", "export_copy", "export_encoder"]

STAGING = ".export-"  # prefix of the staging folder: ".export-<pid>-<random>"


class ExportFailed(OSError):
    """Writing an export failed (full disk, read-only folder...); ``OUT_DIR`` is unchanged."""


@contextmanager
def _staged(out_dir: str | Path) -> Iterator[Path]:
    """A fresh staging folder inside ``out_dir``; its files replace those of ``out_dir`` when
    the block ends without an error, else it is removed and :class:`ExportFailed` raised."""
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
        _remove_dead_staging(out)
        stage = Path(tempfile.mkdtemp(prefix=f"{STAGING}{os.getpid()}-", dir=out))
    except OSError as error:
        raise _failed(out, error) from None
    try:
        yield stage
        for path in sorted(stage.iterdir()):  # each complete: the renames are all that is left
            os.replace(path, out / path.name)
    except Exception as error:
        if not _is_write_error(error):
            raise
        raise _failed(out, error) from None
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def _is_write_error(error: Exception) -> bool:
    """An ``OSError``, or safetensors' error while writing (it wraps the ``OSError``)."""
    return isinstance(error, OSError) or type(error).__name__ == "SafetensorError"


def _failed(out: Path, error: Exception) -> ExportFailed:
    text = str(error)
    if getattr(error, "errno", None) in (errno.ENOSPC, errno.EDQUOT) or "No space left" in text \
            or "os error 28" in text:
        return ExportFailed(f"no space left on {out} for the export; free space or choose "
                            "another OUT_DIR (the files already there are unchanged)")
    reason = getattr(error, "strerror", None) or (text.strip().splitlines() or [""])[0][:120]
    return ExportFailed(f"could not write the export into {out} ({type(error).__name__}: "
                        f"{reason}); the files already there are unchanged")


def _remove_dead_staging(out: Path) -> None:
    """Remove staging folders whose export process no longer runs (it was killed)."""
    for stage in out.glob(f"{STAGING}*"):
        pid = stage.name[len(STAGING):].split("-")[0]
        if pid.isdigit() and not process_alive(int(pid)):
            shutil.rmtree(stage, ignore_errors=True)


def export_encoder(run_dir: str | Path, out_dir: str | Path, float16: bool = False,
                   checkpoint: bool = False, force: bool = False) -> Path:
    """Write the encoder of a run (no softmax) as a minimal run directory; return it.

    Args:
        run_dir: a run directory (from ``elmo-tutorial train``).
        out_dir: where ``config.json``, ``model.safetensors`` and ``SHA256SUMS`` go.
        float16: store the floating-point weights as float16.
        checkpoint: export the newest checkpoint instead of the final weights.
        force: write even if ``out_dir`` is not empty (else ``overwrite.WouldOverwrite``).
    """
    check_output_folder(out_dir, force)
    config, state, _, _ = load_run(run_dir, checkpoint=checkpoint)
    encoder = {k: v.to(torch.float16) if float16 and v.is_floating_point() else v
               for k, v in state.items() if not k.startswith("softmax.")}
    with _staged(out_dir) as stage:
        save_weights(stage / "model.safetensors", encoder)
        write_run_config(stage, replace(config, vocab_size=0), {})
        write_sha256sums(stage, ["config.json", "model.safetensors"])
    return Path(out_dir)


def export_copy(run_dir: str | Path, out_dir: str | Path, float16: bool = False,
                force: bool = False) -> Path:
    """Copy a finished run without its checkpoints (weights optionally float16); return it.

    Args:
        run_dir: a run directory with final weights (from ``elmo-tutorial train``).
        out_dir: where the copy goes.
        float16: store the floating-point weights as float16 (half the size).
        force: write even if ``out_dir`` is not empty (else ``overwrite.WouldOverwrite``).

    Raises:
        FileNotFoundError: the run has no final weights (finish or resume its training).
    """
    run, out = Path(run_dir), Path(out_dir)
    if not (run / "model.safetensors").exists():
        raise FileNotFoundError(f"{run} has no final model.safetensors; finish (or --resume) "
                                "its training first")
    check_output_folder(out_dir, force)
    weights = load_weights(run / "model.safetensors", dtype=None)
    if float16:
        weights = {k: v.to(torch.float16) if v.is_floating_point() else v
                   for k, v in weights.items()}
    names = ["config.json", "vocab.txt", "log.jsonl", "model.safetensors"]
    with _staged(out) as stage:
        save_weights(stage / "model.safetensors", weights)
        for name in names[:3]:
            if (run / name).exists():
                shutil.copyfile(run / name, stage / name)
        write_sha256sums(stage, [name for name in names if (stage / name).exists()])
    return out


def export_allennlp(run_dir: str | Path, out_dir: str | Path, checkpoint: bool = False,
                    force: bool = False) -> tuple[Path, Path]:
    """Write a run's biLM as ``OUT_DIR/options.json`` and ``OUT_DIR/weights.hdf5``; return both.

    The softmax is left out, as in the released ELMo files. ``OUT_DIR`` must be new or empty
    unless ``force`` (else ``overwrite.WouldOverwrite``, naming its files).
    """
    check_output_folder(out_dir, force)
    from .allennlp_format import save_allennlp
    from .elmo import ELMo

    model = ELMo.from_run(run_dir, checkpoint=checkpoint)
    with _staged(out_dir) as stage:
        save_allennlp(model, stage / "options.json", stage / "weights.hdf5")
    return Path(out_dir) / "options.json", Path(out_dir) / "weights.hdf5"
