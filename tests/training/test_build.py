"""The trainer trains a biLM class of one's own (notebook 14): the same numbers as the package's
biLM when the class computes the same function, refused when its parameters differ, and its run
folder loads as any other run."""

import pytest
import torch
from torch import nn

from elmo_tutorial import batch_to_ids
from elmo_tutorial.training import checkpoints as ckpt
from elmo_tutorial.training.run_folder import load_elmo
from elmo_tutorial.training.train import Trainer
from tests._assembled_bilm import AssembledBiLM
from tests._train_helpers import micro_config


def test_an_assembled_bilm_trains_to_the_very_weights_of_the_package_s(tmp_path):
    """Dropout and the sampled softmax on (micro_config): every random draw must match too."""
    runs = {}
    for name, build in (("package", None), ("assembled", AssembledBiLM)):
        trainer = Trainer(micro_config(tmp_path / name, max_steps=4), build=build)
        assert isinstance(trainer.model, AssembledBiLM) == (build is not None)
        trainer.fit()
        runs[name] = ckpt.load_weights(tmp_path / name / "model.safetensors")
    assert runs["package"].keys() == runs["assembled"].keys()
    for key, value in runs["package"].items():
        torch.testing.assert_close(runs["assembled"][key], value, rtol=0, atol=1e-6, msg=key)


def test_its_run_folder_loads_as_elmo_and_resumes(tmp_path):
    trainer = Trainer(micro_config(tmp_path, max_steps=4), build=AssembledBiLM)
    trainer.fit(stop_after=2)
    resumed = Trainer(micro_config(tmp_path, max_steps=4), resume=True, build=AssembledBiLM)
    assert resumed.step == 2
    resumed.fit()
    elmo = load_elmo(tmp_path)  # the package's classes, the assembled model's weights
    out = elmo(batch_to_ids([["a", "bank"], ["rivers"]]))
    assert out["elmo"].shape == (2, 2, 16)  # (B, T, 2P) with P = 8
    trained = resumed.model.state_dict()
    for name, value in elmo.bilm.state_dict().items():
        torch.testing.assert_close(value, trained[name], msg=name)


class _Wider(AssembledBiLM):
    def __init__(self, config):
        super().__init__(config)
        self.extra = nn.Linear(2, 2)


def test_a_class_whose_parameters_differ_is_refused_before_training(tmp_path):
    with pytest.raises(ValueError, match=r"differ from BidirectionalLM's \(not in "
                                         r"BidirectionalLM: extra.bias, extra.weight\)"):
        Trainer(micro_config(tmp_path), build=_Wider)
    assert not (tmp_path / "config.json").exists()  # nothing written for a refused run


def test_train_sentences_reads_only_the_first_ones(tmp_path):
    trainer = Trainer(micro_config(tmp_path, corpus="embedded", train_sentences=50))
    assert len(trainer.train_sents) == 50
