"""The readers of notebook 12's tasks: SST-5/SST-2 trees and CoNLL-2000 chunks, on small
hand-written files and (when the data is there) against the official sentence counts."""

import dataclasses
import hashlib
import zipfile

import pytest

from elmo_tutorial.data import annotated, registry
from elmo_tutorial.data.downloads import DatasetNotAvailable

TREES = """\
(3 (2 (2 The) (2 Rock)) (4 (3 (2 is) (4 great)) (2 .)))
(2 (2 -LRB-) (2 (2 It) (2 's)) (2 -RRB-))

(0 (1 Awful) (2 .))
"""


def _offline_sst(tmp_path, monkeypatch, trees: str):
    folder = tmp_path / "offline" / "sst" / "trees"
    folder.mkdir(parents=True)
    for name in ("train.txt", "dev.txt", "test.txt"):
        (folder / name).write_text(trees, encoding="utf-8")
    monkeypatch.setenv("ELMO_TUTORIAL_DATA", str(tmp_path / "offline"))
    monkeypatch.setenv("ELMO_TUTORIAL_CACHE", str(tmp_path / "cache"))


def test_sst_takes_the_root_label_and_the_leaves_as_plain_text(tmp_path, monkeypatch):
    _offline_sst(tmp_path, monkeypatch, TREES)
    assert annotated.sst("train") == [
        (["The", "Rock", "is", "great", "."], 3),
        (["(", "It", "'s", ")"], 2),  # PTB escapes become the characters the biLM read
        (["Awful", "."], 0),
    ]


def test_sst2_drops_neutral_sentences_and_merges_the_polar_labels(tmp_path, monkeypatch):
    _offline_sst(tmp_path, monkeypatch, TREES)
    assert [label for _, label in annotated.sst("dev", classes=2)] == [1, 0]


def test_sst_reports_a_line_that_is_not_a_tree_and_a_bad_class_count(tmp_path, monkeypatch):
    _offline_sst(tmp_path, monkeypatch, TREES + "just words\n")
    with pytest.raises(ValueError, match=r"test\.txt, line 5: not a labelled tree"):
        annotated.sst("test")
    with pytest.raises(ValueError, match="classes must be 5"):
        annotated.sst("test", classes=3)


def test_the_sst_archive_unpacks_into_its_folder_in_the_cache(tmp_path, monkeypatch):
    """The official zip holds ``trees/...`` without a top folder: it must land in ``sst/``."""
    archive = tmp_path / "cache" / "archives" / "trainDevTestTrees_PTB.zip"
    archive.parent.mkdir(parents=True)
    with zipfile.ZipFile(archive, "w") as zf:
        for name in ("train", "dev", "test"):
            zf.writestr(f"trees/{name}.txt", TREES)
    # The archive in the cache is checked before it is unpacked: give the entry this zip's digest
    ds = registry.get_dataset("sst")
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()
    files = (dataclasses.replace(ds.files[0], sha256=digest),) + tuple(ds.files[1:])
    monkeypatch.setitem(registry.REGISTRY, ds.name, dataclasses.replace(ds, files=files))
    monkeypatch.delenv("ELMO_TUTORIAL_DATA", raising=False)
    monkeypatch.setenv("ELMO_TUTORIAL_CACHE", str(tmp_path / "cache"))
    path = registry.fetch("sst", progress=False)  # the archive is there: nothing downloaded
    assert path == tmp_path / "cache" / "sst"
    assert len(annotated.sst("train")) == 3


def test_the_sst_entry_is_verifiable_and_says_it_has_no_licence():
    ds = registry.get_dataset("sst")
    assert ds.verifiable and ds.files[0].sha256.startswith("5c613a4f")
    assert "not stated" in ds.licence and "Socher" in ds.licence


def _available(name: str):
    try:
        registry.locate(name)
    except DatasetNotAvailable:
        pytest.skip(f"{name} is not available (ELMO_TUTORIAL_DATA / NLTK_DATA)")


def test_sst_has_the_official_sentence_counts_and_five_labels():
    _available("sst")
    counts = [len(annotated.sst(split)) for split in ("train", "dev", "test")]
    assert counts == [8544, 1101, 2210]
    assert [len(annotated.sst(s, classes=2)) for s in ("train", "dev", "test")] == [6920, 872, 1821]
    assert {label for _, label in annotated.sst("train")} == {0, 1, 2, 3, 4}
    tokens = {t for sentence, _ in annotated.sst("test") for t in sentence}
    assert not tokens & {"-LRB-", "-RRB-", "``", "''"}


def test_conll2000_has_the_official_counts_and_well_formed_bio_chunks():
    _available("conll2000")
    train, test = annotated.conll2000_chunks("train"), annotated.conll2000_chunks("test")
    assert (len(train), len(test)) == (8936, 2012)
    assert train[0][0][:3] == ["Confidence", "in", "the"]
    assert train[0][1][:4] == ["B-NP", "B-PP", "B-NP", "I-NP"]
    tags = {t for _, ts in train for t in ts}
    assert {"B-NP", "I-NP", "B-VP", "O"} <= tags
    assert all(t == "O" or t[:2] in ("B-", "I-") for t in tags)
    assert all(len(tokens) == len(ts) for tokens, ts in train + test)
    with pytest.raises(ValueError, match="only 'train' and 'test'"):
        annotated.conll2000_chunks("valid")


def test_the_tasks_keep_official_test_sets_and_hold_out_chunking_dev_from_train():
    from elmo_tutorial.tasks.registry import read_task
    from elmo_tutorial.tasks.training import training_subset

    _available("conll2000")
    chunking = read_task("chunking")
    assert [len(chunking[s]) for s in ("train", "valid", "test")] == [7936, 1000, 2012]
    _available("sst")
    assert [len(read_task("sst5")[s]) for s in ("train", "valid", "test")] == [8544, 1101, 2210]
    sample = training_subset(8544, 2000 / 8544, seed=0)
    assert len(sample) == len(set(sample)) == 2000 and sample == sorted(sample)
    assert sample == training_subset(8544, 2000 / 8544, seed=0)  # the same sample every time


def test_sst_phrases_are_every_labelled_node_once_with_the_sentences_among_them(
        tmp_path, monkeypatch):
    _offline_sst(tmp_path, monkeypatch, TREES + "(2 (2 The) (2 Rock))\n")
    phrases = annotated.sst("train", phrases=True)
    assert phrases[:7] == [
        (["The"], 2), (["Rock"], 2), (["The", "Rock"], 2), (["is"], 2), (["great"], 4),
        (["is", "great"], 3), (["."], 2)]
    assert (["The", "Rock", "is", "great", "."], 3) in phrases  # the root too
    assert (["(", "It", "'s", ")"], 2) in phrases and (["It", "'s"], 2) in phrases
    assert [t for t, _ in phrases].count(["The", "Rock"]) == 1  # met twice, kept once
    # SST-2: great (4), is great (3), is great . (4), the sentence (3); Awful (1), Awful . (0)
    assert [label for _, label in annotated.sst("train", classes=2, phrases=True)] == [
        1, 1, 1, 1, 0, 0]


def test_a_word_with_a_no_break_space_is_one_token_and_a_broken_tree_is_refused(
        tmp_path, monkeypatch):
    """SST writes "8 1/2" with a no-break space: one leaf, one token (a \\s split dropped it)."""
    _offline_sst(tmp_path, monkeypatch, "(3 (2 like) (2 8\u00a01\\/2))\n")
    assert annotated.sst("train") == [(["like", "8\u00a01/2"], 3)]
    assert annotated.sst("train", phrases=True)[-1] == (["like", "8\u00a01/2"], 3)
    _offline_sst(tmp_path / "bad", monkeypatch, "(3 (2 like) (2 this)\n")
    with pytest.raises(ValueError, match=r"train\.txt, line 1: the tree is not closed"):
        annotated.sst("train", phrases=True)
