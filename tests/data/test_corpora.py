"""The dataset registry, verified downloads, safe extraction and the corpus loaders.

Downloads use ``file://`` fixtures in ``tmp_path``: no test touches the network. Loader tests
read the offline mirror named by ELMO_TUTORIAL_DATA / NLTK_DATA and skip when it is absent.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import tarfile
import zipfile
from pathlib import Path

import pytest

from elmo_tutorial.data import annotated, corpora, registry
from elmo_tutorial.data.downloads import (
    DatasetNotAvailable,
    RemoteFile,
    UnsafeArchive,
    download,
    safe_extract,
)
from elmo_tutorial.data.registry import Dataset

PAYLOAD = b"the bank of the river\nthe bank on the corner\n"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def dirs(tmp_path, monkeypatch):
    """An empty cache and an empty offline directory, both inside tmp_path."""
    cache, offline = tmp_path / "cache", tmp_path / "offline"
    offline.mkdir()
    monkeypatch.setenv("ELMO_TUTORIAL_CACHE", str(cache))
    monkeypatch.setenv("ELMO_TUTORIAL_DATA", str(offline))
    return cache, offline


@pytest.fixture
def server(tmp_path):
    """``tmp_path/served`` served over HTTP on this machine: (folder, base URL)."""
    import functools
    import http.server
    import threading

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    folder = tmp_path / "served"
    folder.mkdir()
    httpd = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Quiet, directory=str(folder)))
    threading.Thread(target=httpd.serve_forever, args=(0.01,), daemon=True).start()  # quick stop
    yield folder, f"http://127.0.0.1:{httpd.server_port}/"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def served(server):
    """The URL of a file holding PAYLOAD."""
    folder, base = server
    (folder / "corpus.txt").write_bytes(PAYLOAD)
    return base + "corpus.txt"


def add_entry(monkeypatch, ds: Dataset) -> Dataset:
    monkeypatch.setitem(registry.REGISTRY, ds.name, ds)
    return ds


# --------------------------------------------------------------------------- downloads


def test_download_verifies_sha256_and_leaves_no_temporary_file(tmp_path, served):
    dest = download(RemoteFile("corpus.txt", (served,), sha256(PAYLOAD)), tmp_path / "out",
                    progress=False)
    assert dest.read_bytes() == PAYLOAD
    assert [p.name for p in dest.parent.iterdir()] == ["corpus.txt"]


def test_a_checksum_mismatch_keeps_nothing_and_names_both_digests(tmp_path, served):
    wrong = "0" * 64
    with pytest.raises(DatasetNotAvailable) as err:
        download(RemoteFile("corpus.txt", (served,), wrong), tmp_path / "out", progress=False)
    assert wrong in str(err.value) and sha256(PAYLOAD) in str(err.value)
    assert list((tmp_path / "out").iterdir()) == []


def test_download_refuses_without_a_checksum(tmp_path, served):
    with pytest.raises(ValueError, match="without a checksum"):
        download(RemoteFile("c.txt", (served,)), tmp_path, progress=False)
    assert not (tmp_path / "c.txt").exists()


def test_a_machine_without_network_is_told_how_to_work_offline(tmp_path):
    remote = RemoteFile("a.txt", ("http://127.0.0.1:9/a.txt", "http://127.0.0.1:9/b.txt"),
                        sha256="0" * 64)  # port 9 (discard): nothing listens, refused at once
    with pytest.raises(DatasetNotAvailable, match="(?s)a.txt.*b.txt.*looks offline.*"
                                                  "ELMO_TUTORIAL_DATA"):
        download(remote, tmp_path, progress=False)


def test_a_server_that_answers_with_an_error_is_not_called_offline(tmp_path, server):
    remote = RemoteFile("a.txt", (server[1] + "missing.txt",), sha256="0" * 64)
    with pytest.raises(DatasetNotAvailable) as err:
        download(remote, tmp_path, progress=False)
    assert "404" in str(err.value) and "offline" not in str(err.value)


# --------------------------------------------------------------------------- registry


def test_fetch_files_entry_into_cache_then_locate_finds_it(dirs, served, monkeypatch):
    cache, _ = dirs
    ds = add_entry(monkeypatch, Dataset(
        "toy", "toy corpus", "CC0", "1 KB", "files", "toy",
        (RemoteFile("corpus.txt", (served,), sha256=sha256(PAYLOAD)),)))
    assert not registry.is_available("toy")
    path = registry.fetch(ds.name, progress=False)
    assert path == cache / "toy" and (path / "corpus.txt").read_bytes() == PAYLOAD
    assert registry.locate("toy") == path


def test_fetch_with_wrong_registry_checksum_keeps_nothing(dirs, served, monkeypatch):
    cache, _ = dirs
    add_entry(monkeypatch, Dataset("toy", "t", "CC0", "1 KB", "files", "toy",
                                   (RemoteFile("corpus.txt", (served,), sha256="ab" * 32),)))
    with pytest.raises(DatasetNotAvailable, match="does not match"):
        registry.fetch("toy", progress=False)
    assert not (cache / "toy" / "corpus.txt").exists()
    assert not registry.is_available("toy")


def test_fetch_falls_back_to_a_mirror_when_the_official_url_fails(dirs, server, served,
                                                                  monkeypatch):
    dead = server[1] + "nowhere.txt"
    add_entry(monkeypatch, Dataset("toy", "t", "CC0", "1 KB", "files", "toy",
                                   (RemoteFile("corpus.txt", (dead, served), sha256(PAYLOAD)),)))
    assert (registry.fetch("toy", progress=False) / "corpus.txt").read_bytes() == PAYLOAD


def test_fetch_again_replaces_a_cached_file_changed_since_its_download(dirs, served,
                                                                      monkeypatch):
    cache, _ = dirs
    add_entry(monkeypatch, Dataset("toy", "t", "CC0", "1 KB", "files", "toy",
                                   (RemoteFile("corpus.txt", (served,), sha256(PAYLOAD)),)))
    registry.fetch("toy", progress=False)
    (cache / "toy" / "corpus.txt").write_bytes(b"edited")
    registry.fetch("toy", force=True, progress=False)
    assert (cache / "toy" / "corpus.txt").read_bytes() == PAYLOAD


def test_fetch_archive_entry_extracts_into_cache(dirs, server, monkeypatch):
    _toy_archive_entry(monkeypatch, server)
    path = registry.fetch("toy", progress=False)
    assert (path / "wiki.train.tokens").read_text() == "a b c\n"


def test_an_archive_planted_in_the_cache_is_not_extracted(dirs, server, monkeypatch):
    cache, _ = dirs
    _toy_archive_entry(monkeypatch, server)
    planted = cache / "archives" / "toy.zip"
    planted.parent.mkdir(parents=True)
    with zipfile.ZipFile(planted, "w") as zf:
        zf.writestr("toy-corpus/wiki.train.tokens", "planted text\n")
    path = registry.fetch("toy", progress=False)  # downloaded again: its hash is not the one
    assert (path / "wiki.train.tokens").read_text() == "a b c\n"


def test_offline_directory_is_used_before_the_cache(dirs, monkeypatch):
    cache, offline = dirs
    for root in (cache, offline):
        (root / "toy").mkdir(parents=True)
        (root / "toy" / "corpus.txt").write_bytes(PAYLOAD)
    add_entry(monkeypatch, Dataset("toy", "t", "CC0", "1 KB", "files", "toy",
                                   (RemoteFile("corpus.txt", ("file:///x",), "00" * 32),)))
    assert registry.locate("toy") == offline / "toy"


def test_missing_dataset_error_says_how_to_get_it(dirs):
    with pytest.raises(DatasetNotAvailable) as err:
        annotated.wnut17("train")
    message = str(err.value)
    assert "elmo-tutorial data download wnut17" in message and "ELMO_TUTORIAL_DATA" in message


def test_entry_without_published_checksum_refuses_to_download(dirs):
    with pytest.raises(DatasetNotAvailable, match="checksum") as err:
        registry.fetch("wsd-framework", progress=False)
    assert "lcl.uniroma1.it" in str(err.value)


def test_failed_nltk_download_is_an_error(monkeypatch, tmp_path):
    import nltk

    monkeypatch.setattr(nltk.data, "path", [str(tmp_path)])
    monkeypatch.setattr(nltk, "download", lambda *a, **k: False)
    with pytest.raises(DatasetNotAvailable, match="nltk.download"):
        registry.fetch("brown", progress=False)
    with pytest.raises(DatasetNotAvailable, match="NLTK_DATA"):
        corpora.nltk_corpus("brown")


def test_every_downloadable_entry_has_a_wellformed_checksum_or_says_why_not():
    for ds in registry.REGISTRY.values():
        assert ds.licence and ds.size and ds.description, ds.name
        for remote in ds.files:
            assert remote.urls and all(u.startswith(("https://", "http://")) for u in remote.urls)
            if remote.sha256:
                assert re.fullmatch(r"[0-9a-f]{64}", remote.sha256), ds.name
        if not ds.verifiable:
            assert "checksum" in ds.note, ds.name


def test_dataset_names_accept_underscores_and_suggest_close_matches():
    assert registry.get_dataset("ud_english_ewt").name == "ud-english-ewt"
    with pytest.raises(KeyError, match="wnut17"):
        registry.get_dataset("wnut")


# --------------------------------------------------------------------------- extraction


def _zip_with(tmp_path, name: str) -> Path:
    path = tmp_path / "evil.zip"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("fine.txt", "ok")
        zf.writestr(name, "escaped")
    return path


def _tar_with(tmp_path, name: str, link: str | None = None) -> Path:
    """A tar.gz holding one member: a 7-byte file, or a symbolic link to ``link``."""
    return _tar_of(tmp_path, [(name, link)], "evil.tar.gz")


@pytest.mark.parametrize("name", ["../escaped.txt", "a/../../escaped.txt", "/tmp/escaped.txt",
                                  "C:/escaped.txt", "\\escaped.txt"])
def test_zip_members_with_escaping_names_stay_inside_the_target(tmp_path, name):
    target = tmp_path / "target"
    safe_extract(_zip_with(tmp_path, name), target)
    written = [p for p in target.rglob("*") if p.is_file() and p.read_text() == "escaped"]
    assert len(written) == 1 and not (tmp_path / "escaped.txt").exists()


def test_tar_members_escaping_the_target_are_refused(tmp_path):
    with pytest.raises(UnsafeArchive):
        safe_extract(_tar_with(tmp_path, "../escaped.txt"), tmp_path / "target")
    assert not (tmp_path / "escaped.txt").exists()


def test_an_absolute_tar_member_is_written_inside_the_target(tmp_path):
    safe_extract(_tar_with(tmp_path, "/tmp/escaped-elmo-test.txt"), tmp_path / "target")
    assert (tmp_path / "target" / "tmp" / "escaped-elmo-test.txt").exists()


@pytest.mark.parametrize("link", ["../../outside", "/etc/passwd"])
def test_tar_symlinks_pointing_out_are_refused(tmp_path, link):
    with pytest.raises(UnsafeArchive, match="link"):
        safe_extract(_tar_with(tmp_path, "data/link", link=link), tmp_path / "target")


def test_safe_extract_extracts_an_ordinary_archive(tmp_path):
    names = safe_extract(_zip_with(tmp_path, "sub/notes:v1.txt"), tmp_path / "target")
    assert sorted(names) == ["fine.txt", "sub/notes:v1.txt"]
    assert (tmp_path / "target" / "sub" / "notes:v1.txt").read_text() == "escaped"


# --------------------------------------------------------------------------- loaders


def test_wikitext_loader_skips_headings_and_blank_lines(dirs):
    folder = dirs[1] / "wikitext-2"
    folder.mkdir()
    for split in ("train", "valid", "test"):
        (folder / f"wiki.{split}.tokens").write_text(
            " \n = Robert Boulter = \n \n Robert is an <unk> actor . \n = = Career = = \n x y\n")
    assert corpora.load_sentences("wikitext2", "valid") == [
        ["Robert", "is", "an", "<unk>", "actor", "."], ["x", "y"]]


def test_wikitext103_is_read_like_wikitext2_and_stops_at_max_sentences(dirs):
    folder = dirs[1] / "wikitext-103"
    folder.mkdir()
    for split in ("train", "valid", "test"):
        (folder / f"wiki.{split}.tokens").write_text(
            " = Title = \n A b . C d ! e \n F g .\n")
    assert corpora.load_sentences("wikitext103", "dev") == [
        ["A", "b", "."], ["C", "d", "!"], ["e"], ["F", "g", "."]]
    assert corpora.load_sentences("wikitext103", "train", max_sentences=2) == [
        ["A", "b", "."], ["C", "d", "!"]]


def test_every_training_corpus_name_is_accepted_by_the_config_and_unknown_ones_are_not():
    from elmo_tutorial.training.train_config import TrainConfig

    for name in corpora.LM_CORPORA:
        TrainConfig(corpus=name)
    with pytest.raises(ValueError, match="unknown corpus 'wiki'"):
        corpora.load_sentences("wiki", "train")


@pytest.mark.parametrize("alias,name", [("dev", "valid"), ("validation", "valid"),
                                        ("train", "train"), ("test", "test")])
def test_one_split_normaliser_for_every_reader(alias, name):
    assert registry.normalize_split(alias) == name
    assert corpora.load_sentences("embedded", alias, 3) == corpora.load_sentences(
        "embedded", name, 3)


def test_unknown_split_names_the_accepted_ones():
    with pytest.raises(ValueError, match="expected train, valid or test"):
        annotated.wnut17("training")


def test_one_billion_words_reads_heldout_shard_zero_as_test(dirs):
    root = dirs[1] / registry.get_dataset("1b-word").folder
    (root / "training-monolingual.tokenized.shuffled").mkdir(parents=True)
    held = root / "heldout-monolingual.tokenized.shuffled"
    held.mkdir()
    (held / "news.en.heldout-00000-of-00050").write_text("a test .\n\nanother one .\n")
    (held / "news.en.heldout-00001-of-00050").write_text("a valid line .\n")
    assert corpora.one_billion_words("test") == [["a", "test", "."], ["another", "one", "."]]
    assert corpora.one_billion_words("valid", max_sentences=1) == [["a", "valid", "line", "."]]


def _mirror(folder: str) -> Path:
    root = os.environ.get("ELMO_TUTORIAL_DATA")
    if not root or not (Path(root) / folder).is_dir():
        pytest.skip(f"offline data not found: set ELMO_TUTORIAL_DATA to a directory with {folder}/")
    return Path(root) / folder


@pytest.mark.parametrize("split,name", [("valid", "dev"), ("test", "test")])
def test_ud_english_ewt_has_one_sentence_per_sent_id_and_aligned_upos(split, name):
    path = _mirror("ud-english-ewt") / f"en_ewt-ud-{name}.conllu"
    sentences = annotated.ud_english_ewt(split)
    assert len(sentences) == path.read_text(encoding="utf-8").count("# sent_id")
    upos = {"ADJ", "ADP", "ADV", "AUX", "CCONJ", "DET", "INTJ", "NOUN", "NUM", "PART", "PRON",
            "PROPN", "PUNCT", "SCONJ", "SYM", "VERB", "X"}
    for tokens, tags in sentences:
        assert len(tokens) == len(tags) > 0 and set(tags) <= upos


@pytest.mark.parametrize("split", ["train", "valid", "test"])
def test_wnut17_keeps_every_token_line_and_bio_tags(split):
    folder = _mirror("wnut17")
    sentences = annotated.wnut17(split)
    file = {"train": "wnut17train.conll", "valid": "emerging.dev.conll",
            "test": "emerging.test.annotated"}[split]
    token_lines = [ln for ln in (folder / file).read_text(encoding="utf-8").splitlines()
                   if ln.strip()]
    assert sum(len(tokens) for tokens, _ in sentences) == len(token_lines)
    for tokens, tags in sentences:
        assert len(tokens) == len(tags)
        assert all(re.fullmatch(r"O|[BI]-(person|location|group|creative-work|corporation|"
                                r"product)", t) for t in tags)


def test_wsd_framework_instances_match_gold_keys():
    folder = _mirror("WSD_Evaluation_Framework")
    gold = folder / "Evaluation_Datasets" / "senseval2" / "senseval2.gold.key.txt"
    sentences = annotated.wsd_framework("senseval2")
    instances = [inst for s in sentences for inst in s["instances"]]
    assert len(instances) == len(gold.read_text().splitlines())
    for s in sentences:
        assert len(s["tokens"]) == len(s["lemmas"]) == len(s["pos"])
    for inst in instances:
        assert inst["keys"] and all(k.split("%")[0] == inst["lemma"] for k in inst["keys"])


def _nltk_or_skip():
    from elmo_tutorial.data.downloads import nltk_find

    if any(nltk_find(registry.get_dataset(n).nltk_resource) is None
           for n in corpora.ENGLISH_MIX_CORPORA):
        pytest.skip("nltk corpora not found: set NLTK_DATA (brown, gutenberg, ... masc_tagged)")


def test_english_mix_is_deterministic_and_tokenized():
    _nltk_or_skip()
    first = corpora.english_mix("valid", max_sentences=300)
    assert first == corpora.english_mix("valid", max_sentences=300)
    assert len(first) == 300
    assert all(s and all(isinstance(w, str) and w and " " not in w for w in s) for s in first)


def test_english_mix_block_split_is_about_90_5_5():
    counts = {"train": 0, "valid": 0, "test": 0}
    for block in range(4000):
        counts[corpora._block_split("brown", "ca01", block)] += 1
    assert 0.87 < counts["train"] / 4000 < 0.93
    assert 0.03 < counts["valid"] / 4000 < 0.07 and 0.03 < counts["test"] / 4000 < 0.07


def test_ensure_nltk_downloads_only_what_is_missing(monkeypatch, tmp_path, capsys):
    present = {"corpora/wordnet": tmp_path / "wordnet"}
    downloads = []

    def fake_download(resource, force=False, progress=True):
        downloads.append(resource)
        present[resource] = tmp_path / resource
        return present[resource]

    monkeypatch.setattr(corpora, "nltk_find", present.get)
    monkeypatch.setattr(corpora, "nltk_download", fake_download)
    corpora.ensure_nltk("wordnet", "brown")
    assert downloads == ["corpora/brown"]
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "✓ wordnet: found (nltk data corpora/wordnet), nothing to download"
    assert out[1].startswith("brown: not found; downloading it with nltk.download('brown')")
    assert out[2].startswith("✓ brown: downloaded to ")
    corpora.ensure_nltk("brown")  # now present: no second download
    assert downloads == ["corpora/brown"]


def test_ensure_nltk_offline_and_missing_says_how_to_get_it(monkeypatch, tmp_path):
    import nltk

    monkeypatch.setattr(nltk.data, "path", [str(tmp_path)])
    monkeypatch.setattr(nltk, "download", lambda *a, **k: False)
    with pytest.raises(DatasetNotAvailable, match="NLTK_DATA"):
        corpora.ensure_nltk("brown")


# --------------------------------------------------------------------------- tampering


def _toy_archive_entry(monkeypatch, server):
    folder, base = server
    archive = folder / "toy.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("toy-corpus/wiki.train.tokens", "a b c\n")
    add_entry(monkeypatch, Dataset(
        "toy", "t", "CC0", "1 KB", "archive", "toy-corpus",
        (RemoteFile("toy.zip", (base + "toy.zip",), sha256(archive.read_bytes())),),
        markers=("wiki.train.tokens",)))
    return archive


def _tar_of(tmp_path, members, file_name: str = "chain.tar") -> Path:
    """A tar (gzipped for a ``.gz`` file name) of ``(name, link)`` members: a 7-byte file
    where ``link`` is None, else a symbolic link to it."""
    path = tmp_path / file_name
    with tarfile.open(path, "w:gz" if file_name.endswith(".gz") else "w") as tf:
        for name, link in members:
            info = tarfile.TarInfo(name)
            if link is None:
                info.size = 7
                tf.addfile(info, io.BytesIO(b"escaped"))
            else:
                info.type, info.linkname = tarfile.SYMTYPE, link
                tf.addfile(info)
    return path


@pytest.mark.parametrize("members", [
    [("x", "."), ("x/y", ".."), ("y/ESCAPED.txt", None)],
    [("x", "."), ("l", "x/.."), ("l/ESCAPED.txt", None)],
])
def test_a_tar_symlink_chain_is_refused(tmp_path, members):
    target = tmp_path / "deep" / "target"  # the filter sees the chain once "x" is on disk
    with pytest.raises(UnsafeArchive):
        safe_extract(_tar_of(tmp_path, members), target)
    assert not list(tmp_path.rglob("ESCAPED.txt"))


def test_python_versions_without_tarfiles_data_filter_are_excluded():
    import tomllib

    from packaging.specifiers import SpecifierSet

    root = Path(__file__).resolve().parents[2]
    spec = SpecifierSet(tomllib.loads((root / "pyproject.toml").read_text())["project"]
                        ["requires-python"])
    for lacking in ("3.10.0", "3.10.11", "3.11.0", "3.11.3"):
        assert lacking not in spec
    assert "3.11.4" in spec and "3.12.0" in spec
    conda = re.search(r"^\s*-\s*python\s*(\S+)", (root / "environment.yml").read_text(), re.M)
    assert conda and SpecifierSet(conda.group(1)) == spec
