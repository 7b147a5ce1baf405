r"""What a biLM costs: parameters and floating-point operations (FLOPs) per token, by part.

Taught in notebook 11 (``11_pretrained_and_scale``).

Both are counted from a ``ModelConfig`` alone, with no tensor allocated. A FLOP here is one
multiplication or one addition: ``x @ W`` with ``W`` of shape ``(I, O)`` costs ``2·I·O`` per
row. Only matrix products and convolutions are counted, as
``torch.utils.flop_counter.FlopCounterMode`` counts them (:func:`measure_flops`); gates, clipping
and the softmax's exponentials are a few percent more.

Per token position of a training batch, forward (E = char_embed_dim, w × n filters, F = Σn,
P = projection_dim, C = lstm_dim, L = n_layers, V = vocabulary or softmax candidates)::

    convolutions   Σ_w 2·E·w·n·(50 − w + 1)      every window of the token's 50 characters
    highway        n_highway · 2·F·2F            transform and gate from one (F, 2F) product
    projection     2·F·P
    LSTMs          2 directions · L · 2·(4C·P + 4C·P + C·P)    input, recurrent, projection
    softmax        2 directions · 2·P·V          V → the sampled candidates when sampling

Backward costs twice the forward (a gradient for each operand of each product): a training
step costs ``TRAINING_FACTOR`` = 3 times the forward. This is bilm-tf's cost, with the
character CNN over all 50 characters of every position; the fast one that training uses
(:class:`~elmo_tutorial.fast.char_cnn.FastCharCNN`) does less (notebook 11).

Example:
    >>> from elmo_tutorial.model.config import MODEL_PRESETS
    >>> counts = parameter_counts(MODEL_PRESETS["paper"], vocab_size=793_471)
    >>> f"{sum(counts.values()) / 1e6:.1f} M"
    '500.7 M'
    >>> flops = flops_per_token(MODEL_PRESETS["paper"], vocab_size=793_471, sampled_softmax=8192)
    >>> f"{flops['lstm'] / 1e6:.1f} MFLOP forward"
    '151.0 MFLOP forward'
"""

from __future__ import annotations

from collections.abc import Callable

from elmo_tutorial.model.config import ModelConfig

__all__ = ["PARTS", "TRAINING_FACTOR", "flops_by_part", "flops_per_token", "measure_flops",
           "parameter_counts"]

PARTS = ("char_embedding", "convolutions", "highway", "projection", "lstm", "softmax")
TRAINING_FACTOR = 3  # forward + backward, where backward is two products per forward product


def parameter_counts(config: ModelConfig, vocab_size: int | None = None) -> dict[str, int]:
    """Trainable numbers in each part (:data:`PARTS`) of a ``BidirectionalLM`` built from
    ``config``, with a softmax of ``vocab_size`` words (default ``config.vocab_size``).

    The counts are those of our modules: ``nn.LSTM`` holds two bias vectors per layer where
    TensorFlow holds one, and our character table has a padding row.
    """
    E, P, C, F = config.char_embed_dim, config.projection_dim, config.lstm_dim, config.n_filters
    V = config.vocab_size if vocab_size is None else vocab_size
    lstm_layer = 4 * C * P + 4 * C * P + 2 * 4 * C + P * C  # W_ih, W_hh, two biases, W_hr
    return {
        "char_embedding": config.n_characters * E,
        "convolutions": sum(E * w * n + n for w, n in config.filters),
        "highway": config.n_highway * (F * 2 * F + 2 * F),  # one (2F, F) matrix: h and gate
        "projection": F * P + P,
        "lstm": 2 * config.n_layers * lstm_layer,
        "softmax": V * P + V,
    }


def flops_per_token(config: ModelConfig, vocab_size: int | None = None, sampled_softmax: int = 0,
                    char_columns: int | None = None) -> dict[str, int]:
    """Forward FLOPs per token position, by part (multiply by ``TRAINING_FACTOR`` to train).

    Args:
        vocab_size: words of the softmax (default ``config.vocab_size``; 0: an encoder).
        sampled_softmax: candidates of a sampled softmax (bilm-tf: 8192), 0 for the full one.
        char_columns: character positions each convolution slides over (default: all
            ``config.max_chars``, as bilm-tf does).

    ``lstm`` and ``softmax`` count both directions; ``char_embedding`` is a lookup: 0.
    """
    E, P, C, F = config.char_embed_dim, config.projection_dim, config.lstm_dim, config.n_filters
    V = config.vocab_size if vocab_size is None else vocab_size
    columns = config.max_chars if char_columns is None else char_columns
    if sampled_softmax < 0 or columns < 1:
        raise ValueError(f"sampled_softmax must be ≥ 0 and char_columns ≥ 1, got "
                         f"{sampled_softmax} and {columns}")
    outputs = min(sampled_softmax, V) if sampled_softmax else V  # logits per prediction
    return {
        "char_embedding": 0,
        "convolutions": sum(2 * E * w * n * max(columns - w + 1, 0) for w, n in config.filters),
        "highway": config.n_highway * 2 * F * 2 * F,
        "projection": 2 * F * P,
        "lstm": 2 * config.n_layers * 2 * (4 * C * P + 4 * C * P + C * P),
        "softmax": 2 * 2 * P * outputs,
    }


def measure_flops(fn: Callable[[], object]) -> tuple[int, dict[str, int]]:
    """Run ``fn()`` under ``FlopCounterMode``: ``(total FLOPs, {module path: FLOPs})``, the
    paths as it names them (``"BidirectionalLM.forward_lstm"``, ...; ``"Global"``), each
    including its submodules' (and the backward pass, if ``fn`` runs one)."""
    from torch.utils.flop_counter import FlopCounterMode

    with FlopCounterMode(display=False) as counter:
        fn()
    by_module = {name: int(sum(ops.values())) for name, ops in counter.get_flop_counts().items()}
    return int(counter.get_total_flops()), by_module


def flops_by_part(by_module: dict[str, int]) -> dict[str, int]:
    """Group :func:`measure_flops`'s per-module counts of a language model into :data:`PARTS`.

    The model must have been called through its ``forward`` (``model(batch)``), so that the
    counter names its submodules by attribute: ``….char_cnn.highway``, ``….forward_lstm``.
    """
    def total(name: str) -> int:
        return sum(flops for path, flops in by_module.items() if path.endswith("." + name))

    char_cnn, highway, projection = (total(n) for n in ("char_cnn", "char_cnn.highway",
                                                         "char_cnn.projection"))
    return {
        "char_embedding": 0,
        "convolutions": char_cnn - highway - projection,
        "highway": highway,
        "projection": projection,
        "lstm": total("forward_lstm") + total("backward_lstm"),
        "softmax": total("softmax"),
    }
