"""Notebook 08's self-check accepts a right sense score and explains wrong ones."""

import numpy as np
import pytest
from _check_helpers import own_copy

from elmo_tutorial import checks
from elmo_tutorial.analyses.sense_separation import nearest_centroid_accuracy, sense_separation
from elmo_tutorial.course.exercises import STUB_ADVICE

_packages_formula = own_copy(nearest_centroid_accuracy)


def written_out(vectors, labels):
    """The answer the notebook's solution block gives, loop by loop."""
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    senses, right = sorted(set(labels)), 0
    for i, label in enumerate(labels):
        best, best_sim = None, -np.inf
        for sense in senses:
            others = [unit[j] for j in range(len(labels)) if j != i and labels[j] == sense]
            centroid = np.mean(others, axis=0)
            sim = unit[i] @ centroid / np.linalg.norm(centroid)
            if sim > best_sim:
                best, best_sim = sense, sim
        right += best == label
    return right / len(labels)


def package(vectors, labels):
    """The package's code, written out by a student (a call of the package's function fails)."""
    return _packages_formula(vectors, labels, centre=False)


def keeps_itself(vectors, labels):
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    senses = sorted(set(labels))
    centroids = np.stack([unit[[lab == s for lab in labels]].mean(0) for s in senses])
    centroids /= np.linalg.norm(centroids, axis=1, keepdims=True)
    return np.mean([senses[int(np.argmax(centroids @ u))] == lab
                    for u, lab in zip(unit, labels, strict=True)])


def euclidean(vectors, labels):
    senses, right = sorted(set(labels)), 0
    for i, label in enumerate(labels):
        means = [vectors[[j for j in range(len(labels)) if j != i and labels[j] == s]].mean(0)
                 for s in senses]
        right += senses[int(np.argmin([np.linalg.norm(vectors[i] - m) for m in means]))] == label
    return right / len(labels)


def counts_instead_of_fraction(vectors, labels):
    return package(vectors, labels) * len(labels)


def without_unit_vectors(vectors, labels):
    senses, right = sorted(set(labels)), 0
    for i, label in enumerate(labels):
        means = [vectors[[j for j in range(len(labels)) if j != i and labels[j] == s]].mean(0)
                 for s in senses]
        sims = [vectors[i] @ m / np.linalg.norm(m) for m in means]
        right += senses[int(np.argmax(sims))] == label
    return right / len(labels)


@pytest.mark.parametrize("answer", [written_out, package])
def test_check_accepts_right_answers(answer, capsys):
    checks.check_nearest_centroid_accuracy(answer)
    assert "✓" in capsys.readouterr().out


@pytest.mark.parametrize(("answer", "hint"), [
    (keeps_itself, "still in its own sense's centroid"),
    (euclidean, "Euclidean"),
    (counts_instead_of_fraction, "not their number"),
    (without_unit_vectors, "expected"),
])
def test_check_rejects_wrong_answers_with_a_hint(answer, hint):
    with pytest.raises(checks.CheckFailed, match=hint):
        checks.check_nearest_centroid_accuracy(answer)


@pytest.mark.parametrize("delegating", [
    lambda vectors, labels: nearest_centroid_accuracy(vectors, labels, centre=False),
    lambda vectors, labels: sense_separation(vectors, ["w"] * len(labels), labels,
                                             centre=False)["w"],
    nearest_centroid_accuracy,
])
def test_check_refuses_the_package_function_the_notebook_could_call(delegating):
    with pytest.raises(checks.Delegated, match="sense_separation.nearest_centroid_accuracy"):
        checks.check_nearest_centroid_accuracy(delegating)


def test_check_fails_on_a_stub_nothing_and_an_empty_answer():
    def my_nearest_centroid_accuracy(vectors, labels):
        raise NotImplementedError("Exercise 4: the sense score. " + STUB_ADVICE)

    with pytest.raises(checks.NotWrittenYet, match=r"Exercise 4 \(the sense score\)"):
        checks.check_nearest_centroid_accuracy(my_nearest_centroid_accuracy)
    for nothing in (None, [], np.array([])):
        with pytest.raises(checks.CheckFailed, match="one number"):
            checks.check_nearest_centroid_accuracy(lambda vectors, labels, v=nothing: v)


def _mix_data():
    """Three layers of 3 words × 2 senses × 10 occurrences, each layer separating the senses
    differently (layer 0 not at all, and loud), so that every wrong mix scores differently from
    the right one."""
    rng = np.random.default_rng(1)
    words = [w for w in "abc" for _ in range(20)]
    senses = [f"{w}{k // 10}" for w in "abc" for k in range(20)]
    layers = rng.normal(size=(3, len(words), 6)) * np.array([3.0, 1.0, 1.0])[:, None, None]
    for j, strength in enumerate((0.0, 0.9, 0.6)):
        layers[j, :, 0] += strength * np.array([1.0 if s.endswith("1") else -1.0 for s in senses])
    return layers, words, senses


def test_mix_without_layer0_passes_the_mix_of_layers_1_and_2(capsys):
    from elmo_tutorial.analyses.sense_separation import sense_separation

    layers, words, senses = _mix_data()
    right = sense_separation(0.5 * layers[1] + 0.5 * layers[2], words, senses)
    checks.check_mix_without_layer0(np.array(list(right.values())), layers, words, senses)
    checks.check_mix_without_layer0(right, layers, words, senses)  # the dict works too
    assert "✓" in capsys.readouterr().out


@pytest.mark.parametrize(("mix", "message"), [
    (lambda h: h.mean(axis=0), "layer 0 still in"),
    (lambda h: h[2], "layer 2 alone"),
    (lambda h: np.concatenate([h[1], -h[2] ** 3], axis=1), r"0\.5 \* layers\[1\]"),
])
def test_mix_without_layer0_names_the_mistake(mix, message):
    from elmo_tutorial.analyses.sense_separation import sense_separation

    layers, words, senses = _mix_data()
    scores = sense_separation(mix(layers), words, senses)
    with pytest.raises(checks.CheckFailed, match=message):
        checks.check_mix_without_layer0(scores, layers, words, senses)


def test_mix_without_layer0_wants_one_score_per_word():
    layers, words, senses = _mix_data()
    with pytest.raises(checks.CheckFailed, match="one per word"):
        checks.check_mix_without_layer0([0.5], layers, words, senses)
