"""The public name vocabulary: which names a person may become, and of which kind.

With ``replace="name"`` person targets decode to public names (:func:`name_spaces`): the
census names of the candidate table (US Census 1990 lists, public domain) and the names of
the multi-origin lists shipped in ``textdp/data/names/`` (derived from Faker's per-locale
lists, MIT licence; 11 coarse origin groups, :data:`ORIGIN_GROUPS`) that the table has a
vector for. First names decode to first names and surnames to surnames. Two mentions are the
same name when their :func:`name_key` agrees.

**The space.** A name's vector is the table row its spelling looks up
(``EmbeddingTable.lookup``), for a person target and for a vocabulary name alike; in the
default spaCy table that is the name's own row or the kept row spaCy points the pruned key at
(514k keys over 20k rows), so several names share a row. The mechanism draws a row of the
name set; the name written is a uniformly random name of that row (post-processing). The
guarantee is the mechanism's, unchanged: ε·d(x, x') between two person names with d the
Euclidean distance of their (clipped) table vectors, diameter 2 × the clip radius; a name the
table lacks reads the public person stand-in (docs/architecture.md rule 2), and the report's
``epsilon_at_name_distance`` is ε times the median distance between common census names.

The name kind (first name, surname, either) comes from the name's context and position in the
text first, then from the lists (:func:`vocabulary_kind`, see
:func:`textdp.pipeline.draw_plan.name_kinds`): the kind is released without noise, like the
casing class, and the guarantee holds between names of the same kind.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from textdp.detect import lexicon, rules
from textdp.tables import EmbeddingTable

#: Candidate sets of a person target: its kind.
NAME_KINDS = ("first", "last", "any")
#: The label whose targets decode to the name vocabulary.
PERSON = "PERSON"
#: Rank cuts of the census lists: beyond them the lists hold ordinary words that a few people
#: bear as names ("love", "golden"), which would not read as names.
FIRST_NAME_MAX_RANK = 1000
SURNAME_MAX_RANK = 20000
#: Fewest names per kind for a name vocabulary: with fewer, one name would come back too often.
MIN_NAMES = 100
#: Most frequent census names whose mean direction is "a person's name" in the table.
CENTROID_NAMES = 100
#: A lexicon word is a name candidate when its vector's cosine to that direction is at least
#: this: it drops words whose table vector is not a name's ("In", "China", "January", "Board").
#: On the embedded table 1,144 first-name and 1,926 surname rows are in the lists' rank cuts;
#: with this cut, surnames that are also first names counted as first names, and words more
#: frequent lower-case ("Lady", "Judge") left out, 782 first names and 432 surnames remain.
MIN_NAME_COSINE = 0.35


def name_key(token: str) -> str:
    """What makes two mentions the same name: NFKC, case-folded, without a possessive
    (``"MERKEL"``, ``"Merkel's"`` and ``"merkel’s"`` are one name)."""
    return rules.name_key(unicodedata.normalize("NFKC", token))


def lexicon_kind(key: str) -> str | None:
    """``"first"`` when the census first-name lists (within their rank cut) hold ``key``,
    else ``"last"`` when the surname list does, else ``None`` (the same split as the name
    vocabulary: a word in both lists, like "James", is a first name)."""
    if lexicon.is_first_name(key, FIRST_NAME_MAX_RANK):
        return "first"
    if lexicon.is_surname(key, SURNAME_MAX_RANK):
        return "last"
    return None


#: Where the multi-origin name lists are (built by ``python -m textdp.training.name_lists``
#: from Faker, MIT licence: ``data/names/LICENSE.md``).
NAMES_DIR = lexicon.NAMES_DIR
#: The coarse public origin groups of the vocabulary (``data/names/vocabulary.tsv``); census
#: names that no other list holds are ``"anglo"``.
ORIGIN_GROUPS = ("anglo", "germanic", "nordic_finnic", "romance", "central_eastern_european",
                 "south_asian", "west_african", "east_southern_african", "arabic_turkic",
                 "east_asian", "southeast_asian")


@dataclass(frozen=True)
class ListedName:
    """A name of the multi-origin lists: its kinds (``"first"``, ``"last"`` or both) and its
    origin group."""

    kinds: frozenset[str]
    group: str


@lru_cache(maxsize=2)
def listed_names(file: str = "vocabulary.tsv") -> dict[str, ListedName]:
    """The names of one list of :data:`NAMES_DIR`, by :func:`name_key` (a name spelt two ways
    keeps its first spelling's entry)."""
    out: dict[str, ListedName] = {}
    for name, kind, group in lexicon.listed_rows(file):
        kinds = frozenset(("first", "last") if kind == "both" else (kind,))
        out.setdefault(name_key(name), ListedName(kinds, group))
    return out


@lru_cache(maxsize=1)
def listed_spellings() -> dict[str, str]:
    """The vocabulary's spelling of each listed name, by :func:`name_key`."""
    out: dict[str, str] = {}
    for name, _, _ in lexicon.listed_rows():
        out.setdefault(name_key(name), name)
    return out


def origin_group(key: str) -> str | None:
    """The public origin group of the name ``key`` (a :func:`name_key`): its group in the
    multi-origin lists, ``"anglo"`` for a name only the census lists hold, else ``None``."""
    listed = listed_names().get(key)
    if listed is not None:
        return listed.group
    return "anglo" if lexicon_kind(key) is not None else None


def vocabulary_kind(key: str) -> str | None:
    """The kind the name lists give ``key``: :func:`lexicon_kind` (census), else
    ``"first"``/``"last"`` when the multi-origin lists hold it as only that kind, else
    ``None`` (unknown, or listed as both)."""
    kind = lexicon_kind(key)
    if kind is not None:
        return kind
    listed = listed_names().get(key)
    if listed is None or len(listed.kinds) != 1:
        return None
    return next(iter(listed.kinds))


@dataclass(frozen=True)
class NameSet:
    """The names of one kind (and origin group) of a table's vocabulary.

    Attributes:
        table: the table with the distinct rows of those names as its candidates (a name's
            row is the one its spelling looks up: its own, or the kept row spaCy points a
            pruned key at, so several names may share one row).
        names: per candidate row, the names it decodes to (a draw that decodes to a row
            becomes a uniformly random one of them: post-processing).
    """

    table: EmbeddingTable
    names: tuple[tuple[str, ...], ...]

    @property
    def words(self) -> list[str]:
        """Every name of the set."""
        return [n for row in self.names for n in row]

    def __len__(self) -> int:
        return sum(len(row) for row in self.names)


@dataclass(frozen=True)
class NameSpaces:
    """The name vocabulary of a candidate table, per kind (``"any"`` is the union of
    ``"first"`` and ``"last"``) and per origin group (:meth:`get`)."""

    table: EmbeddingTable
    by_kind: dict[str, dict[str, tuple[int, str]]]

    def __getitem__(self, kind: str) -> NameSet:
        return self.get(kind)

    def get(self, kind: str, group: str | None = None) -> NameSet:
        """The names of ``kind``, of origin ``group`` only when given (memoised). Raises
        ``KeyError`` for a group without names of that kind."""
        memo = self.__dict__.setdefault("_sets", {})
        if (kind, group) not in memo:
            picked = {name: row for name, (row, g) in self.by_kind[kind].items()
                      if group is None or g == group}
            if not picked:
                raise KeyError(f"no {kind!r} names of origin {group!r}")
            rows: dict[int, list[str]] = {}
            for name, row in sorted(picked.items()):
                rows.setdefault(row, []).append(name)
            order = sorted(rows)
            table = self.table.with_candidates(np.asarray(order),
                                               suffix=f"names:{kind}:{group or 'all'}")
            memo[(kind, group)] = NameSet(table, tuple(tuple(rows[r]) for r in order))
        return memo[(kind, group)]

    @property
    def first(self) -> NameSet:
        return self.get("first")

    @property
    def last(self) -> NameSet:
        return self.get("last")

    @property
    def any(self) -> NameSet:
        return self.get("any")


def name_spaces(table: EmbeddingTable, exclude: frozenset[str] = frozenset()) -> NameSpaces:
    """The name vocabulary of ``table`` (memoised on it).

    Two sources, both public: the census lists, whose rows are kept when the row's word is a
    real word spelled as a name (Title case; any case in an uncased table), in the rank cuts,
    and its vector points towards the mean of the most common census names
    (:data:`MIN_NAME_COSINE`); and the multi-origin lists (:func:`listed_names`), whose names
    are kept when the table has a vector for their spelling (a row's word or, in spaCy
    tables, one of the pruned keys it points at a kept row). Either way a name is left out
    when it is in ``exclude`` or, in a cased table, its lower-case spelling is a more frequent
    word of the table ("Will", "Rose"). A name's vector is the row its spelling looks up, the
    same function that gives a person target its vector (``EmbeddingTable.lookup``).

    The census lists decide for their names (a name in both, "Donald", is a first name);
    a name of the other lists is a first name when any of them holds it as one, else a
    surname. Everything here is public: the table, the
    lists and the exclusions.
    """
    memo = table.__dict__.setdefault("_name_spaces", {})
    if exclude in memo:
        return memo[exclude]
    cached = _read_cached(table, exclude)
    if cached is not None:
        memo[exclude] = NameSpaces(table, cached)
        return memo[exclude]
    cased = any(w[:1].isupper() for w in table.row_words[:5000])
    unit = table.lookup_vectors / np.linalg.norm(
        table.lookup_vectors, axis=1, keepdims=True).clip(min=1e-12)
    rows: dict[str, dict[str, int]] = {"first": {}, "last": {}}
    for row, word in enumerate(table.row_words):
        if cased and not (word[:1].isupper() and word[1:].islower()):
            continue
        if not word.isalpha():
            continue
        key = word.casefold()
        if key in exclude:
            continue
        if lexicon.is_first_name(key, FIRST_NAME_MAX_RANK):
            rows["first"].setdefault(key, row)
        if lexicon.is_surname(key, SURNAME_MAX_RANK):
            rows["last"].setdefault(key, row)
    # A surname set of surnames only: "Donald" or "Gary" read as first names.
    rows["last"] = {k: r for k, r in rows["last"].items() if k not in rows["first"]}
    centroid = _name_direction(table, unit, rows)
    # name -> (row, group) per kind; census names first, written in Title case.
    found: dict[str, dict[str, tuple[int, str]]] = {"first": {}, "last": {}}
    for kind, census in rows.items():
        for key, row in census.items():
            if unit[row] @ centroid >= MIN_NAME_COSINE and not _mainly_a_word(table, row):
                found[kind][key.title()] = (row, origin_group(key) or "anglo")
    spellings = listed_spellings()
    firsts = {n.casefold() for n in found["first"]}

    def listed_row(key: str) -> int | None:
        """The row of the listed name ``key``, or ``None`` when it is left out."""
        name = spellings[key]
        if key in exclude or not name.isalpha() or (cased and not name[:1].isupper()):
            return None
        row = table.key_to_row.get(name if cased else key)
        if row is None or (cased and _lower_is_a_word(table, name, row)):
            return None
        if table.row_words[row] == name and (unit[row] @ centroid < MIN_NAME_COSINE
                                             or _mainly_a_word(table, row)):
            return None  # a row of its own that reads as a word ("China", "January")
        return row

    census_last = {n.casefold() for n in found["last"]}
    listed = listed_names()
    for kind in ("first", "last"):
        for key, entry in listed.items():
            # The census decides for its names; a listed name of both kinds is a first name.
            if kind not in entry.kinds or key in (firsts if kind == "last" else census_last):
                continue
            row = listed_row(key)
            if row is not None:
                found[kind].setdefault(spellings[key], (row, entry.group))
                if kind == "first":
                    firsts.add(key)
    if min(len(names) for names in found.values()) < MIN_NAMES:
        raise ValueError(f"table {table.name!r} has no public name vocabulary (fewer than "
                         f"{MIN_NAMES} first names or surnames of the census lists); use "
                         "replace='word' or 'tag'")
    by_kind = dict(found, any={**found["last"], **found["first"]})
    _write_cached(table, exclude, by_kind)
    spaces = NameSpaces(table, by_kind)
    memo[exclude] = spaces
    return spaces


def _cache_path(table: EmbeddingTable, exclude: frozenset[str]) -> Path:
    """Where the name vocabulary of ``table`` (without ``exclude``) is cached: the user
    cache (:func:`textdp.tables.cache_dir`), keyed by everything it is computed from: the
    table's rows and lookup keys, the exclusions, the census and multi-origin lists, and this
    module's own code (a change to the rules is a new key)."""
    import hashlib

    from textdp.tables import cache_dir

    digest = hashlib.blake2b(digest_size=16)
    digest.update(f"{table.fingerprint()}|{len(table.key_to_row)}".encode())
    digest.update("\n".join(sorted(exclude)).encode("utf-8"))
    for file in (Path(__file__), Path(lexicon.__file__), NAMES_DIR / "vocabulary.tsv",
                 lexicon.DATA_FILE):
        digest.update(file.read_bytes())
    return cache_dir() / "names" / f"{digest.hexdigest()}.json"


def _read_cached(table: EmbeddingTable, exclude: frozenset[str]
                 ) -> dict[str, dict[str, tuple[int, str]]] | None:
    """The cached :attr:`NameSpaces.by_kind` of ``table``, or ``None`` (none, or
    unreadable: computed again)."""
    import json

    try:
        data = json.loads(_cache_path(table, exclude).read_text(encoding="utf-8"))
        return {kind: {name: (int(row), str(group)) for name, (row, group) in names.items()}
                for kind, names in data.items()}
    except (OSError, ValueError, TypeError, AttributeError):
        return None


def _write_cached(table: EmbeddingTable, exclude: frozenset[str],
                  by_kind: dict[str, dict[str, tuple[int, str]]]) -> None:
    """Cache ``by_kind`` atomically; a cache that cannot be written is no error."""
    import json

    from textdp.files import atomic_output

    path = _cache_path(table, exclude)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_output(path) as f:
            json.dump(by_kind, f, ensure_ascii=False)
    except OSError:
        return


def _lower_is_a_word(table: EmbeddingTable, name: str, row: int) -> bool:
    """Whether the lower-case spelling of ``name`` (at lookup ``row``) is a word of the table
    trained for it that comes before the name's own row, or the name has no row of its own
    ("Will", "Rose", "Bay"): such a name would often not read as one."""
    low = table.key_to_row.get(name.lower())
    if low is None or table.row_words[low] != name.lower():
        return False
    return table.row_words[row] != name or low < row


def _mainly_a_word(table: EmbeddingTable, row: int) -> bool:
    """Whether the lower-case spelling of the name at ``row`` is a word of the table that is
    more frequent than the name ("Lady", "Judge", "Corner"): tables list words by frequency,
    so a lower row comes first."""
    word = table.row_words[row]
    low = table.key_to_row.get(word.lower())
    return low is not None and table.row_words[low] == word.lower() and low < row


def _name_direction(table: EmbeddingTable, unit: np.ndarray,
                    rows: dict[str, dict[str, int]]) -> np.ndarray:
    """The unit mean direction of the most common census names present in the table."""
    common = [name for kind in ("female", "male", "last")
              for name in lexicon.ranked_names()[kind][:CENTROID_NAMES]]
    found = [rows["first"].get(n, rows["last"].get(n)) for n in common]
    picked = [r for r in found if r is not None]
    if not picked:
        raise ValueError(f"table {table.name!r} has no public name vocabulary (none of the "
                         "common census names); use replace='word' or 'tag'")
    direction = unit[picked].mean(axis=0)
    return direction / max(float(np.linalg.norm(direction)), 1e-12)
