"""How good is a biLM as a language model: the quality figure's held-out perplexity, measured.

The task report's quality figure puts the gain of + ELMo beside each biLM's perplexity. The
perplexities must be measured the same way to be put on one axis: the first
:data:`SENTENCES` sentences of the ``test`` split of the corpus the biLM was trained on, every
word predicted by the full softmax (:func:`~elmo_tutorial.training.evaluation.evaluate_run`).

A run directory with its softmax is scored when the report starts. An encoder without it (a
shipped model: ELMo never needs the softmax, so the export drops it) cannot score a word; its
perplexity is the one measured on the full run before the export, kept beside the weights in
``heldout.json`` (:data:`HELDOUT_FILE`), which :func:`write_heldout` writes and
:func:`heldout_perplexity` reads back, checking that it was measured as the figure needs.

Example:
    >>> from elmo_tutorial.training.run_folder import shipped_model
    >>> round(heldout_perplexity(shipped_model("small")), 1)       # read from heldout.json
    107.5
"""

from __future__ import annotations

import json
from pathlib import Path

from elmo_tutorial.training.run_folder import read_run_config

__all__ = ["HELDOUT_FILE", "SENTENCES", "SPLIT", "heldout_perplexity", "write_heldout"]

HELDOUT_FILE = "heldout.json"
SPLIT, SENTENCES = "test", 2000  # the first 2000 sentences of the test split


def write_heldout(run_dir: str | Path, out_dir: str | Path,
                  checkpoint: bool | str | Path = False) -> Path:
    """Score ``run_dir`` (or one of its checkpoints) as the figure does and write the result
    to ``out_dir / heldout.json`` (e.g. beside the encoder that ``export --encoder`` wrote)."""
    from elmo_tutorial.training.evaluation import evaluate_run

    result = evaluate_run(run_dir, SPLIT, SENTENCES, ngram=False, checkpoint=checkpoint)
    path = Path(out_dir) / HELDOUT_FILE
    path.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return path


def heldout_perplexity(model_dir: str | Path) -> float | None:
    """The average (forward and backward) perplexity of a biLM on the first 2000 test
    sentences of its corpus; None for a model that has neither a softmax nor a
    ``heldout.json`` (an official hdf5 file, for instance).

    Raises:
        ValueError: ``heldout.json`` is not a result of that measurement (another split,
            another number of sentences).
    """
    from elmo_tutorial.training.evaluation import evaluate_run

    folder = Path(model_dir)
    if not (folder / "config.json").is_file():
        return None  # options.json + weights.hdf5: not one of ours
    config = read_run_config(folder)[0]
    if config.vocab_size > 0:  # it has its softmax: measure it now
        return evaluate_run(folder, SPLIT, SENTENCES, ngram=False)["bilm"]["avg_ppl"]
    path = folder / HELDOUT_FILE
    if not path.exists():
        return None
    result = json.loads(path.read_text(encoding="utf-8"))
    if (result.get("split"), result.get("n_sentences")) != (SPLIT, SENTENCES):
        raise ValueError(f"{path} is not a held-out perplexity measured on the first "
                         f"{SENTENCES} sentences of the {SPLIT!r} split (write it with "
                         "elmo_tutorial.tasks.quality.write_heldout from the full run)")
    return float(result["bilm"]["avg_ppl"])
