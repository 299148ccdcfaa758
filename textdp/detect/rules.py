"""Rules that raise name recall: titles, other mentions of a found name, possessives.

In names-only mode a missed name is published unchanged, so these rules add ``PERSON``
tokens, with one exception (the last):

* **titles**: ``Mr``, ``Mrs``, ``Dr``, ``Prof``, ``Sir``, ``President``, ``Gen.`` … followed by
  capitalised words mark those words (``Dr. Ann Lee`` → ``Ann Lee``; the title itself is not
  part of the name, as in CoNLL-2003);
* **other mentions**: once a full name (two words or more, or a name after a title) is found
  anywhere in a text, the other capitalised occurrences of its words in the same text are
  names too (``John Smith … Smith said``), and a mention next to a found name joins it;
* **possessives**: ``Smith's`` / ``Smith’s`` / ``Smiths'`` match the name ``Smith`` whether or not
  the tokenizer split the ending off;
* **run-on names**: a title-case word right after a found name continues it (``Fatima``
  found, ``Al-Zahra`` not), across hyphens the tokenizer split off;
* **non-names**: greetings, sign-offs and chat interjections (:data:`ADDRESS_WORDS`:
  ``Dear``, ``Sincerely``, ``lol``) and the abbreviations of chats and notes
  (:data:`ABBREVIATIONS`: ``Pls``, ``Re``, ``Pt``), which are never names, are taken out of
  the person spans of :meth:`NameRules.expand`, so an e-mail keeps its "Dear" and its
  "Sincerely" and a clinical note its "Pt".

:class:`NameRules` is a detector on its own (titles, then other mentions of what they found)
and :meth:`NameRules.expand` adds the other mentions of spans found by any detector (the
ensemble uses it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from textdp.detect.base import Span
from textdp.detect.registry import register_detector

PERSON = "PERSON"

# Honorifics and titles that precede a person's name (lower case, without the final dot).
#: Words a first name follows when it is addressed ("Hi Aditya", "happy bday mateo", "Hey
#: Summer, see you"): a lone name after one is a first name (textdp.pipeline.draw_plan), and
#: a first name after one is a name (textdp.detect.register).
GREETINGS = frozenset({"hi", "hello", "hey", "heya", "hiya", "dear", "thanks", "thank", "thx",
                       "ty", "bye", "morning", "evening", "night", "congrats",
                       "congratulations", "bday", "birthday", "welcome", "yo", "cheers",
                       "love", "miss", "ciao", "hallo", "hola", "salut", "bonjour", "oi",
                       "olá", "hej", "hei", "servus", "buongiorno", "merhaba", "namaste",
                       "obrigado", "obrigada", "gracias", "merci", "danke", "grazie",
                       "querido", "querida", "liebe", "lieber", "chère", "beste", "hoi",
                       "ahoj", "cześć", "witaj", "szia", "tere"})
TITLES = frozenset({
    "mr", "mrs", "ms", "miss", "mx", "messrs", "mme", "mlle", "dr", "doctor", "prof",
    "professor", "sir", "dame", "lord", "lady", "rev", "revd", "reverend", "fr", "father",
    "sister", "brother", "rabbi", "imam", "sheikh", "pastor", "bishop", "archbishop",
    "cardinal", "pope", "king", "queen", "prince", "princess", "duke", "duchess", "count",
    "countess", "baron", "baroness", "president", "vice-president", "chancellor",
    "senator", "sen", "congressman", "congresswoman", "governor", "gov", "mayor", "judge",
    "ambassador", "secretary", "minister", "general", "gen", "lt", "lieutenant",
    "col", "colonel", "capt", "captain", "sgt", "sergeant", "cpl", "corporal",
    "adm", "admiral", "cmdr", "officer", "insp", "inspector", "supt", "det",
    "detective", "coach", "herr", "frau", "señor", "senor", "señora", "senora", "sra",
    "signor", "signora", "monsieur", "madame", "mademoiselle", "hon", "cllr", "councillor",
    # abbreviated titles of Spanish, Italian, German and Dutch letters ("Sr. Gutiérrez",
    # "dott.ssa Ferrari", "Sig.ra Rossi", "Hr. Müller", "dhr. Jansen", "mevr. de Vries") and
    # Polish "Panie", "Pani" (not "Pan": Peter Pan, Pan Am)
    "sr", "srta", "dña", "lic", "dott", "dott.ssa", "dr.ssa", "prof.ssa", "sig", "sig.ra",
    "sig.na", "avv", "ing", "hr", "dhr", "mevr", "panie", "pani",
    # a family named by its surname ("Familie Yılmaz", "famille Martin", "familia Pérez")
    "familie", "famille", "familia", "famiglia",
})
# Left out because they precede non-names as often as names in news text: "major" (Major
# League), "premier" (Premier League), "justice" (Justice Department), "commander", and the
# abbreviations "maj", "fr", "sr", "mx" (also codes and abbreviations of other words).
# In upper-case text (headlines) only these abbreviations count as titles: "MISS OUT",
# "GENERAL MOTORS" and "PRESIDENT'S CUP" are not names.
UPPER_CASE_TITLES = frozenset({"mr", "mrs", "ms", "dr", "prof", "sir", "dame", "rev", "gen",
                               "sen", "col", "capt", "lt", "sgt", "insp", "det"})
# Lower-case words that may sit inside a name (``Ludwig van Beethoven``, ``Osama bin Laden``).
PARTICLES = frozenset({"van", "von", "der", "den", "de", "del", "della", "di", "da", "du",
                       "la", "le", "bin", "ibn", "al", "el", "ter", "ten", "dos", "das", "y"})
# Capitalised words that are never taken as another mention of a name on their own.
NOT_NAMES = frozenset({
    "the", "a", "an", "and", "or", "but", "of", "in", "on", "at", "to", "for", "by", "with",
    "he", "she", "it", "they", "we", "i", "you", "his", "her", "their", "this", "that",
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december", "monday", "tuesday", "wednesday", "thursday", "friday",
    "saturday", "sunday", "jr", "sr", "st", "mt",
})
# Greetings, sign-offs and chat interjections: they stand next to names ("Dear Ms Lee",
# "Sincerely, Ann", "lol kevin") and a tagger with a recall-first threshold takes some of them
# for one (MiniLM: "Sincerely" 0.15, "Dear" 0.03 against 0.015), but none is a name: in the
# train and dev splits of all three corpora none is part of a person span. Left out: words
# that are names too ("Love", "Hope", "Best", "Kind", "Ty", "Cc").
ADDRESS_WORDS = frozenset({
    "dear", "sincerely", "regards", "cheers", "thanks", "thank", "hi", "hello", "hey",
    "greetings", "yours", "faithfully", "cordially", "respectfully", "warmly", "xoxo",
    "congrats", "congratulations", "bye", "goodbye", "thx", "lol", "lmao", "omg", "haha",
    "fyi", "fwd",
    # the opening of a formal letter in other languages ("Sehr geehrter Herr", "Geachte
    # heer", "Estimado Sr.", "Szanowny Panie"; not "Cher", "Gentile", "Cara": names too)
    "sehr", "geehrter", "geehrte", "geehrtes", "geachte", "estimado", "estimada",
    "estimados", "estimadas", "prezado", "prezada", "prezados", "egregio", "egregia",
    "gentilissimo", "gentilissima", "distinguido", "distinguida", "szanowny", "szanowna",
    "szanowni", "kære", "bästa", "sayın", "уважаемый", "уважаемая", "уважаемые",
})
#: Openings of letters that are names too ("Cher", "Gentile", "Cara"): no name right before
#: a title ("Cher Monsieur", "Gentile dott.ssa Ferrari", "Beste mevrouw").
LETTER_OPENINGS = frozenset({"cher", "chère", "chers", "gentile", "gentili", "caro", "cara",
                             "cari", "beste", "lieber", "liebe", "querido", "querida"})
# Abbreviations of chats, e-mail and clinical notes, written capitalised at the start of a
# line ("Pt is a 67 y/o male", "Re: budget", "Pls call Ann") where a tagger may take them for a
# name. None is a name: in the train and dev splits of all three corpora they occur 1,242
# times and are part of a person span once ("RT", an annotation slip beside a handle). Left
# out: abbreviations that are names too ("Ed", "Po", "Cc", "Ros").
ABBREVIATIONS = frozenset({
    # chats and mail
    "btw", "tbh", "idk", "smh", "imo", "imho", "pls", "plz", "np", "asap", "ps", "pps", "re",
    "fw", "omfg", "rofl", "wtf", "brb", "ttyl", "jk", "irl", "dm", "rt", "yo",
    # clinical notes
    "pt", "pts", "hx", "dx", "rx", "sx", "tx", "fx", "y/o", "s/p", "f/u", "h/o", "c/o", "w/",
    "prn", "bid", "tid", "qid", "qd", "wnl", "nkda", "nka", "pmh", "hpi", "ddx", "sob", "abd",
    "bp", "hr", "rr", "icu", "mg", "ml",
})
#: What a person span never holds: it is cut around these (:func:`drop_non_names`).
NON_NAMES = ADDRESS_WORDS | ABBREVIATIONS
# After a title, "May" is a name (Mrs May); the other stop words are not.
_NOT_AFTER_TITLE = NOT_NAMES - {"may"}
POSSESSIVES = ("'s", "’s", "'", "’")
MAX_TITLE_NAME = 4  # words taken after a title


def name_key(token: str) -> str:
    """The form a name token is matched by: case-folded, possessive ending removed."""
    low = token.casefold()
    for end in POSSESSIVES:
        if low.endswith(end) and len(low) > len(end) + 1:
            return low[: -len(end)]
    return low


def is_capitalised(token: str) -> bool:
    """Starts with an upper-case letter (``Smith``, ``SMITH``, ``O'Neil``, ``McDonald``)."""
    return token[:1].isupper() and token[:1].isalpha()


def _is_initial(token: str) -> bool:
    """``J.`` or ``J``: one capital letter, optionally with a dot."""
    return (len(token) == 2 and token[0].isupper() and token[1] == ".") or \
        (len(token) == 1 and token.isupper())


def _title_at(words: Sequence[str], i: int, titles: frozenset[str]) -> bool:
    w = words[i].casefold().rstrip(".")
    if w not in titles:
        return False
    return not (len(words[i]) > 1 and words[i].isupper()) or w in UPPER_CASE_TITLES


def title_spans(words: Sequence[str], titles: frozenset[str] = TITLES) -> list[Span]:
    """Names after a title: up to :data:`MAX_TITLE_NAME` capitalised words or initials
    (particles inside are kept, a final particle is not)."""
    return [(s, e, PERSON) for _, s, e in title_matches(words, titles)]


def title_matches(words: Sequence[str], titles: frozenset[str] = TITLES
                  ) -> list[tuple[int, int, int]]:
    """``(title_index, name_start, name_end)`` of each title followed by a name."""
    spans: list[tuple[int, int, int]] = []
    n = len(words)
    i = 0
    while i < n:
        if not _title_at(words, i, titles):
            i += 1
            continue
        j = i + 1
        if j < n and words[j] == ".":  # a tokenizer that split the title's dot off
            j += 1
        # Further titles (``Prime Minister``, ``Dr. Prof.``, ``Vice President``) are skipped.
        while j < n and (_title_at(words, j, titles) or words[j].casefold() == "prime"):
            j += 1
        # In upper-case text (headlines) every word looks capitalised: take two at most.
        limit = 2 if len(words[i]) > 1 and words[i].isupper() else MAX_TITLE_NAME
        start = end = j
        while end < n and end - start < limit:
            w = words[end]
            name_word = is_capitalised(w) and not _title_at(words, end, titles) and \
                name_key(w) not in _NOT_AFTER_TITLE
            particle = w.casefold() in PARTICLES and end + 1 < n and \
                is_capitalised(words[end + 1])
            if not (name_word or particle):
                break
            end += 1
        if end > start:
            spans.append((i, start, end))
        i = max(end, i + 1)
    return spans


def _person_tokens(spans: Iterable[Span]) -> set[int]:
    return {k for s, e, lab in spans if lab == PERSON for k in range(s, e)}


def mention_keys(words: Sequence[str], spans: Iterable[Span]) -> set[str]:
    """The matchable name tokens of ``PERSON`` spans (capitalised, not initials, titles,
    particles or stop words)."""
    keys = set()
    for k in _person_tokens(spans):
        w = words[k]
        key = name_key(w)
        if (is_capitalised(w) and len(key) > 1 and not _is_initial(w)
                and key.rstrip(".") not in TITLES and key not in PARTICLES
                and key not in NOT_NAMES and any(c.isalpha() for c in key)):
            keys.add(key)
    return keys


def runs(tokens: Iterable[int]) -> list[tuple[int, int]]:
    """Maximal runs of consecutive indices as ``(start, end)``."""
    out: list[tuple[int, int]] = []
    for k in sorted(set(tokens)):
        if out and out[-1][1] == k:
            out[-1] = (out[-1][0], k + 1)
        else:
            out.append((k, k + 1))
    return out


def person_spans(persons: Iterable[int], cuts: Iterable[int]) -> set[Span]:
    """``PERSON`` spans over the runs of ``persons``, each run also cut at ``cuts`` (where an
    earlier span of two names that touch started: "Mary" "Johnson" stays two people)."""
    cuts = set(cuts)
    out: set[Span] = set()
    for a, b in runs(persons):
        start = a
        for k in range(a + 1, b):
            if k in cuts:
                out.add((start, k, PERSON))
                start = k
        out.add((start, b, PERSON))
    return out


def expand_mentions(words: Sequence[str], spans: Sequence[Span], *,
                    evidence: Sequence[Span] | None = None, protect: Iterable[int] = (),
                    override_protected: bool = True) -> list[Span]:
    """``spans`` plus the other capitalised mentions of the names in ``evidence``.

    ``evidence`` defaults to the ``PERSON`` spans of two or more words in ``spans``: a full
    name (``Neil Jordan``) is good evidence that every ``Jordan`` of the text is that person,
    while a lone one-word ``PERSON`` may be a tagger's slip (``Chechnya``) that must not spread.
    New mentions that touch a ``PERSON`` span join it (``John`` + found ``Smith`` gives one span
    ``John Smith``). Mentions on ``protect`` token indices (e.g. inside another detector's
    ORG/LOC spans) are taken too (recall first) unless ``override_protected`` is false.
    """
    if evidence is None:
        evidence = [s for s in spans if s[2] == PERSON and s[1] - s[0] > 1]
    keys = mention_keys(words, evidence)
    if not keys:
        return list(spans)
    found = _person_tokens(spans)
    blocked = found if override_protected else found | set(protect)
    new = {k for k, w in enumerate(words)
           if k not in blocked and is_capitalised(w) and name_key(w) in keys}
    if not new:
        return list(spans)
    others = [s for s in spans if s[2] != PERSON]
    persons = [s for s in spans if s[2] == PERSON]
    # Join new mentions with the spans they touch; spans that only touch each other stay apart.
    grown: list[Span] = []
    taken: set[int] = set()
    for s, e, lab in persons:
        a, b = s, e
        while a - 1 in new and a - 1 not in taken:
            a -= 1
        while b in new and b not in taken:
            b += 1
        taken.update(range(a, b))
        grown.append((a, b, lab))
    grown.extend((a, b, PERSON) for a, b in runs(new - taken))
    person = _person_tokens(grown)
    # A token both a person and, say, a place is a person (recall first).
    others = [(s, e, lab) for s, e, lab in others if not any(k in person for k in range(s, e))]
    return sorted(set(grown) | set(others))


@register_detector("rules")
class NameRules:
    """A rule-based person-name detector (titles, other mentions, possessives).

    Args:
        titles: lower-case titles that precede a name (default :data:`TITLES`).
        coreference: also mark other mentions of the names found: of full names (two words
            or more) and of names after a title; a one-word name from a tagger is not enough
            evidence (on CoNLL-2003 dev it spread more slips than names).
        protect_entities: in :meth:`expand`, never re-label a token that the other detector
            put in a non-person entity. By default other mentions of a full name do (``Neil
            Jordan`` … ``Jordan`` tagged as the country → a name: recall first).
        join_touching: in :meth:`expand`, merge a non-person entity that touches a person
            into it (``Aung San`` + ``Suu Kyi``). Off by default: on CoNLL-2003 dev it cost
            more precision than it gained recall.
        extend: in :meth:`expand`, let a title-case word right after a person's name join it
            (:func:`extend_names`).
    """

    def __init__(self, *, titles: Iterable[str] | None = None, coreference: bool = True,
                 protect_entities: bool = False, join_touching: bool = False,
                 extend: bool = True) -> None:
        self.titles = frozenset(t.casefold().rstrip(".") for t in titles) if titles is not None \
            else TITLES
        self.coreference = bool(coreference)
        self.protect_entities = bool(protect_entities)
        self.join_touching = bool(join_touching)
        self.extend = bool(extend)

    def __getstate__(self) -> dict[str, Any]:
        # Sorted, so pickles (and dataset fingerprints built from them) are the same in every
        # process: a frozenset of strings pickles in an order that depends on the hash seed.
        return {**self.__dict__,
                "titles": None if self.titles is TITLES else sorted(self.titles)}

    def __setstate__(self, state: dict[str, Any]) -> None:
        titles = state.pop("titles")
        self.__dict__.update(state)
        self.titles = TITLES if titles is None else frozenset(titles)

    def spans(self, words: Sequence[str]) -> list[Span]:
        """Spans for one tokenized text."""
        found = title_spans(words, self.titles)
        return expand_mentions(words, found, evidence=found) if self.coreference else found

    def __call__(self, docs: Sequence[Any]) -> list[list[Span]]:
        return [self.spans([t.text for t in doc]) for doc in docs]

    def expand(self, docs: Sequence[Any], spans: Sequence[Sequence[Span]]
               ) -> list[list[Span]]:
        """Title names and other mentions added to each doc's spans from another detector
        (see ``protect_entities`` for tokens inside its non-person spans), the
        :data:`NON_NAMES` taken out."""
        out = []
        for doc, doc_spans in zip(docs, spans):
            words = [t.text for t in doc]
            doc_spans = list(doc_spans)
            if self.join_touching:
                doc_spans = join_touching(doc_spans)
            entity = {k for s, e, lab in doc_spans if lab != PERSON for k in range(s, e)}
            # A title inside another entity ("General Motors", "Miss Universe") names none.
            titled = [(s, e, PERSON) for t, s, e in title_matches(words, self.titles)
                      if t not in entity]
            base = _merge_persons(doc_spans, titled)
            if self.extend:
                base = extend_names(words, base, [bool(t.whitespace_) for t in doc],
                                    common_word(doc.vocab))
            if self.coreference:
                # Evidence: full names, and names after a title (even one word: "Mr Lee").
                evidence = [s for s in base if s[2] == PERSON and s[1] - s[0] > 1] + titled
                base = expand_mentions(words, base, evidence=evidence, protect=entity,
                                       override_protected=not self.protect_entities)
            # Last, so recall is as before for every other token.
            out.append(drop_non_names(words, base))
        return out

    def __repr__(self) -> str:
        return f"NameRules(titles={len(self.titles)}, coreference={self.coreference})"


def drop_non_names(words: Sequence[str], spans: Sequence[Span]) -> list[Span]:
    """``spans`` with the :data:`NON_NAMES` (greetings, sign-offs, abbreviations; a final dot
    does not count) taken out of every ``PERSON`` span (a span is cut around one: "Hi John" →
    "John", "Pt." → nothing)."""
    drop = {k for s, e, lab in spans if lab == PERSON for k in range(s, e)
            if name_key(words[k]).rstrip(".") in NON_NAMES}
    if not drop:
        return list(spans)
    out = [span for span in spans if span[2] != PERSON]
    for s, e, _ in (span for span in spans if span[2] == PERSON):
        out.extend((a, b, PERSON) for a, b in runs(k for k in range(s, e) if k not in drop))
    return sorted(set(out))


def _title_case(token: str) -> bool:
    return is_capitalised(token) and any(c.islower() for c in token)


def extend_names(words: Sequence[str], spans: Sequence[Span],
                 spaces: Sequence[bool] | None = None,
                 common: Callable[[str], bool] | None = None) -> list[Span]:
    """A title-case word right after a title-case ``PERSON`` span, and in no other span,
    continues the name (``Fatima`` found, ``Al-Zahra`` not): names run on, and a tagger that
    stopped early leaves the rest of the name in the text. With ``spaces`` (whether a token
    is followed by a space), a hyphen with no space on either side joins too (``Al - Zahra``
    from spaCy's tokenizer). Upper-case text (headlines) is left alone: every word there
    looks like a name. With ``common`` (whether a lower-case word is a common word of the
    language and no census name: :func:`common_word`), such a word ends the run. A listed
    first name that is no common English word right before a name opens it. In a
    title-case headline or subject every word is capitalised ("Kanye West Writes Twitter
    Epic", "Blanco Hub Agreements"), while a surname that is a word is a census name
    ("Emma Stone")."""
    taken = {k for s, e, _ in spans for k in range(s, e)}
    n = len(words)
    out: list[Span] = []
    for s, e, lab in spans:
        # A first name right before the name ("técnico Rui Pereira": the tagger read the
        # surname only), in no other span, no common word.
        if lab == PERSON and s > 0 and s - 1 not in taken and _title_case(words[s - 1]) \
                and _title_case(words[s]) and _first_name_before(name_key(words[s - 1])):
            s -= 1
            taken.add(s)
        # A hashtag ("#" + "JuliaTalks") is closed: the word after it starts the sentence.
        if lab == PERSON and _title_case(words[e - 1]) and words[s] != "#":
            while e < n and e not in taken:
                if _title_case(words[e]) and name_key(words[e]) not in NOT_NAMES and not (
                        common is not None and common(name_key(words[e]))):
                    step = 1
                elif (spaces is not None and words[e] == "-" and e + 1 < n
                      and not spaces[e - 1] and not spaces[e]
                      and words[e + 1][:1].isalnum() and e + 1 not in taken):
                    step = 2
                else:
                    break
                taken.update(range(e, e + step))
                e += step
        out.append((s, e, lab))
    return sorted(set(out))


def _first_name_before(key: str) -> bool:
    """Whether ``key`` is a first name of the census or the multi-origin lists that is no
    common English word (:func:`textdp.detect.words.common_words`), title,
    :data:`NOT_NAMES` word or place of the lookup (``Paris St Germain``, ``Jackson Hole``,
    ``Aston Martin``: a place's or a brand's name that opens with a first name)."""
    from textdp.detect.lexicon import is_first_name, vocabulary_first_names
    from textdp.detect.places import listed_kind
    from textdp.detect.words import common_words

    return key not in NOT_NAMES and key not in TITLES and key not in common_words() and (
        is_first_name(key) or key in vocabulary_first_names()) and \
        listed_kind(key.title()) is None


def common_word(vocab: Any) -> Callable[[str], bool]:
    """Whether a lower-case word is a common word of ``vocab``'s language (it has a vector
    in the pipeline's table: public words only) and no census first name or surname. A
    vocab without vectors knows no common word."""
    from textdp.detect.lexicon import is_first_name, is_surname

    key2row = getattr(getattr(vocab, "vectors", None), "key2row", None) or {}
    strings = vocab.strings

    def common(word: str) -> bool:
        # Looking a string's hash up adds nothing to the vocab's string store.
        return bool(key2row) and word.isalpha() and strings[word] in key2row and \
            not is_first_name(word) and not is_surname(word)

    return common


def join_touching(spans: Sequence[Span]) -> list[Span]:
    """Other-label spans that touch a ``PERSON`` span become part of it: a tagger that splits
    ``Aung San | Suu Kyi`` into PERSON + GPE has seen one name."""
    persons = sorted((s, e) for s, e, lab in spans if lab == PERSON)
    if not persons:
        return list(spans)
    starts = {s: e for s, e in persons}
    ends = {e: s for s, e in persons}
    out: list[Span] = []
    grown = dict(starts)  # person start -> end, grown by touching spans
    for s, e, lab in sorted(spans):
        if lab == PERSON:
            continue
        if s in ends:  # right after a person span
            grown[ends[s]] = max(grown[ends[s]], e)
        elif e in starts:  # right before one
            grown[s] = grown.pop(e)
        else:
            out.append((s, e, lab))
    out.extend((s, e, PERSON) for s, e in grown.items())
    return sorted(set(out))


def _merge_persons(spans: list[Span], extra: list[Span]) -> list[Span]:
    """``spans`` plus the ``extra`` person spans that overlap no person span already there."""
    have = _person_tokens(spans)
    out = list(spans)
    for s, e, lab in extra:
        if not any(k in have for k in range(s, e)):
            out.append((s, e, lab))
            have.update(range(s, e))
    return sorted(set(out))
