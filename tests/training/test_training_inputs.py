"""What a run trains on (``elmo_tutorial.training.train`` and the trainer's plan): text
and settings that would loop for ever or train nonsense are refused before anything is written,
in one line that says what to change."""

import pytest
from _train_helpers import MICRO_CLI, micro_config

from elmo_tutorial.commands.cli import main as cli
from elmo_tutorial.data import corpora
from elmo_tutorial.model.vocab import SPECIALS
from elmo_tutorial.training.train import Trainer, counted_vocabulary
from elmo_tutorial.training.train_config import apply_overrides

TEXT = [["the", "cat", "sat"], ["the", "dog", "sat"], ["a", "cat", "saw", "the", "dog"]]
BLANK = [[" ", ""], [], ["\t"]]  # what an empty or all-blank file of a corpus gives


@pytest.fixture
def corpus_with(monkeypatch):
    """Make the corpus's splits read as given (``corpus_with(train=BLANK)``)."""
    def use(**splits):
        real = corpora._load_sentences

        def load(corpus, split, max_sentences):
            return splits[split] if split in splits else real(corpus, split, max_sentences)

        monkeypatch.setattr(corpora, "_load_sentences", load)
    return use


@pytest.mark.parametrize("split", ["train", "valid"])
def test_a_blank_split_is_refused_instead_of_looping_or_scoring_nothing(
        tmp_path, capsys, corpus_with, alarm, split):
    """An empty training text looped over empty epochs for ever; an empty held-out split
    was reported as perplexity 1.00."""
    corpus_with(**{split: BLANK})
    run = tmp_path / "run"
    assert cli(["train", "--out", str(run), *MICRO_CLI]) == 2  # alarm: Hung after 10 s
    err = capsys.readouterr().err
    which = {"train": "training", "valid": "held-out (valid)"}[split]
    assert err.startswith(f"elmo-tutorial train: the corpus 'embedded' has no {which} sentence")
    assert "--corpus=" in err and err.count("\n") == 1, err
    assert "`elmo-tutorial data download <dataset> --force`" in err, "a placeholder unexplained"
    assert not run.exists()


def test_the_python_api_refuses_a_blank_corpus_too(tmp_path, corpus_with, alarm):
    corpus_with(train=BLANK)
    with pytest.raises(ValueError, match="has no training sentence"):
        Trainer(micro_config(tmp_path / "run"))


def test_a_vocab_min_count_above_every_count_is_refused_naming_the_largest_that_keeps_one(
        tmp_path, capsys):
    """Every word would be <UNK>: a vocabulary of <S> </S> <UNK>, a model that learns
    nothing, trained without a word of warning."""
    run = tmp_path / "run"
    assert cli(["train", "--out", str(run), *MICRO_CLI, "--vocab_min_count=1000000"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("elmo-tutorial train: vocab_min_count=1000000 keeps no word") and \
        err.count("\n") == 1, err
    most = int(err.split("--vocab_min_count=")[1].split()[0])
    config = apply_overrides(micro_config(run), {"vocab_min_count": most})
    assert len(counted_vocabulary(config, corpora.load_sentences("embedded", "train"))) > 3
    assert not run.exists()


@pytest.mark.parametrize("size", [1, 2, 3])
def test_a_vocab_max_size_without_room_for_a_word_is_refused_naming_the_setting(tmp_path, size):
    config = apply_overrides(micro_config(tmp_path), {"vocab_max_size": size})
    with pytest.raises(ValueError, match=rf"vocab_max_size={size} counts the 3 special words"):
        counted_vocabulary(config, TEXT)
    four = apply_overrides(micro_config(tmp_path), {"vocab_max_size": 4})
    assert counted_vocabulary(four, TEXT).words == [*SPECIALS, "the"]


def test_vocab_min_count_0_keeps_every_word_as_1_does(tmp_path):
    """0 is a value the setting takes (every word kept), not an error after the data."""
    zero, one = (apply_overrides(micro_config(tmp_path), {"vocab_min_count": n}) for n in (0, 1))
    assert counted_vocabulary(zero, TEXT).words == counted_vocabulary(one, TEXT).words


def test_a_plan_without_a_batch_for_every_process_is_refused(tmp_path, monkeypatch, alarm):
    """With more processes than sentences in a batch, every batch was skipped: epochs without
    a step, for ever (the command refuses it before starting them: test_launch)."""
    from elmo_tutorial.training import distributed as D

    monkeypatch.setattr(D, "init_distributed", lambda device: D.DistInfo(world_size=2))
    monkeypatch.setattr(D, "wrap", lambda model, info: model)
    with pytest.raises(ValueError, match="a sentence for each of the 2 processes: give batch_si"):
        Trainer(micro_config(tmp_path / "run", batch_size=1))
