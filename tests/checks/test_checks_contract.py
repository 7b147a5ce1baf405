"""The rules every self-check keeps, whatever it checks.

A check fails on a stub (the student copy's ``raise NotImplementedError``, or a function that
returns None), on an empty answer, and on an answer that calls the package function the check
compares with; it never fails with a Python error of its own. Its failure shows in Jupyter as
one line, not as a traceback through the check's code.
"""

from __future__ import annotations

import subprocess
import sys
from functools import partial

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from _check_helpers import highway_from_the_package

from elmo_tutorial import checks
from elmo_tutorial.analyses import static_vectors, wsd
from elmo_tutorial.analyses.sense_separation import nearest_centroid_accuracy, sense_separation
from elmo_tutorial.analyses.static_vectors import StaticVectors, context_vector
from elmo_tutorial.analyses.tagger import bio_spans, entity_scores
from elmo_tutorial.course.exercises import STUB_ADVICE
from elmo_tutorial.model import lstmp
from elmo_tutorial.model.char_cnn import CharCNN, Highway
from elmo_tutorial.model.chars import char_ids_to_word
from elmo_tutorial.model.config import MODEL_PRESETS
from elmo_tutorial.model.layer_norm import masked_layer_norm
from elmo_tutorial.model.lstm import reverse_padded
from elmo_tutorial.model.scalar_mix import ScalarMix
from elmo_tutorial.tasks.model import TaskModel
from elmo_tutorial.training import cost
from tests._assembled_bilm import WrappedBiLM

STUB = "Exercise 3: the context-window vector. " + STUB_ADVICE


def stub(*args, **kwargs):
    raise NotImplementedError(STUB)


def returns_none(*args, **kwargs):
    return None


def _left_mask(x, lengths):
    return torch.arange(x.shape[1]) >= x.shape[1] - lengths[:, None]


def _tf_by_conversion(x, h, c, kernel, bias, proj_kernel, cell_clip, proj_clip):
    i, j, f, o = kernel.T.chunk(4)
    bi, bj, bf, bo = bias.chunk(4)
    w = torch.cat([i, f, j, o])
    b_hh = torch.cat([torch.zeros_like(bi), torch.ones_like(bf), torch.zeros_like(bj),
                      torch.zeros_like(bo)])
    n = x.shape[-1]
    return lstmp.lstmp_step(x, h, c, w[:, :n], w[:, n:], torch.cat([bi, bf, bj, bo]), b_hh,
                            proj_kernel.T, cell_clip, proj_clip)


def _counted(config):
    cnn = CharCNN(config)
    parts = {"char embeddings": cnn.char_embedding, "convolutions": cnn.convs,
             "highway": cnn.highway, "projection": cnn.projection}
    return {k: sum(p.numel() for p in m.parameters()) for k, m in parts.items()}


def _from_parameter_counts(config):
    counts = cost.parameter_counts(config)
    return {"char embeddings": counts["char_embedding"], "convolutions": counts["convolutions"],
            "highway": counts["highway"], "projection": counts["projection"]}


def _spans_from_entity_scores(tags):
    entity_scores([tags], [tags])
    return bio_spans(tags)


# check → (an empty answer, answers that call what the check compares with)
FUNCTION_CHECKS = {
    "check_bilm_assembly": (lambda config: torch.nn.Module(), [WrappedBiLM]),
    "check_context_vector": (
        lambda v, ids, i, w: np.zeros(0),
        [lambda v, ids, i, w: context_vector(v, ids, i, w),
         lambda v, ids, i, w: static_vectors.context_vector(v, ids, i, w, "both"),
         context_vector, partial(context_vector, side="both")]),
    "check_analogy": (
        lambda v, words, a, b, c: "",
        [lambda v, words, a, b, c: StaticVectors(words, v).analogy(a, b, c, k=1)[0][0]]),
    "check_nearest_centroid_accuracy": (
        lambda v, labels: [],
        [lambda v, labels: nearest_centroid_accuracy(v, labels, centre=False),
         lambda v, labels: sense_separation(v, ["w"] * len(labels), labels, centre=False)["w"]]),
    "check_wsd_scorer": (
        lambda p, g: (),
        [lambda p, g: tuple(wsd.score(p, g))]),
    "check_elmo_at_output": (
        lambda model, words, mask, layers: torch.empty(0),
        [lambda model, words, mask, layers: model(words, mask, layers),
         lambda model, words, mask, layers: model.forward(words, mask, layers),
         lambda model, words, mask, layers: TaskModel.forward(model, words, mask, layers)]),
    "check_error_reduction": (lambda baseline, elmo: [], []),
    "check_top_layer_only": (lambda split: [], []),
    "check_left_padded_layer_norm": (
        lambda x, lengths: torch.empty(0),
        [lambda x, lengths: masked_layer_norm(x, _left_mask(x, lengths))]),
    "check_per_sentence_layer_norm": (
        lambda x, mask: torch.empty(0),
        [lambda x, mask: torch.cat([masked_layer_norm(x[b:b + 1], mask[b:b + 1])
                                    for b in range(len(x))])]),
    "check_char_ids_to_word": (lambda ids: "", [lambda ids: char_ids_to_word(ids)]),
    "check_lm_targets": (lambda word_ids, mask: ([], []), []),
    "check_conv_max_pool": (
        lambda x, w, b: torch.empty(0),
        [lambda x, w, b: F.conv1d(x, w, b).amax(-1)]),
    "check_char_cnn_parameters": (lambda config: {}, [_counted, _from_parameter_counts]),
    "check_highway_layer": (lambda z, w, b: torch.empty(0), [highway_from_the_package]),
    "check_tf_lstmp_step": (lambda *args: (), [_tf_by_conversion]),
    # The left-padded exercise may reuse reverse_padded; called on the batch as it is, it
    # reverses the wrong positions, and the comparison says so.
    "check_reverse_left_padded": (
        lambda x, lengths: torch.empty(0),
        [lambda x, lengths: reverse_padded(x, lengths)]),
    "check_joint_loss": (lambda *args: torch.empty(0), []),
    "check_scalar_parameters": (lambda s: torch.empty(0), []),
    "check_bio_spans": (lambda tags: set(), [lambda tags: bio_spans(tags),
                                             _spans_from_entity_scores]),
    "check_lstm_flops": (
        lambda inputs, cells, proj: [],
        [lambda inputs, cells, proj: checks.measured_lstm_flops(inputs, cells, proj)]),
}
VALUE_CHECKS = ("check_depth_sweep", "check_fewer_training_uses", "check_probe_accuracies",
                "check_mix_without_layer0", "check_lstm_layers_mix", "check_residual_experiment",
                "check_probes_on_fewer_sentences", "check_cell_costs", "check_seed_counts")


def test_every_check_of_the_package_is_listed_here():
    names = {name for name in dir(checks) if name.startswith("check_")}
    assert names == set(FUNCTION_CHECKS) | set(VALUE_CHECKS)


@pytest.mark.parametrize("name", sorted(FUNCTION_CHECKS))
def test_a_stub_fails_with_one_line_that_names_the_exercise(name):
    with pytest.raises(checks.NotWrittenYet) as failure:
        getattr(checks, name)(stub)
    message = str(failure.value)
    assert message == ("Exercise 3 (the context-window vector) is not written yet: `stub` "
                       "still raises NotImplementedError. Replace that line with your code, "
                       "then run this cell again.")
    assert isinstance(failure.value, checks.CheckFailed | NotImplementedError)
    assert failure.value.__suppress_context__, "no 'during handling of ...' second traceback"


@pytest.mark.parametrize("name", sorted(FUNCTION_CHECKS))
def test_a_function_that_returns_nothing_fails(name):
    with pytest.raises(checks.CheckFailed) as failure:
        getattr(checks, name)(returns_none)
    assert "\n" not in str(failure.value)


@pytest.mark.parametrize("name", sorted(FUNCTION_CHECKS))
def test_an_empty_answer_fails(name):
    empty, _ = FUNCTION_CHECKS[name]
    with pytest.raises(checks.CheckFailed):
        getattr(checks, name)(empty)


@pytest.mark.parametrize(("name", "index"), [
    (name, index) for name, (_, calls) in sorted(FUNCTION_CHECKS.items())
    for index in range(len(calls))])
def test_calling_what_the_check_compares_with_fails(name, index):
    answer = FUNCTION_CHECKS[name][1][index]
    expected = checks.CheckFailed if name == "check_reverse_left_padded" else checks.Delegated
    with pytest.raises(expected, match="compares with" if expected is checks.Delegated else None):
        getattr(checks, name)(answer)


def test_a_check_gives_back_every_function_it_made_unavailable():
    before = (static_vectors.context_vector, StaticVectors.analogy, TaskModel.forward,
              F.conv1d, torch.conv1d, CharCNN.__init__, Highway.forward, ScalarMix.forward)
    for name, (_, calls) in FUNCTION_CHECKS.items():
        for answer in calls:
            with pytest.raises(checks.CheckFailed):
                getattr(checks, name)(answer)
    after = (static_vectors.context_vector, StaticVectors.analogy, TaskModel.forward,
             F.conv1d, torch.conv1d, CharCNN.__init__, Highway.forward, ScalarMix.forward)
    assert all(a is b for a, b in zip(before, after, strict=True))
    assert sys.modules[__name__].context_vector is before[0], "the answer's module too"
    assert "refuse" not in repr(vars(checks.static_vs_contextual)["context_vector"])


def test_an_answer_that_catches_the_refusal_still_fails():
    def sly(vectors, ids, index, window):
        try:
            return context_vector(vectors, ids, index, window)
        except Exception:  # noqa: BLE001
            return vectors[ids[index]]

    with pytest.raises(checks.Delegated, match="`sly` calls elmo_tutorial.analyses.static_vectors."
                                               "context_vector"):
        checks.check_context_vector(sly)


def _tiny_layers():
    generator = torch.Generator().manual_seed(0)
    return [torch.randn(2, 3, 4, generator=generator) for _ in range(3)]


VALUE_CASES = [
    (partial(checks.check_fewer_training_uses, embedder=None), [None, {}, []]),
    (partial(checks.check_mix_without_layer0, layers=np.zeros((3, 4, 2)),
             words=["a", "a", "b", "b"], senses=["x", "y", "x", "y"]), [None, {}, [], ()]),
    (partial(checks.check_lstm_layers_mix, layers=_tiny_layers(),
             mask=torch.ones(2, 3, dtype=torch.bool)), [None, torch.empty(0), []]),
    (lambda value: checks.check_residual_experiment(value, MODEL_PRESETS["tiny"], 0.05, 0.005),
     [None, {}]),
    (lambda value: checks.check_residual_experiment(
        MODEL_PRESETS["tiny"].__class__(**{**vars(MODEL_PRESETS["tiny"]),
                                           "use_skip_connections": False}),
        MODEL_PRESETS["tiny"], value, 0.005), [None, [], float("nan")]),
    (partial(checks.check_depth_sweep, base=MODEL_PRESETS["tiny"], depths=[1]),
     [None, {}, [], {(1, True): None}]),
    (partial(checks.check_cell_costs, config=None, vocab_size=1, sampled_softmax=0),
     [None, {}, []]),
    (partial(checks.check_seed_counts, tasks={}, seed_counts=[2]), [None, {}, []]),
    (lambda value: checks.check_probes_on_fewer_sentences(
        value, [1], [np.zeros((4, 2))] * 2, np.zeros(4), [2, 2]), [None, {}, []]),
]


@pytest.mark.parametrize(("check", "value"), [
    (check, value) for check, values in VALUE_CASES for value in values])
def test_a_value_check_fails_on_nothing_and_on_an_empty_value(check, value):
    with pytest.raises(checks.CheckFailed) as failure:
        check(value)
    assert "\n" not in str(failure.value)


def test_in_jupyter_a_failure_shows_as_one_line():
    with pytest.raises(checks.CheckFailed) as failure:
        checks.check_error_reduction(lambda baseline, elmo: elmo - baseline)
    shown = failure.value._render_traceback_()
    assert len(shown) == 1 and "\n" not in shown[0]
    assert shown[0].endswith(str(failure.value)) and "CheckFailed" in shown[0]
    with pytest.raises(checks.NotWrittenYet) as failure:
        checks.check_error_reduction(stub)
    assert failure.value._render_traceback_() == [
        f"\x1b[0;31mNotWrittenYet\x1b[0m: {failure.value}"]


@pytest.mark.slow  # a subprocess, several processes or a whole command
def test_ipython_shows_a_failed_check_without_the_checks_code():
    # In a process of its own: an IPython shell changes the interpreter's hooks for good.
    cell = ("from elmo_tutorial import checks\n"
            "def my_error_reduction(baseline, elmo):\n"
            f"    raise NotImplementedError({STUB!r})\n"
            "checks.check_error_reduction(my_error_reduction)")
    script = ("from IPython.core.interactiveshell import InteractiveShell\n"
              f"InteractiveShell.instance().run_cell({cell!r})")
    shown = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                           check=True, timeout=120).stdout.strip()
    assert shown.endswith("Exercise 3 (the context-window vector) is not written yet: "
                          "`my_error_reduction` still raises NotImplementedError. Replace "
                          "that line with your code, then run this cell again.")
    assert len(shown.splitlines()) == 1, shown
    assert "task_model.py" not in shown and "Traceback" not in shown
