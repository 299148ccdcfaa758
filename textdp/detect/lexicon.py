"""A public name lexicon: the US Census 1990 first-name and surname lists.

The lists ship in the package (``data/census_names.tsv.gz``; source, licence and format in
``data/LICENSE_NAMES.md``): 4,275 female and 1,219 male first names and 88,799 surnames,
lower-cased, each with its rank in its list (1 = most frequent). They are public data, so
using them to recognise names takes nothing from the text being privatized.

The file is read on first use and cached per process; every function takes an optional
``max_rank`` that cuts a list's rare tail (the tail of the first-name lists holds ordinary
words that a few people bear as names: ``love``, ``golden``, ``man``).

    >>> is_first_name("Julia"), is_surname("smith"), split_full_name("johnsmith")
    (True, True, ('john', 'smith'))
"""

from __future__ import annotations

import functools
import gzip
from pathlib import Path
from typing import NamedTuple

DATA_FILE = Path(__file__).resolve().parent / "data" / "census_names.tsv.gz"
#: The multi-origin public name lists (Faker's per-locale lists, MIT;
#: ``textdp/data/names/LICENSE.md``): ``vocabulary.tsv``, the names substitutes are drawn
#: from and detection knows, and ``held_apart.tsv``, a tenth kept for evaluation only.
NAMES_DIR = Path(__file__).resolve().parents[1] / "data" / "names"
LISTS = ("female", "male", "last")


class NameEntry(NamedTuple):
    """One row of a census list: the lower-cased name, its share of the 1990 sample in
    percent (three decimals, so many surnames read 0.0), and its rank in its list."""

    name: str
    percent: float
    rank: int


@functools.lru_cache(maxsize=1)
def _columns() -> tuple[list[str], list[str], list[str], list[str]]:
    """The data rows as four columns of strings: list, name, percent, rank (file order, which
    is rank order within each list). The whole file is cut with one ``split`` (one call per
    line took ~0.4 s CPU on a quiet core, 1-2 s on a loaded one, at every start-up)."""
    with gzip.open(DATA_FILE, "rt", encoding="utf-8") as f:
        lines = [line for line in f.read().split("\n") if line and not line.startswith("#")]
    fields = "\t".join(lines).split("\t")
    if len(fields) != 4 * len(lines):
        raise ValueError(f"{DATA_FILE.name}: every data row must have 4 tab-separated fields")
    return fields[0::4], fields[1::4], fields[2::4], fields[3::4]


def _rows() -> list[list[str]]:
    """The data rows as ``[list, name, percent, rank]`` strings."""
    return [list(row) for row in zip(*_columns())]


@functools.lru_cache(maxsize=1)
def census_lists() -> dict[str, tuple[NameEntry, ...]]:
    """The three lists (``"female"``, ``"male"``, ``"last"``), each in rank order."""
    lists: dict[str, list[NameEntry]] = {kind: [] for kind in LISTS}
    for kind, name, percent, rank in zip(*_columns()):
        lists[kind].append(NameEntry(name, float(percent), int(rank)))
    return {kind: tuple(rows) for kind, rows in lists.items()}


@functools.lru_cache(maxsize=1)
def ranked_names() -> dict[str, tuple[str, ...]]:
    """The names of each list (``"female"``, ``"male"``, ``"last"``) in rank order, without
    building :func:`census_lists`' 94k entries (what start-up needs: the most common names)."""
    lists: dict[str, list[str]] = {kind: [] for kind in LISTS}
    kinds, names, _percent, _rank = _columns()
    for kind, name in zip(kinds, names):
        lists[kind].append(name)
    return {kind: tuple(rows) for kind, rows in lists.items()}


@functools.lru_cache(maxsize=1)
def _ranks() -> dict[str, dict[str, int]]:
    """Name → rank per list (first names: the better rank of the female and male lists).
    Read straight from the file's columns: the detectors need only these."""
    first: dict[str, int] = {}
    last: dict[str, int] = {}
    kinds, names, _percent, ranks = _columns()
    for kind, name, rank in zip(kinds, names, map(int, ranks)):
        if kind == "last":
            last[name] = rank
        elif rank < first.get(name, rank + 1):
            first[name] = rank
    return {"first": first, "last": last}


@functools.lru_cache(maxsize=16)
def first_names(max_rank: int | None = None) -> frozenset[str]:
    """Lower-cased first names (female and male), those ranked ``max_rank`` or better in
    either list when given."""
    ranks = _ranks()["first"]
    if max_rank is None:
        return frozenset(ranks)
    return frozenset(name for name, rank in ranks.items() if rank <= max_rank)


@functools.lru_cache(maxsize=16)
def surnames(max_rank: int | None = None) -> frozenset[str]:
    """Lower-cased surnames, those ranked ``max_rank`` or better when given."""
    ranks = _ranks()["last"]
    if max_rank is None:
        return frozenset(ranks)
    return frozenset(name for name, rank in ranks.items() if rank <= max_rank)


def first_name_rank(word: str) -> int | None:
    """The best rank of ``word`` (any case) in the female and male lists, or ``None``."""
    return _ranks()["first"].get(word.casefold())


def surname_rank(word: str) -> int | None:
    """The rank of ``word`` (any case) in the surname list, or ``None``."""
    return _ranks()["last"].get(word.casefold())


def is_first_name(word: str, max_rank: int | None = None) -> bool:
    """Whether ``word`` (any case) is a first name of the lexicon (ranked ``max_rank`` or
    better when given)."""
    rank = first_name_rank(word)
    return rank is not None and (max_rank is None or rank <= max_rank)


def is_surname(word: str, max_rank: int | None = None) -> bool:
    """Whether ``word`` (any case) is a surname of the lexicon (ranked ``max_rank`` or
    better when given)."""
    rank = surname_rank(word)
    return rank is not None and (max_rank is None or rank <= max_rank)


@functools.lru_cache(maxsize=2)
def listed_rows(file: str = "vocabulary.tsv") -> tuple[tuple[str, str, str], ...]:
    """The rows of one multi-origin list of :data:`NAMES_DIR`: ``(name, kind, group)``, kind
    ``first``, ``last`` or ``both`` (read once; :mod:`textdp.name_vocabulary` builds on
    them)."""
    text = (NAMES_DIR / file).read_text(encoding="utf-8")
    return tuple(tuple(line.split("\t")) for line in text.splitlines()  # type: ignore[misc]
                 if line and not line.startswith("#"))


@functools.lru_cache(maxsize=1)
def _vocabulary_names() -> frozenset[str]:
    return frozenset(name.casefold() for name, _, _ in listed_rows())


@functools.lru_cache(maxsize=1)
def vocabulary_first_names() -> frozenset[str]:
    """The first names of the multi-origin list (kind ``first`` or ``both``, lower case):
    ``camila``, ``chiamaka``, ``seo-yeon``, which the census lists lack or rank low."""
    return frozenset(name.casefold() for name, kind, _ in listed_rows()
                     if kind in ("first", "both"))


def is_listed_name(word: str, surname_rank: int | None = 20000) -> bool:
    """Whether ``word`` (any case) is a name a person bears by a public list: a census first
    name (any rank), a census surname ranked ``surname_rank`` or better, or a name of the
    multi-origin vocabulary (:func:`listed_rows`: ``Okonkwo``, ``Saoirse``, ``Priya``,
    which the census lists lack). The census surnames' tail holds ordinary words (``rash``,
    ``given``, ``nurse``), hence the cut."""
    low = word.casefold()
    return is_first_name(low) or is_surname(low, surname_rank) or low in _vocabulary_names()


def split_full_name(word: str, *, first_rank: int | None = None,
                    surname_rank_limit: int | None = None, min_first: int = 3,
                    min_surname: int = 3) -> tuple[str, str] | None:
    """A run-together full name split into first name + surname (``"johnsmith"`` →
    ``("john", "smith")``), or ``None`` when no split has both halves in the lexicon.

    Args:
        word: the run-together word (any case; the halves come back lower-cased).
        first_rank: rank cut for the first name (see :func:`first_names`).
        surname_rank_limit: rank cut for the surname (see :func:`surnames`).
        min_first: fewest letters of the first name.
        min_surname: fewest letters of the surname.

    The longest first name wins (``"annabelle..."`` before ``"anna..."``), so a name that
    begins with a shorter one is read whole.
    """
    low = word.casefold()
    firsts = first_names(first_rank)
    lasts = surnames(surname_rank_limit)
    for cut in range(len(low) - min_surname, min_first - 1, -1):
        if low[:cut] in firsts and low[cut:] in lasts:
            return low[:cut], low[cut:]
    return None
