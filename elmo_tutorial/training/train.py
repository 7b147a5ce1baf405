"""Train the biLM: sentence batches, joint loss, clipping, checkpoints, evaluation, DDP.

Taught in notebooks 06 and 14.

The objective (Peters et al. 2018, Sec. 3.1) maximises the forward and backward log likelihood
of every sentence, with the token representation and the softmax shared by both directions:

    loss = −(1/N) Σ_k [ log p(t_k | t_1..t_{k−1}) + log p(t_k | t_{k+1}..t_N) ]

(``LMOutput.loss`` = forward NLL mean + backward NLL mean). The "average" perplexity is
``exp((NLL_fwd + NLL_bwd) / 2)``, the directions' geometric mean, as bilm-tf reports.

Whole sentences ``<S> w1 .. wn </S>``, bucketed by length (``batching.bucket_batches``), not
bilm-tf's windows of 20 tokens with the LSTM state carried across: our LSTM is stateless and
ELMo is applied to sentences, so we train on exactly that input, and the backward LM starts at
each sentence's real end.

The file reads top to bottom as a run goes: set-up (run folder, threads, seed, data,
vocabulary, model, optimiser, schedule), the step, the loop, checkpoints and resume. Same seed,
same bits: the run seeds every generator once, and each checkpoint holds every random state, so
a run killed and resumed trains exactly the weights of the run left alone::

    elmo-tutorial train --config tiny --out runs/tiny [--lr=0.01 ...]
    torchrun --nproc_per_node=2 -m elmo_tutorial train --config tiny --out runs/tiny_ddp
"""

from __future__ import annotations

import functools
import math
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import torch
from torch import nn

from elmo_tutorial.data.corpora import load_sentences
from elmo_tutorial.fast import speed_up
from elmo_tutorial.fast.directions import run_directions_at_once
from elmo_tutorial.files.overwrite import check_fresh_run_dir, check_not_a_file, remove_run
from elmo_tutorial.files.run_lock import lock_run_dir
from elmo_tutorial.model.batching import bucket_batches, make_lm_batch
from elmo_tutorial.model.config import ModelConfig
from elmo_tutorial.model.lm import BidirectionalLM
from elmo_tutorial.model.vocab import SPECIALS, Vocabulary
from elmo_tutorial.runtime import (
    available_cores,
    default_threads,
    interrupt_requests,
    progress_bar,
    seed_everything,
)
from elmo_tutorial.training import checkpoints as ckpt
from elmo_tutorial.training import distributed as D
from elmo_tutorial.training.evaluation import evaluate_perplexity
from elmo_tutorial.training.run_folder import load_run_vocabulary, read_run_config, write_run_config
from elmo_tutorial.training.train_config import TrainConfig, check_resume
from elmo_tutorial.training.train_log import TrainLog

__all__ = ["Trainer", "TrainingInterrupted", "check_same_parameters", "counted_vocabulary",
           "run"]


class TrainingInterrupted(Exception):
    """Training was stopped (Ctrl-C, SIGTERM, SIGHUP) and saved at ``step`` in ``checkpoint``;
    ``--resume`` continues it. ``signal_name`` is ``""`` if another process received it."""

    def __init__(self, step: int, total_steps: int, checkpoint: Path | None,
                 signal_name: str = "") -> None:
        by = f" by {signal_name}" if signal_name else ""
        super().__init__(f"stopped{by} at step {step} of {total_steps} and saved the run there "
                         f"({checkpoint}); to continue, run the same command with --resume "
                         "(in Python: Trainer(config, resume=True))")
        self.step, self.checkpoint, self.signal_name = step, checkpoint, signal_name


class Trainer:
    """Owns a run: data, model, optimiser, schedule, checkpoints, logs.

    Args:
        config: the training configuration (``config.out_dir`` is the run directory).
        resume: continue from the newest intact checkpoint of ``out_dir`` (error if none, or
            if ``config`` changes a setting the checkpoint cannot continue under).
        force: train afresh even if ``out_dir`` holds a run of this package, deleting it.
        fast: train the model's fast modules (:func:`elmo_tutorial.fast.speed_up`).
        build: makes the biLM from its ``ModelConfig`` instead of ``BidirectionalLM`` (a
            student's own assembly, notebook 14), with ``BidirectionalLM``'s parameter names
            and shapes, so that the run folder loads as any other run.

    Example:
        >>> trainer = Trainer(TrainConfig.preset("tiny"))          # doctest: +SKIP
        >>> metrics = trainer.fit()                                  # doctest: +SKIP
    """

    def __init__(self, config: TrainConfig, resume: bool = False, force: bool = False,
                 fast: bool = True, build: Callable[[ModelConfig], nn.Module] | None = None,
                 ) -> None:
        self.config, self.out, self.fast, self.build = config, Path(config.out_dir), fast, build
        self.dist = D.init_distributed(config.device)
        # One writer per run folder, before anything is read or deleted; a start that fails
        # below releases it and leaves the folder as it was.
        self._lock = lock_run_dir(self.out) if self.dist.is_main else None
        try:
            replacing, recorded_threads = self._check_run_dir(resume, force)
            self._choose_threads(resume, recorded_threads)
            seed_everything(config.seed)  # once: the checkpoints carry the generators on
            self._load_sentences()
            vocab = load_run_vocabulary(self.out) if resume else None  # the run's own
            self.vocab = vocab or counted_vocabulary(self.config, self.train_sents)
            self._build_model()
            self._plan_steps()
            self.step = self.epoch = self.batch_in_epoch = 0
            self._last_eval_step, self.complete = -1, False
            if resume:
                self._resume()
            self._prepare_run_dir(replacing)
            self.log = TrainLog(self.out, enabled=self.dist.is_main, truncate_after=self.step)
        except BaseException:
            self.release()
            raise

    def release(self) -> None:
        """Let other processes write into the run folder (:mod:`elmo_tutorial.files.run_lock`)."""
        if self._lock is not None:
            self._lock.release()

    # -- set-up ------------------------------------------------------------------------------
    def _check_run_dir(self, resume: bool, force: bool) -> tuple[str | None, int | None]:
        """Refuse what would lose work; return what ``force`` replaces and the recorded
        thread count (when resuming)."""
        if not resume:
            return check_fresh_run_dir(self.out, force), None
        check_not_a_file(self.out, "a run directory (--out)")
        if not ckpt.checkpoints(self.out) and not (self.out / "model.safetensors").exists():
            raise FileNotFoundError(f"--resume: {self.out} has no checkpoint to resume from; "
                                    "start without --resume (or point --out at the run)")
        _, train = read_run_config(self.out)
        saved = TrainConfig.from_dict(train, source=str(self.out / "config.json"))
        for notice in check_resume(saved, self.config, str(self.out)):
            if self.dist.is_main:
                print(f"resuming with a changed setting: {notice}", file=sys.stderr)
        return None, saved.threads

    def _choose_threads(self, resume: bool, recorded: int | None) -> None:
        """Set torch's thread count to the run's. Another count adds large sums in another
        order, so the weights drift apart: the count is part of the run, like its seed."""
        threads = self.config.threads or (recorded if resume and recorded else default_threads())
        threads = min(threads, available_cores())  # more would wait for cores, much slower
        if self.dist.is_main and threads != (self.config.threads or threads):
            print(f"threads={self.config.threads} is more than the {threads} CPU cores this "
                  f"process may use: training on {threads}", file=sys.stderr)
        if resume and recorded and threads != recorded and self.dist.is_main:
            print(f"warning: training on {threads} CPU threads instead of the {recorded} this "
                  "run was started with: its weights will differ from those of the run left "
                  "alone", file=sys.stderr)
        torch.set_num_threads(threads)
        self.config = replace(self.config, threads=threads)

    def _load_sentences(self) -> None:
        """The training sentences (cut to ``max_sentence_words``) and the held-out ones; an
        empty split is refused (empty epochs for ever; a perplexity of 1.00)."""
        c = self.config
        first = c.train_sentences or None  # english_mix then reads only what it needs
        train = [s[: c.max_sentence_words] for s in load_sentences(c.corpus, "train", first) if s]
        valid = [s for s in load_sentences(c.corpus, "valid", c.eval_sentences or None) if s]
        for split, sentences in (("training", train), ("held-out (valid)", valid)):
            if not sentences:
                raise ValueError(
                    f"the corpus {c.corpus!r} has no {split} sentence with a word in it (its "
                    "files empty or blank?): fetch its datasets again (`elmo-tutorial data "
                    "list` shows them; `elmo-tutorial data download <dataset> --force` fetches "
                    "one), or train on another --corpus=")
        self.train_sents, self.valid_sents = train, valid[: c.eval_sentences or None]

    def _build_model(self) -> None:
        """The biLM on this process's device, its DDP wrapper and the optimiser."""
        c, vocab, device = self.config, self.vocab, self.dist.device
        self.model_config = c.model_config(len(vocab))
        if self.build is None:
            model = BidirectionalLM(self.model_config)
        else:
            model = self.build(self.model_config)
            with torch.device("meta"):  # names and shapes only: no memory for a second model
                check_same_parameters(model, BidirectionalLM(self.model_config))
        model = model.to(device)
        if self.fast:  # in place, the same parameters: before DDP and the optimiser see them
            speed_up(model)
        if c.sampled_softmax and hasattr(model.softmax, "num_samples"):
            model.softmax.num_samples = c.sampled_softmax
            if c.sampled_softmax >= len(vocab) and self.dist.is_main:
                print(f"sampled_softmax={c.sampled_softmax} is not below the vocabulary's "
                      f"{len(vocab)} words: training uses the full softmax", file=sys.stderr)
        if self.fast:  # tiny: one thread per LM direction (fast/directions.py)
            run_directions_at_once(model, self.dist.world_size, c.sampled_softmax > 0)
        self.model, self.ddp_model = model, D.wrap(model, self.dist)
        if c.optimizer == "adagrad":  # bilm-tf: tf.train.AdagradOptimizer(lr, initial acc 1.0)
            self.optimizer = torch.optim.Adagrad(
                model.parameters(), lr=c.lr, weight_decay=c.weight_decay,
                initial_accumulator_value=c.adagrad_initial_accumulator)
        else:  # fused: one kernel per step for all parameters, 6.3 → 2.2 ms per tiny step
            fused = device.type == "cuda" or (device.type == "cpu"
                                              and torch.__version__ >= (2, 4))  # CPU: torch 2.4
            self.optimizer = torch.optim.Adam(model.parameters(), lr=c.lr,
                                              weight_decay=c.weight_decay, fused=fused or None)

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

    def _prepare_run_dir(self, replacing: str | None) -> None:
        """Delete the run that ``--force`` replaces; write the config and vocabulary."""
        if not self.dist.is_main:
            return
        if replacing:
            print(f"{self.out}: replacing the run it held ({replacing}), as --force asks",
                  file=sys.stderr)
            remove_run(self.out)
        self.out.mkdir(parents=True, exist_ok=True)
        self.vocab.save(self.out / "vocab.txt")
        write_run_config(self.out, self.model_config, self.config.to_dict(), self.vocab)

    # -- one step ----------------------------------------------------------------------------
    def compute_gradients(self, global_batch: list[int]) -> tuple[float, int]:
        """Forward and backward on this process's share of a global batch: ``.grad`` holds
        the gradient of the *global* batch's mean loss; returns this process's NLL sum (both
        directions) and target count."""
        c, dev = self.config, self.dist.device
        sents = [self.train_sents[i] for i in global_batch]
        n_global = sum(len(s) + 1 for s in sents)  # targets per direction, all processes
        batch = make_lm_batch(D.shard(sents, self.dist), self.vocab).to(dev)
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=c.amp and dev.type == "cuda"):
            out = self.ddp_model(batch, sampled=c.sampled_softmax > 0)
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
        """Train until ``total_steps`` (or ``stop_after`` steps); return the last held-out
        evaluation. On Ctrl-C, SIGTERM or SIGHUP: a checkpoint, then
        :class:`TrainingInterrupted`."""
        c = self.config
        bar = progress_bar(c.progress and self.dist.is_main, total=self.total_steps,
                           initial=self.step, unit="step", dynamic_ncols=True)
        metrics, started, tokens = {}, time.perf_counter(), 0
        with interrupt_requests() as stop_requested:
            while self.step < self.total_steps and (stop_after is None
                                                    or self.step < stop_after):
                # Every process must agree to stop at the same step, or DDP would wait forever.
                if D.all_reduce_sum([float(bool(stop_requested()))], self.dist)[0]:
                    bar.close()
                    saved = self.save_checkpoint()  # atomic, like every checkpoint
                    raise TrainingInterrupted(self.step, self.total_steps, saved,
                                              stop_requested())
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
                    self.log.train(self.step, self.epoch, stats,
                                   self.scheduler.get_last_lr()[0], tok_s)
                if c.eval_interval and self.step % c.eval_interval == 0:
                    metrics = self.evaluate()
                if c.checkpoint_interval and self.step % c.checkpoint_interval == 0:
                    self.save_checkpoint()
        bar.close()
        if self.step >= self.total_steps:
            if not self.complete:  # else its final weights are what it loaded
                self.finish()
            if self._last_eval_step != self.step:
                metrics = self.evaluate()
        self.release()  # the run is complete: nothing more to write
        return metrics

    def evaluate(self) -> dict:
        """Held-out perplexities (rank 0 only; other processes get {})."""
        if not self.dist.is_main:
            return {}
        metrics = evaluate_perplexity(self.model, self.valid_sents, self.vocab, self.dist.device)
        self.log.eval(self.step, metrics)
        self._last_eval_step = self.step
        return metrics

    def finish(self) -> None:
        """Final checkpoint, final weights ``model.safetensors`` and the loss plot."""
        self.save_checkpoint()
        if self.dist.is_main:
            ckpt.save_weights(self.out / "model.safetensors", self.model.state_dict())
            self.log.plot()

    # -- checkpoints and resume --------------------------------------------------------------
    def save_checkpoint(self) -> Path | None:
        """Checkpoint the current step: the weights, the optimiser's and the scheduler's
        ``state_dict``, the position in the data, every process's random state and the
        settings. Every process takes part (it gathers the random states); returns the
        checkpoint directory on the main process, ``None`` on the others."""
        state = {"step": self.step, "epoch": self.epoch, "batch_in_epoch": self.batch_in_epoch,
                 "optimizer": self.optimizer.state_dict(),
                 "scheduler": self.scheduler.state_dict(),
                 "rng": D.all_gather_objects(ckpt.rng_state(), self.dist),
                 "world_size": self.dist.world_size, "train": self.config.to_dict()}
        saved = None
        if self.dist.is_main:
            saved = ckpt.save_checkpoint(self.out, self.step, self.model.state_dict(), state,
                                         keep=self.config.keep_checkpoints)
        D.barrier(self.dist)
        return saved

    def _resume(self) -> None:
        """Go on from the newest checkpoint that fits the model
        (:func:`~.checkpoints.load_latest_checkpoint`), or from the final weights of a complete
        run whose checkpoints were deleted."""
        if not ckpt.checkpoints(self.out):
            final = self.out / "model.safetensors"
            weights = ckpt.load_weights(final)
            ckpt.check_fits(final, weights, self.model.state_dict())
            self.model.load_state_dict(weights)
            self.step, self.complete = self.total_steps, True
            return
        _, model_state, state = ckpt.load_latest_checkpoint(
            self.out, self.model.state_dict(), clean=self.dist.is_main)
        self.model.load_state_dict(model_state)
        self.optimizer.load_state_dict(state["optimizer"])
        self.scheduler.load_state_dict(state["scheduler"])
        # The settings a resume may change (lr, weight decay) replace the saved ones; unchanged,
        # these are the very numbers the checkpoint holds.
        c = self.config
        factor = _lr_factor(c, self.total_steps)(self.scheduler.last_epoch)
        self.scheduler.base_lrs = [c.lr] * len(self.optimizer.param_groups)
        for group in self.optimizer.param_groups:
            group.update(initial_lr=c.lr, lr=c.lr * factor, weight_decay=c.weight_decay)
        rngs = state["rng"]
        if len(rngs) == self.dist.world_size:  # same process count: exactly the same path
            ckpt.set_rng_state(rngs[self.dist.rank])
        else:
            seed_everything(c.seed + state["step"])
            print(f"resuming with {self.dist.world_size} processes instead of {len(rngs)}: "
                  "training continues, but not on the identical random path", file=sys.stderr)
        self.step, self.epoch = state["step"], state["epoch"]
        self.batch_in_epoch = state["batch_in_epoch"]


def _lr_factor(config: TrainConfig, total: int) -> Callable[[int], float]:
    """The learning rate's factor at each step: linear warm-up, then constant or decaying."""
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


def counted_vocabulary(config: TrainConfig, train_sents: list) -> Vocabulary:
    """The words of ``train_sents`` seen at least ``vocab_min_count`` times, at most
    ``vocab_max_size`` with the special words; settings that keep no word are refused."""
    special = len(SPECIALS)
    if 0 < config.vocab_max_size <= special:
        raise ValueError(f"vocab_max_size={config.vocab_max_size} counts the {special} special "
                         f"words {' '.join(SPECIALS)} and leaves no room for a word: give at "
                         f"least {special + 1} (--vocab_max_size=; 0 is no limit)")
    vocab = Vocabulary.from_sentences(train_sents, min_count=max(1, config.vocab_min_count),
                                      max_size=config.vocab_max_size or None)
    if len(vocab) == special:
        most = max(Counter(w for s in train_sents for w in s).values(), default=0)
        raise ValueError(f"vocab_min_count={config.vocab_min_count} keeps no word of the "
                         f"training text: the most frequent one is seen {most:,} times, so "
                         f"every word would be {SPECIALS[-1]} and the model would learn "
                         f"nothing; give --vocab_min_count={max(most, 1)} or less")
    return vocab


def check_same_parameters(model: nn.Module, reference: nn.Module) -> None:
    """Refuse ``model`` (``ValueError``) unless its state dict has ``reference``'s names and
    shapes."""
    have = {k: tuple(v.shape) for k, v in model.state_dict().items()}
    want = {k: tuple(v.shape) for k, v in reference.state_dict().items()}
    if have == want:
        return
    missing, extra = sorted(want.keys() - have.keys()), sorted(have.keys() - want.keys())
    reshaped = [f"{k} {have[k]} (expected {want[k]})"
                for k in sorted(want.keys() & have.keys()) if have[k] != want[k]]
    parts = [f"{what}: {', '.join(names[:4])}{' …' if len(names) > 4 else ''}"
             for what, names in (("missing", missing), ("not in BidirectionalLM", extra),
                                 ("of another shape", reshaped)) if names]
    raise ValueError(f"the model that build() made cannot be saved as a biLM run: its "
                     f"parameters differ from BidirectionalLM's ({'; '.join(parts)})")


def run(config: TrainConfig, resume: bool = False, force: bool = False) -> dict:
    """Train (or resume) a run and return its final held-out metrics ({} on processes > 0)."""
    trainer = Trainer(config, resume=resume, force=force)
    try:
        return trainer.fit()
    finally:
        trainer.release()
        D.shutdown()
