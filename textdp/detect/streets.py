"""Street addresses: the ``STREET_ADDRESS`` recogniser and its surrogate.

A house number and a street name place a person to a door: HIPAA counts a street address
among its identifiers, and Presidio's evaluation data has a label for it. Without this label
the ``quasi`` preset replaced the street's words as places or names (``19 Mill Lane`` →
``19 Malaysia``) and published the house number. A street address is taken in these forms
(a street type from the public list of ``data/street_types.txt``: USPS Publication 28's
suffixes, British and European street words):

* a house number, one to four capitalised words (or ordinals, ``5th``) and a street type
  after them, with an optional direction and unit: ``19 Mill Lane``, ``5650 Ellis Burgs
  Apt. 289``, ``1600 Pennsylvania Avenue NW``, ``Flat 4, 19 Mill Lane``;
* a house number and a type written first: ``3 rue de la Paix``;
* a type written first, the name and the number: ``Via Roma 12``, ``Canale Faggiani, 240``,
  ``ulica Konopnickiej 042``;
* a name with its type glued on and the number: ``Hauptstraße 5``, ``Björkgatan 561``,
  ``Jost-Klingelhöfer-Straße 93-15``, ``테헤란0길 831``;
* a unit in the house number's place: ``Studio 9⏎Phillips Fort``, ``H.No. 442⏎Kadakia
  Street``.

Not taken: a house number that reads as a year (1800–2099) without an address cue before
it (``at``, ``to``, ``lives``, ``address``: ``the 1979 Democracy Wall``, ``in 2019 Apple
Park``); a street with a number right after it (a score: ``Dunvant 21 Ebbw Vale 10``); a
name run holding an article or a preposition in capitals (``12 Cue The Lonely Island``).

The surrogate (:func:`surrogate`) keeps the address's layout: random digits and
letters in the number's places, the street type and unit words as written (public words of
closed lists), and in the name's place one name drawn at random from the public street names
of ``data/street_names.txt`` (in the name's case). It releases that layout (and with it the
street type and, for some types, the language), nothing of the name or the number.

Nothing here logs, prints or raises the text.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import numpy as np

from textdp.detect.wordlists import word_lines, word_sections

STREET_ADDRESS = "STREET_ADDRESS"
DATA_DIR = Path(__file__).resolve().parent / "data"

_NUM = r"\d{1,6}[A-Za-z]?(?:[-/]\d{1,4}[A-Za-z]?)?"
# A word that opens a name: a letter, not a small one of the Latin or Cyrillic alphabets
# (capitals of any Latin or Cyrillic letter, and the letters of scripts without case).
_OPEN = r"(?![a-zß-öø-ÿа-яё])[^\W\d_]"
_CAP = rf"{_OPEN}[\w'’.-]*"
# (not an article or a preposition in capitals: "12 Cue The Lonely Island" is a song)
_NAME_WORD = rf"(?!(?:The|A|An|And|Of|For|To|In|On|At|By)\b)(?:{_CAP}|\d{{1,3}}(?:st|nd|rd|th))"
_PARTICLE = r"(?:de|del|della|di|da|do|dos|das|la|le|les|du|des|von|van|der|den)"
_UNIT_WORDS = ("Apt", "Apartment", "Suite", "Ste", "Unit", "Flat", "Floor", "Fl", "Room", "Rm",
               "Bldg", "Building", "Studio", "H.No", "Piso", "Puerta", "Piano", "Appartamento",
               "Interno", "Scala", "Etage", "Whg", "к", "кв", "стр")
_UNIT = r"(?:" + "|".join(re.escape(w) for w in _UNIT_WORDS) + \
    r"|#)\.?\s?#?\s?\d{1,5}[A-Za-z]?(?:/\d{1,4})?"
# Blanks inside a street's line (a street never runs over a line break; a unit may stand on
# the line before it: "Studio 9\nPhillips Fort").
_S = r"[ \t\u00a0]+"
_DIRECTION = r"(?:N|S|E|W|NE|NW|SE|SW|North|South|East|West)\b\.?"
# Words before a house number that say an address follows ("lives at 1900 Main Street"):
# without one, a year-like number is a year ("the 1979 Democracy Wall movement").
_ADDRESS_CUE = re.compile(r"\b(?:at|to|address|addr|lives|living|located|ship|deliver|send|"
                          r"mail|visit|resides|reside|office|is)\W*$", re.IGNORECASE)
# A number after the street on its line: a score or a table ("Dunvant 21 Ebbw Vale 10"); a
# postcode on the next line is an address's ("Södingweg 990\n00339 Monschau").
_NUMBER_AFTER = re.compile(r"[ \t]+\d")
# Street types written short, with a dot ("St.", "Rd.").
_ABBREVIATIONS = frozenset({"st", "rd", "ave", "av", "dr", "ln", "ct", "blvd", "pl", "sq", "ter",
                            "hwy", "pkwy", "cres", "gdns", "cir", "trl", "brg", "expy", "aly",
                            "gr", "hts"})
# Placeholders of a layout (private-use characters: no text holds them).
_DIGIT, _CAPITAL, _SMALL, _TITLE_NAME, _UPPER_NAME = "\ue000", "\ue001", "\ue002", "\ue003", \
    "\ue004"


@lru_cache(maxsize=1)
def street_types() -> dict[str, frozenset[str]]:
    """The street types of ``data/street_types.txt`` by where they stand: ``after`` the name,
    ``before`` it, or ``glued`` to its end (lower case)."""
    return {k: v for k, v in word_sections(DATA_DIR / "street_types.txt").items() if k}


@lru_cache(maxsize=1)
def street_names() -> tuple[str, ...]:
    """The public street names of ``data/street_names.txt`` a surrogate draws from."""
    return tuple(dict.fromkeys(word_lines(DATA_DIR / "street_names.txt")))


def _alternation(words: frozenset[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


def _cased(words: frozenset[str]) -> str:
    """An alternation of ``words`` in lower case, capitalised, and in capitals when longer
    than two letters (``rue``, ``Rue``, ``VIA``; not ``BD``, a code's letters)."""
    forms = {f for w in words for f in (w, w[:1].upper() + w[1:]) if f}
    forms |= {w.upper() for w in words if len(w.rstrip(".")) > 2}
    return "|".join(re.escape(w) for w in sorted(forms, key=len, reverse=True))


@lru_cache(maxsize=1)
def _patterns() -> tuple[re.Pattern[str], ...]:
    types = street_types()
    # an abbreviation ("St.", "Rd.") takes its dot, a whole word leaves the sentence's
    abbreviations = types["after"] & _ABBREVIATIONS
    after = rf"(?=[A-Z])(?:(?i:{_alternation(abbreviations)})(?![\w'’-])\.?|" \
            rf"(?i:{_alternation(types['after'] - abbreviations)})(?![\w'’-]))"
    before = rf"(?:{_cased(types['before'])})(?![\w'’-])"
    glued = rf"(?i:{_alternation(types['glued'])})"
    fence = r"(?<![\w/.,:-])"
    end = r"(?![\w'’-]|[.,:-]?\d)"
    unit = rf"(?:,?{_S}(?P<unit2>{_UNIT}))?"
    name_run = rf"(?:(?:{_NAME_WORD}|{_PARTICLE}){_S}){{0,3}}{_NAME_WORD}"
    return (
        # 19 Mill Lane / Flat 4, 19 Mill Lane / 5650 Ellis Burgs Apt. 289 / 1600 … Avenue NW
        re.compile(rf"{fence}(?:(?P<unit1>{_UNIT}),?\s+)?(?P<num>{_NUM}),?{_S}"
                   rf"(?P<name>(?:{_NAME_WORD}{_S}){{0,3}}?{_NAME_WORD}){_S}(?P<type>{after})"
                   rf"(?:{_S}(?P<dir>{_DIRECTION}))?{unit}" + r"(?![\w'’-])"),
        # 3 rue de la Paix
        re.compile(rf"{fence}(?P<num>{_NUM}),?{_S}(?P<type>{before}){_S}(?P<name>{name_run})"
                   r"(?![\w'’-])"),
        # Via Roma 12 / Canale Faggiani, 240 / ulica Konopnickiej 042
        re.compile(rf"(?<![\w-])(?P<type>{before}){_S}(?P<name>{name_run}),?{_S}"
                   rf"(?:д\.\s*)?(?P<num>{_NUM}){unit}{end}"),
        # Hauptstraße 5 / Björkgatan 561 / Jost-Klingelhöfer-Straße 93-15
        re.compile(rf"(?<![\w-])(?P<name>{_OPEN}[\w'’-]*?)(?P<type>{glued}){_S}"
                   rf"(?P<num>{_NUM}){unit}{end}"),
        # Studio 9, Phillips Fort / H.No. 442 Kadakia Street: a unit in the number's place
        re.compile(rf"{fence}(?P<unit1>{_UNIT}),?\s+"
                   rf"(?P<name>(?:{_NAME_WORD}{_S}){{0,3}}?{_NAME_WORD}){_S}(?P<type>{after})"
                   r"(?![\w'’-])"),
    )


def _not_an_address(text: str, m: re.Match[str]) -> bool:
    """A year-like house number without an address cue before it, or a number right after
    the street (see :data:`_ADDRESS_CUE`, :data:`_NUMBER_AFTER`)."""
    if _NUMBER_AFTER.match(text, m.end()):
        return True
    num = m.groupdict().get("num")
    return num is not None and bool(re.fullmatch(r"1[89]\d\d|20\d\d", num)) and \
        _ADDRESS_CUE.search(text, max(0, m.start() - 16), m.start()) is None


def find_streets(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each street address of ``text`` (see the module doc), in order,
    without overlaps (the longer first)."""
    if not any(c.isdigit() for c in text):
        return []
    found = [(m.start(), m.end()) for p in _patterns() for m in p.finditer(text)
             if not _not_an_address(text, m)]
    kept: list[tuple[int, int]] = []
    for a, b in sorted(found, key=lambda s: (s[0] - s[1], s[0])):
        if all(b <= x or y <= a for x, y in kept):
            kept.append((a, b))
    return sorted(kept)


def layout(value: str) -> str:
    """What a surrogate of the street address ``value`` may depend on: each digit and letter
    of its numbers as a placeholder, its name as one placeholder (title case or capitals),
    the street type, unit words, directions and separators as written. A value no pattern
    reads whole is all placeholders and separators."""
    for p in _patterns():
        m = p.fullmatch(value)
        if m is not None:
            break
    else:
        return _number_layout(value)
    out, pos = [], 0
    spans = sorted((m.start(g), m.end(g), g) for g in m.re.groupindex if m.start(g) >= 0)
    for a, b, group in spans:
        out.append(value[pos:a])
        piece = value[a:b]
        if group == "name":  # ("Jost-Klingelhöfer-" before a glued "Straße": its hyphen)
            out.append((_UPPER_NAME if piece.isupper() else _TITLE_NAME) +
                       ("-" if piece.endswith("-") else ""))
        elif group in ("num", "unit1", "unit2"):
            out.append(_number_layout(piece))
        else:  # the street type, a direction: public words of closed lists
            out.append(piece)
        pos = b
    out.append(value[pos:])
    return "".join(out)


def _number_layout(piece: str) -> str:
    """A number's (or a unit's) digits and letters as placeholders, the unit word (``Apt``,
    ``Flat``: a closed list) as written."""
    unit = re.match("(?:" + "|".join(re.escape(w) for w in _UNIT_WORDS) + r")(?![^\W\d_])",
                    piece)
    head = unit.group() if unit else ""
    rest = piece[len(head):]
    return head + "".join(_DIGIT if c.isdigit() else _CAPITAL if c.isupper() else
                          _SMALL if c.isalpha() else c for c in rest)


def surrogate(layout_: str, rng: np.random.Generator) -> str:
    """A street address of ``layout_`` (:func:`layout`) drawn from ``rng``: random digits (a
    number's first not ``0``) and letters, a random public street name."""
    names = street_names()
    out, first = [], True
    for c in layout_:
        if c == _DIGIT:
            out.append(str(int(rng.integers(1 if first else 0, 10))))
            first = False
            continue
        first = first or not c.isalnum()
        if c == _CAPITAL:
            out.append(chr(65 + int(rng.integers(26))))
        elif c == _SMALL:
            out.append(chr(97 + int(rng.integers(26))))
        elif c in (_TITLE_NAME, _UPPER_NAME):
            name = names[int(rng.integers(len(names)))]
            out.append(name.upper() if c == _UPPER_NAME else name)
        else:
            out.append(c)
    return "".join(out)
