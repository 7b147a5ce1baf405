"""How a :class:`~elmo_tutorial.training.train.Trainer` sets up its run and keeps it: the run
folder checked, the thread count, the sentences, the vocabulary, the model and its optimiser,
the run's config and vocabulary written; then its checkpoints, saved and resumed from.

These are the steps of a run's bookkeeping, done once at the start or every
``checkpoint_interval`` steps, which must not lose work or continue a run under settings it
cannot continue under. Each is a function that takes what it needs and returns what it makes;
the ``Trainer`` (:mod:`elmo_tutorial.training.train`) calls them in order, keeps what they
return, and owns the rest: the plan of steps and its learning-rate schedule, the gradients,
the update, the loop and the evaluations, so that a reader of the training algorithm finds it
in one place.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import torch

from elmo_tutorial.data.corpora import load_sentences
from elmo_tutorial.fast import speed_up
from elmo_tutorial.files.guarded_read import check_regular_file
from elmo_tutorial.files.overwrite import check_fresh_run_dir, check_not_a_file, remove_run
from elmo_tutorial.model import checkpoint as ckpt
from elmo_tutorial.model.checkpoint_choice import named_in_latest, step_of
from elmo_tutorial.model.config import ModelConfig
from elmo_tutorial.model.lm import BidirectionalLM
from elmo_tutorial.model.run_dir import load_run_vocabulary, read_run_config, write_run_config
from elmo_tutorial.model.vocab import SPECIALS, Vocabulary
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

__all__ = ["check_run_dir", "check_same_parameters", "choose_threads", "corpus_sentences",
           "counted_vocabulary", "run_vocabulary", "build_model", "make_optimizer",
           "prepare_run_dir", "save_checkpoint", "load_checkpoint"]


# -- setting up ------------------------------------------------------------------------------
def check_run_dir(out: Path, config: TrainConfig, resume: bool, force: bool,
                  dist: D.DistInfo) -> tuple[str | None, int | None]:
    """Refuse what would lose work, before any data is read or written.

    Training afresh must not delete a run unless forced (``check_fresh_run_dir``); a resumed
    run must have a checkpoint, and may change only settings its checkpoint can continue
    under (``train_config.check_resume``), which are announced.

    Returns:
        ``(replacing, recorded_threads)``: what the run that ``force`` replaces holds (or
        ``None``), and when resuming, the thread count config.json records (0 if it has none).
    """
    if not resume:
        return check_fresh_run_dir(out, force), None
    check_not_a_file(out, "a run directory (--out)")
    if not ckpt.checkpoints(out):
        raise FileNotFoundError(f"--resume: {out} has no checkpoint to resume from; "
                                "start without --resume (or point --out at the run)")
    # The settings the run was trained with are those its checkpoint recorded: config.json is a
    # file anyone may edit (a corpus changed there must not pass for the run's own).
    checkpoint, trained = _checkpoint_settings(out)
    recorded = written = None
    if (out / "config.json").exists() or (out / "config.json").is_symlink():
        recorded, train = read_run_config(out)
        written = TrainConfig.from_dict(train, source=str(out / "config.json"))
    elif trained is None:  # a run of an older version
        return None, 0
    saved = trained or written
    for notice in check_resume(saved, config, str(out), recorded,
                               written=written if trained else None, checkpoint=checkpoint):
        if dist.is_main:
            print(f"resuming with a changed setting: {notice}", file=sys.stderr)
    return None, saved.threads


def _checkpoint_settings(out: Path) -> tuple[str, TrainConfig | None]:
    """``(its name, the training settings)`` that the newest readable checkpoint of ``out``
    recorded; ``None`` for the settings if no checkpoint records them.

    Read without loading the tensors (``mmap``): the optimiser state of a large model takes
    gigabytes, which :func:`load_checkpoint` reads later, once."""
    for path in ckpt.checkpoints(out):
        state_file = path / "state.pt"
        try:
            check_regular_file(state_file, ckpt.MAX_STATE_BYTES, folder=path)
            state = torch.load(state_file, map_location="cpu", weights_only=True, mmap=True)
        except Exception:  # damaged or missing: load_checkpoint names it and passes it over
            continue
        if isinstance(state, dict) and isinstance(state.get("train"), dict):
            name = f"its checkpoint {path.name}"
            return name, TrainConfig.from_dict(state["train"], source=f"{state_file}")
    return "its checkpoint", None


def choose_threads(config: TrainConfig, dist: D.DistInfo, resume: bool,
                   recorded: int | None) -> TrainConfig:
    """Set torch's thread count to the run's (:mod:`elmo_tutorial.training.run_threads`): a new
    run's ``config.threads`` or the cores free now, a resumed run's ``recorded`` count unless
    another is asked for. Returns ``config`` with that count, for config.json to record."""
    def free() -> int:  # every process trains on rank 0's count: one rule for the run
        return D.all_gather_objects(default_threads(), dist)[0]

    asked = config.threads
    threads, messages = training_threads(asked, cores=available_cores(), free=free,
                                         recorded=recorded if resume else None)
    torch.set_num_threads(threads)
    if dist.is_main:
        for message in messages:
            print(message, file=sys.stderr)
        if not resume and not asked and dist.device.type == "cpu" and threads < available_cores():
            print(f"training on {threads} of {available_cores()} CPU cores: the others are "
                  "busy (choose with --threads=N; --resume keeps the count)", file=sys.stderr)
    return replace(config, threads=threads)


def corpus_sentences(config: TrainConfig) -> tuple[list, list]:
    """``(training sentences cut to max_sentence_words, held-out sentences)`` of the corpus.

    Raises:
        ValueError: a split without a sentence (its files empty or blank): training would
            loop over empty epochs for ever, and an empty held-out split would report a
            perplexity of 1.00.
    """
    first = config.train_sentences or None  # english_mix then reads only what it needs
    train = [s[: config.max_sentence_words]
             for s in load_sentences(config.corpus, "train", first) if s]
    valid = [s for s in load_sentences(config.corpus, "valid", config.eval_sentences or None)
             if s]
    for split, sentences in (("training", train), ("held-out (valid)", valid)):
        if not sentences:
            raise ValueError(f"the corpus {config.corpus!r} has no {split} sentence with a word "
                             "in it (its files empty or blank?): fetch it again with "
                             "`elmo-tutorial data download NAME --force` (`elmo-tutorial data "
                             "list` names them), or train on another --corpus=")
    return train, valid[: config.eval_sentences or None]


def counted_vocabulary(config: TrainConfig, train_sents: list) -> Vocabulary:
    """The words of ``train_sents`` seen at least ``vocab_min_count`` times (0 keeps every
    word, as 1 does), at most ``vocab_max_size`` entries with the three special words.

    Raises:
        ValueError: settings that keep no word: every word would be ``<UNK>``, and the model
            would learn to predict ``<UNK>`` (a vocabulary of ``<S> </S> <UNK>``).
    """
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


def run_vocabulary(out: Path, config: TrainConfig, train_sents: list,
                   resume: bool) -> Vocabulary:
    """The run's own vocabulary when resuming (checked against the digest in config.json),
    else one counted from the training text."""
    if resume and (vocab := load_run_vocabulary(out)) is not None:
        return vocab
    return counted_vocabulary(config, train_sents)


def build_model(config: TrainConfig, vocab: Vocabulary, train_sents: list, dist: D.DistInfo,
                fast: bool, build: Callable[[ModelConfig], torch.nn.Module] | None = None,
                ) -> tuple[ModelConfig, torch.nn.Module, torch.nn.Module]:
    """``(its config, the biLM on this process's device, its DDP wrapper)``, after checking
    that a step fits in the device's memory (``train_bounds.check_step_fits``).

    ``build(model_config)`` makes the biLM instead of ``BidirectionalLM`` (see ``Trainer``);
    it is refused unless its parameters are ``BidirectionalLM``'s, name for name and shape
    for shape, since the run folder is loaded as a ``BidirectionalLM`` afterwards."""
    model_config = config.model_config(len(vocab))
    check_step_fits(config, model_config, train_sents, dist)  # or refuse, saying what fits
    if build is None:
        model = BidirectionalLM(model_config)
    else:
        model = build(model_config)
        with torch.device("meta"):  # names and shapes only: no memory for a second model
            check_same_parameters(model, BidirectionalLM(model_config))
    model = model.to(dist.device)
    if fast:  # in place, the same parameters: before DDP and the optimiser see them
        speed_up(model)
    if config.sampled_softmax and hasattr(model.softmax, "num_samples"):
        model.softmax.num_samples = config.sampled_softmax
        if config.sampled_softmax >= len(vocab) and dist.is_main:
            print(f"sampled_softmax={config.sampled_softmax} is not below the vocabulary's "
                  f"{len(vocab)} words: training uses the full softmax", file=sys.stderr)
    return model_config, model, D.wrap(model, dist)


def check_same_parameters(model: torch.nn.Module, reference: torch.nn.Module) -> None:
    """Refuse ``model`` unless its state dict has ``reference``'s names and shapes.

    Raises:
        ValueError: what is missing, extra or of another shape, a few names of each.
    """
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


def make_optimizer(model: torch.nn.Module, config: TrainConfig,
                   device: torch.device) -> torch.optim.Optimizer:
    """Adam, or Adagrad as bilm-tf (``tf.train.AdagradOptimizer(lr, initial_acc 1.0)``)."""
    params = model.parameters()
    if config.optimizer == "adagrad":
        return torch.optim.Adagrad(params, lr=config.lr, weight_decay=config.weight_decay,
                                   initial_accumulator_value=config.adagrad_initial_accumulator)
    # One fused kernel per step for all parameters (torch >= 2.4 on CPU): 6.3 → 2.2 ms per
    # tiny step, which has 30 small parameter tensors. Same algorithm, other float order.
    fused = fused_adam_supported(device)
    return torch.optim.Adam(params, lr=config.lr, weight_decay=config.weight_decay,
                            fused=fused or None)


def prepare_run_dir(out: Path, replacing: str | None, vocab: Vocabulary,
                    model_config: ModelConfig, config: TrainConfig, dist: D.DistInfo) -> None:
    """The main process writes the run's config and vocabulary, after deleting the run that
    ``--force`` replaces (``replacing`` describes it)."""
    if not dist.is_main:
        return
    if replacing:
        print(f"{out}: replacing the run it held ({replacing}), as --force asks",
              file=sys.stderr)
        remove_run(out)
    out.mkdir(parents=True, exist_ok=True)
    vocab.save(out / "vocab.txt")
    write_run_config(out, model_config, config.to_dict(), vocab)


# -- checkpoints -----------------------------------------------------------------------------
def save_checkpoint(out: Path, model: torch.nn.Module, progress: dict, config: TrainConfig,
                    dist: D.DistInfo) -> Path | None:
    """Checkpoint the run: the weights, ``progress`` (the trainer's ``step``, ``epoch``,
    ``batch_in_epoch`` and the state dicts of its ``optimizer`` and ``scheduler``), every
    process's random state and the settings. Every process takes part (it gathers the random
    states); returns the checkpoint directory on the main process, ``None`` on the others."""
    state = {**progress, "rng": D.all_gather_objects(ckpt.rng_state(), dist),
             "world_size": dist.world_size, "train": config.to_dict()}
    saved = None
    if dist.is_main:
        saved = ckpt.save_checkpoint(out, progress["step"], model.state_dict(), state,
                                     keep=config.keep_checkpoints)
    D.barrier(dist)
    return saved


def load_checkpoint(out: Path, model: torch.nn.Module, config: TrainConfig,
                    dist: D.DistInfo) -> dict:
    """Load the newest checkpoint of ``out`` that fits ``model`` into it, and this process's
    random state; returns the ``progress`` that :func:`save_checkpoint` saved with it.

    Checkpoints that are damaged, or load but do not fit the model of config.json (other
    shapes or dtypes), are passed over for the newest one that does, and set aside.
    """
    path, model_state, state, skipped = ckpt.load_latest_checkpoint(
        out, expected=model.state_dict())
    named = named_in_latest(out)  # before set_aside moves the damaged ones, and `latest`
    gone = named is not None and not named.exists() and step_of(named) > step_of(path)
    if dist.is_main:  # moved aside, so that `latest` and later resumes skip them
        for warning in ckpt.set_aside(out, path, skipped):
            print(f"warning: {warning}", file=sys.stderr)
        if gone:  # deleted by hand (or lost): said as train --resume says a damaged one
            print(f"warning: {named} is missing (checkpoints/latest names it); resuming from "
                  f"{path} instead", file=sys.stderr)
    model.load_state_dict(model_state)
    rngs = state["rng"]
    if len(rngs) == dist.world_size:  # same process count: exactly the same path
        ckpt.set_rng_state(rngs[dist.rank])
    else:
        seed_everything(config.seed + state["step"])
        print(f"resuming with {dist.world_size} processes instead of {len(rngs)}: training "
              "continues, but not on the identical random path", file=sys.stderr)
    return state
