"""The public place vocabulary: which words of a candidate table are places, and of which kind.

Place targets (spaCy's ``GPE``, ``LOC`` and ``FAC``, :data:`PLACE_LABELS`) are replaced like
person names (issue 36): the place's vector from the candidate table, the mechanism's noise,
decoded to the public place names of the same kind that the table holds
(:func:`place_spaces`), countries to countries and cities to cities. The places are those of
the public gazetteer ``textdp/data/places.tsv`` (GeoNames, CC BY 4.0: every country and the
cities of 100,000 people or more; ``textdp/data/LICENSE_places.md``, built by
``scripts/build_places.py``).

The kind of a target (:func:`place_kind`) is read from the public lists alone: ``"country"``
for a country's name, ``"city"`` for a city's or a town's (the detectors' lookup of places of
5,000 people or more), ``"place"`` (any place of the vocabulary) for a name neither holds
("the Alps", "Gatwick"), ``"region"`` for a US state's or Canadian province's postal code.
It is released without noise, like a name's kind: the guarantee holds between places of the
same kind. Two mentions are the same place when their :func:`place_key` agrees.

A place of several tokens ("New York", "United Kingdom") is one target: its vector is the
mean of its tokens' rows (:func:`place_vector`), and one single-word place of the
vocabulary replaces the whole of it.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources

import numpy as np

from textdp.detect import lexicon
from textdp.detect.places import PLACE_LABELS, REGION_CODES
from textdp.tables import EmbeddingTable

__all__ = ["GUARANTEE_PLACES", "HOLDS_BETWEEN_PLACES", "PLACE_KINDS", "PLACE_LABELS", "REGION",
           "PlaceSpaces", "gazetteer", "place_key", "place_kind", "place_names", "place_spaces",
           "place_vector", "region_code", "targeted_places"]

#: Candidate sets of a place target: its kind (``"place"``: either).
PLACE_KINDS = ("city", "country", "place")
#: The kind of a US state's or Canadian province's postal code (:data:`REGION_CODES`): it is
#: replaced by a code drawn uniformly from that public list, without looking at it (no ε).
REGION = "region"
#: A row is a place candidate when its vector's cosine to the mean direction of the table's
#: country names is at least this. On the embedded table it keeps most city names
#: ("Leipzig" 0.22, "London" 0.40) and drops those whose vector is a person's or a common
#: word's ("Tyler" -0.06, "Nice" -0.05, "Bath" 0.08).
MIN_PLACE_COSINE = 0.2
#: Fewest places per kind: with fewer, one place would come back too often.
MIN_PLACES = 50
#: First-name rank cut of the census lists: a city that is also a common first name
#: ("Austin", "Sydney", "Florence") would read as a person.
FIRST_NAME_MAX_RANK = 1000
#: Words read before a place that are not part of its name ("the United Kingdom").
ARTICLES = frozenset({"the"})


#: What a report's guarantee adds when places are targets (with ``replace="name"``).
GUARANTEE_PLACES = ("places: the mechanism's draw on the place's vector (the mean of its "
                    "words' rows for a place of several words), decoded to the public "
                    "gazetteer's places of the same kind in the table; metric DP between "
                    "places of the same kind, ε per unit of distance, one draw (ε) per "
                    "distinct place of a text; a US state's or Canadian province's postal "
                    "code is replaced by a code drawn uniformly from the public list (no ε)")
#: What ``holds_between`` adds when places are targets (with ``replace="name"``).
HOLDS_BETWEEN_PLACES = ("; for places, the same kind of each place (country, city or town, "
                        "state or province code, or other: by the public lists) and which "
                        "mentions share a place")


def targeted_places(targets: object) -> tuple[str, ...]:
    """The place labels among resolved ``targets`` (none with ``"all"``)."""
    if not isinstance(targets, (tuple, list)):
        return ()
    return tuple(t for t in targets if t in PLACE_LABELS)


def place_key(text: str) -> str:
    """What makes two mentions the same place: NFKC, case-folded, whitespace collapsed,
    without a possessive or a leading article (``"the UNITED  Kingdom's"`` is
    ``"united kingdom"``)."""
    words = unicodedata.normalize("NFKC", text).replace("’", "'").casefold().split()
    while len(words) > 1 and words[0] in ARTICLES:
        words = words[1:]
    key = " ".join(words)
    for suffix in ("'s", "'"):
        if key.endswith(suffix) and len(key) > len(suffix):
            return key[:-len(suffix)]
    return key


@functools.lru_cache(maxsize=1)
def place_names() -> dict[str, tuple[str, ...]]:
    """The shipped gazetteer's names as written, per kind (``"country"``, ``"city"``)."""
    text = resources.files("textdp").joinpath("data/places.tsv").read_text(encoding="utf-8")
    out: dict[str, list[str]] = {"country": [], "city": []}
    for line in text.splitlines():
        name, kind = line.split("\t")
        out[kind].append(name)
    return {kind: tuple(names) for kind, names in out.items()}


@functools.lru_cache(maxsize=1)
def gazetteer() -> dict[str, str]:
    """The shipped gazetteer: :func:`place_key` of each name → its kind (``"country"`` or
    ``"city"``; a name that is both is a country)."""
    return _by_key((name, kind) for kind, names in place_names().items() for name in names)


def _by_key(names: Iterable[tuple[str, str]]) -> dict[str, str]:
    """:func:`place_key` of each ``(name, kind)`` → its kind; a key that is a country's keeps
    that kind."""
    out: dict[str, str] = {}
    for name, kind in names:
        key = place_key(name)
        if out.get(key) != "country":
            out[key] = kind
    return out


@functools.lru_cache(maxsize=1)
def _listed_kinds() -> dict[str, str]:
    """:func:`place_key` of the countries, cities and towns of the detectors' lookup
    (GeoNames' places of 5,000 people or more and the countries' short forms, "USA", "UK":
    :func:`textdp.detect.places.lookup_names`) → ``"country"`` or ``"city"``."""
    from textdp.detect.places import lookup_names

    kinds = {"country": "country", "city": "city", "town": "city"}
    return _by_key((name, kinds[kind]) for name, kind in lookup_names().items()
                   if kind in kinds)


def place_kind(text: str) -> str:
    """The kind of a place target: :data:`REGION` for a state's or province's postal code,
    ``"country"`` or ``"city"`` from the gazetteer, or else from the detectors' lookup (a
    town is a city: it drew among every place, countries included, "Edenbridge, Kent" became
    "Malaysia, …"; "USA" is a country), else ``"place"`` (any place of the vocabulary)."""
    if text in REGION_CODES:
        return REGION
    key = place_key(text)
    return gazetteer().get(key) or _listed_kinds().get(key, "place")


def region_code(rng: np.random.Generator) -> str:
    """A code of :data:`REGION_CODES` drawn uniformly: what replaces a region code, whatever
    it was."""
    return _CODES[int(rng.integers(len(_CODES)))]


_CODES = tuple(sorted(REGION_CODES))  # in a fixed order: a seeded draw is reproducible


@dataclass(frozen=True)
class PlaceSpaces:
    """The place vocabulary of a candidate table, per kind (each a table whose candidates are
    the kind's places; ``place`` is their union)."""

    city: EmbeddingTable
    country: EmbeddingTable
    place: EmbeddingTable

    def __getitem__(self, kind: str) -> EmbeddingTable:
        return getattr(self, kind)


def place_spaces(table: EmbeddingTable, exclude: frozenset[str] = frozenset()) -> PlaceSpaces:
    """The place vocabulary of ``table`` (memoised on it).

    A row is a place candidate when its word is one word of letters that the gazetteer holds
    (spelt as the gazetteer spells it, in a cased table; any case in an uncased one), is not
    a common census first name, is not mainly a word lower-case ("International", "Independence"),
    points towards the mean of the table's countries (:data:`MIN_PLACE_COSINE`) and is not in
    ``exclude``. Everything here is public: the table, the gazetteer, the lists. Raises
    ``ValueError`` when a kind has fewer than :data:`MIN_PLACES` places.
    """
    memo = table.__dict__.setdefault("_place_spaces", {})
    if exclude in memo:
        return memo[exclude]
    places = gazetteer()
    cased = any(w[:1].isupper() for w in table.row_words[:5000])
    rows: dict[str, dict[str, int]] = {"city": {}, "country": {}}
    for row, word in enumerate(table.row_words):
        if not word.isalpha() or (cased and not (word[:1].isupper() and word[1:].islower())):
            continue
        key = word.casefold()
        kind = places.get(key)
        if kind is None or key in exclude or lexicon.is_first_name(key, FIRST_NAME_MAX_RANK):
            continue
        rows[kind].setdefault(key, row)
    unit = table.lookup_vectors / np.linalg.norm(
        table.lookup_vectors, axis=1, keepdims=True).clip(min=1e-12)
    countries = list(rows["country"].values())
    if not countries:
        raise ValueError(f"table {table.name!r} has no public place vocabulary")
    direction = unit[countries].mean(axis=0)
    direction /= max(float(np.linalg.norm(direction)), 1e-12)
    chosen = {kind: sorted(r for r in found.values()
                           if unit[r] @ direction >= MIN_PLACE_COSINE
                           and not _mainly_a_word(table, r))
              for kind, found in rows.items()}
    if min(len(c) for c in chosen.values()) < MIN_PLACES:
        raise ValueError(f"table {table.name!r} has no public place vocabulary (fewer than "
                         f"{MIN_PLACES} cities or countries of the gazetteer)")
    spaces = PlaceSpaces(
        city=table.with_candidates(np.asarray(chosen["city"]), suffix="places:city"),
        country=table.with_candidates(np.asarray(chosen["country"]), suffix="places:country"),
        place=table.with_candidates(np.asarray(sorted({*chosen["city"], *chosen["country"]})),
                                    suffix="places:place"))
    memo[exclude] = spaces
    return spaces


def place_vector(table: EmbeddingTable, text: str) -> np.ndarray | None:
    """The vector a place target's draw reads: its row when the table holds the whole
    mention, else the mean of the rows of its words (a leading article left out: "New
    York" is the mean of "New" and "York"); ``None`` when no word has a row."""
    row = int(table.lookup([text])[0])
    if row >= 0:
        return table.lookup_vectors[row]
    words = text.split()
    while len(words) > 1 and words[0].casefold() in ARTICLES:
        words = words[1:]
    rows = table.lookup(words)
    rows = rows[rows >= 0]
    return table.lookup_vectors[rows].mean(axis=0) if rows.size else None


def _mainly_a_word(table: EmbeddingTable, row: int) -> bool:
    """Whether the lower-case spelling of the place at ``row`` is a word of the table with a
    row of its own that is about as frequent or more (tables list words by frequency: its
    row is below twice the place's): "international" (779 beside "International" 675),
    "independence" are words; "china" (10,959 beside 660) is not what "China" means."""
    word = table.row_words[row]
    low = table.key_to_row.get(word.lower())
    return low is not None and low != row and table.row_words[low] == word.lower() \
        and low < 2 * row
