"""Scoring a biLM: held-out perplexities, of a model in memory or of a trained run directory.

Perplexity is ``exp(mean negative log-likelihood per predicted word)``, per direction; "avg"
is ``exp`` of the mean of the two NLLs, as bilm-tf reports. :func:`evaluate_run` puts a run's
next to a Kneser-Ney trigram (:mod:`elmo_tutorial.training.ngram`) fitted on the same training
sentences; ``elmo-tutorial evaluate`` prints what it returns.

Example:
    >>> result = evaluate_run("runs/tiny", max_sentences=200)     # doctest: +SKIP
    >>> result["bilm"]["avg_ppl"] < result["ngram"]["avg_ppl"]     # doctest: +SKIP
    True
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import torch

from elmo_tutorial.data.corpora import load_sentences
from elmo_tutorial.fast import speed_up
from elmo_tutorial.model.batching import bucket_batches, make_lm_batch
from elmo_tutorial.model.lm import BidirectionalLM
from elmo_tutorial.runtime import resolve_device
from elmo_tutorial.training.checkpoints import check_weights
from elmo_tutorial.training.ngram import ngram_perplexity
from elmo_tutorial.training.run_folder import load_run, read_run_config, weights_file
from elmo_tutorial.training.train_config import TrainConfig

__all__ = ["evaluate_perplexity", "evaluate_run"]


@torch.no_grad()
def evaluate_perplexity(model, sentences, vocab, device="cpu", batch_size: int = 64) -> dict:
    """Forward, backward and average perplexity of a ``BidirectionalLM`` (full softmax) on
    tokenized ``sentences``, batched by length on the model's ``device``.

    Returns:
        ``fwd_ppl``, ``bwd_ppl``, ``avg_ppl``, the NLLs per prediction ``fwd_nll`` and
        ``bwd_nll``, and ``n_tokens``, the predictions per direction.
    """
    was_training = model.training
    model.eval()
    nll = torch.zeros(2, dtype=torch.float64)
    n = 0
    for idx in bucket_batches([len(s) for s in sentences], batch_size=batch_size, shuffle=False):
        batch = make_lm_batch([sentences[i] for i in idx], vocab).to(device)
        out = model(batch, sampled=False)
        nll += torch.tensor([float(out.forward_nll), float(out.backward_nll)]) * out.n_tokens
        n += int(out.n_tokens)
    model.train(was_training)
    if not n:  # "1.00" would read as a perfect model
        raise ValueError("there is no held-out sentence to score: a perplexity needs text "
                         "(is the held-out split empty?)")
    f, b = (nll / n).tolist()
    return {"fwd_ppl": math.exp(f), "bwd_ppl": math.exp(b), "avg_ppl": math.exp((f + b) / 2),
            "fwd_nll": f, "bwd_nll": b, "n_tokens": n}


def evaluate_run(run_dir: str | Path, split: str = "valid", max_sentences: int = 0,
                 ngram: bool = True, checkpoint: bool | str | Path = False, device: str = "cpu",
                 ngram_train_sentences: int | None = 50_000) -> dict:
    """Perplexities of a trained run on a held-out split of the corpus it was trained on.

    Args:
        max_sentences: score only the first N sentences (0 = all).
        ngram: also fit and score the Kneser-Ney trigram baseline.
        checkpoint: as :func:`~.run_folder.weights_file` takes it.
        ngram_train_sentences: fit the trigram on at most this many of the sentences the run
            trained on (nltk.lm is pure Python; ``None`` = all).

    Returns:
        ``{"split", "weights", "n_sentences", "bilm": {...}, "ngram": {...} or None}``:
        ``weights`` is what was scored (``"model.safetensors"``, ``"checkpoints/step_000200"``);
        the inner dicts as :func:`evaluate_perplexity` returns them (the trigram's with
        ``train_sentences``).
    """
    device = resolve_device(device)  # before any loading: a device this machine lacks
    run = Path(run_dir)
    read_run_config(run)  # a run at all (says what is wrong) before its weights are chosen
    weights = weights_file(run, checkpoint)  # model.safetensors or a checkpoint's
    config, state, vocab, train = load_run(run, checkpoint=weights.parent)
    if config.vocab_size == 0 or vocab is None:
        raise ValueError(f"{run_dir} holds an encoder without its softmax (e.g. a shipped "
                         "model): it cannot score words, so it has no perplexity")
    train_cfg = TrainConfig.from_dict(train, source=str(Path(run_dir) / "config.json"))
    model = BidirectionalLM(config)
    check_weights(f"{run_dir} (its weights)", state, model.state_dict())
    model.load_state_dict(state)
    model.to(device)
    speed_up(model)  # the fast modules: the same perplexities up to float rounding
    sentences = load_sentences(train_cfg.corpus, split, max_sentences or None)
    if not sentences:
        raise ValueError(f"the {split} split of the corpus {train_cfg.corpus!r} has no sentence "
                         "with a word in it (its files empty or blank?): fetch its datasets "
                         "again (`elmo-tutorial data list` shows them; `elmo-tutorial data "
                         "download <dataset> --force` fetches one), or score another --split")
    scored = weights if weights.parent == run else weights.parent
    result = {"split": split, "weights": Path(os.path.relpath(scored, run)).as_posix(),
              "n_sentences": len(sentences),
              "bilm": evaluate_perplexity(model, sentences, vocab, device), "ngram": None}
    if ngram:
        # The biLM's own training text (a run of train_sentences read only those), capped
        caps = [n for n in (train_cfg.train_sentences, ngram_train_sentences) if n]
        train = [s[: train_cfg.max_sentence_words]
                 for s in load_sentences(train_cfg.corpus, "train", min(caps, default=None))]
        result["ngram"] = ngram_perplexity(train, sentences, vocab, max_train_sentences=None)
        result["ngram"]["train_sentences"] = len(train)
    return result
