"""Explorers for the notebooks: a static view that always renders, plus live ipywidgets controls.

A notebook on GitHub, in nbviewer or under nbval has no kernel to move a slider, so an explorer
shows ``draw`` for a few fixed settings as ordinary cell output (the static fallback), then, in
a kernel, the same ``draw`` under live controls. The widget's output lives in the widget, not
in the cell: the committed outputs are the same with or without a frontend.

Example:
    >>> def draw(scale, word):
    ...     return f"{word} × {scale:.1f}"
    >>> explore(draw, {"scale": Slider(0.0, 2.0, 1.0), "word": Choice(("bank", "play"))},
    ...         static=[{}, {"scale": 2.0, "word": "play"}], live=False)
    bank × 1.0
    play × 2.0
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Choice", "Slider", "Text", "explore", "show"]

LIVE_NOTE = "Live explorer: move the controls to redraw (needs a running Jupyter kernel)."


@dataclass(frozen=True)
class Slider:
    """A number between ``min`` and ``max`` (an integer slider when all four are ints)."""

    min: float
    max: float
    value: float
    step: float = 0.1
    description: str = ""  # the label shown next to the slider; default: the argument's name


@dataclass(frozen=True)
class Choice:
    """One of ``options`` (a drop-down); ``value`` defaults to the first option."""

    options: Sequence[Any]
    value: Any = None
    description: str = ""

    def __post_init__(self) -> None:
        if self.value is None:
            object.__setattr__(self, "value", self.options[0])


@dataclass(frozen=True)
class Text:
    """Free text, e.g. a sentence to embed; ``draw`` runs when the user presses Enter."""

    value: str = ""
    description: str = ""


Control = Slider | Choice | Text


def _in_kernel() -> bool:
    """True inside a Jupyter kernel (where a frontend may render widgets)."""
    from IPython import get_ipython

    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


def show(result: Any) -> None:
    """Show what a ``draw`` returned as cell output: text printed, anything else displayed (a
    figure then closed, so that the inline backend does not show it twice)."""
    from IPython.display import display

    if isinstance(result, str):
        print(result)
    elif result is not None:
        display(result)
        _close_if_figure(result)


def _close_if_figure(result: Any) -> None:
    import matplotlib.pyplot as plt
    from matplotlib.figure import Figure

    if isinstance(result, Figure):
        plt.close(result)  # a no-op for figures that pyplot does not manage


def explore(draw: Callable[..., Any], controls: Mapping[str, Control], *,
            static: Sequence[Mapping[str, Any]] = ({},), live: bool | None = None) -> Any:
    """Show ``draw`` for fixed settings, then (in Jupyter) under live controls.

    Args:
        draw: called with one keyword argument per control; returns a figure, text, or
            anything IPython can display. Keep it under a second: it reruns on every move.
        controls: argument name → :class:`Slider`, :class:`Choice` or :class:`Text`; their
            ``value`` is the default setting.
        static: the settings shown as ordinary output, each merged into the defaults.
        live: build the live widget; ``None`` builds it when running in a Jupyter kernel.

    Returns:
        The live widget (an ipywidgets ``VBox``) if one was built outside Jupyter, else
        ``None`` (in Jupyter it has been displayed).
    """
    defaults = {name: control.value for name, control in controls.items()}
    for settings in static:
        show(draw(**{**defaults, **settings}))
    if not (_in_kernel() if live is None else live):
        return None
    box = build_widget(draw, controls)
    if not _in_kernel():
        return box
    from IPython.display import display

    bundle = box._repr_mimebundle_()
    bundle["text/plain"] = LIVE_NOTE  # a fixed stand-in: no widget repr in the cell output
    display(bundle, raw=True)
    return None


def build_widget(draw: Callable[..., Any], controls: Mapping[str, Control]):
    """One ipywidget per control above an output area that ``draw`` fills through its
    ``outputs`` trait, not by capturing the cell's output (which then stays the same)."""
    import ipywidgets as widgets

    inputs = {name: _make_input(widgets, name, control) for name, control in controls.items()}
    output = widgets.Output()

    def redraw(_change=None) -> None:
        result = draw(**{name: w.value for name, w in inputs.items()})
        output.outputs = ()
        if isinstance(result, str):
            output.append_stdout(result + "\n")
        elif result is not None:
            output.append_display_data(result)
            _close_if_figure(result)

    for w in inputs.values():
        w.observe(redraw, names="value")
    redraw()
    return widgets.VBox([*inputs.values(), output])


def _make_input(widgets, name: str, control: Control):
    label = control.description or name
    style = {"description_width": "initial"}
    if isinstance(control, Text):
        return widgets.Text(value=control.value, description=label, style=style,
                            continuous_update=False, layout=widgets.Layout(width="95%"))
    if isinstance(control, Choice):
        return widgets.Dropdown(options=list(control.options), value=control.value,
                                description=label, style=style)
    numbers = (control.min, control.max, control.value, control.step)
    kind = widgets.IntSlider if all(isinstance(v, int) for v in numbers) else widgets.FloatSlider
    return kind(min=control.min, max=control.max, value=control.value, step=control.step,
                description=label, continuous_update=False, style=style)

