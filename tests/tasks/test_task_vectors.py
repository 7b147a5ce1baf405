"""The baseline's static vectors: sparse PPMI-SVD of the biLM's text, cached, and the rows
shipped beside a task report (the rows `word_vectors` computes)."""

import warnings

import numpy as np
import pytest
import torch

from elmo_tutorial.analyses.embedding_cache import sentences_checksum
from elmo_tutorial.analyses.static_vectors import cooccurrence_counts, ppmi
from elmo_tutorial.files.safe_files import SUMS, file_digest
from elmo_tutorial.tasks import vectors as cv
from elmo_tutorial.tasks.vectors import (
    VECTORS_FILE,
    task_word_vectors,
    write_task_vectors,
)
from elmo_tutorial.training.run_folder import shipped_model


def test_sparse_ppmi_equals_the_dense_one_of_static_vectors():
    sentences = [["a", "b", "c", "a"], ["b", "c", "d"], ["a", "d", "d", "b"]]
    words, dense = cooccurrence_counts(sentences, window=2)
    sparse = cv._sparse_ppmi(cv._sparse_counts(sentences, {w: i for i, w in enumerate(words)}, 2),
                             0.75).to_dense().numpy()
    np.testing.assert_allclose(sparse, ppmi(dense, alpha=0.75), atol=1e-12)


@pytest.fixture(autouse=True)
def _fresh_process(monkeypatch):
    """No text read before (a process reads each corpus once, for its sha256)."""
    monkeypatch.setattr(cv, "_text_checksums", {})


def test_word_vectors_are_computed_once_then_read_from_the_cache(tmp_path, monkeypatch):
    sentences = [["the", "cat", "sat"], ["the", "dog", "sat"], ["a", "cat", "ran"]] * 5
    monkeypatch.setenv("ELMO_TUTORIAL_CACHE", str(tmp_path))
    monkeypatch.setattr(cv, "load_sentences", lambda corpus, split: sentences)
    first, index = cv.word_vectors("toy", dim=2)
    monkeypatch.setattr(cv, "sparse_static_vectors", lambda *a, **k: pytest.fail("recomputed"))
    monkeypatch.setattr(cv, "_text_checksums", {})  # a new process
    second, again = cv.word_vectors("toy", dim=2)
    assert again == index and second.shape == (7, 2)  # <UNK> and six words
    assert torch.equal(first, second)


def test_the_recipe_names_the_text_and_the_settings(monkeypatch):
    """A report names its runs file by the vectors' recipe: other text, another recipe."""
    texts = {"a": [["the", "cat", "sat"]] * 3, "b": [["the", "dog", "sat"]] * 3}
    text = "a"
    monkeypatch.setattr(cv, "load_sentences", lambda corpus, split: texts[text])
    recipe = cv.word_vectors_recipe("embedded")
    assert recipe["sentences"] == sentences_checksum(texts["a"]) and recipe["min_count"] == 1
    text = "b"
    monkeypatch.setattr(cv, "_text_checksums", {})  # another process, other NLTK data
    assert cv.word_vectors_recipe("embedded")["sentences"] != recipe["sentences"]


WORDS = ["the", "bank", "river", "money", "sat", "on"]


@pytest.fixture
def fake_corpus(monkeypatch):
    """A corpus of six words, of which the "tasks" use four (and one the corpus lacks)."""
    table = torch.cat([torch.zeros(1, 3), torch.randn(len(WORDS), 3,
                                                      generator=torch.Generator().manual_seed(0))])
    calls = []

    def fake_word_vectors(corpus, dim=100):
        calls.append(corpus)
        return table, {w: i for i, w in enumerate(WORDS, start=1)}

    monkeypatch.setattr(cv, "word_vectors", fake_word_vectors)
    monkeypatch.setattr(cv, "task_words", lambda tasks: {"bank", "river", "on", "zebra"})
    return table, calls


def test_the_shipped_rows_are_the_computed_rows(tmp_path, fake_corpus):
    table, calls = fake_corpus
    write_task_vectors(tmp_path, "mix")
    shipped, index = task_word_vectors(tmp_path)
    assert sorted(index) == ["bank", "on", "river"]  # only the tasks' words; zebra has none
    assert torch.equal(shipped[0], torch.zeros(3))  # <UNK>
    for word, row in index.items():
        assert torch.equal(shipped[row], table[WORDS.index(word) + 1])
    assert calls == ["mix"]  # read back without computing


def test_a_folder_with_sums_lists_the_file_and_loading_checks_it(tmp_path, fake_corpus):
    (tmp_path / "config.json").write_text("{}")
    (tmp_path / SUMS).write_text(f"{file_digest(tmp_path / 'config.json')}  config.json\n")
    write_task_vectors(tmp_path, "mix")
    listed = (tmp_path / SUMS).read_text()
    assert "config.json" in listed and VECTORS_FILE in listed
    data = bytearray((tmp_path / VECTORS_FILE).read_bytes())
    data[-5] ^= 0x01  # one flipped bit in the last row
    (tmp_path / VECTORS_FILE).write_bytes(bytes(data))
    with pytest.raises(ValueError, match="SHA256SUMS"):
        task_word_vectors(tmp_path)


def test_a_file_of_values_no_vectors_have_is_refused(tmp_path, fake_corpus):
    table, _ = fake_corpus
    table[2] = float("nan")  # the row of "bank"
    write_task_vectors(tmp_path, "mix")
    with pytest.raises(ValueError, match=VECTORS_FILE):
        task_word_vectors(tmp_path)


def test_without_the_file_the_vectors_come_from_the_runs_corpus(tmp_path, fake_corpus):
    _, calls = fake_corpus
    (tmp_path / "config.json").write_text('{"model": {}, "train": {"corpus": "mix"}}')
    _, index = task_word_vectors(tmp_path)
    assert calls == ["mix"] and len(index) == len(WORDS)


def test_a_file_of_other_tasks_is_not_used_for_these(tmp_path, fake_corpus):
    _, calls = fake_corpus
    write_task_vectors(tmp_path, "mix", tasks=("sst5",))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _, index = task_word_vectors(tmp_path, tasks=("sst5", "ner"))
    assert "ner" in str(caught[0].message)
    assert calls == ["mix", "mix"] and len(index) == len(WORDS)  # computed: every word


def test_sst5_phrases_need_no_vectors_beyond_sst5s():
    """Every phrase is a span of an SST-5 sentence: vectors written for the three tasks of the
    shipped report serve the phrases too, without reading the corpus again."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "computing the vectors from the corpus" would raise
        table, index = task_word_vectors(shipped_model("small"))
    assert table.shape[0] == len(index) + 1
