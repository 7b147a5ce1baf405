"""The dataset registry: name → official URL(s), sha256, size, licence; and where each is found.

Every dataset of the course is one :class:`Dataset` in :data:`REGISTRY`, looked for in the
offline folder ``$ELMO_TUTORIAL_DATA/<folder>/``, then the download cache, or (nltk corpora)
where ``nltk.data.find`` looks. :func:`locate` only finds; :func:`fetch` (``elmo-tutorial data
download NAME``) downloads, each file checked against its published sha256 (the publishers' own
or those of widely used loaders, cited beside each entry); an entry with none refuses.

Example:
    >>> get_dataset("wnut17").licence, normalize_split("dev")
    ('CC BY 4.0', 'valid')
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

from elmo_tutorial.data.downloads import (
    DatasetNotAvailable,
    RemoteFile,
    cache_dir,
    download,
    nltk_download,
    nltk_find,
    offline_dir,
    safe_extract,
)

__all__ = ["REGISTRY", "Dataset", "RemoteFile", "fetch", "get_dataset", "how_to_get",
           "is_available", "locate", "normalize_split"]


@dataclass(frozen=True)
class Dataset:
    """A registry entry. ``kind`` says how it is fetched: ``"nltk"`` (``nltk.download``),
    ``"files"`` (each file saved into ``<root>/<folder>/``) or ``"archive"`` (one zip/tar
    extracted into ``<root>``, making ``<root>/<folder>``)."""

    name: str
    description: str
    licence: str
    size: str  # of the download (on disk for nltk corpora)
    kind: str  # "nltk" | "files" | "archive"
    folder: str = ""
    files: tuple[RemoteFile, ...] = ()
    markers: tuple[str, ...] = ()  # paths inside the folder that prove the data is there
    nltk_resource: str = ""  # nltk.data.find path, e.g. "corpora/brown"
    note: str = ""  # provenance caveats, or why it cannot be downloaded verified
    extract_into: str = ""  # an archive whose members lack the folder is unpacked in it

    @property
    def verifiable(self) -> bool:
        """True when every file has a published checksum (nltk verifies its own)."""
        return self.kind == "nltk" or all(f.sha256 for f in self.files)

    def required_paths(self) -> tuple[str, ...]:
        """Paths, relative to the folder, that must exist for the dataset to count as present."""
        return self.markers or tuple(f.name for f in self.files if self.kind == "files")


# Files published one by one: "name sha256" per line, after a "folder base-URL" line. The
# digests are those of the official files (UD English-EWT at tag r2.16, WNUT-17's repository,
# AllenNLP at commit 80fb606), which offline copies reproduce byte for byte.
_FILE_MANIFEST = """
ud-english-ewt https://raw.githubusercontent.com/UniversalDependencies/UD_English-EWT/r2.16/
en_ewt-ud-train.conllu 3fb78e2b55482c8ee00caa653af436c88c9e5bc9a73ce26e4ae3ddc79d2b7e7b
en_ewt-ud-dev.conllu 531a54ff90d6ab12201c5a50c3e78e6ddac4de69abc4bce5d275d3cd29efe2b6
en_ewt-ud-test.conllu e266e515a0a7547657ed3d90d9ba46487d6bd251f27ad4269d4e8a427c8555cd
LICENSE.txt b3d1b0f4c6ae151f7eb78738f46ebd5ee140f8a7f76501ba26af123140d35ae7

wnut17 https://raw.githubusercontent.com/leondz/emerging_entities_17/master/
wnut17train.conll 731820e13f71af324c6b55a1575ec2ce59fbaa2a0806f8f0400b98d56cd6a7a5
emerging.dev.conll e053b752b8155113ca66e7db08af5f2f5f43ab993694e4774f1ec5bad42312d8
emerging.test.annotated 2aa79b764e56ec9264a1b30fdd9b70195bd00ff400b62edd8f399d5f13c178f0

allennlp-elmo-fixture https://raw.githubusercontent.com/allenai/allennlp/80fb6061e568cb9d6ab5d45b661e86eb61b92c82/test_fixtures/elmo/
options.json 117cb6d2fb87b8485aa750ef299fa88cc4881f4bead731ea56aec8e944da580d
lm_weights.hdf5 dfdfd3001b5965b4b6ef857ac772b6624984f8248eaae08fb9be6d1b51ad8755
sentences.json f3103518aaf930b32a08209dded69c76ad41bb8e4d99446701ac87e47d76aa1d
lm_embeddings_0.hdf5 ebeee87fe246cacc2dd4b6b109537cd03bf45c8f5402d3570be7c57ddcb6ea21
lm_embeddings_1.hdf5 3c1547698ac31d92e2965a555656f0f4680b83ab4ab0a54958646bcbb0f00da0
lm_embeddings_2.hdf5 b10dabcc36b9461cb49a4ea20b01f395c779df340963fa66cf053b8c99f8f676

allennlp-elmo-fixture https://raw.githubusercontent.com/allenai/allennlp/80fb6061e568cb9d6ab5d45b661e86eb61b92c82/
LICENSE 62fb8a3a9621dc2388174caaabe9c2317b694bb9a1d46c98bcf5655b68f51be3
"""
_FILES: dict[str, tuple[RemoteFile, ...]] = {}
for _block in _FILE_MANIFEST.strip().split("\n\n"):
    (_folder, _base), *_lines = (line.split() for line in _block.splitlines())
    _FILES[_folder] = _FILES.get(_folder, ()) + tuple(
        RemoteFile(name, (_base + name,), digest) for name, digest in _lines)

_NLTK = [  # name (nltk.download's, and corpora/<name>), size on disk, licence, description
    ("wordnet", "35 MB", "WordNet 3.0 licence (permissive, keep notice)",
     "WordNet 3.0: synsets, glosses, examples, sense keys"),
    ("brown", "9.7 MB", "non-commercial use only",
     "Brown Corpus, 1.16M words, Brown tags (tagset='universal' works)"),
    ("treebank", "5.8 MB", "(c) LDC 1995; non-commercial",
     "Penn Treebank 10% sample (WSJ), PTB tags"),
    ("gutenberg", "5.8 MB", "public domain",
     "Project Gutenberg selection (use fileids(): copies differ in texts)"),
    ("state_union", "2.0 MB", "public domain", "State of the Union addresses, raw text"),
    ("inaugural", "0.8 MB", "public domain", "US presidential inaugural addresses, raw text"),
    ("webtext", "1.7 MB", "not stated (web postings)",
     "forums, reviews, overheard conversations, raw text"),
    ("masc_tagged", "4.8 MB", "ANC: research and commercial use",
     "MASC, several genres, Penn tags"),
    ("senseval", "16 MB", "distributed with permission",
     "Senseval-2 lexical sample: hard, interest, line, serve"),
    ("conll2000", "3.4 MB", "not stated; WSJ text, research only",
     "CoNLL-2000 chunking (WSJ): POS and chunk tags"),
]

_WIKITEXT_SITES = (  # the official bucket, then the dataset author's own site
    "https://s3.amazonaws.com/research.metamind.io/wikitext/",
    "https://wikitext.smerity.com/",
)
_LM1B = "www.statmt.org/lm-benchmark/1-billion-word-language-modeling-benchmark-r13output.tar.gz"


def _wikitext(name: str, size: str, sha256: str) -> Dataset:
    archive = f"{name}-v1.zip"
    return Dataset(
        name, f"WikiText-{name[9:]} (Merity et al. 2016): Wikipedia, <unk> for rare words",
        "CC BY-SA (Wikipedia text)", size, "archive", name,
        (RemoteFile(archive, tuple(site + archive for site in _WIKITEXT_SITES), sha256),),
        markers=("wiki.train.tokens", "wiki.valid.tokens", "wiki.test.tokens"))


# The released English ELMo models (https://allennlp.org/elmo): options.json + weights.hdf5
# each, on AllenNLP's S3 bucket (bilm-tf's README links the same files). The parameter counts
# are allennlp.org's; the sizes are 4 bytes per parameter (float32 hdf5).
_ELMO_S3 = "https://allennlp.s3.amazonaws.com/models/elmo/"
_ELMO_MODELS = (  # name, file stem (LSTM cells x layers, projection, filters, highway), size
    ("elmo-small", "2x1024_128_2048cnn_1xhighway", "13.6 M", "54 MB"),
    ("elmo-medium", "2x2048_256_2048cnn_1xhighway", "28.0 M", "112 MB"),
    ("elmo-original", "2x4096_512_2048cnn_2xhighway", "93.6 M", "374 MB"),
)


def _released_elmo(name: str, stem: str, parameters: str, size: str) -> Dataset:
    files = tuple(RemoteFile(f"elmo_{stem}_{part}", (f"{_ELMO_S3}{stem}/elmo_{stem}_{part}",))
                  for part in ("options.json", "weights.hdf5"))
    return Dataset(
        name, f"ELMo biLM released by AllenNLP, {stem} ({parameters} parameters), trained on "
        "the 1B Word Benchmark; load_allennlp reads it",
        "not stated (AllenNLP's code: Apache-2.0)", size, "files", name, files,
        note="AllenNLP publishes no checksum for its ELMo files, so they are not downloaded "
             "automatically. After downloading, load_allennlp(options, weights) checks every "
             "weight's shape against the options file; record the files' sha256 "
             "(sha256sum) to recognise them later.")


_ENTRIES = [
    *(Dataset(name, description, licence, size, "nltk", nltk_resource=f"corpora/{name}")
      for name, size, licence, description in _NLTK),
    # sha256 as listed by Hugging Face datasets (datasets/wikitext/dataset_infos.json);
    # torchtext lists the matching md5s 542ccefacc6c27f945fb54453812b3cd and
    # 9ddaacaf6af0710eda8c456decff7832.
    _wikitext("wikitext-2", "4.5 MB",
              "92675f1d63015c1c8b51f1656a52d5bdbc33aafa60cc47a218a66e7ee817488c"),
    _wikitext("wikitext-103", "190 MB",
              "242ba0f20b329cfdf1ccc61e9e9e5b59becf189db7f7a81cd2a0e2fc31539590"),
    # sha256 as listed by TensorFlow Datasets (url_checksums/lm1b.txt).
    Dataset("1b-word", "One Billion Word Benchmark (Chelba et al. 2013): ELMo's training text",
            "not stated (WMT11 News Crawl); research use", "1.8 GB", "archive",
            "1-billion-word-language-modeling-benchmark-r13output",
            (RemoteFile(_LM1B.rsplit("/", 1)[1], ("https://" + _LM1B, "http://" + _LM1B),
                        "01ba60381110baf7f189dfd2b8374de371e8c9a340835793f190bdae9e90a34e"),),
            markers=("training-monolingual.tokenized.shuffled",
                     "heldout-monolingual.tokenized.shuffled")),
    Dataset("ud-english-ewt", "UD English Web Treebank r2.16: UPOS tags (POS probe)",
            "CC BY-SA 4.0", "17.8 MB", "files", "ud-english-ewt", _FILES["ud-english-ewt"]),
    Dataset("wnut17", "WNUT-17 emerging entities: NER on noisy user-generated text",
            "CC BY 4.0", "0.8 MB", "files", "wnut17", _FILES["wnut17"]),
    # The publisher lists no checksum; torchtext pins the MD5 5c3b23ce88089053fd3efeb4a34f614d
    # for the same URL (torchtext/datasets/sst.py); this is the sha256 of the file with it.
    Dataset("sst", "Stanford Sentiment Treebank (Socher et al. 2013): PTB-style trees with a "
            "sentiment label 0-4 on every phrase; SST-5 and SST-2 at the sentence level",
            "not stated by the source; research use, cite Socher et al. 2013", "0.8 MB",
            "archive", "sst",
            (RemoteFile("trainDevTestTrees_PTB.zip",
                        ("http://nlp.stanford.edu/sentiment/trainDevTestTrees_PTB.zip",),
                        "5c613a4f673fc74097d523a2c83f38e0cc462984d847b82c7aaf36b01cbbbfcc"),),
            markers=("trees/train.txt", "trees/dev.txt", "trees/test.txt"), extract_into="sst",
            note="No licence is stated by the source: use it for research and cite "
                 "Socher et al. (2013)."),
    Dataset("wsd-framework", "WSD Evaluation Framework (Raganato et al. 2017): SemCor, "
            "Senseval-2/3, SemEval-2007/2013; WordNet 3.0 sense keys",
            "research use (see http://lcl.uniroma1.it/wsdeval/); SemCor: WordNet licence",
            "45 MB", "archive", "WSD_Evaluation_Framework",
            (RemoteFile("WSD_Evaluation_Framework.zip",
                        ("http://lcl.uniroma1.it/wsdeval/data/WSD_Evaluation_Framework.zip",)),),
            markers=("Training_Corpora/SemCor/semcor.data.xml",
                     "Evaluation_Datasets/senseval2/senseval2.data.xml"),
            note="No checksum is published for the official archive, so it cannot be verified "
                 "and is not downloaded automatically. An offline copy may instead be a "
                 "format-identical reconstruction; its README says how it differs."),
    *(_released_elmo(*entry) for entry in _ELMO_MODELS),
    Dataset("allennlp-elmo-fixture", "AllenNLP's tiny official-format biLM and the original "
            "TensorFlow biLM's outputs (parity test)", "Apache-2.0", "0.6 MB", "files",
            "allennlp-elmo-fixture", _FILES["allennlp-elmo-fixture"]),
]

REGISTRY: dict[str, Dataset] = {ds.name: ds for ds in _ENTRIES}
"""Every dataset of the course, by name (``elmo-tutorial data list`` prints this table)."""

SPLITS = ("train", "valid", "test")  # the split names every reader of the package uses
_SPLIT_ALIASES = {"dev": "valid", "validation": "valid"}  # the names other datasets use


def get_dataset(name: str) -> Dataset:
    """The registry entry called ``name`` (``_`` and ``-`` are interchangeable)."""
    for candidate in (name, name.replace("_", "-"), name.replace("-", "_")):
        if candidate in REGISTRY:
            return REGISTRY[candidate]
    close = difflib.get_close_matches(name, list(REGISTRY), n=3)
    hint = f" Did you mean {', '.join(close)}?" if close else ""
    raise KeyError(f"no dataset called {name!r}.{hint} Known: {', '.join(REGISTRY)}.")


def normalize_split(split: str) -> str:
    """The package's name for a split: ``"train"``, ``"valid"`` or ``"test"``; ``"dev"`` and
    ``"validation"`` (UD's, WNUT-17's and Hugging Face's) mean ``"valid"``."""
    name = _SPLIT_ALIASES.get(split, split)
    if name not in SPLITS:
        raise ValueError(f"unknown split {split!r}; expected train, valid or test "
                         "(dev and validation also mean valid)")
    return name


def _roots() -> list[Path]:
    return [root for root in (offline_dir(), cache_dir()) if root is not None]


def _locate(ds: Dataset) -> Path | None:
    if ds.kind == "nltk":
        return nltk_find(ds.nltk_resource)
    for root in _roots():
        folder = root / ds.folder
        if folder.is_dir() and all((folder / p).exists() for p in ds.required_paths()):
            return folder
    return None


def how_to_get(name: str) -> str:
    """What a user should do to make dataset ``name`` available."""
    ds = get_dataset(name)
    if ds.kind == "nltk":
        return (f"Run `elmo-tutorial data download {ds.name}` (it calls nltk.download("
                f"{ds.name!r})), or point NLTK_DATA at a directory holding {ds.nltk_resource}/.")
    where = (f"so that some directory DIR holds {ds.folder}/ "
             f"({', '.join(ds.required_paths()[:3])}), then set ELMO_TUTORIAL_DATA=DIR")
    if not ds.verifiable:
        sources = " and ".join(f.urls[0] for f in ds.files)
        return f"{ds.note} Download the files yourself from {sources} and place them {where}."
    return f"Run `elmo-tutorial data download {ds.name}`, or place the official files {where}."


def is_available(name: str) -> bool:
    """Whether dataset ``name`` can be read now, without downloading."""
    return _locate(get_dataset(name)) is not None


def locate(name: str) -> Path:
    """The local directory of dataset ``name``; never downloads (``DatasetNotAvailable``,
    saying what to do)."""
    ds = get_dataset(name)
    found = _locate(ds)
    if found is None:
        looked = ("nltk.data.path" if ds.kind == "nltk"
                  else ", ".join(str(root / ds.folder) for root in _roots()))
        raise DatasetNotAvailable(f"dataset {ds.name!r} is not available locally (looked in "
                                  f"{looked}). {how_to_get(ds.name)}")
    return found


def fetch(name: str, force: bool = False, progress: bool = True) -> Path:
    """Dataset ``name``'s local folder, downloaded (verified, into the cache) if needed;
    ``DatasetNotAvailable`` if no verified download is possible, or every URL failed."""
    ds = get_dataset(name)
    found = None if force else _locate(ds)
    if found is not None:
        return found
    if ds.kind == "nltk":
        return nltk_download(ds.nltk_resource, force, progress)
    if not ds.verifiable:
        raise DatasetNotAvailable(f"{ds.name}: refusing an unverified download. "
                                  f"{how_to_get(ds.name)}")
    root = cache_dir()
    for remote in ds.files:
        folder = root / (ds.folder if ds.kind == "files" else "archives")
        if force:
            (folder / remote.name).unlink(missing_ok=True)
        path = download(remote, folder, progress)
        if ds.kind == "archive":
            safe_extract(path, root / ds.extract_into)
    found = _locate(ds)
    if found is None:
        raise DatasetNotAvailable(
            f"{ds.name}: downloaded, but {root / ds.folder} lacks "
            f"{', '.join(ds.required_paths())}; the upstream layout may have changed. Please "
            "report it.")
    return found
