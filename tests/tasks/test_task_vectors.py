"""The baseline's vectors shipped beside a task report: the rows `word_vectors` computes."""

import os
import warnings

import pytest
import torch

from elmo_tutorial.files.safe_files import SUMS, DamagedFile, file_digest
from elmo_tutorial.model.run_dir import shipped_model
from elmo_tutorial.tasks import vectors as task_vectors
from elmo_tutorial.tasks.experiments import word_vectors
from elmo_tutorial.tasks.vectors import (
    VECTORS_FILE,
    task_word_vectors,
    task_words,
    write_task_vectors,
)

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

    monkeypatch.setattr(task_vectors, "word_vectors", fake_word_vectors)
    monkeypatch.setattr(task_vectors, "task_words", lambda tasks: {"bank", "river", "on", "zebra"})
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
    with pytest.raises(DamagedFile, match="SHA256SUMS"):
        task_word_vectors(tmp_path)


@pytest.mark.parametrize("damage", ["flip", "cut", "empty", "words"])
def test_a_damaged_file_is_named_never_used(tmp_path, fake_corpus, damage):
    """Without SHA256SUMS the file's own sha256 catches a flipped row or changed words."""
    path = write_task_vectors(tmp_path, "mix")
    data = bytearray(path.read_bytes())
    if damage == "flip":
        data[-5] ^= 0x01
    elif damage == "cut":
        data = data[: len(data) // 2]
    elif damage == "empty":
        data = bytearray()
    else:
        data = data.replace(b"river", b"rover")
    path.write_bytes(bytes(data))
    with pytest.raises(DamagedFile, match=VECTORS_FILE):
        task_word_vectors(tmp_path)


def test_a_file_whose_own_checksum_vouches_for_garbage_values_is_refused(tmp_path,
                                                                         fake_corpus):
    """Values no vectors have (1e29, finite), written with a checksum to match them."""
    table, _ = fake_corpus
    table[2] = 1e29  # the row of "bank", as if the corpus had given it
    write_task_vectors(tmp_path, "mix")
    with pytest.raises(DamagedFile, match=rf"{VECTORS_FILE} is damaged .*the tensor vectors "
                                          r"holds values as large as 1e\+29"):
        task_word_vectors(tmp_path)


def test_vectors_of_another_corpus_are_refused(tmp_path, fake_corpus):
    write_task_vectors(tmp_path, "mix")
    with pytest.raises(DamagedFile, match="not of 'other'"):
        task_word_vectors(tmp_path, corpus="other")


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


def test_a_link_out_of_the_folder_is_refused(tmp_path, fake_corpus):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    write_task_vectors(elsewhere, "mix")
    run = tmp_path / "run"
    run.mkdir()
    (run / VECTORS_FILE).symlink_to(elsewhere / VECTORS_FILE)
    with pytest.raises(ValueError, match="outside"):
        task_word_vectors(run)


@pytest.mark.slow
def test_the_shipped_small_models_vectors_are_recomputed_from_its_text():
    """The file notebook 12 reads holds, for every word of the three tasks, the row that
    `word_vectors("english_mix")` computes from the offline NLTK data (about a minute)."""
    if not os.environ.get("NLTK_DATA") or not os.environ.get("ELMO_TUTORIAL_DATA"):
        pytest.skip("NLTK_DATA and ELMO_TUTORIAL_DATA are not set: no offline corpus or tasks")
    shipped, index = task_word_vectors(shipped_model("small"), corpus="english_mix")
    full, full_index = word_vectors("english_mix")
    assert list(index) == sorted(task_words() & full_index.keys())
    rows = torch.stack([full[full_index[w]] for w in index])  # (V', 100)
    # to float rounding: the SVD's sparse sums follow the threads, on any machine
    torch.testing.assert_close(shipped[1:], rows, rtol=0, atol=1e-5)


def test_sst5_phrases_need_no_vectors_beyond_sst5s():
    """Every phrase is a span of an SST-5 sentence: vectors written for the three tasks of the
    shipped report serve the phrases too, without reading the corpus again."""
    import warnings

    from elmo_tutorial.model.run_dir import shipped_model
    from elmo_tutorial.tasks.vectors import task_word_vectors

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "computing the vectors from the corpus" would raise
        table, index = task_word_vectors(shipped_model("small"))
    assert table.shape[0] == len(index) + 1
