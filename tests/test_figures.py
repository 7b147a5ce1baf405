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


NOTEBOOK_KEYS = {"contextual": "08", "word_senses": "09", "tagging": "10", "scale": "11",
                 "task_model": "12", "payoff": "13"}


@pytest.mark.parametrize("key", NOTEBOOK_KEYS)
def test_each_later_notebook_highlights_a_box_no_other_one_does(key):
    below_the_model = {part for part, box in PARTS.items() if box.y < 0}
    own = resolve(key) & below_the_model
    assert len(own) == 1, f"{key} (notebook {NOTEBOOK_KEYS[key]}) highlights {own}"
    others = set().union(*(resolve(k) for k in NOTEBOOK_KEYS if k != key))
    assert not own & others, f"{key} shares its box with another notebook"
    figure = architecture(key)
    assert _highlighted_boxes(figure) == len(resolve(key))
    plt.close(figure)


def test_the_later_notebooks_show_different_maps():
    maps = [resolve(key) for key in NOTEBOOK_KEYS]
    assert len(set(maps)) == len(maps)


def test_point_labels_stay_inside_the_axes_and_overlap_nothing():
    from elmo_tutorial.figures import label_points

    rng = __import__("numpy").random.default_rng(0)
    points = rng.normal(size=(6, 2))
    points[1] = points[0] + 0.02  # two points almost on top of each other
    fig, ax = plt.subplots(figsize=(4.5, 3.5))
    ax.scatter(points[:, 0], points[:, 1])
    ax.margins(0.3)
    fig.tight_layout()
    labels = [f"sentence {k}" for k in range(6)]
    texts = label_points(ax, points, labels, fontsize=11)
    assert [t.get_text() for t in texts] == labels and all(t.get_fontsize() == 11 for t in texts)
    renderer = fig.canvas.get_renderer()
    boxes = [t.get_window_extent(renderer) for t in texts]
    frame = ax.get_window_extent(renderer)
    assert all(frame.x0 <= b.x0 and b.x1 <= frame.x1 and frame.y0 <= b.y0 and b.y1 <= frame.y1
               for b in boxes), "every label inside the axes"
    assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])
    assert len(ax.texts) == 6, "the places tried and not taken are removed"
    plt.close(fig)
