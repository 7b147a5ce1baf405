"""The ELMo architecture as one figure, drawn by code, and the "you are here" map of the course.

Characters → character CNN → highway layers → projection (layer 0) → forward and backward LSTM
stacks (layers 1..L) → scalar mix → one ELMo vector per token; the softmax only trains the biLM
(Peters et al. 2018, Sec. 3.1-3.2). A row below holds what notebooks 08-13 do with a trained
biLM. Each notebook opens with it, its own part highlighted:
``you_are_here("char_cnn", "highway", "projection")``. :func:`label_points` labels a scatter
plot's points where the labels overlap nothing.

Example:
    >>> from elmo_tutorial.figures import architecture
    >>> fig = architecture(highlight="token_encoder")
    >>> sorted(fig.highlighted)
    ['char_cnn', 'highway', 'projection']
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import FancyBboxPatch
from matplotlib.text import Annotation
from matplotlib.transforms import Bbox


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
    "chars": _Box("characters", "characters\n50 ids\nper token", 6, 14, 10, 8),
    "char_cnn": _Box("char CNN", "char CNN\n7 widths,\nmax-pool", 18.5, 14, 11, 8),
    "highway": _Box("highway", "highway\n× 2", 30, 14, 8, 8),
    "projection": _Box("projection", "projection\nlayer 0: $x_k$", 41.5, 14, 11, 8),
    "forward_lstm": _Box("forward LSTM", "forward LSTM\nlayers 1 … L  →", 61, 21, 15, 6),
    "backward_lstm": _Box("backward LSTM", "backward LSTM\n←  layers 1 … L", 61, 7, 15, 6),
    "softmax": _Box("softmax", "softmax\n(training)", 61, 14, 11, 4.4, dashed=True),
    "scalar_mix": _Box("scalar mix", "scalar mix\nγ · Σ sⱼ hⱼ", 80.5, 16.5, 12, 11),
    "layer_norm": _Box("layer norm", "layer norm?", 80.5, 7.5, 12, 3.6),
    "elmo": _Box("ELMo", "ELMo\none vector\nper token", 94.5, 14, 9, 9),
    # What the course does with a trained biLM (notebooks 08-13), below the model.
    "pretrained": _Box("pretrained weights", "pretrained weights\nand scale (11)", 18.5, -5, 17,
                       6),
    "layer_analysis": _Box("what the layers know", "what the layers\nknow (08)", 39, -5, 13,
                           6),
    "sense_analysis": _Box("word senses", "word senses\n(09)", 52.5, -5, 10, 6),
    "tagging_analysis": _Box("POS probes and NER tagger", "POS probes,\nNER tagger (10)", 65.5,
                             -5, 12, 6),
    "task": _Box("task model", "task model\n(12)", 79, -5, 10, 6),
    "payoff": _Box("what the payoff is made of", "what ELMo\nadds (13)", 92, -5, 11, 6),
}

_LAYERS = ("projection", "forward_lstm", "backward_lstm")  # the L + 1 layers ELMo mixes
_BILM = ("chars", "char_cnn", "highway", *_LAYERS, "softmax")

# Names for several parts at once.
GROUPS: dict[str, tuple[str, ...]] = {
    "token_encoder": ("char_cnn", "highway", "projection"),
    "bilstm": ("forward_lstm", "backward_lstm"),
    "bilm": _BILM,
    "layers": _LAYERS,
    "all": tuple(PARTS),
    # One key per notebook from 08 on: the parts it works with and its own box below the model.
    "contextual": (*_LAYERS, "scalar_mix", "layer_analysis"),
    "word_senses": (*_LAYERS, "scalar_mix", "sense_analysis"),
    "tagging": (*_LAYERS, "scalar_mix", "layer_norm", "tagging_analysis"),
    "scale": (*_BILM, "scalar_mix", "elmo", "pretrained"),
    "task_model": ("layer_norm", "scalar_mix", "elmo", "task"),
    "payoff": (*_LAYERS, "scalar_mix", "elmo", "payoff"),
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
    ("elmo", "s", "payoff", "n"),
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
    ax.text(box.x, box.y, box.label, ha="center", va="center", fontsize=10, color=style["text"],
            fontweight="bold" if on else "normal", linespacing=1.25)


def _arrow(ax: Axes, start: tuple[float, float], end: tuple[float, float], rad: float = 0.0,
           label: str | None = None) -> None:
    ax.annotate("", xy=end, xytext=start, arrowprops={
        "arrowstyle": "-|>", "color": "#6c757d", "lw": 1.0, "shrinkA": 2, "shrinkB": 2,
        "connectionstyle": f"arc3,rad={rad}"})
    if label:
        ax.text((start[0] + end[0]) / 2, 28.6, label, ha="center", fontsize=10,
                color="#6c757d")


def architecture(highlight: str | Iterable[str] | None = None, *, ax: Axes | None = None,
                 title: str | None = None) -> Figure:
    """Draw ELMo from characters to the ELMo vector, with ``highlight`` highlighted: a part (a
    key of :data:`PARTS`), a group (of :data:`GROUPS`), a list of those, or None. Returns the
    figure, with ``figure.highlighted`` the set of highlighted part names."""
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
        ax.set_title(title, fontsize=12, loc="left")
    figure = ax.figure
    figure.highlighted = parts
    return figure


def you_are_here(*highlight: str) -> None:
    """Show the architecture with this notebook's parts highlighted (returns nothing, so that
    a cell shows the figure once)."""
    parts = resolve(highlight)
    named = ", ".join(box.name for part, box in PARTS.items() if part in parts)
    if parts == set(PARTS):
        named = "the whole model"
    figure = architecture(parts, title=f"You are here: {named}" if named else None)
    figure.tight_layout()
    plt.show()


# Where a label may go, as a unit offset from its point and the alignment that keeps the text
# on that side: right, left, above, below, then the four diagonals.
_SIDES = [((1, 0), "left", "center"), ((-1, 0), "right", "center"),
          ((0, 1), "center", "bottom"), ((0, -1), "center", "top"),
          ((1, 1), "left", "bottom"), ((-1, 1), "right", "bottom"),
          ((1, -1), "left", "top"), ((-1, -1), "right", "top")]


def _overlap(a: Bbox, b: Bbox) -> float:
    width = min(a.x1, b.x1) - max(a.x0, b.x0)
    height = min(a.y1, b.y1) - max(a.y0, b.y0)
    return max(width, 0.0) * max(height, 0.0)


def label_points(ax: Axes, xy: Sequence[Sequence[float]], labels: Sequence[str], *,
                 fontsize: float = 11, gap: float = 5, marker_radius: float = 5,
                 **text_kw) -> list[Annotation]:
    """Write ``labels[i]`` next to the point ``xy[i]`` (``(N, 2)``, data coordinates) of ``ax``,
    each where it overlaps no other label or point and stays inside the axes; return the ``N``
    annotations.

    Each label tries the sides of its point (``_SIDES``), close first, then further away, and
    takes the first free place, else the one that overlaps least. Call it once the axes have
    their final size and limits (after ``fig.tight_layout()``): places are found in pixels.
    ``gap`` (from a point to its label) and ``marker_radius`` (kept free around each point)
    are in points; ``text_kw`` goes to ``ax.annotate``.

    Example:
        >>> fig, ax = plt.subplots(figsize=(4, 3))
        >>> points = [(0, 0), (0.1, 0), (1, 1)]
        >>> _ = ax.scatter(*zip(*points)); ax.margins(0.3); fig.tight_layout()
        >>> texts = label_points(ax, points, ["one", "two", "three"])
        >>> boxes = [t.get_window_extent() for t in texts]
        >>> any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])
        False
        >>> plt.close(fig)
    """
    xy = np.asarray(xy, dtype=float).reshape(-1, 2)
    if len(xy) != len(labels):
        raise ValueError(f"{len(xy)} points but {len(labels)} labels")
    figure = ax.figure
    renderer = figure.canvas.get_renderer()
    ax.get_xlim(), ax.get_ylim()  # settle the autoscaled limits before reading pixels
    inside = ax.get_window_extent(renderer)
    radius = marker_radius * figure.dpi / 72  # points to pixels
    markers = [Bbox.from_extents(px - radius, py - radius, px + radius, py + radius)
               for px, py in ax.transData.transform(xy)]
    taken: list[Bbox] = []
    texts = []
    for index, ((x, y), label) in enumerate(zip(xy, labels, strict=True)):
        best, best_cost = None, np.inf
        for distance, ((ux, uy), ha, va) in itertools.product((1, 2, 3, 5), _SIDES):
            if best_cost == 0:
                break
            offset = (ux * gap * distance, uy * gap * distance)
            text = ax.annotate(label, (x, y), xytext=offset, textcoords="offset points",
                               ha=ha, va=va, fontsize=fontsize, **text_kw)
            box = text.get_window_extent(renderer)
            outside = box.width * box.height - _overlap(box, inside)
            cost = (10 * outside + sum(_overlap(box, other) for other in taken)
                    + sum(_overlap(box, m) for k, m in enumerate(markers) if k != index))
            if cost < best_cost:
                if best is not None:
                    best[0].remove()
                best, best_cost = (text, box), cost
            else:
                text.remove()
        texts.append(best[0])
        taken.append(best[1])
    return texts
