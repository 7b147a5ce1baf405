"""What a training run may ask for: settings read within bounds, the range of every setting,
and the memory of one step.

Three kinds of mistakes end a run long after it started, or end the machine's other work with
it: input that cannot be read with bounded memory (a ``--config-file`` that is a FIFO or
``/dev/zero``, a value nested 100,000 lists deep), a value no run can mean (``batch_size=0``,
``seed=-1``, ``lr=nan``) and a size that fills the memory (``batch_size=100000000`` grew to
23.8 GB before the kernel killed it). The first are refused by :func:`load_toml` and
:func:`parse_cli_overrides`, and a key or a type no setting has by :func:`typed_fields`; the
second by :func:`train_config_problems`, from the range each ``TrainConfig`` field declares,
whenever one is made; the third by :func:`check_step_fits`, which the Trainer calls before it
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

import dataclasses
import math
import types
import typing

from elmo_tutorial.files.safe_files import read_regular_file
from elmo_tutorial.model.config import ModelConfig
from elmo_tutorial.runtime import available_memory
from elmo_tutorial.training.cost import parameter_counts

__all__ = ["load_toml", "parse_cli_overrides", "require_table", "typed_fields",
           "train_config_problems",
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


def _type_ok(value, hint) -> bool:
    """True when ``value`` (as parsed from TOML) fits the annotation ``hint``."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return any(_type_ok(value, a) for a in args)
    if hint is type(None):
        return value is None
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if origin in (tuple, list):
        return isinstance(value, (list, tuple)) and all(
            _type_ok(v, args[0]) for v in value) if args else isinstance(value, (list, tuple))
    if origin is dict or hint is dict:
        return isinstance(value, dict)
    return isinstance(value, hint)


def require_table(values, where: str, source: str | None) -> dict:
    """``values``, if it is a table (a dict); else a one-line error naming ``source``."""
    if not isinstance(values, dict):
        raise ValueError(f"{where} settings must be a table of key = value, got {values!r}"
                         + (f"; fix it in {source}" if source else ""))
    return values


def typed_fields(cls, values: dict, where: str, source: str | None = None) -> dict:
    """``values`` checked against the fields of the dataclass ``cls``: every key one of them,
    every value of its annotated type (an int where a float goes becomes a float).

    Raises:
        ValueError: for an unknown key (listing the known ones) or a value of another type,
            saying where to fix it (``source``, else the TOML or ``--key=``).
    """
    require_table(values, where, source)
    hints = typing.get_type_hints(cls)
    known = [f.name for f in dataclasses.fields(cls)]
    checked = {}
    for key, value in values.items():
        if key not in hints:
            raise ValueError(f"unknown {where} key {key!r}; known keys: {', '.join(known)}")
        if not _type_ok(value, hints[key]):
            expected = getattr(hints[key], "__name__", str(hints[key]))  # "float", not "<class…>"
            raise ValueError(f"{where} key {key!r} expects {expected}, got {value!r} "
                             f"({type(value).__name__}); fix the value in "
                             + (source or f"your TOML or --{key}="))
        if hints[key] is float and isinstance(value, int):
            value = float(value)
        checked[key] = value
    return checked


def train_config_problems(config) -> list[str]:
    """Every value of a ``TrainConfig`` outside the range its field declares (``choices``,
    ``above``, ``minimum``, ``below``, ``maximum`` of
    :func:`~elmo_tutorial.training.setting.setting`), one phrase each (empty: all fine).

    The upper bounds are on the settings that size memory or processes, far beyond any ELMo
    run, so that a typo is refused before anything is allocated.
    """
    problems = []
    for field in dataclasses.fields(config):
        name, value, meta = field.name, getattr(config, field.name), field.metadata
        low = -math.inf if meta.get("minimum") is None else meta["minimum"]
        if meta.get("choices") is not None:
            if value not in meta["choices"]:
                problems.append(f"{name} must be one of {list(meta['choices'])}, got {value!r}")
        elif meta.get("above") is not None and not meta["above"] < value < math.inf:
            problems.append(f"{name} must be a number > {meta['above']}, got {value}")
        elif meta.get("below") is not None and not low <= value < meta["below"]:
            problems.append(f"{name} must be in [{low}, {meta['below']}), got {value}")
        elif meta.get("minimum") is not None and not meta["minimum"] <= value < math.inf:
            finite = " and finite" if isinstance(value, float) else ""  # "not ≤" catches nan
            problems.append(f"{name} must be ≥ {meta['minimum']}{finite}, got {value}")
        elif meta.get("maximum") is not None and value > meta["maximum"]:
            problems.append(f"{name} is {value:,}, more than any run can use "
                            f"(at most {meta['maximum']:,})")
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
