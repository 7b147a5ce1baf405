"""What a training run may ask for: settings read within bounds, the range of every setting,
and the memory of one step.

Three kinds of mistakes end a run long after it started, or end the machine's other work with
it: input that cannot be read with bounded memory (a ``--config-file`` that is a FIFO or
``/dev/zero``, a value nested 100,000 lists deep), a value no run can mean (``batch_size=0``,
``seed=-1``, ``lr=nan``) and a size that fills the memory (``batch_size=100000000`` grew to
23.8 GB before the kernel killed it). The first are refused by :func:`load_toml` and
:func:`parse_cli_overrides`; the second by :func:`train_config_problems`, which ``TrainConfig``
calls on every change; the third by :func:`check_step_fits`, which the Trainer calls before it
allocates the model, with the estimate, the memory there is, and the largest batch that fits.

The estimate of one step (float32, 4 bytes a number; :func:`step_memory`):

- fixed: the weights, their gradients and the optimiser's state (Adam: two numbers per
  weight; Adagrad: one);
- per sentence, per token position: what backward needs of the character CNN (the embedded
  characters and every convolution's output), of each LSTM layer of both directions (four
  gates before and after their nonlinearity, cell, its tanh, hidden state, projection) and of
  the softmax (scores, their log-softmax and its gradient, over the vocabulary or the sampled
  candidates), times :data:`SLACK` for the temporaries the measured peak shows.

``tests/training/test_train_bounds.py`` compares it with the peak measured on the tiny preset.
"""

from __future__ import annotations

import math

from elmo_tutorial.model.config import MODEL_PRESETS, SIZE_LIMITS, ModelConfig
from elmo_tutorial.data.corpora import LM_CORPORA
from elmo_tutorial.training.cost import parameter_counts
from elmo_tutorial.files.safe_files import read_regular_file
from elmo_tutorial.runtime import available_memory

__all__ = ["TRAIN_LIMITS", "load_toml", "parse_cli_overrides", "train_config_problems",
           "step_memory", "check_step_fits"]

MAX_CONFIG_FILE_BYTES = 1 << 20  # a --config-file sets a few dozen keys: about 1 kB
MAX_OVERRIDE_CHARS = 10_000  # a --key=value: the longest, a list of filters, takes 100


def _parse_toml(text: str, what: str) -> dict:
    """``tomllib.loads``, with the parser's own errors as one line naming ``what``."""
    import tomllib  # Python ≥ 3.11

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ValueError(f"{what} is not valid TOML: {err}") from None
    except RecursionError:
        raise ValueError(_too_deep(what)) from None


def _too_deep(what: str) -> str:  # tomllib recurses once per [ or {: 100,000 of them overflow
    return (f"{what} nests lists or tables thousands of levels deep; no setting takes more than "
            "a list of lists (model.filters)")


def load_toml(path) -> dict:
    """Read overrides from a TOML file (top-level TrainConfig keys, a [model] table).

    Only a regular file of at most ``MAX_CONFIG_FILE_BYTES`` is read: a FIFO or ``/dev/zero``
    given as ``--config-file`` would otherwise hang or fill the memory.
    """
    data = read_regular_file(path, MAX_CONFIG_FILE_BYTES)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ValueError(f"{path} is not valid TOML: it is not UTF-8 text ({err.reason} at "
                         f"byte {err.start})") from None
    return _parse_toml(text, str(path))


def parse_cli_overrides(items: list[str]) -> dict:
    """Turn ``["--lr=0.1", "--model.lstm_dim=128", "--corpus=embedded"]`` into a dict.

    The value is read as a TOML value (numbers, true/false, [lists], "strings"); a bare word that
    is not valid TOML is taken as a string, so ``--corpus=embedded`` needs no quotes; ``none``
    means ``None``.
    """
    import tomllib

    parsed = {}
    for item in items:
        if not item.startswith("--") or "=" not in item:
            raise ValueError(f"override {item!r} must look like --key=value (e.g. --lr=0.01)")
        key, raw = item[2:].split("=", 1)
        key = key.replace("-", "_")
        if len(raw) > MAX_OVERRIDE_CHARS:
            raise ValueError(f"--{key}= has a value of {len(raw):,} characters; no setting takes "
                             f"more than {MAX_OVERRIDE_CHARS:,}: is it the right value?")
        if raw.lower() in ("none", "null"):  # TOML has no null; e.g. --model.cell_clip=none
            parsed[key] = None
            continue
        try:
            parsed[key] = tomllib.loads(f"v = {raw}")["v"]
        except tomllib.TOMLDecodeError:
            parsed[key] = raw
        except RecursionError:
            raise ValueError(_too_deep(f"--{key}=")) from None
    return parsed


# Upper bounds of the settings that size memory or processes; far beyond any ELMo run (the
# paper's: 128 sentences per GPU), yet a typo is refused before anything is allocated.
TRAIN_LIMITS = {
    "batch_size": 1 << 16,  # sentences per step: 512 GPUs of the paper's 128
    "sampled_softmax": SIZE_LIMITS["vocab_size"],  # negatives: no vocabulary has more words
    "threads": 4096,  # CPU threads: more than any machine has cores
    "seed": (1 << 32) - 1,  # NumPy's generator takes seeds below 2**32
}
_AT_LEAST_1 = ("batch_size", "epochs", "log_interval", "keep_checkpoints", "max_sentence_words")
_AT_LEAST_0 = ("max_steps", "eval_interval", "eval_sentences", "checkpoint_interval",
               "warmup_steps", "sampled_softmax", "vocab_min_count", "vocab_max_size", "threads",
               "seed", "grad_clip", "weight_decay", "adagrad_initial_accumulator")
_CHOICES = {"optimizer": ("adam", "adagrad"), "schedule": ("constant", "linear", "cosine"),
            "device": ("auto", "cpu", "cuda")}


def train_config_problems(config) -> list[str]:
    """Every value of a ``TrainConfig`` outside its range, one phrase each (empty: all fine)."""
    problems = []
    if config.model not in MODEL_PRESETS:
        problems.append(f"model must be one of {sorted(MODEL_PRESETS)}, got {config.model!r}")
    for name, allowed in {"corpus": LM_CORPORA, **_CHOICES}.items():
        if getattr(config, name) not in allowed:
            problems.append(f"{name} must be one of {list(allowed)}, got {getattr(config, name)!r}")
    for name in _AT_LEAST_1:
        if getattr(config, name) < 1:
            problems.append(f"{name} must be ≥ 1, got {getattr(config, name)}")
    for name in _AT_LEAST_0:  # "not >=" also catches nan; a float must also be finite
        if not 0 <= (value := getattr(config, name)) < math.inf:
            finite = " and finite" if isinstance(value, float) else ""
            problems.append(f"{name} must be ≥ 0{finite}, got {value}")
    for name in ("lr", "loss_multiplier"):
        if not 0 < getattr(config, name) < math.inf:
            problems.append(f"{name} must be a number > 0, got {getattr(config, name)}")
    for name, limit in TRAIN_LIMITS.items():
        if getattr(config, name) > limit:
            problems.append(f"{name} is {getattr(config, name):,}, more than any run can use "
                            f"(at most {limit:,})")
    return problems


# Autograd and the allocator keep more than the tensors counted below (views, masks,
# rounding); this factor makes the estimate an upper bound of the peak measured on the CPU
# (tests/training/test_train_bounds.py), not a prediction of it.
SLACK = 1.3
FLOAT = 4  # bytes


def step_memory(model: ModelConfig, optimizer: str, sampled_softmax: int, sentences: int,
                tokens_per_sentence: int) -> tuple[int, int]:
    """``(bytes of the weights and the optimiser, bytes of the batch)`` at the peak of one
    training step on ``sentences`` sentences of ``tokens_per_sentence`` tokens (float32).

    Per token position, what backward keeps: in each LSTM layer of both directions, its four
    gates before and after their nonlinearity, cell, hidden state and projections (about
    9C + 2P numbers, as measured); in the softmax, two numbers per candidate word and
    direction (scores and their log-softmax). The character CNN runs once per distinct
    token (at most one per vocabulary word, or per position) over all ``max_chars`` columns,
    and its output is copied to every position.
    """
    weights = sum(parameter_counts(model).values())
    fixed = weights * FLOAT * (2 + (2 if optimizer == "adam" else 1))  # + gradients + state
    tokens = sentences * tokens_per_sentence
    P, C, F = model.projection_dim, model.lstm_dim, model.n_filters
    columns = model.max_chars
    per_distinct = columns * model.char_embed_dim + sum(
        n * (columns - w + 1) for w, n in model.filters) + F * (1 + 4 * model.n_highway) + P
    candidates = sampled_softmax + 1 if 0 < sampled_softmax < model.vocab_size \
        else model.vocab_size
    per_position = 2 * model.n_layers * (9 * C + 2 * P) + 2 * 2 * candidates + P
    distinct = min(tokens, max(model.vocab_size, 1))
    batch = (per_position * tokens + per_distinct * distinct) * FLOAT
    return fixed, math.ceil(batch * SLACK)


def check_step_fits(config, model: ModelConfig, sentences: list, dist) -> None:
    """Refuse a run whose step would not fit in its device's free memory, before it allocates.

    ``sentences`` are the training sentences: the batches are bucketed by length, so the
    largest batch holds ``batch_size`` sentences about as long as the longest (plus ``<S>``
    and ``</S>``). ``dist`` (``distributed.init_distributed``) gives the device and the number
    of processes: on the CPU they share the memory; on GPUs each has its own.

    Raises:
        ValueError: one line: the estimate, the memory available, the largest batch_size that
            fits (or that the model alone does not fit).
    """
    device, processes = dist.device, dist.world_size
    available, where = available_memory(device)
    if available is None:  # nothing says (another kind of device): go ahead
        return
    longest = min(max(map(len, sentences), default=0), config.max_sentence_words)
    sharing = processes if device.type == "cpu" else 1  # processes whose memory is counted

    def needed(batch_size: int) -> int:
        fixed, batch = step_memory(model, config.optimizer, config.sampled_softmax,
                                   math.ceil(batch_size / processes), longest + 2)
        return (fixed + batch) * sharing

    if needed(config.batch_size) <= available:
        return
    low, high = 0, config.batch_size  # the largest batch_size that fits: needed() grows with it
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if needed(middle) <= available else (low, middle - 1)
    fixed = step_memory(model, config.optimizer, config.sampled_softmax, 0, 0)[0]
    advice = (f"the largest batch_size that fits is about {low:,}: give --batch_size={low}"
              if low >= processes else "the model alone does not fit: choose a smaller one "
              "(--model.lstm_dim=, --model.projection_dim=, fewer words with --vocab_max_size=)")
    raise ValueError(f"one training step needs about {_gb(needed(config.batch_size))} "
                     f"(batch_size={config.batch_size:,}, sentences of up to {longest:,} words, "
                     f"{_gb(fixed * sharing)} of weights and optimiser state), but {where} has "
                     f"{_gb(available)} free; {advice}")


def _gb(size: int) -> str:
    """``23.8 GB``, ``512 MB`` or ``40 kB``: enough digits to compare two sizes."""
    return next(f"{size / scale:.{digits}f} {unit}" for scale, unit, digits in (
        (1e9, "GB", 1), (1e6, "MB", 0), (1e3, "kB", 0), (1, "bytes", 0))
        if size >= scale or unit == "bytes")
