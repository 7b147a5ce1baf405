"""The released ELMo models are in the registry, never downloaded unverified, and say how to
get them; their names describe architectures that the paper preset's options reproduce."""

import pytest

from elmo_tutorial.data import registry
from elmo_tutorial.data.downloads import DatasetNotAvailable

RELEASED = ("elmo-small", "elmo-medium", "elmo-original")


@pytest.fixture
def nowhere(monkeypatch, tmp_path):
    monkeypatch.setenv("ELMO_TUTORIAL_DATA", str(tmp_path / "offline"))
    monkeypatch.setenv("ELMO_TUTORIAL_CACHE", str(tmp_path / "cache"))


@pytest.mark.parametrize("name", RELEASED)
def test_released_model_is_not_downloaded_without_a_checksum(name, nowhere):
    with pytest.raises(DatasetNotAvailable, match="no checksum") as error:
        registry.fetch(name, progress=False)
    message = str(error.value)
    for remote in registry.get_dataset(name).files:
        assert remote.urls[0] in message  # both files, options and weights
    assert "load_allennlp" in message and "sha256" in message


def test_released_model_urls_are_allennlps():
    stems = {"elmo-small": "2x1024_128_2048cnn_1xhighway",
             "elmo-medium": "2x2048_256_2048cnn_1xhighway",
             "elmo-original": "2x4096_512_2048cnn_2xhighway"}
    for name, stem in stems.items():
        urls = [remote.urls[0] for remote in registry.get_dataset(name).files]
        base = f"https://allennlp.s3.amazonaws.com/models/elmo/{stem}/elmo_{stem}"
        assert urls == [f"{base}_options.json", f"{base}_weights.hdf5"]


def test_a_released_model_placed_offline_is_found(monkeypatch, tmp_path):
    folder = tmp_path / "elmo-small"
    folder.mkdir()
    for remote in registry.get_dataset("elmo-small").files:
        (folder / remote.name).write_text("{}")
    monkeypatch.setenv("ELMO_TUTORIAL_DATA", str(tmp_path))
    assert registry.locate("elmo-small") == folder


def test_a_downloaded_model_loads_as_the_notebook_says(monkeypatch, tmp_path):
    """Notebook 11: ``load_model([registry.locate(name)])`` once the official files are there
    (here the AllenNLP fixture's, under the released model's file names)."""
    if not registry.is_available("allennlp-elmo-fixture"):
        pytest.skip(registry.how_to_get("allennlp-elmo-fixture"))
    from elmo_tutorial.formats.allennlp_format import load_model

    fixture = registry.locate("allennlp-elmo-fixture")
    folder = tmp_path / "elmo-small"
    folder.mkdir()
    options, weights = registry.get_dataset("elmo-small").files
    (folder / options.name).write_bytes((fixture / "options.json").read_bytes())
    (folder / weights.name).write_bytes((fixture / "lm_weights.hdf5").read_bytes())
    monkeypatch.setenv("ELMO_TUTORIAL_DATA", str(tmp_path))
    model = load_model([registry.locate("elmo-small")])
    assert model.config.projection_dim == 16 and model.config.clipping
