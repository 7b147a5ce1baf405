"""How a :class:`~elmo_tutorial.training.train.Trainer` sets up its run and keeps it: the run folder
checked, the thread count, the sentences, the vocabulary, the model and its optimiser, the
run's config and vocabulary written; then its checkpoints, saved and resumed from.

These are the steps of a run's bookkeeping, done once at the start or every
``checkpoint_interval`` steps, which must not lose work or continue a run under settings it
cannot continue under. :mod:`elmo_tutorial.training.train` keeps what happens at every step (the
gradients, the update, the loop, the evaluations), so that a reader of the training algorithm
finds it in one place. ``Trainer`` inherits :class:`RunSetup`; nothing here is used alone.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import torch

from elmo_tutorial.data.corpora import load_sentences
from elmo_tutorial.fast import speed_up
from elmo_tutorial.files.overwrite import check_fresh_run_dir, check_not_a_file, remove_run
from elmo_tutorial.model import checkpoint as ckpt
from elmo_tutorial.model.lm import BidirectionalLM
from elmo_tutorial.model.run_dir import load_run_vocabulary, read_run_config, write_run_config
from elmo_tutorial.model.vocab import Vocabulary
from elmo_tutorial.runtime import (
    available_cores,
    default_threads,
    fused_adam_supported,
    seed_everything,
)
from elmo_tutorial.training import distributed as D
from elmo_tutorial.training.run_threads import training_threads
from elmo_tutorial.training.train_bounds import check_step_fits
from elmo_tutorial.training.train_config import TrainConfig, check_resume

__all__ = ["RunSetup"]


class RunSetup:
    """The set-up and checkpoint methods of :class:`~elmo_tutorial.training.train.Trainer`, which
    calls them from its ``__init__`` (in the order there) and its loop. They read and set the
    attributes ``Trainer.__init__`` sets (``config``, ``out``, ``dist``, ``fast``, ``step``,
    ``epoch``, ``batch_in_epoch``) and the ``scheduler`` of ``Trainer._plan_steps``."""

    config: TrainConfig
    out: Path
    dist: D.DistInfo
    fast: bool = True  # train the model's fast modules (elmo_tutorial.fast.speed_up)

    # -- setting up --------------------------------------------------------------------------
    def _check_run_dir(self, resume: bool, force: bool) -> str | None:
        """Refuse what would lose work; with ``force``, return the run that will be replaced.

        Training afresh must not delete a run unless forced (``check_fresh_run_dir``); a resumed
        run must have a checkpoint, and may change only settings its checkpoint can continue
        under (``train_config.check_resume``), which are announced.
        """
        if not resume:
            return check_fresh_run_dir(self.out, force)
        check_not_a_file(self.out, "a run directory (--out)")
        if not ckpt.checkpoints(self.out):
            raise FileNotFoundError(f"--resume: {self.out} has no checkpoint to resume from; "
                                    "start without --resume (or point --out at the run)")
        self._recorded_threads = 0  # a run without config.json: as one of an older version
        if (self.out / "config.json").exists():
            recorded, train = read_run_config(self.out)
            saved = TrainConfig.from_dict(train, source=str(self.out / "config.json"))
            self._recorded_threads = saved.threads
            for notice in check_resume(saved, self.config, str(self.out), recorded):
                if self.dist.is_main:
                    print(f"resuming with a changed setting: {notice}", file=sys.stderr)
        return None

    _recorded_threads: int | None = None  # threads in config.json when resuming

    def _set_threads(self, resume: bool) -> None:
        """Train on the run's thread count (:mod:`elmo_tutorial.training.run_threads`): a new run's
        ``config.threads`` or the cores free now, a resumed run's recorded count unless another
        is asked for. ``self.config`` takes the count, so that config.json records it."""
        def free() -> int:  # every process trains on rank 0's count: one rule for the run
            return D.all_gather_objects(default_threads(), self.dist)[0]

        asked = self.config.threads
        threads, messages = training_threads(
            asked, cores=available_cores(), free=free,
            recorded=self._recorded_threads if resume else None)
        torch.set_num_threads(threads)
        self.config = replace(self.config, threads=threads)
        if self.dist.is_main:
            for message in messages:
                print(message, file=sys.stderr)
            if (not resume and not asked and self.dist.device.type == "cpu"
                    and threads < available_cores()):
                print(f"training on {threads} of {available_cores()} CPU cores: the others are "
                      "busy (choose with --threads=N; --resume keeps the count)",
                      file=sys.stderr)

    def _load_sentences(self) -> None:
        """Training sentences (cut to ``max_sentence_words``) and held-out ones."""
        c = self.config
        train = load_sentences(c.corpus, "train")
        self.train_sents = [s[: c.max_sentence_words] for s in train if s]
        self.valid_sents = [s for s in load_sentences(c.corpus, "valid") if s]
        if c.eval_sentences:
            self.valid_sents = self.valid_sents[: c.eval_sentences]

    def _make_vocabulary(self, resume: bool):
        """The run's own vocabulary when resuming (checked against the digest in config.json),
        else one counted from the training text."""
        if resume and (vocab := load_run_vocabulary(self.out)) is not None:
            return vocab
        return Vocabulary.from_sentences(
            self.train_sents, min_count=self.config.vocab_min_count,
            max_size=self.config.vocab_max_size or None)

    def _build_model(self) -> None:
        """The biLM on this process's device, its DDP wrapper and the optimiser."""
        self.model_config = self.config.model_config(len(self.vocab))
        check_step_fits(self.config, self.model_config, self.train_sents, self.dist)  # or refuse
        self.model = BidirectionalLM(self.model_config).to(self.dist.device)
        if self.fast:  # in place, the same parameters: before DDP and the optimiser see them
            speed_up(self.model)
        if self.config.sampled_softmax and hasattr(self.model.softmax, "num_samples"):
            self.model.softmax.num_samples = self.config.sampled_softmax
            if self.config.sampled_softmax >= len(self.vocab) and self.dist.is_main:
                print(f"sampled_softmax={self.config.sampled_softmax} is not below the "
                      f"vocabulary's {len(self.vocab)} words: training uses the full softmax",
                      file=sys.stderr)
        self.ddp_model = D.wrap(self.model, self.dist)
        self.optimizer = self._make_optimizer()

    def _prepare_run_dir(self, replacing: str | None) -> None:
        """The main process writes the run's config and vocabulary, after deleting the run
        that ``--force`` replaces (``replacing`` describes it)."""
        if not self.dist.is_main:
            return
        if replacing:
            print(f"{self.out}: replacing the run it held ({replacing}), as --force asks",
                  file=sys.stderr)
            remove_run(self.out)
        self.out.mkdir(parents=True, exist_ok=True)
        self.vocab.save(self.out / "vocab.txt")
        write_run_config(self.out, self.model_config, self.config.to_dict(), self.vocab)

    def _make_optimizer(self) -> torch.optim.Optimizer:
        c, params = self.config, self.model.parameters()
        if c.optimizer == "adagrad":  # bilm-tf: tf.train.AdagradOptimizer(lr, initial_acc 1.0)
            return torch.optim.Adagrad(params, lr=c.lr, weight_decay=c.weight_decay,
                                       initial_accumulator_value=c.adagrad_initial_accumulator)
        # One fused kernel per step for all parameters (torch >= 2.4 on CPU): 6.3 → 2.2 ms per
        # tiny step, which has 30 small parameter tensors. Same algorithm, other float order.
        fused = fused_adam_supported(self.dist.device)
        return torch.optim.Adam(params, lr=c.lr, weight_decay=c.weight_decay, fused=fused or None)

    # -- checkpoints -------------------------------------------------------------------------
    def _state(self) -> dict:
        rngs = D.all_gather_objects(ckpt.rng_state(), self.dist)  # one per process
        return {"step": self.step, "epoch": self.epoch, "batch_in_epoch": self.batch_in_epoch,
                "optimizer": self.optimizer.state_dict(), "scheduler": self.scheduler.state_dict(),
                "rng": rngs, "world_size": self.dist.world_size, "train": self.config.to_dict()}

    def save_checkpoint(self) -> Path | None:
        """Checkpoint the current step; its directory (``None`` on processes other than 0)."""
        state = self._state()  # every process takes part (it gathers the RNG states)
        saved = None
        if self.dist.is_main:
            saved = ckpt.save_checkpoint(self.out, self.step, self.model.state_dict(), state,
                                         keep=self.config.keep_checkpoints)
        D.barrier(self.dist)
        return saved

    def _resume(self) -> None:
        # Checkpoints that are damaged, or load but do not fit the model of config.json
        # (other shapes or dtypes), are passed over for the newest one that does.
        path, model_state, state, skipped = ckpt.load_latest_checkpoint(
            self.out, expected=self.model.state_dict())
        if self.dist.is_main:  # moved aside, so that `latest` and later resumes skip them
            for warning in ckpt.set_aside(self.out, path, skipped):
                print(f"warning: {warning}", file=sys.stderr)
        self.model.load_state_dict(model_state)
        self.optimizer.load_state_dict(state["optimizer"])
        self.scheduler.load_state_dict(state["scheduler"])
        # The saved optimiser and scheduler carry the old lr and weight decay; take the
        # config's, so that a compatible change (train_config.CHANGEABLE_ON_RESUME) applies.
        # Unchanged, this computes the very same numbers (base lr × schedule factor).
        factor = self.scheduler.lr_lambdas[0](self.scheduler.last_epoch)
        self.scheduler.base_lrs = [self.config.lr] * len(self.optimizer.param_groups)
        for group in self.optimizer.param_groups:
            group.update(initial_lr=self.config.lr, lr=self.config.lr * factor,
                         weight_decay=self.config.weight_decay)
        self.scheduler._last_lr = [group["lr"] for group in self.optimizer.param_groups]
        self.step, self.epoch = state["step"], state["epoch"]
        self.batch_in_epoch = state["batch_in_epoch"]
        rngs = state["rng"]
        if len(rngs) == self.dist.world_size:  # same process count: exactly the same path
            ckpt.set_rng_state(rngs[self.dist.rank])
        else:
            seed_everything(self.config.seed + self.step)
            print(f"resuming with {self.dist.world_size} processes instead of {len(rngs)}: "
                  "training continues, but not on the identical random path", file=sys.stderr)
