"""Write the embedded corpus, ``data/embedded/``, from the lexicon and templates below.

The package reads what this writes (``elmo_tutorial/data/sense_corpus.py`` says what the corpus
is for): the sentences, the sense of every polysemous token, and each sense's cue words.

Usage:  python .ci/make_sense_corpus.py data/embedded [SEED]

The committed corpus is this script's output at seed 0, byte for byte
(``tests/data/test_sense_corpus.py`` checks it). Changing a word or a template changes the
corpus, hence the shipped ``tiny`` model and the notebooks' outputs: regenerate, retrain and
rebuild them together. Generation uses only ``random.Random(seed)``, so the same seed gives the
same corpus on every platform and Python version.

Every polysemous word (``bank``, ``play``, ``work``, ``point``, ``bat``, ``spring``) has a few
senses. Each sense owns a small lexicon of *cue words* (nouns, verbs, adjectives) that occur
near it and nowhere near the word's other senses. Lists are ordered by how often a word is
drawn (the r-th item has a weight proportional to 1/r, a Zipf-like law).

Template language: a template is a string of space-separated tokens; tokens starting with ``$``
are slots:

==========  ==============================================================================
``$W``      the polysemous word (base form; a noun or a verb depending on the template)
``$D``      a determiner for the polysemous noun (the, a, this, our, ...)
``$n``      a noun of the sense          ``$a``   an adjective of the sense
``$v``      a past-tense verb of the sense   ``$vb``  the same verbs in the base form
``$O``      what the word takes as a verb (``play`` → ``the piano``)
``$S``      a subject (any person)       ``$SP``  a subject that takes a base-form verb
``$VN``     a neutral past-tense verb    ``$VNB`` the same in the base form
``$NP``     a neutral noun phrase        ``$AN``  a neutral adjective
``$X``      a short time/place adjunct   ``$XH``  a habitual adjunct (every day, ...)
``$L``      a longer neutral filler (3-7 tokens): pushes the cue further from the word
``$P``      a neutral preposition
==========  ==============================================================================

The first ``$n`` after a ``$v``/``$vb`` is one of that verb's objects. Templates are written
in lower case; the generator capitalises the first token.
"""

from __future__ import annotations

import hashlib
import random
import sys
from dataclasses import dataclass
from pathlib import Path

SPLITS = {"train": 21_500, "valid": 2_150, "test": 2_150}  # sentences per split
MIN_TOKENS, MAX_TOKENS = 5, 30  # sentence length bounds (tokens, punctuation included)
P_POLYSEMOUS = 0.6  # share of sentences with at least one polysemous word
P_TWO_CLAUSES = 0.25  # share of those that join a second clause with its own polysemous word


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

WORDS = tuple(dict.fromkeys(s.word for s in SENSES))  # the polysemous words, in lexicon order


# --- shared words (no sense); Zipf order; "|" separates multi-word phrases --------------------
SUBJECTS = _phrases(
    "she | he | they | we | I | you | the man | the woman | my sister | his brother | "
    "our neighbour | the teacher | John | Mary | Anna | Peter | the children | the students | "
    "Tom | Sarah | the old man | Mrs Brown | her cousin")
PLURAL_SUBJECTS = _phrases(
    "they | we | I | you | the children | the students | my friends | our neighbours | "
    "the twins | most people")
NEUTRAL_VERBS = [tuple(v.split(":")) for v in (
    "see:saw visit:visited mention:mentioned like:liked remember:remembered notice:noticed "
    "describe:described photograph:photographed pass:passed find:found show:showed "
    "ignore:ignored love:loved").split()]
NEUTRAL_NPS = _phrases(
    "the old house | a letter | the station | his car | the newspaper | a book | the kitchen | "
    "her umbrella | the church | the market | the bus | a photograph | the school | "
    "the street | a small dog | the new bakery | their garage | the library | the hospital | "
    "a postcard")
NEUTRAL_ADJECTIVES = ("old new small large quiet strange beautiful empty ordinary familiar "
                      "lovely nice").split()
ADJUNCTS = _phrases(
    "yesterday | today | again | later | last week | on Monday | on Sunday | in the morning | "
    "in the evening | after lunch | before dinner | with a friend | with her cousin | "
    "for a while | once | at last | as usual | last year")
HABITUAL = _phrases(
    "every day | on Sundays | together | again | after school | in the evenings | "
    "twice a week | all day | at home | every weekend")
LONG_FILLERS = _phrases(
    "near the old house | that we saw last year | which everyone in town knows | "
    "on the other side of town | that my grandmother liked so much | "
    "just before the holidays | in the middle of the afternoon | , as my uncle said , | "
    "that nobody had visited for years | which Anna described to me")
PREPOSITIONS = "near behind beside past towards opposite".split()
DETERMINERS = "the the the the the this that our their his her".split()
JOINERS = [j.split() for j in (", and", ", but", ";", ", while", ", so")]

# --- templates --------------------------------------------------------------------------------
NOUN_TEMPLATES = (
    "$S $VN the $a $W $X .",
    "$S $v the $n $X and then $VN $D $W .",
    "$S $VN $D $W $P the $n .",
    "$D $W $L was $a .",
    "$D $W was $a , and $S $v the $n $X .",
    "why was $D $W so $a ?",
    "did $S $VNB $D $W after $S $v the $n ?",
    "when $S $v the $n , $D $W was $a .",
    "after $S $v the $n $L , $S $VN $D $W $X .",
    "$S said that $D $W $L was known for its $n .",
    "although $S $VN $D $W $X , $S never $v the $n .",
    "the $n $P $D $W was $a .",
    "it was $D $W that $S $VN when $S $v the $n .",
    "$S $VN $D $W , but $S did not $vb the $n .",
    "is $D $W $L really $a ?",
    "$S $v the $n , $S $v the $n , and $S $VN $D $W .",
    "everyone $VN the $a $W $X .",
    "$S $VN the $a $W and the $a $n .",
    "the $a $W $L was $AN .",
    "$S $v the $n and $VN $D $W $X .",
    "with the $n $X , $S $VN $D $W .",
    "the $a $n $P the $W was $AN $X .",
)
VERB_TEMPLATES = (
    "$SP $W $O $XH .",
    "$SP like to $W $XH when the $n is $a .",
    "after $S $v the $n , $SP $W $XH .",
    "$SP will $W $XH because $S $v the $n .",
    "$SP always $vb the $n $L and then $W $XH .",
    "can $SP $W $XH with the $a $n ?",
    "$S wanted to $W $XH , but the $n was $a .",
    "it is hard to $W $XH without a $a $n .",
    "do $SP $W $O $XH ?",
    "$SP $W $XH ; $SP $vb the $n and $vb the $n .",
    "why do $SP $W $XH if the $n is so $a ?",
    "$SP $vb the $a $n and $W $XH .",
    "after the $a $n , $SP $W $XH .",
    "with the $n $L , $SP $W $XH .",
)
GENERIC_TEMPLATES = (
    "$S $VN $NP $X .",
    "$S $v the $n $X .",
    "the $n was $a $X .",
    "did $S $VNB $NP $X ?",
    "when $S $VN $NP , $S $v the $n .",
    "$S said that $NP was $AN .",
    "$NP $L looked $AN .",
    "$SP $vb the $n $XH .",
    "$S $VN $NP and $NP $X !",
    "why did $S $VNB $NP ?",
)


@dataclass(frozen=True)
class SenseOccurrence:
    """One polysemous token: its position in the sentence, word (lower case), sense and POS."""

    index: int
    word: str
    sense: str
    pos: str


@dataclass(frozen=True)
class SenseSentence:
    """A generated sentence: its tokens and the polysemous occurrences in it."""

    tokens: tuple[str, ...]
    occurrences: tuple[SenseOccurrence, ...]


def _zipf_choice(rng: random.Random, items):
    """Draw from ``items`` with the r-th item weighted 1/r (r = 1, 2, ...)."""
    return rng.choices(items, weights=[1.0 / r for r in range(1, len(items) + 1)])[0]


def _fill(template: str, rng: random.Random, sense: Sense | None):
    """Fill one template; return (tokens, index of $W or None).

    A sense noun right after a sense verb is one of that verb's objects, so that the
    verb and its object agree ("rowed the canoe", never "rowed the fish").
    """
    tokens: list[str] = []
    target = None
    objects = None  # the objects of the last sense verb drawn, until a noun uses them

    def verb(form: int) -> str:
        nonlocal objects
        chosen = _zipf_choice(rng, sense.verbs)
        objects = chosen[2]
        return chosen[form]

    def noun() -> str:
        nonlocal objects
        chosen = _zipf_choice(rng, objects or sense.nouns)
        objects = None
        return chosen

    slots = {
        "$n": noun,
        "$v": lambda: verb(1),
        "$vb": lambda: verb(0),
        "$a": lambda: _zipf_choice(rng, sense.adjectives),
        "$O": lambda: _zipf_choice(rng, sense.objects),
        "$D": lambda: _zipf_choice(rng, DETERMINERS),
        "$S": lambda: _zipf_choice(rng, SUBJECTS),
        "$SP": lambda: _zipf_choice(rng, PLURAL_SUBJECTS),
        "$VN": lambda: _zipf_choice(rng, NEUTRAL_VERBS)[1],
        "$VNB": lambda: _zipf_choice(rng, NEUTRAL_VERBS)[0],
        "$NP": lambda: _zipf_choice(rng, NEUTRAL_NPS),
        "$AN": lambda: _zipf_choice(rng, NEUTRAL_ADJECTIVES),
        "$X": lambda: _zipf_choice(rng, ADJUNCTS),
        "$XH": lambda: _zipf_choice(rng, HABITUAL),
        "$L": lambda: _zipf_choice(rng, LONG_FILLERS),
        "$P": lambda: _zipf_choice(rng, PREPOSITIONS),
    }
    for slot in template.split():
        if slot == "$W":
            target = len(tokens)
            tokens.append(sense.word)
        else:
            tokens.extend(slots[slot]().split() if slot in slots else [slot])
    return tokens, target


def _article(token: str, following: str) -> str:
    """``a`` becomes ``an`` before a vowel (an athletic team, an outstretched finger)."""
    return "an" if token == "a" and following[:1] in "aeiou" else token


def _polysemous_clause(rng: random.Random):
    """A clause with one polysemous word: (tokens, SenseOccurrence with index in the clause)."""
    sense = rng.choices(SENSES, weights=[s.weight for s in SENSES])[0]
    pos = rng.choice(sense.pos)
    template = rng.choice(NOUN_TEMPLATES if pos == "NOUN" else VERB_TEMPLATES)
    tokens, target = _fill(template, rng, sense)
    return tokens, SenseOccurrence(target, sense.word, sense.sense, pos)


def _sentence(rng: random.Random) -> SenseSentence:
    """Draw one sentence (not yet length-checked)."""
    if rng.random() >= P_POLYSEMOUS:
        sense = rng.choice(SENSES)  # generic sentences still use cue words, with no target
        tokens, _ = _fill(rng.choice(GENERIC_TEMPLATES), rng, sense)
        occurrences = []
    else:
        tokens, occurrence = _polysemous_clause(rng)
        occurrences = [occurrence]
        if rng.random() < P_TWO_CLAUSES and tokens[-1] == ".":
            second, other = _polysemous_clause(rng)
            while second[-1] != ".":  # a question cannot follow a conjunction
                second, other = _polysemous_clause(rng)
            joiner = rng.choice(JOINERS)
            offset = len(tokens) - 1 + len(joiner)
            tokens = tokens[:-1] + joiner + second
            occurrences.append(SenseOccurrence(other.index + offset, other.word, other.sense,
                                               other.pos))
    tokens = [_article(t, tokens[i + 1]) for i, t in enumerate(tokens[:-1])] + tokens[-1:]
    tokens[0] = tokens[0][:1].upper() + tokens[0][1:]
    return SenseSentence(tuple(tokens), tuple(occurrences))


def generate(n_sentences: int, seed: int = 0) -> list[SenseSentence]:
    """Generate ``n_sentences`` sentences, deterministically from ``seed``.

    Sentences shorter than 5 or longer than 30 tokens are redrawn.

    Args:
        n_sentences: how many sentences to return (≥ 0).
        seed: the seed of the ``random.Random`` that draws every choice.

    Returns:
        A list of ``SenseSentence``; each polysemous token is listed in ``occurrences`` with its
        position, lower-case word, sense label and POS (``NOUN`` or ``VERB``).
    """
    if n_sentences < 0:
        raise ValueError(f"n_sentences must be ≥ 0, got {n_sentences}")
    rng = random.Random(seed)
    sentences = []
    while len(sentences) < n_sentences:
        sentence = _sentence(rng)
        if MIN_TOKENS <= len(sentence.tokens) <= MAX_TOKENS:
            sentences.append(sentence)
    return sentences


def write_corpus(out_dir, seed: int = 0) -> dict[str, Path]:
    """Write ``{train,valid,test}.txt``, ``senses.{split}.tsv``, ``cues.tsv`` and ``README.md``.

    Each split has its own seed (``seed * 1000 + 0, 1, 2``), so splits never share a draw.
    ``*.txt``: one sentence per line, tokens separated by single spaces.
    ``senses.*.tsv``: a header, then ``sentence  token  word  sense  pos`` (0-based indices).
    ``cues.tsv``: a header, then ``word  sense  cue words`` (space-separated, sorted).

    Returns:
        The written files by name.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    stats = []
    for offset, (split, n) in enumerate(SPLITS.items()):
        sentences = generate(n, seed=seed * 1000 + offset)
        text = "".join(" ".join(s.tokens) + "\n" for s in sentences)
        rows = ["sentence\ttoken\tword\tsense\tpos\n"]
        rows += [f"{i}\t{o.index}\t{o.word}\t{o.sense}\t{o.pos}\n"
                 for i, s in enumerate(sentences) for o in s.occurrences]
        written[f"{split}.txt"] = out / f"{split}.txt"
        written[f"senses.{split}.tsv"] = out / f"senses.{split}.tsv"
        written[f"{split}.txt"].write_text(text, encoding="utf-8", newline="\n")
        written[f"senses.{split}.tsv"].write_text("".join(rows), encoding="utf-8", newline="\n")
        stats.append((split, len(sentences), sum(len(s.tokens) for s in sentences), len(rows) - 1))
    written["cues.tsv"] = out / "cues.tsv"
    cues = [f"{s.word}\t{s.sense}\t{' '.join(sorted(s.cues))}\n" for s in SENSES]
    written["cues.tsv"].write_text("word\tsense\tcues\n" + "".join(cues), encoding="utf-8",
                                   newline="\n")
    readme = out / "README.md"
    digests = {name: hashlib.sha256(path.read_bytes()).hexdigest()
               for name, path in written.items()}
    readme.write_text(_readme(seed, stats, digests), encoding="utf-8", newline="\n")
    written["README.md"] = readme
    return written


def _readme(seed: int, stats, hashes: dict[str, str]) -> str:
    lines = [
        "# The embedded synthetic corpus",
        "",
        "Generated by `.ci/make_sense_corpus.py` (its lexicon and templates); regenerate",
        "byte for byte with",
        "",
        "    python .ci/make_sense_corpus.py data/embedded"
        + ("" if seed == 0 else f" {seed}"),
        "",
        "Files: `{train,valid,test}.txt` hold one sentence per line, tokens separated by single",
        "spaces. `senses.{split}.tsv` list every polysemous token: sentence index and token",
        "index (both 0-based), word, sense, universal POS tag. `cues.tsv` lists each sense's",
        "cue words.",
        "",
        "| split | sentences | tokens | labelled occurrences |",
        "|---|---|---|---|",
        *[f"| {split} | {n} | {t} | {o} |" for split, n, t, o in stats],
        "",
        "## Senses and their cue words",
        "",
        "| word | sense | POS | cue words (most frequent first) |",
        "|---|---|---|---|",
    ]
    for s in SENSES:
        cues = [*s.nouns[:4], *(v[1] for v in s.verbs[:2]), *s.adjectives[:2]]
        lines.append(f"| {s.word} | {s.sense} | {' '.join(s.pos)} | {', '.join(cues)}, ... |")
    lines += [
        "",
        "## Licence",
        "",
        "Written by this project's own code; the same licence as the project (Apache-2.0).",
        "",
        "## SHA-256",
        "",
        "```",
        *[f"{digest}  {name}" for name, digest in hashes.items()],
        "```",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: python .ci/make_sense_corpus.py OUT_DIR [SEED]")
    files = write_corpus(sys.argv[1], seed=int(sys.argv[2]) if len(sys.argv) == 3 else 0)
    for path in files.values():
        print(f"{path}  {path.stat().st_size} bytes")
