"""The quality figure's held-out perplexity: the first :data:`SENTENCES` sentences of the
``test`` split of the biLM's corpus, every word predicted by the full softmax
(:func:`~elmo_tutorial.training.evaluation.evaluate_run`). An encoder exported without its
softmax keeps the perplexity measured before the export in ``heldout.json`` (:func:`write_heldout`).

Example:
    >>> from elmo_tutorial.training.run_folder import shipped_model
    >>> round(heldout_perplexity(shipped_model("small")), 1)       # read from heldout.json
    107.5
"""

from __future__ import annotations

import json
from pathlib import Path

from elmo_tutorial.training.run_folder import read_run_config

__all__ = ["HELDOUT_FILE", "SENTENCES", "SPLIT", "heldout_perplexity", "quality_models",
           "write_heldout"]

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
    sentences of its corpus; None for a model with neither a softmax nor a ``heldout.json``
    (an official hdf5 file, for instance). A ``heldout.json`` measured otherwise is refused."""
    from elmo_tutorial.training.evaluation import evaluate_run

    folder = Path(model_dir)
    if not (folder / "config.json").is_file():
        return None  # options.json + weights.hdf5: not one of ours
    if read_run_config(folder)[0].vocab_size > 0:  # it has its softmax: measure it now
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


def quality_models(runs) -> dict:
    """``{name: (ELMo, held-out perplexity)}`` of the quality figure's biLMs (``--quality``)."""
    from elmo_tutorial.training.run_folder import load_elmo

    models = {}
    for run in runs:
        name = Path(run).name
        if name in models or name == "main":
            raise ValueError(f"two quality runs are named {name!r}: give them distinct folders")
        ppl = heldout_perplexity(run)
        if ppl is None:
            raise ValueError(f"{run} has no held-out perplexity (no softmax to score words "
                             "with, no heldout.json): the quality figure cannot place it")
        models[name] = (load_elmo(run), ppl)
    return models
