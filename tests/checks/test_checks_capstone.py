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


def test_probe_accuracies_are_recomputed_for_the_first_model(one_thread):
    from elmo_tutorial.analyses import probes
    from elmo_tutorial.analyses.embedder import Embedder
    from elmo_tutorial.training.run_folder import shipped_model

    train, test = _TRAIN, _TEST
    models = {"tiny": shipped_model("tiny")}
    right = probes.probe_layers(Embedder(load_elmo(models["tiny"])), train, test, "t",
                                cache=False)
    checks.check_probe_accuracies({"tiny": right}, models, train, test)
    with pytest.raises(CheckFailed, match="tiny's layer1"):
        checks.check_probe_accuracies({"tiny": {**right, "layer1": right["layer1"] / 2}},
                                      models, train, test)
    with pytest.raises(CheckFailed, match="one entry per model"):
        checks.check_probe_accuracies({}, models, train, test)
    with pytest.raises(CheckFailed, match="what probes.probe_layers returns"):
        checks.check_probe_accuracies({"tiny": [1, 2, 3]}, models, train, test)
