"""The explorers' static fallback renders with no frontend; the live widget redraws on change."""

import matplotlib

from elmo_tutorial.widgets import Choice, Slider, Text, explore


def test_static_fallback_renders_each_setting_without_a_frontend(capsys):
    calls = []

    def draw(scale, word):
        calls.append((scale, word))
        return f"{word}: {scale:.1f}"

    box = explore(draw, {"scale": Slider(0.0, 2.0, 1.0), "word": Choice(("bank", "play"))},
                  static=[{}, {"word": "play"}, {"scale": 2.0}])
    assert box is None, "outside a Jupyter kernel no live widget is built by default"
    assert calls == [(1.0, "bank"), (1.0, "play"), (2.0, "bank")]
    assert capsys.readouterr().out == "bank: 1.0\nplay: 1.0\nbank: 2.0\n"


def test_static_fallback_draws_and_closes_figures():
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def draw(height):
        fig, ax = plt.subplots()
        ax.bar([0], [height])
        return fig

    before = len(plt.get_fignums())
    explore(draw, {"height": Slider(0, 10, 3, step=1)}, static=[{}, {"height": 7}])
    assert len(plt.get_fignums()) == before, "figures shown by the fallback must be closed"


def test_live_widget_redraws_when_a_control_moves():
    seen = []

    def draw(k, word):
        seen.append((k, word))
        return f"{word} {k}"

    box = explore(draw, {"k": Slider(1, 5, 2, step=1), "word": Choice(("a", "b"))},
                  static=[], live=True)
    *inputs, output = box.children
    assert [type(w).__name__ for w in inputs] == ["IntSlider", "Dropdown"]
    assert output.outputs[0]["text"] == "a 2\n"  # drawn once on creation
    inputs[0].value = 4
    inputs[1].value = "b"
    assert seen == [(2, "a"), (4, "a"), (4, "b")]
    assert len(output.outputs) == 1 and output.outputs[0]["text"] == "b 4\n"


def test_text_control_passes_the_typed_string_on_enter():
    box = explore(lambda sentence: sentence.upper(), {"sentence": Text("the bank")}, static=[],
                  live=True)
    text, output = box.children
    assert type(text).__name__ == "Text" and not text.continuous_update
    text.value = "a river"
    assert output.outputs[0]["text"] == "A RIVER\n"
