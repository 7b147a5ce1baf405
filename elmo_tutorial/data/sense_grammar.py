"""The grammar of the synthetic corpus: sense lexicons, shared words and sentence templates.

Every polysemous word (``bank``, ``play``, ``work``, ``point``, ``bat``, ``spring``) has a few
senses. Each sense owns a small lexicon of *cue words* (nouns, verbs, adjectives) that occur
near it and nowhere near the word's other senses; the generator in
``elmo_tutorial.data.sense_corpus`` fills templates with them. Lists are ordered by how often a
word is drawn (the generator gives the r-th item a weight proportional to 1/r, a Zipf-like law).

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

from dataclasses import dataclass


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
