"""The NER tagger: it learns what its inputs hold, keeps its best epoch, and runs end to end."""

import pytest
import torch

from elmo_tutorial.analyses.tagger import (
    BiLSTMTagger,
    FrozenLayers,
    WordTypes,
    entity_scores,
    predict_tags,
    train_tagger,
)


def _toy_layers(n_sentences: int, seed: int):
    """Random 3-layer features; layer 1's feature 0 is +3 at entities and -3 elsewhere."""
    generator = torch.Generator().manual_seed(seed)
    inputs, labels = [], []
    for _ in range(n_sentences):
        length = int(torch.randint(2, 9, (1,), generator=generator))
        x = torch.randn(length, 3, 8, generator=generator)  # (T, L, D)
        entity = torch.rand(length, generator=generator) < 0.3
        x[:, 1, 0] = torch.where(entity, 3.0, -3.0)
        inputs.append(x)
        labels.append(["B-thing" if e else "O" for e in entity.tolist()])
    return inputs, labels


def test_tagger_learns_a_trivially_learnable_tag_from_frozen_layers(one_thread):
    train_x, train_y = _toy_layers(200, seed=0)
    test_x, test_y = _toy_layers(60, seed=1)
    tags = ["O", "B-thing"]
    torch.manual_seed(0)
    model = BiLSTMTagger(FrozenLayers(3), 8, len(tags), hidden_size=16, dropout=0.0)
    history = train_tagger(model, train_x, train_y, tags, _toy_layers(30, seed=2), epochs=15,
                           lr=1e-2, seed=0)
    assert history[-1]["loss"] < history[0]["loss"] / 3
    assert entity_scores(test_y, predict_tags(model, test_x, tags))["f1"] > 90
    # Only layer 1 carries the signal, and the mix learned to weigh it most.
    weights = model.inputs.mix.weights.tolist()
    assert weights[1] == max(weights), weights


def test_converging_stops_for_patience(one_thread):
    train_x, train_y = _toy_layers(40, seed=0)
    valid_x, valid_y = _toy_layers(20, seed=1)
    tags = ["O", "B-thing"]
    torch.manual_seed(0)
    model = BiLSTMTagger(FrozenLayers(3), 8, len(tags), hidden_size=8)
    history = train_tagger(model, train_x, train_y, tags, (valid_x, valid_y), epochs=3,
                           lr=1e-2, seed=0, converge=True, patience=2)
    best = max(range(len(history)), key=lambda i: history[i]["f1"])  # first best epoch
    assert len(history) == best + 1 + 2  # two epochs without a better F1, then stop


def test_training_is_deterministic_for_a_seed(one_thread):
    train_x, train_y = _toy_layers(40, seed=0)
    tags = ["O", "B-thing"]
    runs = []
    for _ in range(2):
        torch.manual_seed(0)
        model = BiLSTMTagger(FrozenLayers(3), 8, len(tags), hidden_size=8)
        train_tagger(model, train_x, train_y, tags, (train_x, train_y), epochs=2, seed=3)
        runs.append(torch.cat([p.detach().flatten() for p in model.parameters()]))
    assert torch.equal(runs[0], runs[1])


def test_validation_keeps_the_best_epoch(one_thread):
    train_x, train_y = _toy_layers(60, seed=0)
    valid_x, valid_y = _toy_layers(20, seed=1)
    tags = ["O", "B-thing"]
    torch.manual_seed(0)
    model = BiLSTMTagger(FrozenLayers(3), 8, len(tags), hidden_size=8, dropout=0.0)
    history = train_tagger(model, train_x, train_y, tags, (valid_x, valid_y), epochs=4,
                           lr=1e-2, seed=0)
    best = max(r["f1"] for r in history)
    assert entity_scores(valid_y, predict_tags(model, valid_x, tags))["f1"] == best


def test_word_types_map_unknown_words_to_unk_row_zero():
    words = WordTypes(["bank", "river"], dim=4)
    assert words.ids(["river", "bank", "Bank"]).tolist() == [2, 1, 0]
    mask = torch.ones(1, 3, dtype=torch.bool)
    assert words(words.ids(["river", "x", "y"]).unsqueeze(0), mask).shape == (1, 3, 4)


def _tiny_embedder():
    from elmo_tutorial.analyses.embedder import Embedder
    from elmo_tutorial.model.config import MODEL_PRESETS
    from elmo_tutorial.model.elmo import ELMo

    torch.manual_seed(0)
    return Embedder(ELMo(MODEL_PRESETS["tiny"]))


def test_evaluate_ner_end_to_end_on_a_few_sentences(one_thread, tmp_path, monkeypatch):
    from elmo_tutorial.analyses.tagger import evaluate_ner
    from elmo_tutorial.data.downloads import DatasetNotAvailable

    try:
        monkeypatch.setenv("ELMO_TUTORIAL_CACHE", str(tmp_path))
        result = evaluate_ner(_tiny_embedder(), progress=False, epochs=2, max_sentences=25,
                              seeds=(0, 1))["wnut17"]
    except DatasetNotAvailable:
        pytest.skip("WNUT-17 is not available (ELMO_TUTORIAL_DATA)")
    assert set(result) == {"elmo", "layer0", "word_type", "s", "gamma", "scores", "runs",
                           "std", "differences", "seeds"}
    assert all(len(result["runs"][k]) == 2 for k in ("elmo", "layer0", "word_type"))
    assert result["elmo"] == pytest.approx(sum(result["runs"]["elmo"]) / 2)
    d = result["differences"]["elmo_vs_layer0"]
    assert d["low"] <= d["mean"] <= d["high"]
    # 25 sentences teach no tagger to find an entity: its dev F1 stays 0, which is no plateau
    # (it has not started), so it trains to the planned cap of 2 epochs, not to patience
    first = result["scores"]["elmo"]
    assert first["predicted"] == 0 and (first["best_epoch"], first["last_epoch"]) == (1, 2)
    assert len(result["s"]) == 3 and sum(result["s"]) == pytest.approx(1.0)
    assert all(0.0 <= result[k] <= 100.0 for k in ("elmo", "layer0", "word_type"))
    assert result["scores"]["elmo"]["gold"] > 0


def test_the_protocol_ladder_keeps_each_step_s_changes_and_pairs_the_arms(one_thread, tmp_path,
                                                                          monkeypatch):
    from elmo_tutorial.analyses.tagger import STEPS, protocol_ladder
    from elmo_tutorial.data.downloads import DatasetNotAvailable

    with pytest.raises(ValueError, match="unknown step"):
        protocol_ladder(_tiny_embedder(), steps=["dropout", "nonsense"])
    try:
        monkeypatch.setenv("ELMO_TUTORIAL_CACHE", str(tmp_path))
        result = protocol_ladder(_tiny_embedder(), seeds=(0, 1), steps=["probe", "optimiser"],
                                 epochs=1, max_sentences=25, converge=False)
    except DatasetNotAvailable:
        pytest.skip("WNUT-17 is not available (ELMO_TUTORIAL_DATA)")
    assert list(result) == ["probe", "optimiser"]
    assert result["probe"]["settings"] == {"dropout": 0.0, "lr": 5e-3, "batch_size": 16,
                                           "lr_patience": None, "min_updates": 0,
                                           "layer_norm": True}
    # the optimiser step keeps the dropout step's change, though the dropout step did not run
    assert result["optimiser"]["settings"]["dropout"] == 0.5
    assert result["optimiser"]["settings"]["batch_size"] == 32
    assert [name for name, _, _ in STEPS][-1] == "no_layer_norm"
    for step in result.values():
        d = step["difference"]
        assert len(step["elmo"]) == len(step["layer0"]) == 2 and d["n"] == 2
        assert d["mean"] == pytest.approx((sum(step["elmo"]) - sum(step["layer0"])) / 2)
        assert d["test_std"] >= 0.0


def test_one_thread_restores_the_thread_count_even_after_an_error(keep_threads):
    from elmo_tutorial.runtime import one_thread

    torch.set_num_threads(2)  # the tests run on one thread: start from another count
    before = torch.get_num_threads()
    with pytest.raises(RuntimeError), one_thread():
        assert torch.get_num_threads() == 1
        raise RuntimeError("boom")
    assert torch.get_num_threads() == before
