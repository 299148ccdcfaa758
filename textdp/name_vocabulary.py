"""The public name vocabulary: which words of a candidate table are names, and of which kind.

With ``replace="name"`` person targets decode to the words of the candidate table that the
census name lists know (:func:`name_spaces`), first names to first names and surnames to
surnames. Two mentions are the same name when their :func:`name_key` agrees.

The name kind (first name, surname, either) is chosen from the census lists when the name is
in one of them (first-name lists first, :func:`lexicon_kind`), and otherwise from its position
(:func:`textdp.pipeline.draw_plan.positional_kinds`): the kind is released without noise, like
the casing class, and the guarantee holds between names of the same kind.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

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


@dataclass(frozen=True)
class NameSpaces:
    """The name vocabulary of a candidate table, per kind (each a table whose candidates are
    the kind's names; ``"any"`` is their union)."""

    first: EmbeddingTable
    last: EmbeddingTable
    any: EmbeddingTable

    def __getitem__(self, kind: str) -> EmbeddingTable:
        return getattr(self, kind)


def name_spaces(table: EmbeddingTable, exclude: frozenset[str] = frozenset()) -> NameSpaces:
    """The name vocabulary of ``table`` (memoised on it).

    A row is a name candidate when its word is a real word, is in a census list within the
    rank cuts, is spelled as a name (Title case; any case in an uncased table, such as a
    transformer's vocabulary) and its vector points towards the mean of the most common
    census names (:data:`MIN_NAME_COSINE`), and is not in ``exclude`` (lower-case words never
    written). Everything here is public: the table, the lists and the exclusions.
    """
    memo = table.__dict__.setdefault("_name_spaces", {})
    if exclude in memo:
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
    chosen = {kind: sorted(r for r in found.values()
                           if unit[r] @ centroid >= MIN_NAME_COSINE
                           and not _mainly_a_word(table, r))
              for kind, found in rows.items()}
    if min(len(rows) for rows in chosen.values()) < MIN_NAMES:
        raise ValueError(f"table {table.name!r} has no public name vocabulary (fewer than "
                         f"{MIN_NAMES} first names or surnames of the census lists); use "
                         "replace='word' or 'tag'")
    spaces = NameSpaces(
        first=table.with_candidates(np.asarray(chosen["first"]), suffix="names:first"),
        last=table.with_candidates(np.asarray(chosen["last"]), suffix="names:last"),
        any=table.with_candidates(np.asarray(sorted(set(chosen["first"]) | set(chosen["last"]))),
                                  suffix="names:any"))
    memo[exclude] = spaces
    return spaces


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
