"""The architecture figure draws for every part and group, and highlights exactly those."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
from matplotlib.colors import to_hex  # noqa: E402
from matplotlib.patches import FancyBboxPatch  # noqa: E402

from elmo_tutorial.figures import _ON, GROUPS, PARTS, architecture, resolve, you_are_here  # noqa: E402


def _highlighted_boxes(figure) -> int:
    boxes = [p for p in figure.axes[0].patches if isinstance(p, FancyBboxPatch)]
    assert len(boxes) == len(PARTS), "one box per part"
    return sum(to_hex(b.get_facecolor()) == _ON["face"] for b in boxes)


@pytest.mark.parametrize("name", [*PARTS, *GROUPS, None])
def test_architecture_draws_and_highlights_each_part_and_group(name):
    figure = architecture(highlight=name)
    expected = resolve(name)
    assert figure.highlighted == expected
    assert _highlighted_boxes(figure) == len(expected)
    plt.close(figure)


def test_groups_name_real_parts_and_all_is_everything():
    for group, parts in GROUPS.items():
        assert set(parts) <= set(PARTS), group
    assert resolve("all") == set(PARTS)
    assert resolve(["token_encoder", "elmo"]) == {"char_cnn", "highway", "projection", "elmo"}


def test_an_unknown_part_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown part 'lstm'.*char_cnn"):
        architecture("lstm")


def test_you_are_here_shows_one_titled_figure_and_returns_nothing():
    plt.close("all")
    assert you_are_here("char_cnn", "highway") is None
    (number,) = plt.get_fignums()
    assert plt.figure(number).axes[0].get_title(loc="left") == "You are here: char CNN, highway"
    plt.close("all")
    you_are_here("all")
    assert plt.gcf().axes[0].get_title(loc="left") == "You are here: the whole model"
    plt.close("all")
