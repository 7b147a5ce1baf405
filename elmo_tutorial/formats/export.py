"""Writing a trained run in other forms: an encoder-only run, or the official AllenNLP files.

Taught in notebook 11 (``11_pretrained_and_scale``).

* :func:`export_encoder` writes a minimal run directory: ``config.json`` (``vocab_size`` 0),
  ``model.safetensors`` with the encoder only (no softmax: ELMo never uses it), optionally in
  float16 (half the size; loading casts back to float32), and ``SHA256SUMS``. That is how the
  course's shipped model was made; ``ELMo.from_run(OUT_DIR)`` loads it.
* :func:`export_copy` writes a compact copy of a whole run: ``config.json``, ``vocab.txt``,
  ``log.jsonl`` and the final weights with the softmax (optionally float16), plus
  ``SHA256SUMS``; no checkpoints. It can still be evaluated; ``data/models/tiny`` is one.
* :func:`export_allennlp` writes ``options.json`` and ``weights.hdf5`` in the format of bilm-tf
  and AllenNLP (:mod:`elmo_tutorial.formats.allennlp_format`); they load in AllenNLP's ``Elmo`` and
  back here with ``load_allennlp``.

``elmo-tutorial export`` calls these. Every export is published whole or not at all: the files
are written in a hidden staging folder beside ``OUT_DIR`` (``.OUT_DIR.export-<pid>-…``), the
other files of ``OUT_DIR`` (a model card) are linked in, and the complete folder takes the
place of ``OUT_DIR`` by renames (old aside, new in, old deleted). A crash, ``kill -9`` or a
full disk leaves the previous ``OUT_DIR`` as it was (also with ``force``), never new files
beside old ones; the next export finishes or undoes a swap that was cut
(:func:`recover_export`). Existing files are replaced, never written through (a symbolic link
in ``OUT_DIR`` is replaced by the file, what it pointed to is untouched). A write that fails
raises :class:`ExportFailed`, one line naming the folder ("no space left on ..." for a full
disk). A file of the run that is a link out of the run folder, a FIFO or a device is refused
before anything is written: the export's ``SHA256SUMS`` vouches only for the run's own files.

Example:
    >>> export_encoder("runs/small", "my_model", float16=True)     # doctest: +SKIP
    PosixPath('my_model')
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import torch

from elmo_tutorial.files.overwrite import check_output_folder
from elmo_tutorial.files.safe_files import (
    check_regular_file,
    is_disk_full,
    process_alive,
    write_sha256sums,
)
from elmo_tutorial.files.staging import recover_staged, staged_folder
from elmo_tutorial.formats.allennlp_format import save_allennlp
from elmo_tutorial.model.checkpoint import load_weights, save_weights
from elmo_tutorial.model.elmo import ELMo
from elmo_tutorial.model.run_dir import load_run, write_run_config

__all__ = ["ExportFailed", "export_allennlp", "export_copy", "export_encoder", "recover_export"]

WORD = "export"  # the staging folder beside OUT_DIR: .OUT_DIR.export-<pid>-XXXX
STAGING = ".export-"  # staging inside OUT_DIR, as exports before the whole-folder swap made
MAX_WEIGHTS_BYTES = 1 << 36


class ExportFailed(OSError):
    """Writing an export failed (full disk, read-only folder...); ``OUT_DIR`` is unchanged."""


@contextmanager
def _staged(out_dir: str | Path) -> Iterator[Path]:
    """A fresh staging folder beside ``out_dir`` (:func:`~elmo_tutorial.files.staging.
    staged_folder`); when the block ends without an error it takes the place of ``out_dir``
    (keeping the files of ``out_dir`` that the export does not write), else it is removed and
    :class:`ExportFailed` raised. Readers see the old folder or the new one, never a mix: new
    ``SHA256SUMS`` beside old weights would not load."""
    out = _real(out_dir)
    try:
        recover_export(out)
        with staged_folder(out, WORD, replace=True) as stage:
            yield stage
            _carry_over(out, stage)
    except Exception as error:
        if not _is_write_error(error):
            raise
        raise _failed(out, error) from None


def _real(out_dir: str | Path) -> Path:
    """``out_dir``, or the folder it links to: the folder is replaced, the link kept."""
    out = Path(out_dir)
    return out.resolve() if out.is_symlink() else out


def _carry_over(out: Path, stage: Path) -> None:
    """Put into ``stage`` the entries of ``out`` that the export does not write (a model
    card, notes), hard-linked where the file system allows: the swap must lose nothing."""
    if not out.is_dir():
        return
    shutil.copymode(out, stage)
    for entry in out.iterdir():
        if (stage / entry.name).exists() or entry.name.startswith(STAGING):
            continue
        if entry.is_symlink():
            os.symlink(os.readlink(entry), stage / entry.name)
        elif entry.is_dir():
            shutil.copytree(entry, stage / entry.name, symlinks=True, copy_function=_link)
        else:
            _link(entry, stage / entry.name)


def _link(source: str | Path, dest: str | Path) -> None:
    try:
        os.link(source, dest)
    except OSError:  # another file system's rules, or a special file: a copy, then
        shutil.copy2(source, dest, follow_symlinks=False)


def recover_export(out_dir: str | Path) -> None:
    """Finish or undo what a killed export left beside (and inside) ``out_dir``: its staging
    folder is removed; a complete one whose swap had begun (``out_dir`` moved aside) is put in
    place, else dropped; a previous folder moved aside is deleted, or put back if nothing took
    its place (:func:`~elmo_tutorial.files.staging.recover_staged`). Only folders of processes
    that no longer run are touched."""
    out = _real(out_dir)
    if out.is_dir():  # the staging folders of earlier versions, inside OUT_DIR
        for stage in out.glob(f"{STAGING}*"):
            pid = stage.name[len(STAGING):].split("-")[0]
            if pid.isdigit() and not process_alive(int(pid)):
                shutil.rmtree(stage, ignore_errors=True)
    recover_staged(out.parent, WORD, out.name)


def _is_write_error(error: Exception) -> bool:
    """An ``OSError``, or safetensors' error while writing (it wraps the ``OSError``)."""
    return isinstance(error, OSError) or type(error).__name__ == "SafetensorError"


def _failed(out: Path, error: Exception) -> ExportFailed:
    if is_disk_full(error):
        return ExportFailed(f"no space left on {out} for the export; free space or choose "
                            "another OUT_DIR (the files already there are unchanged)")
    text = str(error)
    reason = getattr(error, "strerror", None) or (text.strip().splitlines() or [""])[0][:120]
    return ExportFailed(f"could not write the export into {out} ({type(error).__name__}: "
                        f"{reason}); the files already there are unchanged")


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
    recover_export(out_dir)  # an export killed mid-swap must not make OUT_DIR "not empty"
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
    if not (run / "model.safetensors").exists() and not (run / "model.safetensors").is_symlink():
        raise FileNotFoundError(f"{run} has no final model.safetensors; finish (or --resume) "
                                "its training first")
    names = ["config.json", "vocab.txt", "log.jsonl", "model.safetensors"]
    for name in names:  # what SHA256SUMS will vouch for must be the run's own files
        if (run / name).exists() or (run / name).is_symlink():
            check_regular_file(run / name, MAX_WEIGHTS_BYTES, folder=run)
    recover_export(out_dir)
    check_output_folder(out_dir, force)
    weights = load_weights(run / "model.safetensors", dtype=None)
    if float16:
        weights = {k: v.to(torch.float16) if v.is_floating_point() else v
                   for k, v in weights.items()}
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
    recover_export(out_dir)
    check_output_folder(out_dir, force)

    model = ELMo.from_run(run_dir, checkpoint=checkpoint)
    with _staged(out_dir) as stage:
        save_allennlp(model, stage / "options.json", stage / "weights.hdf5")
    return Path(out_dir) / "options.json", Path(out_dir) / "weights.hdf5"
