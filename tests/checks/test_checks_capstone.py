"""Notebook 14's self-check: the assembled biLM passes; shortcuts and slips fail in one line."""

import pytest
from torch import nn

from elmo_tutorial import checks
from elmo_tutorial.checks import CheckFailed, Delegated, NotWrittenYet
from elmo_tutorial.model.lm import BidirectionalLM
from elmo_tutorial.training.run_folder import load_elmo
from tests._assembled_bilm import AssembledBiLM, WrappedBiLM


def test_the_assembled_bilm_passes(capsys):
    checks.check_bilm_assembly(AssembledBiLM)
    assert capsys.readouterr().out.startswith("✓ your biLM has BidirectionalLM's parameters")


def test_the_package_s_own_biLM_or_a_subclass_is_refused():
    for shortcut in (BidirectionalLM, type("Sub", (BidirectionalLM,), {})):
        with pytest.raises(CheckFailed, match="subclasses the package's biLM"):
            checks.check_bilm_assembly(shortcut)


def test_calling_the_package_s_forward_is_refused():
    with pytest.raises(Delegated, match="compute the two directions from the parts yourself"):
        checks.check_bilm_assembly(WrappedBiLM)


class _Renamed(AssembledBiLM):
    def __init__(self, config):
        super().__init__(config)
        self.cnn = self.char_cnn
        del self.char_cnn

    def forward(self, batch, sampled=False):
        self.char_cnn = self.cnn
        return super().forward(batch, sampled)


class _NoDropout(AssembledBiLM):
    def forward(self, batch, sampled=False):
        self.dropout.p = 0.0  # forgets dropout: its losses in training are not the biLM's
        return super().forward(batch, sampled)


class _Stub(nn.Module):
    def __init__(self, config):
        super().__init__()
        raise NotImplementedError("Exercise 1: assemble the biLM. Replace this line with your "
                                  "code (Run All stops here until you do; then run this cell "
                                  "and the ones below it).")


@pytest.mark.parametrize(("answer", "error", "says"), [
    (_Renamed, CheckFailed, "missing: char_cnn"),
    (_NoDropout, CheckFailed, "in training, with dropout 0.3"),
    (_Stub, NotWrittenYet, "Exercise 1 (assemble the biLM) is not written yet"),
])
def test_slips_fail_with_what_to_fix(answer, error, says):
    with pytest.raises(error, match=says.replace("(", r"\(").replace(")", r"\)")):
        checks.check_bilm_assembly(answer)


# Tagged sentences small enough to probe in a fraction of a second (the check's rules do not
# depend on the corpus); "bank" and "ran" take two tags, so no layer scores 100 %.
_WORDS = "the bank of a river gave money to people who ran fast".split()
_TAGS = "DT NN IN DT NN VBD NN TO NNS WP VBD RB".split()
_TRAIN = [(tuple(_WORDS[i:i + 6]), tuple(_TAGS[i:i + 6])) for i in range(6)]
_TEST = [(("they", "bank", "money"), ("PRP", "VBP", "NN")), (("we", "ran", "a", "bank"),
                                                           ("PRP", "VBD", "DT", "NN"))]


def test_probe_accuracies_are_recomputed_for_every_model(one_thread):
    from elmo_tutorial.analyses import probes
    from elmo_tutorial.analyses.embedder import Embedder
    from elmo_tutorial.training.run_folder import shipped_model

    train, test = _TRAIN, _TEST
    models = {"tiny": shipped_model("tiny"), "small": shipped_model("small")}
    right = {name: probes.probe_layers(Embedder(load_elmo(folder)), train, test, "t",
                                       cache=False) for name, folder in models.items()}
    assert right["tiny"] != right["small"], "choose sentences on which the two models differ"
    checks.check_probe_accuracies(right, models, train, test)
    for wrong, says in [
            ({**right, "small": {**right["small"], "layer2": right["small"]["layer2"] / 2}},
             "small's layer2"),  # any number for the second model
            ({**right, "small": right["tiny"]}, "small's layer"),  # the first model probed twice
            ({**right, "tiny": {**right["tiny"], "layer1": right["tiny"]["layer1"] / 2}},
             "tiny's layer1"),
            ({}, "one entry per model"),
            ({**right, "tiny": [1, 2, 3]}, "what probes.probe_layers returns")]:
        with pytest.raises(CheckFailed, match=says):
            checks.check_probe_accuracies(wrong, models, train, test)
