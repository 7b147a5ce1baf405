"""Every reader of a dataset's files against every plant (elmo_tutorial.data.dataset_files).

The offline folder (ELMO_TUTORIAL_DATA), the download cache and nltk's data folders are the
user's. A file of one of them replaced by a FIFO, a link to /dev/zero, a link out of the
dataset's folder, a folder, or a file far larger than the dataset's own, must be refused at
once by every reader with one line that says what the path is: never waited on, never read
to the end, and the other folder's file neither read into use nor quoted. A FIFO that is
waited on fails the test by an alarm (conftest), not by hanging the suite.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from _planted_files import ATTACKS, SAYS, plant
from conftest import Hung

from elmo_tutorial.data import annotated, corpora, registry
from elmo_tutorial.data.dataset_files import (
    MAX_LABELLED_FILE_BYTES,
    MAX_NLTK_FILE_BYTES,
    BadDatasetFile,
    check_dataset_folder,
    dataset_lines,
)
from elmo_tutorial.data.downloads import DatasetNotAvailable

SECRET = b"SECRET line of a file in another folder\n"  # what a link out must not reveal

WSD_XML = """<?xml version="1.0" encoding="UTF-8" ?>
<corpus lang="en" source="{name}">
<text id="d000">
<sentence id="d000.s000">
<wf lemma="the" pos="DET">The</wf>
<instance id="d000.s000.t000" lemma="art" pos="NOUN">art</instance>
<wf lemma="of" pos="ADP">of</wf>
<instance id="d000.s000.t001" lemma="war" pos="NOUN">war</instance>
</sentence>
</text>
</corpus>
"""
WSD_KEYS = "d000.s000.t000 art%1:04:00::\nd000.s000.t001 war%1:04:00:: war%1:26:00::\n"
SEMCOR = "Training_Corpora/SemCor/semcor"
SENSEVAL2 = "Evaluation_Datasets/senseval2/senseval2"
FRAMEWORK = {f"{SEMCOR}.data.xml": WSD_XML.format(name="semcor"),
             f"{SEMCOR}.gold.key.txt": WSD_KEYS,
             f"{SENSEVAL2}.data.xml": WSD_XML.format(name="senseval2"),
             f"{SENSEVAL2}.gold.key.txt": WSD_KEYS}
HELDOUT = "heldout-monolingual.tokenized.shuffled/news.en.heldout-00000-of-00050"
SHARD = "training-monolingual.tokenized.shuffled/news.en-00001-of-00100"


def offline_dataset(tmp: Path, name: str, files: dict[str, str]) -> Path:
    """Dataset ``name`` in an ELMO_TUTORIAL_DATA folder (set by the ``data`` fixture) with
    these files; the registry's other required files empty."""
    folder = tmp / "offline" / registry.get_dataset(name).folder
    for path, text in files.items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(text, encoding="utf-8")
    for path in registry.get_dataset(name).required_paths():
        if not (folder / path).exists():
            (folder / path).parent.mkdir(parents=True, exist_ok=True)
            (folder / path).write_text("")
    return folder


def nltk_dataset(tmp: Path, resource: str, files: dict[str, str]) -> Path:
    """An nltk data folder (nltk.data.path, set by the ``data`` fixture) holding ``resource``."""
    folder = tmp / "nltk_data" / resource
    for path, text in files.items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(text, encoding="utf-8")
    return folder


@pytest.fixture
def data(tmp_path, monkeypatch):
    """Datasets read only from ``tmp_path``: offline folder, cache and nltk's path.

    nltk's corpus objects (``nltk.corpus.conll2000`` ...) turn themselves into readers of the
    folder they first find and keep it: each is made lazy again afterwards, or every later test
    of the process would read the planted folder of this one (which nltk refuses once gone).
    """
    import nltk
    import nltk.corpus

    monkeypatch.setenv("ELMO_TUTORIAL_DATA", str(tmp_path / "offline"))
    monkeypatch.setenv("ELMO_TUTORIAL_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(nltk.data, "path", [str(tmp_path / "nltk_data")])
    yield tmp_path
    from nltk.corpus.util import LazyCorpusLoader

    for corpus in list(vars(nltk.corpus).values()):  # loaded ones become lazy again
        unload = getattr(corpus, "__dict__", {}).get("_unload")
        if not isinstance(corpus, LazyCorpusLoader) and getattr(unload, "__self__", None) \
                is corpus:
            unload()


def _read_senseval():
    from elmo_tutorial.analyses import lexical_sample

    lexical_sample._parsed.cache_clear()  # parsed once per process: read it again
    return lexical_sample.read_senseval("hard")


@dataclass
class Door:
    """A reader of one dataset file: ``make(tmp)`` writes the dataset and returns its folder;
    ``file`` is planted there and ``read()`` must refuse it; ``limit``: the reader's size limit
    (``None``: the file may be gigabytes, a corpus's; then the limit is patched smaller)."""

    name: str
    make: object
    file: str
    read: object
    limit: int | None = MAX_LABELLED_FILE_BYTES


def _offline(name, files):
    return lambda tmp: offline_dataset(tmp, name, files)


def _nltk(resource, files):
    return lambda tmp: nltk_dataset(tmp, resource, files)


DOORS = [
    Door("UD conllu", _offline("ud-english-ewt", {"en_ewt-ud-train.conllu": "1\ta\ta\tDET\n"}),
         "en_ewt-ud-train.conllu", lambda: annotated.ud_english_ewt("train")),
    Door("WNUT-17", _offline("wnut17", {"emerging.dev.conll": "a\tO\n"}), "emerging.dev.conll",
         lambda: annotated.wnut17("dev")),
    Door("SST trees", _offline("sst", {"trees/test.txt": "(3 (2 a) (3 good))\n"}),
         "trees/test.txt", lambda: annotated.sst("test")),
    Door("WSD key", _offline("wsd-framework", FRAMEWORK), f"{SENSEVAL2}.gold.key.txt",
         lambda: annotated.wsd_framework("senseval2")),
    Door("WSD xml", _offline("wsd-framework", FRAMEWORK), f"{SENSEVAL2}.data.xml",
         lambda: annotated.wsd_framework("senseval2")),
    Door("SemCor key", _offline("wsd-framework", FRAMEWORK), f"{SEMCOR}.gold.key.txt",
         lambda: annotated.wsd_framework("semcor")),
    Door("SemCor xml", _offline("wsd-framework", FRAMEWORK), f"{SEMCOR}.data.xml",
         lambda: annotated.wsd_framework("semcor")),
    Door("WikiText", _offline("wikitext-2", {"wiki.train.tokens": " = T = \n a b .\n"}),
         "wiki.train.tokens", lambda: corpora.load_sentences("wikitext2", "train"), None),
    Door("1B Word held-out", _offline("1b-word", {HELDOUT: "a b\n"}), HELDOUT,
         lambda: corpora.one_billion_words("test"), None),
    Door("1B Word shard", _offline("1b-word", {SHARD: "a b\n"}), SHARD,
         lambda: corpora.load_sentences("one_billion_words", "train"), None),
    Door("nltk conll2000", _nltk("corpora/conll2000", {"train.txt": "a DT B-NP\n",
                                                        "test.txt": "a DT B-NP\n"}),
         "train.txt", lambda: annotated.conll2000_chunks("train"), MAX_NLTK_FILE_BYTES),
    Door("nltk wordnet", _nltk("corpora/wordnet", {"index.noun": "art n 1 0 1 0 0\n"}),
         "index.noun", lambda: corpora.nltk_corpus("wordnet"), MAX_NLTK_FILE_BYTES),
    Door("nltk senseval", _nltk("corpora/senseval", {"hard.pos": "<corpus/>\n"}), "hard.pos",
         _read_senseval, MAX_NLTK_FILE_BYTES),
]
CASES = [pytest.param(door, attack, id=f"{door.name}-{attack}") for door in DOORS
         for attack in (*ATTACKS, "giant")]


@pytest.mark.parametrize(("door", "attack"), CASES)
def test_a_planted_dataset_file_is_refused_at_once_with_what_it_is(door, attack, data, alarm,
                                                                   monkeypatch):
    target = door.make(data) / door.file
    if attack == "giant":  # sparse: no disk used, and nothing read if the size is checked
        limit = door.limit
        if limit is None:
            limit = 1 << 20
            monkeypatch.setattr(corpora, "MAX_CORPUS_FILE_BYTES", limit)
        os.truncate(target, limit + 1)
    else:
        plant(target, attack, SECRET, data / "elsewhere")
    try:
        door.read()
        said = "read without a word"
    except Hung:
        raise
    except BadDatasetFile as error:
        said = str(error)
    says = "more than such a file can be" if attack == "giant" else SAYS[attack]
    assert re.search(says, said), f"{door.name}: {said!r}"
    assert "\n" not in said and "SECRET" not in said
    if attack == "link_out":  # the other folder's file is left as it was
        assert (data / "elsewhere" / target.name).read_bytes() == SECRET


@pytest.mark.parametrize("door", DOORS, ids=[door.name for door in DOORS])
def test_every_door_reads_its_dataset_when_nothing_is_planted(door, data):
    """The refusals above come from the plants: the same folders are read."""
    if door.name.startswith("nltk"):
        folder = door.make(data)
        check_dataset_folder(folder)  # nltk's own readers are not what is tested here
        assert registry.locate(folder.name) == folder
    else:
        door.make(data)
        assert door.read()


def test_a_refused_dataset_file_is_an_unavailable_dataset_and_a_value_error(data):
    """Every command reports one or the other in one line (layers: DatasetNotAvailable)."""
    folder = offline_dataset(data, "sst", {})
    os.mkfifo(folder / "trees" / "dev.txt.tmp")
    with pytest.raises(DatasetNotAvailable):
        list(dataset_lines(folder / "trees" / "dev.txt.tmp", folder, 100))
    with pytest.raises(ValueError):
        list(dataset_lines(folder / "trees" / "dev.txt.tmp", folder, 100))


def test_a_link_inside_the_dataset_folder_is_read(data):
    folder = offline_dataset(data, "sst", {"trees/copy.txt": "(4 (4 fine))\n"})
    (folder / "trees" / "test.txt").unlink()
    (folder / "trees" / "test.txt").symlink_to(folder / "trees" / "copy.txt")
    assert annotated.sst("test") == [(["fine"], 4)]


def test_a_link_to_a_folder_outside_an_nltk_corpus_is_refused(data):
    folder = nltk_dataset(data, "corpora/treebank", {"combined/wsj_0001.mrg": "( (X a) )\n"})
    (data / "elsewhere").mkdir()
    (folder / "tagged").symlink_to(data / "elsewhere")
    with pytest.raises(BadDatasetFile, match=r"tagged is a symbolic link to .*, outside"):
        corpora.nltk_corpus("treebank")


def test_a_missing_or_dangling_key_file_says_which_in_one_line(data):
    """The registry finds the framework by its XML files; its key files are read by name."""
    folder = offline_dataset(data, "wsd-framework", FRAMEWORK)
    key = folder / f"{SENSEVAL2}.gold.key.txt"
    key.unlink()
    with pytest.raises(BadDatasetFile, match=r"gold\.key\.txt is missing from the dataset in"):
        annotated.wsd_framework("senseval2")
    key.symlink_to(folder / "gone.txt")
    with pytest.raises(BadDatasetFile, match=r"link to .*gone\.txt, which does not exist"):
        annotated.wsd_framework("senseval2")


def test_a_dataset_file_that_is_not_utf8_names_the_file(data):
    folder = offline_dataset(data, "wnut17", {})
    (folder / "emerging.dev.conll").write_bytes(b"a\tO\n" * 3 + b"\xff\xfe\tO\n")
    with pytest.raises(BadDatasetFile, match=r"emerging\.dev\.conll is not UTF-8 text"):
        annotated.wnut17("dev")


def test_a_key_file_that_is_not_the_xmls_is_refused_not_read_as_no_gold_keys(data):
    folder = offline_dataset(data, "wsd-framework", FRAMEWORK)
    key = folder / f"{SENSEVAL2}.gold.key.txt"
    key.write_text("d001.s000.t000 art%1:04:00::\n")  # another dataset's instances
    with pytest.raises(BadDatasetFile, match=r"has no sense key for instance 'd000\.s000\.t000'"):
        annotated.wsd_framework("senseval2")
    key.write_text("d000.s000.t000\n")  # an id without its keys
    with pytest.raises(BadDatasetFile, match=r"gold\.key\.txt, line 1: expected an instance id"):
        annotated.wsd_framework("senseval2")
    key.write_text("first line of some other text\n")
    with pytest.raises(BadDatasetFile, match="WordNet sense keys"):
        annotated.wsd_framework("senseval2")


def test_framework_xml_that_is_not_well_formed_is_one_line_not_a_syntax_error(data):
    folder = offline_dataset(data, "wsd-framework", FRAMEWORK)
    (folder / f"{SEMCOR}.data.xml").write_text("<corpus><text>\n")
    with pytest.raises(BadDatasetFile, match=r"semcor\.data\.xml is not well-formed XML"):
        annotated.wsd_framework("semcor")


def _tiny_model(tmp: Path) -> Path:
    from elmo_tutorial import ELMo, save_allennlp
    from elmo_tutorial.model.config import MODEL_PRESETS

    folder = tmp / "official"
    save_allennlp(ELMo(MODEL_PRESETS["tiny"]), folder / "options.json", folder / "weights.hdf5")
    return folder


@pytest.mark.parametrize("attack", ATTACKS)
def test_layers_refuses_a_planted_semcor_key_in_one_line(attack, tmp_path, monkeypatch, alarm,
                                                        capsys):
    from elmo_tutorial.commands.cli import main

    try:
        registry.locate("wordnet")  # read before SemCor, from the real nltk data
    except DatasetNotAvailable:
        pytest.skip("nltk's wordnet is not available (NLTK_DATA)")
    model = _tiny_model(tmp_path)
    monkeypatch.setenv("ELMO_TUTORIAL_DATA", str(tmp_path / "offline"))
    monkeypatch.setenv("ELMO_TUTORIAL_CACHE", str(tmp_path / "cache"))
    folder = offline_dataset(tmp_path, "wsd-framework", FRAMEWORK)
    plant(folder / f"{SEMCOR}.gold.key.txt", attack, SECRET, tmp_path / "elsewhere")
    assert main(["layers", str(model), "--quick", "--no-ner"]) == 2
    out, err = capsys.readouterr()
    assert err.startswith("elmo-tutorial layers: ") and err.count("\n") == 1
    assert re.search(SAYS[attack], err) and "SECRET" not in err + out
