"""The ELMo architecture as one figure, drawn by code, and the "you are here" map of the course.

Characters → character CNN → highway layers → projection (layer 0) → forward and backward LSTM
stacks (layers 1..L) → scalar mix → one ELMo vector per token. The softmax over the vocabulary
is used only to train the biLM (Peters et al. 2018, Sec. 3.1-3.2). A row below the model holds
what the later notebooks do with a trained biLM: pretrained weights and scale, the analyses of
its layers, and a task model that takes ELMo as input.

Each notebook opens with the figure, its own part highlighted::

    from elmo_tutorial.figures import you_are_here
    you_are_here("char_cnn", "highway", "projection")

Example:
    >>> from elmo_tutorial.figures import architecture
    >>> fig = architecture(highlight="token_encoder")
    >>> sorted(fig.highlighted)
    ['char_cnn', 'highway', 'projection']
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import FancyBboxPatch


@dataclass(frozen=True)
class _Box:
    name: str  # how a title names it
    label: str  # what the box says, "\n" between lines
    x: float  # centre, in the figure's data coordinates (0..100 wide, 0..32 high)
    y: float
    width: float
    height: float
    dashed: bool = False  # parts that exist only while training


# One box per part, left to right in the order data flows.
PARTS: dict[str, _Box] = {
    "chars": _Box("characters", "characters\n50 ids / token", 6, 14, 10, 8),
    "char_cnn": _Box("char CNN", "char CNN\nembed, 7 widths,\nmax-pool", 18.5, 14, 11, 8),
    "highway": _Box("highway", "highway\n× 2", 30, 14, 8, 8),
    "projection": _Box("projection", "projection\nlayer 0: $x_k$", 41.5, 14, 11, 8),
    "forward_lstm": _Box("forward LSTM", "forward LSTM\nlayers 1 … L  →", 61, 21, 15, 6),
    "backward_lstm": _Box("backward LSTM", "backward LSTM\n←  layers 1 … L", 61, 7, 15, 6),
    "softmax": _Box("softmax", "softmax\n(training)", 61, 14, 11, 4.4, dashed=True),
    "scalar_mix": _Box("scalar mix", "scalar mix\nγ · Σ sⱼ hⱼ", 80.5, 16.5, 12, 11),
    "layer_norm": _Box("layer norm", "layer norm?", 80.5, 7.5, 12, 3.6),
    "elmo": _Box("ELMo", "ELMo\none vector\nper token", 94.5, 14, 9, 9),
    # What the course does with a trained biLM (notebooks 08-12), one box each, below the model.
    "pretrained": _Box("pretrained weights", "pretrained weights\nand scale (11)", 18.5, -5, 17,
                       6),
    "layer_analysis": _Box("what the layers know", "what the layers\nknow (08)", 41.5, -5, 13,
                           6),
    "sense_analysis": _Box("word senses", "word senses\n(09)", 57.5, -5, 11, 6),
    "tagging_analysis": _Box("POS probes and NER tagger", "POS probes,\nNER tagger (10)", 72,
                             -5, 12, 6),
    "task": _Box("task model", "task model\n(12)", 92, -5, 12, 6),
}

# Names for several parts at once.
GROUPS: dict[str, tuple[str, ...]] = {
    "token_encoder": ("char_cnn", "highway", "projection"),
    "bilstm": ("forward_lstm", "backward_lstm"),
    "bilm": ("chars", "char_cnn", "highway", "projection", "forward_lstm", "backward_lstm",
             "softmax"),
    "layers": ("projection", "forward_lstm", "backward_lstm"),  # the L + 1 layers ELMo mixes
    "all": tuple(PARTS),
    # One key per notebook from 08 on: the parts it works with and its own box below the model.
    "contextual": ("projection", "forward_lstm", "backward_lstm", "scalar_mix", "layer_analysis"),
    "word_senses": ("projection", "forward_lstm", "backward_lstm", "scalar_mix",
                    "sense_analysis"),
    "tagging": ("projection", "forward_lstm", "backward_lstm", "scalar_mix", "layer_norm",
                "tagging_analysis"),
    "scale": ("chars", "char_cnn", "highway", "projection", "forward_lstm", "backward_lstm",
              "softmax", "scalar_mix", "elmo", "pretrained"),
    "task_model": ("layer_norm", "scalar_mix", "elmo", "task"),
}

# Arrows as (from part, from side, to part, to side); sides are n, s, e, w.
_ARROWS = [
    ("chars", "e", "char_cnn", "w"),
    ("char_cnn", "e", "highway", "w"),
    ("highway", "e", "projection", "w"),
    ("projection", "e", "forward_lstm", "w"),
    ("projection", "e", "backward_lstm", "w"),
    ("forward_lstm", "s", "softmax", "n"),
    ("backward_lstm", "n", "softmax", "s"),
    ("forward_lstm", "e", "scalar_mix", "w"),
    ("backward_lstm", "e", "scalar_mix", "w"),
    ("layer_norm", "n", "scalar_mix", "s"),
    ("scalar_mix", "e", "elmo", "w"),
    ("pretrained", "n", "char_cnn", "s"),
    ("backward_lstm", "s", "layer_analysis", "n"),
    ("backward_lstm", "s", "sense_analysis", "n"),
    ("backward_lstm", "s", "tagging_analysis", "n"),
    ("elmo", "s", "task", "n"),
]

_ON = {"face": "#f6bd60", "edge": "#9c4a00", "text": "black", "width": 2.0}
_OFF = {"face": "#eef0f2", "edge": "#a9b0b8", "text": "#5c636a", "width": 1.0}


def resolve(highlight: str | Iterable[str] | None) -> frozenset[str]:
    """The part names that ``highlight`` (a part, a group, several of them, or None) names."""
    if highlight is None:
        return frozenset()
    names = [highlight] if isinstance(highlight, str) else list(highlight)
    parts: set[str] = set()
    for name in names:
        if name in GROUPS:
            parts.update(GROUPS[name])
        elif name in PARTS:
            parts.add(name)
        else:
            raise ValueError(f"unknown part {name!r} of the ELMo figure; choose from "
                             f"{', '.join([*PARTS, *GROUPS])}")
    return frozenset(parts)


def _anchor(box: _Box, side: str) -> tuple[float, float]:
    dx = {"e": box.width / 2, "w": -box.width / 2}.get(side, 0.0)
    dy = {"n": box.height / 2, "s": -box.height / 2}.get(side, 0.0)
    return box.x + dx, box.y + dy


def _draw_box(ax: Axes, box: _Box, on: bool) -> None:
    style = _ON if on else _OFF
    ax.add_patch(FancyBboxPatch(
        (box.x - box.width / 2, box.y - box.height / 2), box.width, box.height,
        boxstyle="round,pad=0.3,rounding_size=1.2", facecolor=style["face"],
        edgecolor=style["edge"], linewidth=style["width"], linestyle="--" if box.dashed else "-"))
    ax.text(box.x, box.y, box.label, ha="center", va="center", fontsize=8, color=style["text"],
            fontweight="bold" if on else "normal", linespacing=1.25)


def _arrow(ax: Axes, start: tuple[float, float], end: tuple[float, float], rad: float = 0.0,
           label: str | None = None) -> None:
    ax.annotate("", xy=end, xytext=start, arrowprops={
        "arrowstyle": "-|>", "color": "#6c757d", "lw": 1.0, "shrinkA": 2, "shrinkB": 2,
        "connectionstyle": f"arc3,rad={rad}"})
    if label:
        ax.text((start[0] + end[0]) / 2, 28.6, label, ha="center", fontsize=7,
                color="#6c757d")


def architecture(highlight: str | Iterable[str] | None = None, *, ax: Axes | None = None,
                 title: str | None = None) -> Figure:
    """Draw ELMo from characters to the ELMo vector, with some parts highlighted.

    Args:
        highlight: a part (``chars``, ``char_cnn``, ``highway``, ``projection``,
            ``forward_lstm``, ``backward_lstm``, ``softmax``, ``layer_norm``, ``scalar_mix``,
            ``elmo``; below the model, what the course does with it: ``pretrained``,
            ``layer_analysis``, ``sense_analysis``, ``tagging_analysis``, ``task``), a group
            (``token_encoder``, ``bilstm``, ``bilm``, ``layers``, ``all``, and one per notebook
            from 08 on: ``contextual``, ``word_senses``, ``tagging``, ``scale``,
            ``task_model``), a list of them, or None for no highlight.
        ax: draw into these axes instead of a new figure.
        title: the figure's title; by default none.

    Returns:
        The figure, with ``figure.highlighted`` the set of highlighted part names.

    Raises:
        ValueError: for a name that is neither a part nor a group.
    """
    parts = resolve(highlight)
    if ax is None:
        _, ax = plt.subplots(figsize=(11, 4.1))
    for name, box in PARTS.items():
        _draw_box(ax, box, name in parts)
    for source, source_side, target, target_side in _ARROWS:
        _arrow(ax, _anchor(PARTS[source], source_side), _anchor(PARTS[target], target_side))
    # Layer 0 (the token vector) enters the mix too, next to the LSTM layers.
    _arrow(ax, _anchor(PARTS["projection"], "n"), _anchor(PARTS["scalar_mix"], "n"), rad=-0.22,
           label="layer 0 goes into the mix too")
    ax.set_xlim(0, 100)
    ax.set_ylim(-9, 32)
    ax.set_aspect("auto")
    ax.axis("off")
    if title:
        ax.set_title(title, fontsize=10, loc="left")
    figure = ax.figure
    figure.highlighted = parts
    return figure


def you_are_here(*highlight: str) -> None:
    """Show the architecture with this notebook's parts highlighted (the map atop a notebook).

    Displays the figure (inline in Jupyter) and returns nothing, so a notebook cell shows it
    once.
    """
    parts = resolve(highlight)
    named = ", ".join(box.name for part, box in PARTS.items() if part in parts)
    if parts == set(PARTS):
        named = "the whole model"
    figure = architecture(parts, title=f"You are here: {named}" if named else None)
    figure.tight_layout()
    plt.show()
