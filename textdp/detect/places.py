"""Entity targets beside any detector: spaCy's NER, and for places a gazetteer lookup.

The default detector finds persons only, so ``targets="GPE"`` (or the ``quasi`` preset, or
``"pii,ORG"``) with it found no place and no organisation. :func:`with_entities` adds, for
the entity labels among the targets (:data:`ENTITY_LABELS`: the places of
:data:`PLACE_LABELS` and every other label of spaCy's NER but ``PERSON`` and ``DATE``, which
the detectors and the date recogniser own):

* the embedded spaCy pipeline's NER (``en_core_web_md``,
  :class:`~textdp.detect.spacy_ner.SpacyNERDetector`), where the detector is not that NER
  already: its spans of those labels;
* with ``GPE`` among them, a lookup of the public names of countries, US states and cities of
  5,000 people or more, and the other names of the cities of 100,000 or more ("Lisboa",
  "München": GeoNames, ``textdp/data/place_lookup.tsv``,
  :class:`GazetteerPlaces`): spaCy's NER alone missed 40 % of the little-known cities of the
  quasi dev sample (``textdp evaluate quasi``).

Entity spans are kept where no person token of the detector lies (a name the detector found
stays a name: "Jordan" in "Michael Jordan").
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from importlib import resources
from typing import Any

from textdp.detect.base import Finding, Span, find, merge_spans
from textdp.detect.dates import MONTHS, WEEKDAYS
from textdp.detect.handles import split_camel
from textdp.detect.postal_formats import ends_with_town_code, starts_with_postcode
from textdp.detect.spacy_ner import SpacyNERDetector

#: spaCy's (OntoNotes) place labels: countries, cities and states (GPE); other locations
#: (LOC: mountains, rivers, regions); facilities (FAC: buildings, airports, roads).
PLACE_LABELS = ("GPE", "LOC", "FAC")
#: The NER labels :func:`with_entities` adds beside a detector when targeted: spaCy's
#: OntoNotes labels but ``PERSON`` (the detector's) and ``DATE`` (the date recogniser's,
#: :mod:`textdp.detect.dates`, whose values a DP offset moves; the NER's ``DATE`` holds
#: ``5 years ago``).
ENTITY_LABELS = (*PLACE_LABELS, "NORP", "ORG", "PRODUCT", "EVENT", "WORK_OF_ART", "LAW",
                 "LANGUAGE", "TIME", "PERCENT", "MONEY", "QUANTITY", "ORDINAL", "CARDINAL")
PERSON = "PERSON"
#: Words before a place that say it is one ("moved to Reading", "born in Florence"): a name
#: of the lookup that is also a common word or a first name counts only after one of them
#: or before ", <place or state code>" ("Reading, PA").
PLACE_CUES = frozenset({
    "in", "to", "from", "at", "near", "via", "outside", "around", "across", "toward",
    "towards", "into", "through", "visit", "visiting", "visited", "born", "lives", "lived",
    "living", "moved", "based", "flew", "fly", "flying", "travel", "travelled", "traveled",
    "traveling", "travelling", "relocated", "relocating", "reside", "resides", "resided",
    "residing", "hometown", "city", "town", "#"})
#: Cues after which a name of the lookup is a place even where it is a common name ("born in
#: Garland", "in Chandler"): :meth:`GazetteerPlaces.find`.
STRONG_CUES = frozenset({"in", "born", "hometown"})
#: Words before ``to``/``from``/``at`` that make it such a cue ("moved to Chandler", "flights
#: from Sutton"); alone, ``to`` and ``from`` as often stand before a person ("talk to Jordan").
TRAVEL_WORDS = frozenset({
    "moved", "moving", "move", "relocated", "relocating", "flew", "fly", "flying", "flight",
    "flights", "trip", "trips", "travel", "travelled", "traveled", "traveling", "travelling",
    "drove", "drive", "driving", "train", "trains", "bus", "route", "road", "back", "way",
    "based", "office", "offices", "arrived", "arriving", "landed", "returned", "emigrated"})
#: Month and weekday names: never places ("March" is a town in England).
CALENDAR = frozenset((*MONTHS, *WEEKDAYS))
#: Tokens a name of the lookup spans at most ("Santa Cruz de la Sierra").
MAX_PLACE_TOKENS = 6
#: The postal codes of the US states and DC (USPS) and of Canada's provinces and territories
#: (Canada Post): public lists. After a listed place and a comma one is a place ("Portland,
#: OR", "Toronto, ON"), and it is replaced by another code of the list.
REGION_CODES = frozenset([
    "AL", "AK", "AZ", "AR", "CA", "CO", "CT", "DE", "DC", "FL", "GA", "HI", "ID", "IL",
    "IN", "IA", "KS", "KY", "LA", "ME", "MD", "MA", "MI", "MN", "MS", "MO", "MT", "NE",
    "NV", "NH", "NJ", "NM", "NY", "NC", "ND", "OH", "OK", "OR", "PA", "RI", "SC", "SD",
    "TN", "TX", "UT", "VT", "VA", "WA", "WV", "WI", "WY",
    "AB", "BC", "MB", "NB", "NL", "NS", "NT", "NU", "ON", "PE", "QC", "SK", "YT",
])


@functools.lru_cache(maxsize=1)
def lookup_names() -> dict[str, str]:
    """The names of ``textdp/data/place_lookup.tsv`` as written → their kind: ``country``,
    ``state`` (US), ``city`` (100,000 people or more) or ``town`` (fewer, or a city's other
    name: GeoNames' countries and cities5000, CC BY 4.0: ``textdp/data/LICENSE_places.md``),
    and each country, state and city with its diacritics dropped where that spells no other
    name (``Liege``, ``Montreal``, ``Kecskemet``: English text writes them so; not towns,
    where folding makes words: ``Göd``, ``Ālot``)."""
    text = resources.files("textdp").joinpath("data/place_lookup.tsv").read_text(
        encoding="utf-8")
    rows = (line.split("\t") for line in text.splitlines() if line)
    names = {name: kind for name, kind in rows if len(name) > 1}
    for name, kind in list(names.items()):
        if kind != "town":
            names.setdefault(fold(name), kind)
    return names


def fold(name: str) -> str:
    """``name`` without its diacritics (``Liège`` → ``Liege``; ``ł``, ``ø`` and ``ß`` have
    no decomposition and stay)."""
    decomposed = unicodedata.normalize("NFKD", name)
    return unicodedata.normalize(
        "NFC", "".join(c for c in decomposed if not unicodedata.combining(c)))


def _parts(name: str) -> list[str]:
    """The words of a place name, split at spaces, hyphens and apostrophes (``N'Djamena`` →
    ``N``, ``Djamena``)."""
    return [w for w in re.split(r"[\s\-'’]+", name) if w.isalpha()]


@functools.lru_cache(maxsize=1)
def _upper_keys() -> dict[str, str]:
    """The upper-case form of each name of :func:`lookup_names` → the name."""
    return {name.upper(): name for name in lookup_names()}


@functools.lru_cache(maxsize=1)
def _lookup_keys() -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """``(upper case, lower case, lower case with towns)`` forms of the names → the name
    (names as written are the keys of :func:`lookup_names`); the lower-case form of
    countries, states and cities, and of those and towns."""
    names = lookup_names()
    lower = {name.lower(): name for name, kind in names.items() if kind != "town"}
    with_towns = {**lower, **{name.lower(): name for name, kind in names.items()
                              if kind == "town"}}
    return _upper_keys(), lower, with_towns


#: What follows a dateline's place: an ISO date ("1996-08-30"), or a comma and a month.
_DATELINE_DATE = re.compile(r"\d{4}-\d\d-\d\d")
_MONTHS_FOLDED = frozenset(m.casefold() for m in MONTHS)


def _dateline(words: Sequence[str], start: int, end: int) -> bool:
    """Whether ``words[start:end]`` is a news dateline's place: in capitals, opening the text
    or a line, before an ISO date or a comma and a month or a listed place (``TRIPOLI
    1996-08-30``, ``LONDON , March 3``, ``LONGYEAR , Norway 1996-08-30``); not ``BATH 2/3``
    in a note in capitals."""
    if not all(w.isupper() for w in words[start:end] if w[:1].isalpha()) or \
            (start and words[start - 1].strip()) or end >= len(words):
        return False
    after = words[end]
    if _DATELINE_DATE.match("".join(words[end:end + 5])):  # tokens of "1996-08-30"
        return True
    return after == "," and end + 1 < len(words) and (
        words[end + 1].casefold() in _MONTHS_FOLDED or words[end + 1] in lookup_names())


def _text_before(words: Sequence[str], spaces: Sequence[str], i: int, tokens: int = 4) -> str:
    """The text of the (up to ``tokens``) tokens before token ``i``, with their spaces."""
    start = max(0, i - tokens)
    return "".join(w + s for w, s in zip(words[start:i], spaces[start:i]))


def _after_listed_place(words: Sequence[str], i: int) -> bool:
    """Whether ``words[i]`` follows a name of the lookup as written and a comma."""
    return i > 1 and words[i - 1] == "," and words[i - 2] in lookup_names()


def listed_kind(word: str) -> str | None:
    """The kind of the lookup list's place ``word`` spells as written or in capitals
    (``"Berlin"``, ``"BERLIN"``; not ``"berlin"``), else ``None``. Month and weekday names
    are no places."""
    if not word[:1].isupper() or word.casefold() in CALENDAR:
        return None
    names = lookup_names()
    name = word if word in names else (
        _upper_keys().get(word) if len(word) > 2 and word.isupper() else None)
    return None if name is None else names[name]


class GazetteerPlaces:
    """``GPE`` spans where tokens spell a name of the lookup list (:func:`lookup_names`).

    A run of up to :data:`MAX_PLACE_TOKENS` tokens matches when its text (with the spaces
    between its tokens) is a name as written ("Wuppertal", "St. Louis", "Winston-Salem"); in
    capitals where every token is upper case (a note in capitals); or in lower case for a
    country, US state or city of four letters or more none of whose words is ambiguous
    (below), as chats and tweets write them ("moving to london"), and a town too after a word of
    :data:`PLACE_CUES` ("# cheadle"); after a ``#``, a name run together in camel case
    ("# PottersBar"), and a US state's or Canadian province's code after a listed name and a
    comma (:data:`REGION_CODES`: "Portland, OR"). The longest match wins.
    Month and weekday names never match ("March" is a town); countries and US states match
    anywhere else. A city whose every word is a word of the doc's language in lower case too
    (:func:`word_test`: "Reading", "Mobile", "Long Beach") or a common first name ("Florence",
    "Austin"), and a town (under 100,000 people) whose every word is one of those or a common
    surname ("Jackson", "Temple") matches only after a word of :data:`PLACE_CUES` or before a
    comma and another name of the list or a two-letter state code ("Reading, PA"), or after
    a name of the list and a comma ("Edenbridge, Kent"): without such a cue it is more often
    a word or a person than a place.
    """

    def __init__(self, *, name_max_rank: int = 1000) -> None:
        self.name_max_rank = name_max_rank

    def __call__(self, docs: Sequence[Any]) -> list[list[Span]]:
        return [[span for span, _ in found] for found in self.find(docs)]

    def find(self, docs: Sequence[Any]) -> list[list[tuple[Span, bool]]]:
        """Per doc, each match with whether it is a place for sure (:meth:`_sure`). A sure
        place is a place even where a person detector took it for a name
        (:class:`EntityUnion`)."""
        out = []
        for doc in docs:
            words = [t.text for t in doc]
            spans = self._spans(words, [t.whitespace_ for t in doc], self._ambiguous(doc.vocab))
            out.append([((s, e, lab), self._sure(words, s, e)) for s, e, lab in spans])
        return out

    def _sure(self, words: Sequence[str], start: int, end: int) -> bool:
        """Whether the match ``words[start:end]`` is a place for sure: after a word of
        :data:`PLACE_CUES` and either with no word a common first name or surname ("moved to
        Gweru"), a name of several words not all of them names ("to Saint Pierre and
        Miquelon", "in Al Hudaydah"), after a strong cue (:data:`STRONG_CUES`, or ``to``,
        ``from``, ``at`` after a word of :data:`TRAVEL_WORDS`: "born in Garland", "flights
        from Sutton") not before a possessive, or a country or US state after a cue other
        than a bare ``to``/``from``/``at`` ("visited Chad"). Not "visited Chandler", "talk
        to Jordan", "in Jordan's car"."""
        from textdp.detect.lexicon import is_first_name, is_surname

        cue = words[start - 1].casefold() if start else ""
        if cue not in PLACE_CUES:
            return False
        rank = self.name_max_rank
        names = [is_first_name(w, rank) or is_surname(w, rank)
                 for w in words[start:end] if w[:1].isalpha()]
        if not any(names) or (len(names) > 1 and not all(names)):
            return True
        if end < len(words) and words[end].casefold() in ("'s", "’s"):
            return False
        bare = cue in ("to", "from", "at")
        if cue in STRONG_CUES or (bare and start > 1 and
                                  words[start - 2].casefold() in TRAVEL_WORDS):
            return True
        name = " ".join(words[start:end])
        return not bare and lookup_names().get(name) in ("country", "state")

    def _ambiguous(self, vocab: Any) -> Callable[[str, str], bool]:
        """``(word, kind, own_row=False) -> bool``: whether a word of a name of that kind may
        be read as something else than a place (``own_row``: a word only where its lower-case
        form has a row of its own, :func:`word_test`)."""
        from textdp.detect.lexicon import is_first_name, is_surname

        is_word, own_word = word_test(vocab), word_test(vocab, own_row=True)
        rank = self.name_max_rank

        def ambiguous(part: str, kind: str, own_row: bool = False) -> bool:
            if kind in ("country", "state"):
                return False
            return (own_word if own_row else is_word)(part) or is_first_name(part, rank) or (
                kind == "town" and is_surname(part, rank))

        return ambiguous

    def _spans(self, words: Sequence[str], spaces: Sequence[str],
               ambiguous: Callable[[str, str], bool]) -> list[Span]:
        upper, lower, with_towns = _lookup_keys()
        out: list[Span] = []
        i, n = 0, len(words)
        while i < n:
            found = None
            if words[i][:1].isalpha():
                # after a cue, a town in lower case too ("# cheadle", "bus to barnet")
                cued = bool(i) and words[i - 1].casefold() in PLACE_CUES
                low = with_towns if cued else lower
                for end in range(min(n, i + MAX_PLACE_TOKENS), i, -1):
                    run = words[i:end]
                    key = "".join(w + s for w, s in zip(run, spaces[i:end - 1])) + run[-1]
                    name = self._match(key, run, upper, low, ambiguous, cued)
                    if name is not None and self._stands(words, i, end, name, ambiguous,
                                                         _text_before(words, spaces, i)):
                        found = end
                        break
            if found is None and i and words[i - 1] == "#" and \
                    " ".join(split_camel(words[i])) in lookup_names():
                found = i + 1  # a place's camel-case hashtag: "#PottersBar", "#NewYork"
            if found is None and words[i] in REGION_CODES and _after_listed_place(words, i):
                found = i + 1  # a state's code after a place: "Portland, OR"
            if found is None:
                i += 1
                continue
            out.append((i, found, "GPE"))
            i = found
        return out

    @staticmethod
    def _match(key: str, run: Sequence[str], upper: dict[str, str], lower: dict[str, str],
               ambiguous: Callable[..., bool], cued: bool = False) -> str | None:
        """The name ``key`` spells as written, in capitals or in lower case, or ``None``.
        In lower case after a cue (``cued``: "i'm in leeds") a word of the name is a word
        only where its lower-case form has a row of its own ("leeds" shares "Seeds"'s)."""
        if key[:1].isupper():
            name = key if key in lookup_names() else None
            if name is None and len(key) > 2 and all(w.isupper() for w in run if w.isalpha()):
                name = upper.get(key)
            return name
        name = lower.get(key)
        if name is None or len(key) < 4 or not all(w.islower() for w in run if w.isalpha()):
            return None
        kind = lookup_names()[name]
        return name if not any(ambiguous(w, kind, cued) or ambiguous(w.lower(), kind, cued)
                               for w in _parts(name)) else None

    @staticmethod
    def _stands(words: Sequence[str], start: int, end: int, name: str,
                ambiguous: Callable[[str, str], bool], before: str = "") -> bool:
        """Whether the match ``words[start:end]`` of ``name`` is read as a place there
        (``before``: the text of the few tokens before it)."""
        if name.casefold() in CALENDAR:
            return False
        if name in PLACE_CODES:
            return True  # "NYC Sky", though chats write "nyc" as a word
        kind = lookup_names()[name]
        parts = _parts(name)
        if parts and not all(ambiguous(w, kind) for w in parts):
            return True
        if start > 0 and words[start - 1].casefold() in PLACE_CUES:
            return True
        if _after_listed_place(words, start):
            return True  # "Edenbridge, Kent", "Paris, Texas"
        if starts_with_postcode(" ".join(words[end:end + 2])):
            return True  # an address's town: "12 Mill Lane, Leeds LS6 2AB"
        if ends_with_town_code(before):
            return True  # a town line's town: "Via Toledo 156, 80134 Napoli"
        if _dateline(words, start, end):
            return True  # a news dateline: "TRIPOLI 1996-08-30", "LONGYEAR , Norway …"
        if end + 1 < len(words) and words[end] == ",":
            after = words[end + 1]
            return (len(after) == 2 and after.isupper() and after.isalpha()) or \
                after in lookup_names()
        return False

    def __repr__(self) -> str:
        return "GazetteerPlaces()"


class EntityUnion:
    """A detector's spans plus the spans of spaCy's NER of the target labels and, for
    ``GPE``, of the gazetteer lookup where they overlap no NER place (see the module).

    Args:
        inner: the detector.
        labels: the entity labels to keep from the NER.
        ner: the NER (``None``: the embedded pipeline's).
        gazetteer: the lookup (``None``: :class:`GazetteerPlaces` when ``GPE`` is among the
            labels).
    """

    def __init__(self, inner: Any, labels: Iterable[str], ner: Any = None,
                 gazetteer: Any = None) -> None:
        self.inner = inner
        self.labels = tuple(labels)
        self.ner = ner if ner is not None else SpacyNERDetector()
        self.gazetteer = gazetteer if gazetteer is not None or "GPE" not in self.labels \
            else GazetteerPlaces()

    def _places(self, docs: Sequence[Any], persons: list[set[int]]
                ) -> list[tuple[list[tuple[Span, str]], set[int]]]:
        """Per doc: each entity span with the name of what found it, and the person tokens
        it overrides. An entity span is kept where it overlaps no person token, or where the
        lookup is sure of it (:meth:`GazetteerPlaces.find`) and it covers the persons it
        overlaps: those tokens are the place's, not a person's."""
        wanted = set(self.labels)
        if self.gazetteer is None:
            listed: list[list[tuple[Span, bool]]] = [[] for _ in docs]
        elif hasattr(self.gazetteer, "find"):
            listed = self.gazetteer.find(docs)
        else:
            listed = [[(span, False) for span in spans] for spans in self.gazetteer(docs)]
        out = []
        for doc, spans, extra, taken in zip(docs, self.ner(docs), listed, persons):
            # a hospital, clinic or school (the NER reads most as an ORG) is a place, and
            # its name the facility's, persons in it too ("St. Mary's Medical Center",
            # "Johns Hopkins Hospital")
            facilities = [(s, e, "FAC") for s, e, lab in spans if "FAC" in wanted and
                          lab in ("ORG", *PLACE_LABELS) and _facility(doc, s, e)]
            kept = [((s, e, lab), "spacy") for s, e, lab in spans
                    if lab in wanted and (s, e, "FAC") not in facilities
                    and not any(k in taken for k in range(s, e))
                    and (lab not in PLACE_LABELS or _code_stands(doc, s, e))]
            kept += [(span, "spacy") for span in facilities]
            covered = {k for (s, e, _), _ in kept for k in range(s, e)}
            overridden = {k for s, e, _ in facilities for k in range(s, e) if k in taken}
            # a handle is no part of a name beside it ("@tonipayne nigeria is …")
            named = {k for k in taken if not (doc[k].text.startswith("@") or
                                             (k and doc[k - 1].text == "@"))}
            for (s, e, lab), sure in extra:
                inside = {k for k in range(s, e) if k in taken}
                if (inside and not sure) or any(
                        k - 1 in named - inside or k + 1 in named - inside for k in (s, e - 1)):
                    continue  # a person's token, or beside one
                # a longer name of the list takes the NER places inside it ("Burkina Faso"
                # where the NER read "Burkina"), never a part of one
                within = [f for f in kept if s <= f[0][0] and f[0][1] <= e]
                inner = {k for f in within for k in range(f[0][0], f[0][1])}
                if within and len(inner) < e - s and \
                        not any(k in covered - inner for k in range(s, e)):
                    kept = [f for f in kept if f not in within]
                    covered -= inner
                overlap = [f for f in kept if f[0][0] < e and s < f[0][1]]
                if overlap:  # the NER's places it overlaps and it make one place
                    if not all(f[0][2] in PLACE_LABELS for f in overlap):
                        continue  # another entity's tokens ("Bank of England")
                    # "South East London": the NER read "South East", the lookup the town
                    # "East London"; each alone left a part of the place
                    kept = [f for f in kept if f not in overlap]
                    s, e = min(s, *(f[0][0] for f in overlap)), max(e, *(f[0][1] for f in overlap))
                    kept.append(((s, e, overlap[0][0][2]), overlap[0][1]))
                    covered |= set(range(s, e))
                    overridden |= inside
                    continue
                kept.append(((s, e, lab), "gazetteer"))
                overridden |= inside
            out.append((sorted(kept + _other_mentions(doc, kept, taken)), overridden))
        return out

    def __call__(self, docs: Sequence[Any]) -> list[list[Span]]:
        docs = list(docs)
        inner = self.inner(docs)
        persons = [{k for s, e, lab in spans if lab == PERSON for k in range(s, e)}
                   for spans in inner]
        return [merge_spans(_without(list(a), gone), [span for span, _ in b])
                for a, (b, gone) in zip(inner, self._places(docs, persons))]

    def findings(self, docs: Sequence[Any]) -> list[list[Finding]]:
        docs = list(docs)
        inner = find(self.inner, docs)
        persons = [{k for f in fs if f.label == PERSON for k in range(f.start, f.end)}
                   for fs in inner]
        return [sorted({*(f for f in a if not (f.label == PERSON and
                                               set(range(f.start, f.end)) <= gone)),
                        *(Finding(s, e, lab, who, None) for (s, e, lab), who in b)})
                for a, (b, gone) in zip(inner, self._places(docs, persons))]

    def __repr__(self) -> str:
        return f"EntityUnion({self.inner!r}, labels={list(self.labels)!r})"


#: The last words of a facility's name that says where a person is treated, cared for or
#: taught ("Mercy General Hospital", "St. Mary's Medical Center", "Lincoln Elementary
#: School"): a place (``FAC``), though spaCy's NER reads such names as organisations. The
#: i2b2/n2c2 de-identification guidelines count a hospital's name among a record's locations.
FACILITY_HEADS = frozenset({
    "hospital", "hospitals", "clinic", "clinics", "infirmary", "hospice", "sanatorium",
    "surgery", "school", "academy", "college", "kindergarten", "nursery"})
#: Two-word heads ("Medical Center", "Nursing Home", "Health Centre").
FACILITY_HEADS_2 = frozenset({
    ("medical", "center"), ("medical", "centre"), ("health", "center"), ("health", "centre"),
    ("nursing", "home"), ("care", "home"), ("care", "center"), ("care", "centre"),
    ("rehabilitation", "center"), ("rehabilitation", "centre"), ("rehab", "center"),
    ("senior", "living"), ("assisted", "living"), ("children's", "hospital")})


def _facility(doc: Any, start: int, end: int) -> bool:
    """Whether the span ``doc[start:end]`` names a facility by its last words
    (:data:`FACILITY_HEADS`), with a capitalised word before them ("Riverside Family
    Clinic", not "Clinic" alone)."""
    words = [t.text.lower() for t in doc[start:end]]
    if len(words) < 2 or not doc[start].text[:1].isupper():
        return False
    return words[-1] in FACILITY_HEADS or tuple(words[-2:]) in FACILITY_HEADS_2


_VERSION = re.compile(r"^[vV]?\d+(?:\.\d+){2,}\.?$")
#: Codes of two or three capitals that stand for a place on their own ("the US team").
PLACE_CODES = frozenset({"US", "USA", "UK", "EU", "UAE", "NYC", "DC", "PRC", "DRC", "ROK"})


def _code_stands(doc: Any, start: int, end: int) -> bool:
    """Whether an NER place span stands as a place: any span but a lone code of two or
    three capitals, which stands only in :data:`PLACE_CODES`, after a place cue ("moved to
    NY"), after a city and a comma ("Springfield, IL") or before a number ("IL 62704").
    The NER reads labels and roles in capitals as states: "NI number", "PA to the director";
    nor does a span whose every token holds a digit (flight numbers, versions: "LH2021",
    "v13.9.78"), or one holding a version number ("item v17.3.04")."""
    if all(any(c.isdigit() for c in t.text) for t in doc[start:end]) or \
            any(_VERSION.match(t.text) for t in doc[start:end]):
        return False
    word = doc[start].text
    if end - start > 1 or not (2 <= len(word) <= 3 and word.isalpha() and word.isupper()) \
            or word in PLACE_CODES:
        return True
    prev = doc[start - 1] if start > 0 else None
    after = doc[end] if end < len(doc) else None
    return (prev is not None and (prev.lower_ in PLACE_CUES or (
        prev.text == "," and start > 1 and doc[start - 2].text[:1].isupper()))) or \
        (after is not None and after.text[:1].isdigit())


def _other_mentions(doc: Any, kept: list[tuple[Span, str]], taken: set[int]
                    ) -> list[tuple[Span, str]]:
    """The other mentions of the places in ``kept``: the same tokens elsewhere in the doc,
    where no entity span and no person token lies (one detection for every mention: a place
    read in one mention and left in another would name it anyway, "Edenbridge Job :
    Dressage Groom : Edenbridge, Kent")."""
    names = {tuple(t.text for t in doc[s:e]): (lab, who) for (s, e, lab), who in kept
             if lab in PLACE_LABELS}
    if not names:
        return []
    used = {k for (s, e, _), _ in kept for k in range(s, e)} | taken
    words = [t.text for t in doc]
    out = []
    for name, (lab, who) in sorted(names.items(), key=lambda item: -len(item[0])):
        n = len(name)
        for s in range(len(words) - n + 1):
            if tuple(words[s:s + n]) == name and not any(k in used for k in range(s, s + n)):
                out.append(((s, s + n, lab), who))
                used.update(range(s, s + n))
    return out


def _without(spans: list[Span], gone: set[int]) -> list[Span]:
    """``spans`` less the person spans whose tokens a sure place took."""
    return [(s, e, lab) for s, e, lab in spans
            if not (lab == PERSON and gone and set(range(s, e)) <= gone)]


def with_entities(detector: Any, labels: Iterable[str] | str | None) -> Any:
    """``detector`` with spaCy's spans of the :data:`ENTITY_LABELS` among ``labels`` (the
    resolved targets) added (:class:`EntityUnion`); ``detector`` itself when none is a target
    or it is spaCy's NER already."""
    if labels is None or isinstance(labels, str):
        return detector
    wanted = [x for x in labels if x in ENTITY_LABELS]
    if not wanted or isinstance(detector, SpacyNERDetector):
        return detector
    return EntityUnion(detector, wanted)


def word_test(vocab: Any, *, own_row: bool = False) -> Callable[[str], bool]:
    """Whether a capitalised word (``"Reading"``) is mainly a word of ``vocab``'s language in
    lower case: the lower-case form has a vector of its own in the pipeline's table (not the
    one the capitalised form shares: "chicago" and "Chicago" have one row) that is about as
    frequent or more (the table lists words by frequency: its row is below twice the
    capitalised form's). "reading" (row 950 beside "Reading" 5,493), "nice", "mobile" are
    words; "dallas" and "paris" are not what their capitalised forms mean. A vocab without
    vectors knows no word. ``own_row``: only a row trained for the lower-case form counts,
    not the row a pruned form points at ("leeds" at "Seeds"'s; without it "Leeds" reads as
    a word, a lower-case key being some evidence of one)."""
    key2row = getattr(getattr(vocab, "vectors", None), "key2row", None) or {}
    strings = vocab.strings
    owners = _row_owners(vocab) if key2row and own_row else None

    def is_word(word: str) -> bool:
        # Looking a string's hash up adds nothing to the vocab's string store.
        lower = word.lower()
        low = key2row.get(strings[lower])
        cap = key2row.get(strings[word])
        # with own_row, a pruned form's pointer at its nearest kept word's row is no row of
        # its own ("leeds" reads "Seeds"'s)
        return low is not None and (owners is None or owners.get(low) == lower) and \
            low != cap and (cap is None or low < 2 * cap)

    return is_word


@functools.lru_cache(maxsize=4)
def _row_owners(vocab: Any) -> dict[int, str]:
    """The word each vector row of ``vocab`` was trained for (:func:`spacy_row_words`)."""
    from textdp.tables import spacy_row_words

    return spacy_row_words(vocab)


def vector_test(vocab: Any) -> Callable[[str], bool]:
    """Whether a word's lower-case form has a row of its own in ``vocab``'s vectors (a vocab
    without vectors knows no word)."""
    key2row = getattr(getattr(vocab, "vectors", None), "key2row", None) or {}
    strings = vocab.strings
    # Looking a string's hash up adds nothing to the vocab's string store.
    return lambda word: strings[word.lower()] in key2row
