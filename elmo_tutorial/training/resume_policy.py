"""The resume policy: which training settings a run may change when it resumes from a
checkpoint, and why each of the others may not.

``--resume`` with a changed setting either goes on (the change is announced with what it does
from here on) or stops with the reason. The reasons are the policy a reader looks up, one per
setting, so they are a table of their own; :func:`elmo_tutorial.training.train_config.check_resume`
applies them to two ``TrainConfig`` objects, and ``train_config`` re-exports both tables. Every
``TrainConfig`` field (an architecture field as ``model.FIELD``) is in exactly one of them.

Example:
    >>> FIXED_ON_RESUME["batch_size"]
    "the checkpoint's position in the epoch counts batches of the old size"
    >>> CHANGEABLE_ON_RESUME["lr"]
    "the schedule goes on from the checkpoint's step with the new peak"
"""

from __future__ import annotations

__all__ = ["ARCHITECTURE_REASON", "CHANGEABLE_ON_RESUME", "FIXED_ON_RESUME", "SILENT_ON_RESUME"]


# A checkpoint holds weights of one architecture, an optimiser state, and a position in an epoch
# whose batches come from (corpus, max_sentence_words, batch_size, seed). A change to any of
# those would load into the wrong shapes or silently skip or repeat data: refused, with why.
ARCHITECTURE_REASON = "the checkpoint's weights belong to the old architecture"
FIXED_ON_RESUME: dict[str, str] = {
    **{f"model.{name}": ARCHITECTURE_REASON for name in (
        "char_embed_dim", "filters", "n_highway", "activation", "max_chars", "n_characters",
        "lstm_dim", "projection_dim", "n_layers", "cell_clip", "proj_clip",
        "use_skip_connections")},
    "corpus": "the vocabulary and the position in the data belong to the old corpus",
    "vocab_min_count": "the vocabulary is the run's vocab.txt, and the softmax has its size",
    "vocab_max_size": "the vocabulary is the run's vocab.txt, and the softmax has its size",
    "max_sentence_words": "it changes the batches that the checkpoint's data position counts",
    "batch_size": "the checkpoint's position in the epoch counts batches of the old size",
    "seed": "the order of the epoch in progress comes from the seed",
    "optimizer": "the checkpoint holds the old optimiser's state",
    "adagrad_initial_accumulator": "it only sets the starting accumulator, which the "
                                   "checkpoint already holds",
}
# Changes that leave the weights, the optimiser state and the data position valid: taken, with
# a notice that says what they do from here on.
CHANGEABLE_ON_RESUME: dict[str, str] = {
    "lr": "the schedule goes on from the checkpoint's step with the new peak",
    "schedule": "the learning rate follows the new schedule from the checkpoint's step",
    "warmup_steps": "the learning rate follows the new warm-up from the checkpoint's step",
    "weight_decay": "applies from the next step",
    "grad_clip": "applies from the next step",
    "loss_multiplier": "applies from the next step",
    "dropout": "applies from the next step (no weight depends on it)",
    "sampled_softmax": "the same softmax weights, sampled differently from the next step",
    "epochs": "training goes on to the new length; the schedule stretches to it",
    "max_steps": "training goes on to the new length; the schedule stretches to it",
    "eval_interval": "bookkeeping only", "eval_sentences": "bookkeeping only",
    "checkpoint_interval": "bookkeeping only", "keep_checkpoints": "bookkeeping only",
    "log_interval": "bookkeeping only",
    "device": "where it runs, not what it learns", "amp": "where it runs, not what it learns",
    "threads": "the weights then differ from those of the run left alone (run_threads warns)",
    "progress": "display only", "out_dir": "where the run is",
}
# Differences not worth a notice; a thread count of 0 means "the run's own", and the Trainer
# warns about a count that differs from the run's (run_threads).
SILENT_ON_RESUME = ("out_dir", "progress", "threads")
