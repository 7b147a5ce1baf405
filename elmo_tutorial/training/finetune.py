"""Fine-tune a trained biLM on a task's own text (Peters et al. 2018, Sec. 3.4 and Appendix A.1).

Taught in notebook 13 (``13_what_the_payoff_is_made_of``).

The paper: "In some cases, fine tuning the biLM on domain specific data leads to significant
drops in perplexity and an increase in downstream task performance" (Sec. 3.4). Appendix A.1
fine-tunes for one epoch on a task's training sentences, labels ignored, and then freezes the
biLM for task training. :class:`FineTuner` does that with the package's own training loop
(:class:`~elmo_tutorial.training.train.Trainer`: the same batches, loss, clipping, checkpoints and
logs), started from a run's weights and written to a **new** run directory, which
``load_elmo`` and ``elmo-tutorial tasks`` read like any other run.

A run without a softmax (the shipped ``small`` encoder, ``vocab_size`` 0) cannot score words,
so a fresh softmax over the domain's vocabulary is trained first with the encoder frozen
(``head_steps``): the "before" model is the original encoder with the best head these steps
find (trained on the encoder's top layer computed once, which is fast). Then the whole biLM
trains (``steps``). ``freeze_encoder=True`` trains the head alone for those steps: the
control that separates what the encoder learned from what more training of the head gives::

    before  = head_steps with the encoder frozen              → perplexity on held-out text
    after   = + steps of the whole biLM (or the head alone)   → perplexity on held-out text

Example:
    >>> from elmo_tutorial.data.annotated import wnut17                          # doctest: +SKIP
    >>> tweets = [t for t, _ in wnut17("train")]                            # doctest: +SKIP
    >>> result = finetune("data/models/small", tweets, held_out, "runs/small-wnut",
    ...                   steps=100, head_steps=200, vocab_min_count=3)    # doctest: +SKIP
    >>> result["before"]["avg_ppl"], result["after"]["avg_ppl"]            # doctest: +SKIP
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import torch

from elmo_tutorial.files.overwrite import check_fresh_run_dir
from elmo_tutorial.files.safe_files import atomic_write_text
from elmo_tutorial.model.batching import bucket_batches, make_lm_batch
from elmo_tutorial.training.run_folder import load_run
from elmo_tutorial.training.train import Trainer, TrainingInterrupted, counted_vocabulary
from elmo_tutorial.training.train_config import TrainConfig

__all__ = ["FineTuner", "FineTuningInterrupted", "finetune", "finetune_config"]

Sentence = list[str]


class FineTuningInterrupted(TrainingInterrupted):
    """Fine-tuning was stopped (Ctrl-C). Unlike training, it cannot be continued (the head
    steps and the "before" perplexity are not in the checkpoint): it is started again."""

    def __init__(self, stopped: TrainingInterrupted, total_steps: int,
                 out_dir: str | Path) -> None:
        signal_name = getattr(stopped, "signal_name", "")
        by = f" by {signal_name}" if signal_name else ""
        Exception.__init__(self, f"stopped{by} at step {stopped.step} of {total_steps}; "
                           "fine-tuning cannot be continued: run the same command again with "
                           f"--force to start it over (it replaces the unfinished run in "
                           f"{out_dir})")
        self.step, self.checkpoint = stopped.step, stopped.checkpoint
        self.signal_name = signal_name


def finetune_config(source: str | Path, out_dir: str | Path, steps: int,
                    **overrides) -> TrainConfig:
    """A ``TrainConfig`` for fine-tuning ``source``: its architecture, ``steps``
    optimiser steps, evaluation only at the end, on one CPU thread;
    ``overrides`` change any other field (``lr``, ``batch_size``, ``vocab_min_count``,
    ``threads``, ``progress``, ...).

    ``corpus`` stays the source's pre-training corpus (the shipped ``small``: ``english_mix``),
    so that ``elmo-tutorial tasks`` gives the fine-tuned run the same baseline vectors."""
    if steps < 1:
        raise ValueError(f"fine-tuning needs steps ≥ 1, got {steps}")
    config, _, _, trained = load_run(source)
    architecture = {k: v for k, v in config.to_dict().items() if k not in ("vocab_size", "dropout")}
    preset = "small" if config.lstm_dim >= 512 else "tiny"  # the fields below replace it all
    base = TrainConfig(model=preset, model_overrides=architecture,
                       corpus=trained.get("corpus", "english_mix"), dropout=config.dropout,
                       lr=1e-3, batch_size=32, max_steps=steps,
                       eval_interval=0, checkpoint_interval=0, log_interval=10, device="cpu",
                       out_dir=str(out_dir),
                       # A count of its own, so the same command reports the same numbers
                       # anywhere; one thread: the matrices are small (benchmarks/RESULTS.md)
                       threads=1)
    return replace(base, **overrides)


def _with_words(sentences: Sequence[Sentence]) -> list[Sentence]:
    """The sentences' words, without empty or blank tokens (as ``corpora.load_sentences``
    reads a corpus), and without the sentences left with none."""
    kept = ([w for w in s if w.split() == [w]] for s in sentences)
    return [s for s in kept if s]


class FineTuner(Trainer):
    """:class:`~elmo_tutorial.training.train.Trainer` that starts from ``source``'s weights and
    trains on the sentences it is given instead of ``config.corpus``.

    Args:
        source: a run directory (``load_run``); it is only read.
        train_sentences, valid_sentences: the domain's text (tokenized); training sentences
            longer than ``config.max_sentence_words`` are cut.
        config: see :func:`finetune_config`; ``config.out_dir`` must not be ``source``.
        freeze_encoder: train the softmax alone (the control).
        force: replace a run already in ``config.out_dir``.

    The vocabulary is ``source``'s if it has a softmax (its softmax is kept), else the words
    of ``train_sentences`` seen at least ``config.vocab_min_count`` times, with a new softmax
    that :meth:`fit_softmax` trains before :meth:`fit` trains the whole biLM.
    """

    def __init__(self, source: str | Path, train_sentences: Sequence[Sentence],
                 valid_sentences: Sequence[Sentence], config: TrainConfig,
                 freeze_encoder: bool = False, force: bool = False) -> None:
        if Path(config.out_dir).resolve() == Path(source).resolve():
            raise ValueError(f"fine-tuning would write over its source run {source}: give "
                             "another output directory (--out)")
        self._domain = (_with_words(train_sentences), _with_words(valid_sentences))
        if not all(self._domain):  # blank text has no word to learn or to score
            raise ValueError("fine-tuning needs training and held-out sentences with words; "
                             f"got {len(self._domain[0])} and {len(self._domain[1])}")
        # Here rather than in Trainer, whose message offers a --resume fine-tuning lacks
        check_fresh_run_dir(config.out_dir, force, resumable=False, doing="fine-tuning into it")
        self.source_run, self.source = load_run(source), str(source)
        self.freeze_encoder = freeze_encoder
        super().__init__(config, force=force)

    def _load_sentences(self) -> None:
        train, valid = self._domain
        self.train_sents = [s[: self.config.max_sentence_words] for s in train]
        self.valid_sents = valid[: self.config.eval_sentences or None]

    def _make_vocabulary(self, resume: bool):
        if self.source_run.vocab is not None:
            return self.source_run.vocab
        return counted_vocabulary(self.config, self.train_sents)  # refuses one without a word

    def _build_model(self) -> None:
        super()._build_model()
        missing, unexpected = self.model.load_state_dict(self.source_run.state, strict=False)
        new_softmax = self.source_run.vocab is None
        if unexpected or any(not (new_softmax and k.startswith("softmax.")) for k in missing):
            raise ValueError(f"{self.source}: its weights do not fit its config.json (missing "
                             f"{sorted(missing)[:5]}, unexpected {sorted(unexpected)[:5]})")

    def fit(self, stop_after: int | None = None) -> dict:
        """:meth:`Trainer.fit`, with a Ctrl-C that says how fine-tuning goes on: started
        again, as it has no ``--resume``."""
        try:
            return super().fit(stop_after)
        except TrainingInterrupted as stopped:
            out_dir = self.config.out_dir
            raise FineTuningInterrupted(stopped, self.total_steps, out_dir) from None

    def compute_gradients(self, global_batch: list[int]) -> tuple[float, int]:
        try:
            return super().compute_gradients(global_batch)
        except FloatingPointError:  # Trainer's advice names train's settings and --resume
            raise FloatingPointError(
                f"the loss is not finite at fine-tuning step {self.step + 1}: try a lower --lr "
                f"(it is {self.config.lr:g}) and run the command again") from None

    def encoder_parameters(self) -> list[torch.nn.Parameter]:
        """Every parameter but the softmax's: what ELMo keeps."""
        return [p for name, p in self.model.named_parameters() if not name.startswith("softmax.")]

    def train_step(self, global_batch: list[int]) -> dict:
        for parameter in self.encoder_parameters():  # no gradient: Adam leaves it as it is
            parameter.requires_grad_(not self.freeze_encoder)
        return super().train_step(global_batch)

    @torch.no_grad()
    def top_layers(self) -> tuple[torch.Tensor, torch.Tensor]:
        """The frozen encoder's top layer at every prediction of the training sentences,
        both directions: ``(N, P)`` features and their ``(N,)`` target word ids."""
        features, targets = [], []
        was_training = self.model.training
        self.model.eval()  # no dropout: the features are computed once
        for idx in bucket_batches([len(s) + 2 for s in self.train_sents], batch_size=64,
                                  shuffle=False):
            batch = make_lm_batch([self.train_sents[i] for i in idx], self.vocab)
            out = self.model.encode(batch.char_ids.to(self.dist.device))
            for direction in ("forward", "backward"):
                wanted = getattr(batch, f"{direction}_targets").to(self.dist.device)  # (B, T)
                keep = wanted != -100
                features.append(out[direction][-1][keep])
                targets.append(wanted[keep])
        self.model.train(was_training)
        return torch.cat(features), torch.cat(targets)

    def fit_softmax(self, steps: int, lr: float = 1e-2, predictions: int = 2048) -> float:
        """Train the softmax alone, ``steps`` Adam steps on random ``predictions`` of the
        frozen encoder's cached top layer (an encoder's forward pass per sentence, once, instead
        of one per step); returns the last step's loss (NLL per prediction)."""
        features, targets = self.top_layers()
        optimizer = torch.optim.Adam(self.model.softmax.parameters(), lr=lr)
        generator = torch.Generator().manual_seed(self.config.seed)
        loss = torch.tensor(float("nan"))
        for _ in range(steps):
            pick = torch.randint(len(targets), (min(predictions, len(targets)),),
                                 generator=generator).to(targets.device)
            nll_sum, n = self.model.softmax(features[pick], targets[pick])
            loss = nll_sum / n
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
        return float(loss.detach())


def finetune(source: str | Path, train_sentences: Sequence[Sentence],
             valid_sentences: Sequence[Sentence], out_dir: str | Path, steps: int,
             head_steps: int = 0, freeze_encoder: bool = False, force: bool = False,
             **overrides) -> dict:
    """Fine-tune ``source`` on the domain's sentences into the new run ``out_dir``.

    ``head_steps`` first trains the softmax alone on the frozen encoder
    (:meth:`FineTuner.fit_softmax`; required when ``source`` has no softmax); then ``steps``
    steps of the training loop train the whole biLM (the softmax alone if ``freeze_encoder``).

    Returns ``{"source", "out_dir", "steps", "head_steps", "freeze_encoder", "vocab_size",
    "vocab_min_count", "lr", "batch_size", "train_sentences", "valid_sentences", "before":
    held-out perplexities before the ``steps`` (after the head steps), "after": at the end,
    "seconds"}``, the perplexities as ``evaluation.evaluate_perplexity`` gives them;
    also written to ``out_dir/finetune.json``.
    """
    import time

    started = time.perf_counter()
    config = finetune_config(source, out_dir, steps, **overrides)
    tuner = FineTuner(source, train_sentences, valid_sentences, config,
                      freeze_encoder=freeze_encoder, force=force)
    if tuner.source_run.vocab is None and head_steps < 1:
        raise ValueError(f"{source} has no softmax (an encoder only), so a new one must be "
                         "trained first: give head_steps ≥ 1")
    if head_steps:
        tuner.fit_softmax(head_steps)
    before = tuner.evaluate()
    after = tuner.fit()
    result = {"source": str(source), "out_dir": str(out_dir), "steps": steps,
              "head_steps": head_steps, "freeze_encoder": freeze_encoder,
              "vocab_size": len(tuner.vocab), "vocab_min_count": config.vocab_min_count,
              "lr": config.lr, "batch_size": config.batch_size,
              "train_sentences": len(tuner.train_sents),
              "valid_sentences": len(tuner.valid_sents), "before": before, "after": after,
              "seconds": time.perf_counter() - started}
    atomic_write_text(Path(out_dir) / "finetune.json", json.dumps(result, indent=2) + "\n")
    return result
