"""Train the biLM: sentence batches, joint loss, clipping, checkpoints, evaluation, DDP.

Taught in notebooks 06 and 14.

The objective (Peters et al. 2018, Sec. 3.1) maximises the forward and backward log likelihood
of every sentence, with the token representation and the softmax shared by both directions:

    loss = −(1/N) Σ_k [ log p(t_k | t_1..t_{k−1}) + log p(t_k | t_{k+1}..t_N) ]

(``LMOutput.loss`` = forward NLL mean + backward NLL mean). Perplexity per direction is
``exp(NLL mean)``; the "average" perplexity is ``exp((NLL_fwd + NLL_bwd) / 2)``, their geometric
mean, which is what bilm-tf reports.

Why sentence batches and not truncated BPTT: bilm-tf streams the corpus in windows of 20
tokens and carries the LSTM state across windows, so its model saw context beyond a sentence.
Our LSTM is stateless (a sentence's vectors never depend on what came before: see
:mod:`elmo_tutorial.model.elmo`) and ELMo is applied to sentences, so we train on exactly that
input: whole sentences, each ``<S> w1 .. wn </S>``, bucketed by length (``batching.bucket_batches``)
so that little compute goes to padding. It also lets the backward LM start at each sentence's
real end.

From the command line (:mod:`elmo_tutorial.commands.train` parses the flags)::

    elmo-tutorial train --config tiny --out runs/tiny [--lr=0.01 ...]
    torchrun --nproc_per_node=2 -m elmo_tutorial train --config tiny --out runs/tiny_ddp
"""

from __future__ import annotations

import contextlib
import functools
import math
import time
from collections.abc import Callable
from pathlib import Path

import torch
from torch import nn

from elmo_tutorial.fast.direction_threads import directions_at_once
from elmo_tutorial.files.run_lock import lock_run_dir
from elmo_tutorial.model import checkpoint as ckpt
from elmo_tutorial.model.batching import bucket_batches, make_lm_batch
from elmo_tutorial.model.config import ModelConfig
from elmo_tutorial.model.dropout import step_generators
from elmo_tutorial.model.vocab import Vocabulary
from elmo_tutorial.runtime import interrupt_requests, progress_bar, seed_everything
from elmo_tutorial.training import distributed as D
from elmo_tutorial.training import train_setup as setup
from elmo_tutorial.training.evaluation import evaluate_perplexity
from elmo_tutorial.training.train_config import TrainConfig
from elmo_tutorial.training.train_log import TrainLog

__all__ = ["Trainer", "TrainingInterrupted", "run"]


def _lr_factor(config: TrainConfig, total: int):
    def factor(step: int) -> float:  # step = optimiser steps already taken
        if step < config.warmup_steps:
            return (step + 1) / config.warmup_steps
        progress = (step - config.warmup_steps) / max(1, total - config.warmup_steps)
        if config.schedule == "linear":
            return max(0.0, 1.0 - progress)
        if config.schedule == "cosine":
            return 0.5 * (1.0 + math.cos(math.pi * min(1.0, progress)))
        return 1.0
    return factor


class TrainingInterrupted(Exception):
    """Training was stopped (Ctrl-C, SIGTERM, SIGHUP) and saved where it was: ``--resume``
    continues it.

    Attributes:
        step: the last completed step, the one the checkpoint holds.
        checkpoint: the checkpoint directory written on stopping.
        signal_name: the signal that stopped it (``"SIGTERM"``; ``""`` if another process
            of the run received it).
    """

    def __init__(self, step: int, total_steps: int, checkpoint: Path | None,
                 signal_name: str = "") -> None:
        by = f" by {signal_name}" if signal_name else ""
        super().__init__(f"stopped{by} at step {step} of {total_steps} and saved the run there "
                         f"({checkpoint}); to continue, run the same command with --resume "
                         "(in Python: Trainer(config, resume=True))")
        self.step, self.checkpoint, self.signal_name = step, checkpoint, signal_name


class Trainer:
    """Owns a run: data, model, optimiser, schedule, checkpoints, logs. The plan of steps, the
    steps and the loop are here; setting up the run and checkpointing it are the functions of
    :mod:`~elmo_tutorial.training.train_setup`, which return what the trainer keeps.

    Args:
        config: the training configuration (``config.out_dir`` is the run directory).
        resume: continue from the newest intact checkpoint of ``out_dir`` (error if none, or
            if ``config`` changes a setting the checkpoint cannot continue under).
        force: train afresh even if ``out_dir`` holds a run, deleting it (without ``force``
            that is an error, ``overwrite.WouldOverwrite``, which says what the run holds).
        fast: train the model's fast modules (:func:`elmo_tutorial.fast.speed_up`, the same
            parameters) and, where it gives the same numbers, run the two LM directions in
            two threads (:mod:`elmo_tutorial.fast.direction_threads`); ``False`` trains the
            plain model, one direction after the other.
        build: makes the biLM from its ``ModelConfig`` instead of ``BidirectionalLM`` (a
            student's own assembly, notebook 14). Its parameters must have the names and
            shapes of ``BidirectionalLM``'s, so the run folder loads as any other run
            (``ELMo.from_run``); its own ``forward`` computes every step's loss (with
            ``fast``, its parts still run their fast versions).

    Example:
        >>> trainer = Trainer(TrainConfig.preset("tiny"))          # doctest: +SKIP
        >>> metrics = trainer.fit()                                  # doctest: +SKIP
    """

    def __init__(self, config: TrainConfig, resume: bool = False, force: bool = False,
                 fast: bool = True, build: Callable[[ModelConfig], nn.Module] | None = None,
                 ) -> None:
        self.config, self.out, self.fast, self.build = config, Path(config.out_dir), fast, build
        self.dist = D.init_distributed(config.device)
        # One writer per run folder, before anything is read or deleted (run_lock); a start
        # that fails below releases it and leaves the folder as it was.
        self._lock = lock_run_dir(self.out) if self.dist.is_main else None
        try:
            replacing, recorded_threads = setup.check_run_dir(  # before any data is read
                self.out, config, resume, force, self.dist)
            self.config = setup.choose_threads(config, self.dist, resume, recorded_threads)
            seed_everything(config.seed)
            self._load_sentences()
            self.vocab = self._make_vocabulary(resume)
            self._build_model()
            self._plan_steps()
            self.step = self.epoch = self.batch_in_epoch = 0
            self._last_eval_step = -1
            if resume:
                self._resume()
            setup.prepare_run_dir(self.out, replacing, self.vocab, self.model_config,
                                  self.config, self.dist)
            self.log = TrainLog(self.out, enabled=self.dist.is_main, truncate_after=self.step)
        except BaseException:
            self.release()
            raise

    def release(self) -> None:
        """Let other processes write into the run folder (:mod:`elmo_tutorial.files.run_lock`)."""
        if self._lock is not None:
            self._lock.release()

    # -- what the run trains on and with (finetune.FineTuner replaces these three) -----------
    def _load_sentences(self) -> None:
        self.train_sents, self.valid_sents = setup.corpus_sentences(self.config)

    def _make_vocabulary(self, resume: bool) -> Vocabulary:
        return setup.run_vocabulary(self.out, self.config, self.train_sents, resume)

    def _build_model(self) -> None:
        """The biLM on this process's device, its DDP wrapper and the optimiser."""
        self.model_config, self.model, self.ddp_model = setup.build_model(
            self.config, self.vocab, self.train_sents, self.dist, self.fast, self.build)
        self.optimizer = setup.make_optimizer(self.model, self.config, self.dist.device)

    # -- the plan ----------------------------------------------------------------------------
    def _plan_steps(self) -> None:
        """Each epoch's batches (bucketed by length), the number of steps, the lr schedule."""
        c = self.config
        lengths = [len(s) + 2 for s in self.train_sents]

        @functools.lru_cache(maxsize=1)  # one epoch's batches, computed once per epoch
        def batches(epoch: int) -> list[list[int]]:
            return [b for b in bucket_batches(lengths, batch_size=c.batch_size,
                                              shuffle=True, seed=c.seed + epoch)
                    if len(b) >= self.dist.world_size]  # every process needs a sentence

        self._batches = batches
        self.steps_per_epoch = len(self._batches(0))
        if not self.steps_per_epoch:  # an epoch without a step would be repeated for ever
            raise ValueError(f"no batch of the {len(self.train_sents):,} training sentences has "
                             f"a sentence for each of the {self.dist.world_size} processes: "
                             f"give batch_size ≥ {self.dist.world_size} (and as many sentences),"
                             " or fewer processes")
        self.total_steps = c.max_steps or c.epochs * self.steps_per_epoch
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(
            self.optimizer, _lr_factor(c, self.total_steps))

    # -- one step ----------------------------------------------------------------------------
    def compute_gradients(self, global_batch: list[int]) -> tuple[float, int]:
        """Forward and backward on this process's share of a global batch.

        Leaves in ``.grad`` the gradient of the *global* batch's mean loss (after DDP's
        all-reduce). Returns this process's NLL sum (both directions) and target count.
        """
        c, dev = self.config, self.dist.device
        sents = [self.train_sents[i] for i in global_batch]
        n_global = sum(len(s) + 1 for s in sents)  # targets per direction, all processes
        batch = make_lm_batch(D.shard(sents, self.dist), self.vocab).to(dev)
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=c.amp and dev.type == "cuda"):
            # Every random draw of the step (dropout, sampled candidates) from its own stream:
            # the same numbers in threads or not, after a resume, under any load.
            generators = step_generators(c.seed, self.step, rank=self.dist.rank, device=dev)
            sampled = c.sampled_softmax > 0
            if self._loss_in_threads is not None:  # fast: the same numbers, directions at once
                out = self._loss_in_threads(batch, sampled=sampled, generators=generators)
            else:
                out = self.ddp_model(batch, sampled=sampled, generators=generators)
        nll_sum = (out.forward_nll + out.backward_nll).float() * out.n_tokens  # this process
        # DDP averages gradients over processes, so scale by world_size: the result is the
        # gradient of (Σ over all processes of NLL sums) / n_global, the global batch mean.
        loss = nll_sum * (self.dist.world_size / n_global) * c.loss_multiplier
        if not torch.isfinite(loss):
            raise FloatingPointError(
                f"the loss is {loss.item()} at step {self.step + 1} (epoch {self.epoch}, batch "
                f"{self.batch_in_epoch}). Try a lower learning rate (lr={c.lr}), gradient "
                f"clipping (grad_clip={c.grad_clip}), amp=false, or a warm-up (warmup_steps); "
                f"then resume from the last checkpoint with --resume.")
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        return nll_sum.item(), int(out.n_tokens)

    def train_step(self, global_batch: list[int]) -> dict:
        """Gradients, clipping and one optimiser update on a global batch; its statistics."""
        nll_sum, n_tokens = self.compute_gradients(global_batch)
        limit = self.config.grad_clip if self.config.grad_clip > 0 else float("inf")
        grad_norm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), limit)
        self.optimizer.step()
        self.scheduler.step()
        total, n = D.all_reduce_sum([nll_sum, float(n_tokens)], self.dist)
        self.last_tokens = n_tokens  # this process's predictions (for FLOP counting)
        return {"loss": total / n, "grad_norm": float(grad_norm), "tokens": int(n)}

    # -- the loop ----------------------------------------------------------------------------
    def fit(self, stop_after: int | None = None) -> dict:
        """Train until ``total_steps`` (or ``stop_after`` steps, to simulate an interruption).

        Returns the last held-out evaluation (``fwd_ppl``, ``bwd_ppl``, ``avg_ppl``, ...).
        """
        c = self.config
        bar = progress_bar(c.progress and self.dist.is_main, total=self.total_steps,
                           initial=self.step, unit="step", dynamic_ncols=True)
        # Both directions in threads computes BidirectionalLM's loss, not a built model's own
        at_once = (directions_at_once(self.model, self.dist.world_size)
                   if self.fast and self.build is None else contextlib.nullcontext())
        # The final evaluation too: as in the loop, on the threads of one direction
        try:
            with at_once as self._loss_in_threads:
                with interrupt_requests() as stop_requested:
                    metrics = self._loop(bar, stop_after, stop_requested)
                bar.close()
                if self.step >= self.total_steps:
                    self.finish()
                    if self._last_eval_step != self.step:
                        metrics = self.evaluate()
                self.release()  # the run is complete: nothing more to write
        finally:
            self._loss_in_threads = None
        return metrics

    # Set by fit: the fast path's loss with the LM's directions at once, where it applies.
    _loss_in_threads = None

    def _loop(self, bar, stop_after: int | None, stop_requested) -> dict:
        """The steps of :meth:`fit`; on Ctrl-C, SIGTERM or SIGHUP, a checkpoint and
        :class:`TrainingInterrupted`."""
        c = self.config
        metrics, started, tokens = {}, time.perf_counter(), 0
        while self.step < self.total_steps and (stop_after is None or self.step < stop_after):
            # Every process must agree to stop at the same step, or DDP would wait forever.
            if D.all_reduce_sum([float(bool(stop_requested()))], self.dist)[0]:
                bar.close()
                saved = self.save_checkpoint()  # atomic, like every checkpoint
                raise TrainingInterrupted(self.step, self.total_steps, saved, stop_requested())
            batches = self._batches(self.epoch)
            if self.batch_in_epoch >= len(batches):
                self.epoch, self.batch_in_epoch = self.epoch + 1, 0
                continue
            stats = self.train_step(batches[self.batch_in_epoch])
            self.step, self.batch_in_epoch = self.step + 1, self.batch_in_epoch + 1
            tokens += stats["tokens"]
            tok_s = tokens / max(time.perf_counter() - started, 1e-9)
            bar.update(1)
            bar.set_postfix(ppl=f"{math.exp(stats['loss'] / 2):.1f}", tok_s=f"{tok_s:.0f}")
            if self.step % c.log_interval == 0 or self.step == self.total_steps:
                self.log.train(self.step, self.epoch, stats, self.scheduler.get_last_lr()[0], tok_s)
            if c.eval_interval and self.step % c.eval_interval == 0:
                metrics = self.evaluate()
            if c.checkpoint_interval and self.step % c.checkpoint_interval == 0:
                self.save_checkpoint()
        return metrics

    def evaluate(self) -> dict:
        """Held-out perplexities (rank 0 only; other processes get {})."""
        if not self.dist.is_main:
            return {}
        metrics = evaluate_perplexity(self.model, self.valid_sents, self.vocab, self.dist.device)
        self.log.eval(self.step, metrics)
        self._last_eval_step = self.step
        return metrics

    # -- checkpoints -------------------------------------------------------------------------
    def save_checkpoint(self) -> Path | None:
        """Checkpoint the current step; its directory (``None`` on processes other than 0)."""
        progress = {"step": self.step, "epoch": self.epoch, "batch_in_epoch": self.batch_in_epoch,
                    "optimizer": self.optimizer.state_dict(),
                    "scheduler": self.scheduler.state_dict()}
        return setup.save_checkpoint(self.out, self.model, progress, self.config, self.dist)

    def _resume(self) -> None:
        """Go on from the newest checkpoint that fits (``train_setup.load_checkpoint``)."""
        progress = setup.load_checkpoint(self.out, self.model, self.config, self.dist)
        self.optimizer.load_state_dict(progress["optimizer"])
        self.scheduler.load_state_dict(progress["scheduler"])
        # They carry the checkpoint's lr and weight decay; take the config's, so that a
        # compatible change (train_config.CHANGEABLE_ON_RESUME) applies. Unchanged, this
        # computes the very same numbers (base lr × schedule factor).
        lr, factor = self.config.lr, self.scheduler.lr_lambdas[0](self.scheduler.last_epoch)
        self.scheduler.base_lrs = [lr] * len(self.optimizer.param_groups)
        for group in self.optimizer.param_groups:
            group.update(initial_lr=lr, lr=lr * factor, weight_decay=self.config.weight_decay)
        self.scheduler._last_lr = [group["lr"] for group in self.optimizer.param_groups]
        self.step, self.epoch = progress["step"], progress["epoch"]
        self.batch_in_epoch = progress["batch_in_epoch"]

    def finish(self) -> None:
        """Final checkpoint, final weights ``model.safetensors`` and the loss plot."""
        self.save_checkpoint()
        if self.dist.is_main:
            ckpt.save_weights(self.out / "model.safetensors", self.model.state_dict())
            self.log.plot()


def run(config: TrainConfig, resume: bool = False, force: bool = False,
        fast: bool = True) -> dict:
    """Train (or resume) a run and return its final held-out metrics ({} on processes > 0).

    See ``Trainer`` for ``resume``, ``force`` and ``fast``."""
    trainer = Trainer(config, resume=resume, force=force, fast=fast)
    try:
        return trainer.fit()
    finally:
        trainer.release()
        D.shutdown()
