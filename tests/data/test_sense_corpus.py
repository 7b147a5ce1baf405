"""The embedded sense corpus: what its script writes, well-formed, senses recoverable from
context."""

import importlib.util
import math
import sys
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from elmo_tutorial.data import sense_corpus as corpus

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "data" / "embedded"


def _script():
    """``.ci/make_sense_corpus.py``, the maintainer's script that wrote ``data/embedded/``."""
    spec = importlib.util.spec_from_file_location("make_sense_corpus",
                                                  ROOT / ".ci" / "make_sense_corpus.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look themselves up there
    spec.loader.exec_module(module)
    return module


SCRIPT = _script()
SENSES = SCRIPT.SENSES


@pytest.fixture(scope="module")
def test_examples():
    return corpus.sense_examples("test")


def test_regenerated_corpus_is_byte_identical_to_the_committed_one(tmp_path):
    written = SCRIPT.write_corpus(tmp_path, seed=0)
    committed = sorted(p.name for p in COMMITTED.iterdir())
    assert committed == sorted(written), "data/embedded holds files the generator does not write"
    for name, path in written.items():
        assert path.read_bytes() == (COMMITTED / name).read_bytes(), (
            f"data/embedded/{name} differs from the generator's output: run "
            "`python .ci/make_sense_corpus.py data/embedded` and commit the result"
        )


@pytest.mark.parametrize("split", ["train", "valid", "test"])
def test_sentences_respect_length_bounds_and_every_polysemous_token_is_labelled(split):
    sentences = corpus.sense_corpus(split)
    assert len(sentences) == SCRIPT.SPLITS[split]
    labelled = defaultdict(set)  # sentence -> its labelled token indices
    for row in (COMMITTED / f"senses.{split}.tsv").read_text().splitlines()[1:]:
        sentence, index, *_ = row.split("\t")
        labelled[int(sentence)].add(int(index))
    for number, tokens in enumerate(sentences):
        assert SCRIPT.MIN_TOKENS <= len(tokens) <= SCRIPT.MAX_TOKENS
        assert tokens[0][0].isupper() and tokens[-1] in {".", "?", "!"}, tokens
        assert all(t and " " not in t for t in tokens)
        found = {i for i, t in enumerate(tokens) if t.lower() in SCRIPT.WORDS}
        assert found == labelled[number], tokens


def test_every_labelled_token_is_its_word_with_a_known_sense_and_pos(test_examples):
    known = {(s.word, s.sense, p) for s in SENSES for p in s.pos}
    for tokens, index, word, sense, pos in test_examples:
        assert tokens[index].lower() == word
        assert (word, sense, pos) in known


def test_sense_cue_words_are_disjoint_within_each_word():
    by_word = defaultdict(list)
    for s in SENSES:
        by_word[s.word].append(s)
        assert s.word not in s.cues
    for word, senses in by_word.items():
        for i, a in enumerate(senses):
            for b in senses[i + 1 :]:
                assert not a.cues & b.cues, f"{word}: {a.sense}/{b.sense} share {a.cues & b.cues}"


def test_verb_objects_are_nouns_of_their_sense_and_shared_words_are_no_cues():
    lex = SCRIPT
    shared = {w.lower() for group in (lex.SUBJECTS, lex.PLURAL_SUBJECTS, lex.NEUTRAL_NPS,
                                      lex.NEUTRAL_ADJECTIVES, lex.ADJUNCTS, lex.HABITUAL,
                                      lex.LONG_FILLERS, lex.PREPOSITIONS)
              for phrase in group for w in phrase.split()}
    shared |= {form for pair in lex.NEUTRAL_VERBS for form in pair}
    for s in SENSES:
        for _base, past, objects in s.verbs:
            assert set(objects) <= set(s.nouns), f"{s.word}/{s.sense} {past}: {objects}"
        assert all(phrase.split()[-1] in s.nouns for phrase in s.objects), s.objects
        assert bool(s.objects) == ("VERB" in s.pos), f"{s.word}/{s.sense} objects vs POS"
        assert not s.cues & shared, f"{s.word}/{s.sense} cues used as shared words: "\
            f"{s.cues & shared}"


def test_every_occurrence_has_a_cue_word_of_its_sense_somewhere(test_examples):
    for tokens, index, word, sense, _ in test_examples:
        assert corpus.cue_distances(tokens, index, word, sense) != (None, None), tokens


def test_cues_are_often_not_adjacent_and_sometimes_on_one_side_only(test_examples):
    sides, nearest = Counter(), Counter()
    for tokens, index, word, sense, _ in test_examples:
        before, after = corpus.cue_distances(tokens, index, word, sense)
        sides["before only" if after is None else "after only" if before is None else "both"] += 1
        nearest[min(d for d in (before, after) if d is not None)] += 1
    n = len(test_examples)
    assert 0.05 < nearest[1] / n < 0.5, "adjacent cues should exist but not dominate"
    assert sum(c for d, c in nearest.items() if d >= 3) / n > 0.4, "most cues should be 3+ away"
    assert sides["before only"] / n > 0.2 and sides["after only"] / n > 0.2, sides


def test_bag_of_context_words_recovers_the_sense_well_above_chance(test_examples):
    """Naive Bayes on the other words of the sentence, trained on train, scored on test."""
    counts = defaultdict(Counter)  # (word, sense) -> context word counts
    priors = Counter()
    for tokens, index, word, sense, _ in corpus.sense_examples("train"):
        priors[word, sense] += 1
        counts[word, sense].update(t.lower() for i, t in enumerate(tokens) if i != index)
    vocab = len({w for c in counts.values() for w in c})
    correct, majority = 0, 0
    for tokens, index, word, sense, _ in test_examples:
        candidates = [key for key in priors if key[0] == word]
        context = [t.lower() for i, t in enumerate(tokens) if i != index]

        def score(key, context=context):
            total = sum(counts[key].values()) + vocab
            return math.log(priors[key]) + sum(
                math.log((counts[key][t] + 1) / total) for t in context
            )

        correct += max(candidates, key=score)[1] == sense
        majority += max(candidates, key=lambda k: priors[k])[1] == sense
    accuracy, baseline = correct / len(test_examples), majority / len(test_examples)
    assert accuracy > 0.9 and accuracy > baseline + 0.3, (accuracy, baseline)


def test_dev_and_validation_mean_valid_and_unknown_splits_are_rejected():
    assert corpus.sense_corpus("dev") == corpus.sense_corpus("valid")
    assert corpus.sense_examples("validation") == corpus.sense_examples("valid")
    with pytest.raises(ValueError, match="expected train, valid or test"):
        corpus.sense_corpus("training")
    assert 200_000 < sum(map(len, corpus.sense_corpus("train"))) < 300_000
