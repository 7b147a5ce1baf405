"""The tagged-data readers on small hand-written files: CoNLL-U (UD English-EWT), WNUT-17's
two-column BIO files, and the Penn Treebank sample (on the nltk data, when it is there)."""

from pathlib import Path

import pytest

from elmo_tutorial.data import annotated, registry
from elmo_tutorial.data.downloads import DatasetNotAvailable

CONLLU = """\
# newdoc id = weblog-0001
# sent_id = one
# text = I don't know.
1\tI\tI\tPRON\tPRP\t_\t3\tnsubj\t_\t_
2-3\tdon't\t_\t_\t_\t_\t_\t_\t_\t_
2\tdo\tdo\tAUX\tVBP\t_\t4\taux\t_\t_
3\tn't\tnot\tPART\tRB\t_\t4\tadvmod\t_\t_
4\tknow\tknow\tVERB\tVB\t_\t0\troot\t_\tSpaceAfter=No
5\t.\t.\tPUNCT\t.\t_\t4\tpunct\t_\t_


# sent_id = two
# text = Bob went, Mary too.
1\tBob\tBob\tPROPN\tNNP\t_\t2\tnsubj\t_\t_
2\twent\tgo\tVERB\tVBD\t_\t0\troot\t_\t_
2.1\twent\tgo\tVERB\tVBD\t_\t_\t_\t0:root\tCopyOf=2
3\tMary\tMary\tPROPN\tNNP\t_\t2\tconj\t_\t_
4\ttoo\ttoo\tADV\tRB\t_\t3\tadvmod\t_\t_
"""  # no blank line at the very end: the last sentence still counts

WNUT = "@user\tO\n#NYC\tB-location\nrocks\tO\n\t\n\nEmpire\tB-location\nState\tI-location\n"


def _offline(tmp_path, monkeypatch, name: str, files: dict[str, str]) -> Path:
    """An ELMO_TUTORIAL_DATA directory holding dataset ``name`` with these file contents."""
    ds = registry.get_dataset(name)
    folder = tmp_path / "offline" / ds.folder
    folder.mkdir(parents=True)
    for path in ds.required_paths():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text("")
    for file, text in files.items():
        (folder / file).write_bytes(text.encode("utf-8"))
    monkeypatch.setenv("ELMO_TUTORIAL_DATA", str(tmp_path / "offline"))
    monkeypatch.setenv("ELMO_TUTORIAL_CACHE", str(tmp_path / "cache"))
    return folder


def test_conllu_skips_comments_multiword_ranges_and_empty_nodes(tmp_path, monkeypatch):
    _offline(tmp_path, monkeypatch, "ud-english-ewt", {"en_ewt-ud-train.conllu": CONLLU})
    assert annotated.ud_english_ewt("train") == [
        (["I", "do", "n't", "know", "."], ["PRON", "AUX", "PART", "VERB", "PUNCT"]),
        (["Bob", "went", "Mary", "too"], ["PROPN", "VERB", "PROPN", "ADV"]),
    ]


def test_conllu_accepts_windows_line_ends_and_a_byte_order_mark(tmp_path, monkeypatch):
    text = "\ufeff" + CONLLU.replace("\n", "\r\n")
    _offline(tmp_path, monkeypatch, "ud-english-ewt", {"en_ewt-ud-dev.conllu": text})
    sentences = annotated.ud_english_ewt("dev")
    assert [len(tokens) for tokens, _ in sentences] == [5, 4]
    assert sentences[1][1][-1] == "ADV"


def test_conllu_reports_a_broken_line_with_its_number(tmp_path, monkeypatch):
    line = "4\ttoo\ttoo\tADV\tRB\t_\t3\tadvmod\t_\t_"
    broken = CONLLU.replace(line, line.replace("\t", " "))  # spaces instead of tabs
    _offline(tmp_path, monkeypatch, "ud-english-ewt", {"en_ewt-ud-test.conllu": broken})
    with pytest.raises(ValueError, match=r"en_ewt-ud-test\.conllu, line 18: 1 tab-separated"):
        annotated.ud_english_ewt("test")


def test_wnut17_keeps_hashtags_and_ends_sentences_at_blank_or_tab_only_lines(
        tmp_path, monkeypatch):
    _offline(tmp_path, monkeypatch, "wnut17", {"wnut17train.conll": WNUT})
    assert annotated.wnut17("train") == [
        (["@user", "#NYC", "rocks"], ["O", "B-location", "O"]),
        (["Empire", "State"], ["B-location", "I-location"]),
    ]


def test_wnut17_tags_carry_no_carriage_return(tmp_path, monkeypatch):
    _offline(tmp_path, monkeypatch, "wnut17", {"emerging.dev.conll": WNUT.replace("\n", "\r\n")})
    tags = [t for _, ts in annotated.wnut17("dev") for t in ts]
    assert tags == ["O", "B-location", "O", "B-location", "I-location"]


def test_wnut17_reports_a_line_without_a_tag(tmp_path, monkeypatch):
    _offline(tmp_path, monkeypatch, "wnut17", {"emerging.test.annotated": "a\tO\nb\n"})
    with pytest.raises(ValueError, match="line 2: 1 tab-separated column"):
        annotated.wnut17("test")


def _treebank():
    try:
        registry.locate("treebank")
    except DatasetNotAvailable:
        pytest.skip("nltk's treebank sample is not available (NLTK_DATA)")


def test_treebank_split_by_document_without_traces_or_escapes():
    _treebank()
    train, test = annotated.treebank_pos("train"), annotated.treebank_pos("test")
    assert (len(train), len(test)) == (3262, 652)
    assert sum(len(t) for t, _ in train) == 78539 and sum(len(t) for t, _ in test) == 15545
    words = {w for tokens, _ in train + test for w in tokens}
    tags = {t for _, ts in train + test for t in ts}
    assert "-NONE-" not in tags and {"-LRB-", "``", "NNP"} <= tags
    assert not words & {"-LRB-", "-RRB-", "``", "''"} and {"(", '"'} <= words
    assert not [w for w in words if w.startswith("*") and w.endswith("*")]  # *U*, *?*, *
    assert all(len(tokens) == len(ts) for tokens, ts in train + test)
    assert train[0][0][:2] == ["Pierre", "Vinken"]
    with pytest.raises(ValueError, match="only 'train' and 'test'"):
        annotated.treebank_pos("valid")
