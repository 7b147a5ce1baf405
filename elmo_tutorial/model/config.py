"""Model configuration: one dataclass for the biLM's architecture, and its presets.

``ModelConfig`` mirrors the ``options.json`` of bilm-tf and AllenNLP field for field, so a
config converts losslessly to and from the official format (``to_options``/``from_options``).
Training settings live in ``elmo_tutorial.training.train_config`` (``TrainConfig``).
"""

from __future__ import annotations

import types
import typing
from dataclasses import asdict, dataclass, field, fields

from elmo_tutorial.model.chars import MAX_CHARS, N_CHAR_IDS

PAPER_FILTERS = ((1, 32), (2, 32), (3, 64), (4, 128), (5, 256), (6, 512), (7, 1024))  # 2048


def described(default, help: str):
    """A dataclass field with its meaning: ``help`` is the line ``elmo-tutorial train --help``
    prints for ``--model.NAME=`` (``dataclasses.fields(ModelConfig)[i].metadata["help"]``)."""
    return field(default=default, metadata={"help": help})


@dataclass
class ModelConfig:
    """Architecture of the character-based biLM (Peters et al. 2018, Sec. 3.4).

    The defaults are the paper's model: 2048 character filters, 2 highway layers, a 512-wide
    projection, and per direction 2 LSTM layers of 4096 cells projected to 512. Each field is
    ``described(default, "what it is")``.
    """

    # --- character encoder (CNN over characters, Kim et al. 2016) ---
    char_embed_dim: int = described(16, "width of each character's embedding")
    filters: tuple[tuple[int, int], ...] = described(PAPER_FILTERS, "(width, count) per Conv1d")
    n_highway: int = described(2, "highway layers after the max-pooled convolutions")
    activation: str = described("relu", 'after max-pooling: "relu" (paper) or "tanh"')
    max_chars: int = described(MAX_CHARS, "character ids per token")
    n_characters: int = described(N_CHAR_IDS, "rows of the character embedding table")
    # --- LSTM language models, one stack per direction ---
    lstm_dim: int = described(4096, "memory cells per LSTM layer")
    projection_dim: int = described(512, "LSTM output and token-embedding width D")
    n_layers: int = described(2, "LSTM layers per direction")
    cell_clip: float | None = described(3.0, "clip memory cells to [-c, c]; None = no clipping")
    proj_clip: float | None = described(3.0, "clip projections to [-p, p]; None = no clipping")
    use_skip_connections: bool = described(True, "residuals around every layer but the first")
    # --- softmax (training only) ---
    vocab_size: int = described(0, "output words of the LM softmax; 0 = encoder only, no softmax")
    dropout: float = described(0.1, "dropout on LSTM inputs/outputs during training")

    def __post_init__(self) -> None:
        _check_types(self)  # before any comparison: "256" < 1 would be a TypeError
        self.filters = tuple((w, n) for w, n in self.filters)  # TOML, JSON: lists of lists
        problems = []
        if not self.filters:
            problems.append("filters must name at least one (width, count) pair")
        for width, count in self.filters:
            if width < 1 or count < 1 or width > self.max_chars:
                problems.append(f"filter (width={width}, count={count}) is invalid")
        for name in ("char_embed_dim", "lstm_dim", "projection_dim", "n_layers"):
            if getattr(self, name) < 1:
                problems.append(f"{name} must be ≥ 1, got {getattr(self, name)}")
        for name in ("n_highway", "vocab_size"):
            if getattr(self, name) < 0:
                problems.append(f"{name} must be ≥ 0, got {getattr(self, name)}")
        if self.projection_dim > self.lstm_dim >= 1:  # the projection reduces the cells
            problems.append(f"projection_dim ({self.projection_dim}) must be ≤ lstm_dim "
                            f"({self.lstm_dim})")
        if self.n_characters < N_CHAR_IDS:  # chars: 256 bytes, 5 markers, padding id 0
            problems.append(f"n_characters must be ≥ {N_CHAR_IDS} (every character id "
                            f"chars.py gives has a row), got {self.n_characters}")
        if not 1 <= self.max_chars <= MAX_CHARS:
            problems.append(f"max_chars must be in [1, {MAX_CHARS}] (chars.py gives every token "
                            f"{MAX_CHARS} character ids), got {self.max_chars}")
        for name in ("cell_clip", "proj_clip"):
            if getattr(self, name) is not None and not getattr(self, name) > 0:
                problems.append(f"{name} must be > 0 (or none: no clipping), "
                                f"got {getattr(self, name)}")
        if self.activation not in ("relu", "tanh"):
            problems.append(f"activation must be 'relu' or 'tanh', got {self.activation!r}")
        if not 0.0 <= self.dropout < 1.0:
            problems.append(f"dropout must be in [0, 1), got {self.dropout}")
        problems += _absurd_sizes(self)
        if problems:
            raise ValueError("invalid ModelConfig: " + "; ".join(problems))

    @property
    def n_filters(self) -> int:
        """Total number of convolution filters (the width of the max-pooled features)."""
        return sum(count for _, count in self.filters)

    @property
    def clipping(self) -> bool:
        """True when the LSTM clips its cells or projections (the fused path is then inexact)."""
        return self.cell_clip is not None or self.proj_clip is not None

    def to_options(self) -> dict:
        """The bilm-tf / AllenNLP ``options.json`` dictionary for this architecture."""
        lstm = {
            "dim": self.lstm_dim,
            "projection_dim": self.projection_dim,
            "n_layers": self.n_layers,
            "use_skip_connections": self.use_skip_connections,
        }
        if self.cell_clip is not None:
            lstm["cell_clip"] = self.cell_clip
        if self.proj_clip is not None:
            lstm["proj_clip"] = self.proj_clip
        options = {
            "lstm": lstm,
            "char_cnn": {
                "embedding": {"dim": self.char_embed_dim},
                "filters": [list(f) for f in self.filters],
                "n_highway": self.n_highway,
                "n_characters": self.n_characters,
                "max_characters_per_token": self.max_chars,
                "activation": self.activation,
            },
        }
        if self.vocab_size:
            options["n_tokens_vocab"] = self.vocab_size
        return options

    @classmethod
    def from_options(cls, options: dict) -> ModelConfig:
        """Build a config from an ``options.json`` dictionary (bilm-tf / AllenNLP format)."""
        try:
            lstm, cnn = options["lstm"], options["char_cnn"]
            return cls(
                char_embed_dim=cnn["embedding"]["dim"],
                filters=tuple(tuple(f) for f in cnn["filters"]),
                n_highway=cnn["n_highway"],
                activation=cnn.get("activation", "relu"),
                max_chars=cnn.get("max_characters_per_token", MAX_CHARS),
                n_characters=N_CHAR_IDS,  # the files say 261 or 262; we always use 262 rows
                lstm_dim=lstm["dim"],
                projection_dim=lstm["projection_dim"],
                n_layers=lstm["n_layers"],
                cell_clip=lstm.get("cell_clip"),
                proj_clip=lstm.get("proj_clip"),
                use_skip_connections=lstm.get("use_skip_connections", False),
                vocab_size=options.get("n_tokens_vocab", 0),
                dropout=options.get("dropout", 0.1),
            )
        except KeyError as missing:
            raise ValueError(
                f"options.json lacks the key {missing}; is it an ELMo options file?"
            ) from None

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, values: dict) -> ModelConfig:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ValueError(f"unknown ModelConfig field(s) {unknown}; known: {sorted(known)}")
        return cls(**values)


# Far beyond any ELMo (the paper's: 4096 cells, 512 projections, 2048 filters, 2 highway
# layers, 793 471 words), yet small enough to refuse a typo such as lstm_dim=10000000 or
# n_highway=1000000 before it allocates gigabytes.
SIZE_LIMITS = {"char_embed_dim": 4096, "n_highway": 64,
               "n_characters": 1 << 20, "lstm_dim": 1 << 16, "projection_dim": 1 << 14,
               "n_layers": 64, "vocab_size": 1 << 24, "filter count": 1 << 16}
MAX_PARAMETERS = 2_000_000_000  # 8 GB of float32 weights, before the optimiser's state


def fits_type(value, hint) -> bool:
    """Whether ``value``, as JSON or TOML gives it, has the annotated type ``hint``: a size is
    an int (not ``256.5``, ``"256"`` or ``true``), a float may be given as an int."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return any(fits_type(value, a) for a in args)
    if hint is type(None):
        return value is None
    if hint in (int, float):
        return isinstance(value, int | hint) and not isinstance(value, bool)
    if origin in (tuple, list):
        if not isinstance(value, list | tuple):
            return False
        if origin is tuple and args and args[-1] is not Ellipsis:  # tuple[int, int]
            return len(value) == len(args) and all(map(fits_type, value, args))
        return all(fits_type(v, args[0]) for v in value) if args else True
    return isinstance(value, origin or hint)


def type_name(cls, name: str) -> str:
    """The type of the dataclass field ``name`` in words: ``int``, or the annotation and its
    help line (``tuple[tuple[int, int], ...] ((width, count) per Conv1d)``)."""
    hint = typing.get_type_hints(cls)[name]
    if isinstance(hint, type):
        return hint.__name__
    help = next(f.metadata.get("help") for f in fields(cls) if f.name == name)
    return f"{hint}".replace("typing.", "") + (f" ({help})" if help else "")


def _check_types(config: ModelConfig) -> None:
    """A one-line ``ValueError`` naming the first field whose value has the wrong type."""
    for name, hint in typing.get_type_hints(ModelConfig).items():
        value = getattr(config, name)
        if not fits_type(value, hint):
            raise ValueError(f"invalid ModelConfig: {name} must be {type_name(ModelConfig, name)}"
                             f", got {value!r} ({type(value).__name__})")


def _absurd_sizes(config: ModelConfig) -> list[str]:
    """Sizes past :data:`SIZE_LIMITS`, or a model of more than :data:`MAX_PARAMETERS`."""
    problems = [f"{name} is {getattr(config, name):,}, more than any ELMo needs (at most "
                f"{limit:,})" for name, limit in SIZE_LIMITS.items()
                if name != "filter count" and getattr(config, name) > limit]
    problems += [f"a filter count of {n:,} is more than any ELMo needs (at most "
                 f"{SIZE_LIMITS['filter count']:,})"
                 for _, n in config.filters if n > SIZE_LIMITS["filter count"]][:1]
    if not problems:  # the big matrices (cost.parameter_counts has every one)
        P, C, F = config.projection_dim, config.lstm_dim, config.n_filters
        total = (2 * config.n_layers * 9 * C * P + config.n_highway * 2 * F * F + F * P
                 + config.vocab_size * P + sum(config.char_embed_dim * w * n
                                               for w, n in config.filters))
        if total > MAX_PARAMETERS:
            problems.append(f"the model would have about {total:,} parameters, more than "
                            f"{MAX_PARAMETERS:,} ({4 * MAX_PARAMETERS / 1e9:.0f} GB as float32)")
    return problems


MODEL_PRESETS: dict[str, ModelConfig] = {
    # CPU, embedded corpus, about a minute: small enough to train, big enough to learn senses.
    "tiny": ModelConfig(
        char_embed_dim=8,
        filters=((1, 16), (2, 16), (3, 32), (4, 64)),
        n_highway=1,
        lstm_dim=256,
        projection_dim=64,
        n_layers=2,
        cell_clip=None,
        proj_clip=None,
    ),
    # One GPU in minutes (or a CPU, slowly); shipped pre-trained with the course.
    "small": ModelConfig(
        char_embed_dim=16,
        filters=((1, 32), (2, 32), (3, 64), (4, 128), (5, 256)),
        n_highway=2,
        lstm_dim=512,  # 3.5 M parameters: the shipped weights fit in 7 MB as float16
        projection_dim=128,
        n_layers=2,
        cell_clip=None,  # no clipping: the fused (cuDNN) LSTM path is exact
        proj_clip=None,
    ),
    # Peters et al. 2018: the released "original" ELMo.
    "paper": ModelConfig(),
}

__all__ = ["ModelConfig", "MODEL_PRESETS", "PAPER_FILTERS", "described"]
