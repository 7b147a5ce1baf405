"""The embedded corpus: synthetic English in which six polysemous words carry known senses.

Taught in notebook 00 (``00_static_vs_contextual``).

ELMo's claim (Peters et al. 2018, Sec. 1 and 5.3) is that a word's vector should depend on its
context: *bank* next to *river* is not *bank* next to *loan*. To see that on a laptop we need a
corpus where we *know* each occurrence's sense. ``data/embedded/`` holds one (about 250k
training tokens), drawn from the lexicon below:

* six polysemous words (``bank``, ``play``, ``work``, ``point``, ``bat``, ``spring``) with two to
  four senses each, some used both as a noun and as a verb (``work``: "their work" / "they work");
* every sense has its own *cue words*, which occur near it and never near the word's other
  senses: next to the word, 3-8 tokens before it, or 3-8 tokens after it, so that a
  left-to-right (forward) reader sometimes cannot know the sense yet and a right-to-left
  (backward) reader sometimes can, and vice versa;
* generic sentences without a polysemous word, questions, two clauses joined by a conjunction,
  punctuation, proper names, and Zipf-like word frequencies (lists are ordered by how often a
  word is drawn: the r-th with weight 1/r).

As a training corpus its name is ``embedded`` (``--corpus=embedded``, the ``tiny`` preset's).
The sentence templates and the generator that wrote ``data/embedded/`` from this lexicon are a
maintainer's script, ``.ci/make_sense_corpus.py``; a test checks that it still writes the
committed files byte for byte.

Example:
    >>> tokens, index, word, sense, pos = sense_examples("valid")[0]
    >>> tokens[index].lower() == word, sense in {s.sense for s in SENSES if s.word == word}
    (True, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from elmo_tutorial.data.registry import normalize_split
from elmo_tutorial.runtime import REPOSITORY

__all__ = ["SENSES", "Sense", "SenseExample", "cue_distances", "cue_words", "sense_corpus",
           "sense_examples"]

CORPUS_DIR = REPOSITORY / "data" / "embedded"  # {train,valid,test}.txt and senses.{split}.tsv


@dataclass(frozen=True)
class Sense:
    """One sense of a polysemous word and the cue words that signal it.

    Attributes:
        word: the polysemous word, lower case (``"bank"``).
        sense: the sense label, upper case (``"RIVER"``); unique within ``word``.
        pos: the universal POS tags (``"NOUN"``, ``"VERB"``) the word takes in this sense.
        weight: relative frequency of this sense among all polysemous occurrences.
        nouns, adjectives: cue words, most frequent first.
        verbs: ``(base, past, objects)`` cue verbs, most frequent first; ``objects`` are the
            nouns that may follow the verb (``"rowed the canoe"``, not ``"rowed the fish"``).
        objects: what the word itself takes as a verb (``"play the piano"``, ``"work overtime"``),
            phrases ending in one of ``nouns``; empty for senses that are only nouns.
    """

    word: str
    sense: str
    pos: tuple[str, ...]
    weight: float
    nouns: tuple[str, ...]
    verbs: tuple[tuple[str, str, tuple[str, ...]], ...]
    adjectives: tuple[str, ...]
    objects: tuple[str, ...] = ()

    @property
    def cues(self) -> frozenset[str]:
        """Every cue word of this sense (nouns, both verb forms, adjectives)."""
        verbs = [form for base, past, _ in self.verbs for form in (base, past)]
        return frozenset([*self.nouns, *verbs, *self.adjectives])


def _sense(word, sense, pos, weight, nouns, verbs, adjectives, objects="") -> Sense:
    """Parse the compact notation: verbs as ``base:past=object,object``, objects with ``|``."""
    parsed = []
    for verb in verbs.split():
        forms, _, objects_of_verb = verb.partition("=")
        base, past = forms.split(":")
        parsed.append((base, past, tuple(objects_of_verb.split(","))))
    return Sense(word, sense, tuple(pos.split()), weight, tuple(nouns.split()), tuple(parsed),
                 tuple(adjectives.split()), tuple(_phrases(objects)) if objects else ())


def _phrases(text: str) -> list[str]:
    """``"a | the b"`` → ``["a", "the b"]``: lists of multi-word phrases."""
    return [p.strip() for p in text.split("|")]


SENSES: tuple[Sense, ...] = (
    _sense("bank", "FINANCE", "NOUN", 6.0,
           "money loan account cheque cash savings mortgage fee manager customer interest",
           "deposit:deposited=money,cheque,cash,savings borrow:borrowed=money,cash "
           "repay:repaid=loan,mortgage withdraw:withdrew=money,cash,savings "
           "invest:invested=money,savings pay:paid=fee,interest,mortgage",
           "financial wealthy private commercial national"),
    _sense("bank", "RIVER", "NOUN", 4.0,
           "river boat water canoe fish reeds stream ducks mud willows current fisherman",
           "row:rowed=boat,canoe cross:crossed=river,stream paddle:paddled=canoe,boat "
           "wade:waded=river,stream,water,mud feed:fed=ducks,fish",
           "muddy grassy steep sandy shady wet"),
    _sense("play", "THEATRE", "NOUN", 3.0,
           "actors stage audience scene script theatre curtain costume playwright rehearsal",
           "rehearse:rehearsed=scene,script perform:performed=scene "
           "direct:directed=actors,scene,rehearsal applaud:applauded=actors,playwright "
           "memorise:memorised=script,scene wear:wore=costume",
           "tragic dramatic comic theatrical"),
    _sense("play", "GAME", "VERB", 4.0,
           "football chess tennis cards match team ball tournament referee",
           "win:won=match,tournament lose:lost=match,tournament kick:kicked=ball "
           "throw:threw=ball coach:coached=team shuffle:shuffled=cards",
           "competitive athletic rough fair",
           "football | chess | tennis | cards | a match | the ball"),
    _sense("play", "MUSIC", "VERB", 3.0,
           "piano guitar violin song melody band drums tune orchestra notes concert",
           "sing:sang=song,melody,tune,notes compose:composed=song,melody,tune "
           "tune:tuned=guitar,violin,piano practise:practised=song,notes,melody "
           "record:recorded=song,concert,tune",
           "musical loud melodic acoustic",
           "the piano | the guitar | a song | the violin | the drums | a tune"),
    _sense("work", "JOB", "NOUN VERB", 6.0,
           "office boss salary colleagues shift overtime factory job desk meeting wages deadline",
           "earn:earned=salary,wages hire:hired=colleagues "
           "attend:attended=meeting miss:missed=deadline,meeting,shift "
           "quit:quit=job leave:left=office,factory,job",
           "busy tiring boring professional",
           "overtime | a shift | the night shift | at the office | at the factory | "
           "for the boss"),
    _sense("work", "ARTWORK", "NOUN", 3.0,
           "painting museum gallery artist canvas sculpture exhibition portrait masterpiece",
           "paint:painted=portrait,canvas admire:admired=painting,sculpture,portrait "
           "restore:restored=painting,sculpture,canvas exhibit:exhibited=painting,sculpture "
           "sketch:sketched=portrait frame:framed=portrait,painting,canvas",
           "priceless abstract colourful baroque original"),
    _sense("point", "ARGUMENT", "NOUN", 3.0,
           "debate argument lecture speaker essay opinion discussion professor thesis evidence",
           "argue:argued=thesis refute:refuted=argument,thesis explain:explained=argument,thesis "
           "dispute:disputed=evidence,opinion,thesis question:questioned=speaker,professor "
           "write:wrote=essay,thesis",
           "valid logical convincing subtle philosophical"),
    _sense("point", "SCORE", "NOUN", 2.5,
           "goal match team referee league player championship scoreboard basket penalty",
           "score:scored=goal,basket,penalty win:won=match,championship,league "
           "cheer:cheered=team,player concede:conceded=goal,penalty lose:lost=match",
           "decisive winning crucial final"),
    _sense("point", "LOCATION", "NOUN", 2.0,
           "map mountain hill summit trail coast valley border compass path",
           "climb:climbed=mountain,hill reach:reached=summit,coast,border,valley "
           "hike:hiked=trail,path,valley mark:marked=map,trail study:studied=map,compass",
           "highest remote distant northern scenic"),
    _sense("point", "GESTURE", "VERB", 2.0,
           "finger hand arm arrow signpost",
           "raise:raised=finger,hand,arm lift:lifted=finger,hand,arm wave:waved=hand,arm "
           "stretch:stretched=arm,finger",
           "outstretched trembling accusing",
           "a finger | the arrow | a trembling finger"),
    _sense("bat", "ANIMAL", "NOUN", 1.5,
           "cave wings insects moths colony roost fur owl darkness",
           "hunt:hunted=insects,moths explore:explored=cave disturb:disturbed=colony,roost "
           "startle:startled=colony,owl",
           "nocturnal furry tiny blind sleeping"),
    _sense("bat", "SPORT", "NOUN VERB", 1.5,
           "cricket baseball ball pitcher batsman wicket innings glove umpire",
           "swing:swung=glove hit:hit=ball,baseball bowl:bowled=ball,batsman "
           "pitch:pitched=ball,baseball catch:caught=ball,batsman",
           "wooden heavy sturdy cracked",
           "the ball | the baseball | the cricket ball"),
    _sense("spring", "SEASON", "NOUN", 2.0,
           "flowers blossom tulips sunshine weather lambs daffodils seeds season winter",
           "plant:planted=tulips,seeds,daffodils pick:picked=flowers,tulips,daffodils "
           "enjoy:enjoyed=sunshine,weather,blossom sow:sowed=seeds",
           "warm mild sunny early rainy green"),
    _sense("spring", "WATER", "NOUN", 1.0,
           "water bucket bottle rocks pool minerals well source",
           "drink:drank=water fill:filled=bucket,bottle,pool taste:tasted=water,minerals "
           "discover:discovered=source,well",
           "fresh cold clear natural thermal underground"),
    _sense("spring", "COIL", "NOUN", 1.0,
           "mattress mechanism clock coil screw lever steel toy",
           "compress:compressed=coil,mattress oil:oiled=mechanism,lever,screw "
           "replace:replaced=coil,screw,lever tighten:tightened=screw,coil",
           "rusty loose tight elastic broken metal"),
)


def cue_words(word: str, sense: str) -> frozenset[str]:
    """The cue words of one sense, e.g. ``cue_words("bank", "RIVER")`` contains ``"canoe"``."""
    for s in SENSES:
        if (s.word, s.sense) == (word, sense):
            return s.cues
    known = ", ".join(f"{s.word}/{s.sense}" for s in SENSES)
    raise KeyError(f"no sense {word}/{sense} in the synthetic corpus; known: {known}")


def cue_distances(tokens, index: int, word: str, sense: str) -> tuple[int | None, int | None]:
    """Distance from ``tokens[index]`` to the nearest cue word of its sense on each side.

    Returns:
        ``(before, after)``: how many positions to the left / right the nearest cue is
        (1 = adjacent), ``None`` where that side has none. A forward (left-to-right) model sees
        only the ``before`` cues at the word itself; a backward model only the ``after`` cues.
    """
    cues = cue_words(word, sense)
    before = next((d for d in range(1, index + 1) if tokens[index - d].lower() in cues), None)
    after = next((d for d in range(1, len(tokens) - index) if tokens[index + d].lower() in cues),
                 None)
    return before, after


class SenseExample(NamedTuple):
    """One labelled occurrence as read back from ``senses.<split>.tsv``."""

    tokens: list[str]
    index: int
    word: str
    sense: str
    pos: str


def sense_corpus(split: str) -> list[list[str]]:
    """The sentences of one split (``"train"``, ``"valid"`` or ``"test"``) as token lists.

    ``"dev"`` and ``"validation"`` mean ``"valid"``, as everywhere in the package.
    """
    text = (CORPUS_DIR / f"{normalize_split(split)}.txt").read_text(encoding="utf-8")
    return [line.split(" ") for line in text.splitlines()]


def sense_examples(split: str) -> list[SenseExample]:
    """Every labelled polysemous occurrence of one split as ``SenseExample`` tuples.

    ``senses.<split>.tsv`` has a header, then ``sentence  token  word  sense  pos`` per
    occurrence (0-based sentence and token indices).
    """
    split = normalize_split(split)
    sentences = sense_corpus(split)
    rows = (CORPUS_DIR / f"senses.{split}.tsv").read_text(encoding="utf-8").splitlines()[1:]
    return [SenseExample(sentences[int(sentence)], int(index), word, sense, pos)
            for sentence, index, word, sense, pos in (row.split("\t") for row in rows)]
