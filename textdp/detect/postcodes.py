"""Postal codes: the ``POSTCODE`` recogniser and its layout-keeping surrogate.

A full postcode narrows a person to a street or a few dozen households (a UK unit postcode
covers about 15 addresses; a U.S. ZIP code, birth date and sex single out most Americans:
Sweeney, 2000), so the ``quasi`` preset replaces it. What is read:

* a UK postcode, in capitals, with or without its space (``SW1A 1AA``, ``M1 1AE``,
  ``B338TH``): outward code and inward code by Royal Mail's pattern (the inward letters never
  ``C I K M O V``), anywhere;
* a Canadian postal code (``K1A 0B1``): Canada Post's letter-digit pattern (no ``D F I O Q
  U``, no ``W Z`` first), anywhere;
* an Irish Eircode (``D02 X285``, ``A65 F4E2``): a routing key and a unique identifier of
  Eircode's letters and digits, with both a letter and a digit in it, anywhere;
* a U.S. ZIP code (``62704``, ``20500-0003``) after a state's two-letter code (``IL 62704``,
  ``DC 20500``, as an address's last line writes it), and an Australian postcode after a
  state's or territory's code (``QLD 4000``, ``NSW 2000``);
* a code of 3–10 digits and capitals (at least three digits, optionally one space or ``-``
  inside: ``10115``, ``1012 AB``, ``1100-053``, ``01310-100``) right after ``postcode``,
  ``post code``, ``postal code``, ``zip``/``zip code``, ``PLZ``, ``CEP``, ``CP``/``C.P.``,
  ``código postal``, ``code postal``, ``Eircode``, ``우편번호``, ``郵便番号``, ``〒``, ``邮编`` or
  ``PIN code`` (only punctuation between), or, with four digits or more, before a city of the
  place lookup (:func:`textdp.detect.places.lookup_names`) where the continent writes it so
  (``10115 Berlin``, ``1100-053 Lisboa``, ``75008 Paris``);
* five or six digits right after a city or country of the place lookup (``Singapore
  560123``, ``Bengaluru 560087``), not a year;
* on the town line of a street address, a code beside a capitalised town or ending its line
  (:func:`_after_street`), not a group of a longer number (a phone's).

Not read: a bare five-digit number (an amount, a count, a ZIP the reader cannot tell), a year
before a city ("1990 Berlin"). The surrogate keeps the layout and draws every character anew
(:func:`textdp.detect.identifiers.surrogate`): it releases the layout, and so the format's
country, nothing else. Nothing here logs, prints or raises the text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from textdp.detect.numbers import label_gap, labelled
from textdp.detect.postal_formats import ANYWHERE, YEAR
from textdp.detect.streets import NAME_OPENING, find_streets

POSTCODE = "POSTCODE"

_US_STATES = ("AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO "
              "MT NE NV NH NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY PR "
              # territories, freely associated states and the military "states" (USPS)
              "AS FM GU MH MP PW VI AA AE AP")
#: The USPS codes of the states, territories and military "states".
US_STATE_CODES = frozenset(_US_STATES.split())
#: A U.S. ZIP code, five digits and optionally ``-`` and four more (ZIP+4).
ZIP_CODE = re.compile(r"\d{5}(?:-\d{4})?")
_ZIP = re.compile(r"(?<![\w-])(?:" + "|".join(_US_STATES.split()) +
                  r")\.?,? (?P<zip>" + ZIP_CODE.pattern + r")(?![\w-]|[.,]\d)")
# Australia Post: four digits after a state's or territory's code ("Brisbane QLD 4000").
_AU = re.compile(r"(?<![\w-])(?:NSW|QLD|VIC|TAS|SA|WA|ACT|NT)\.?,? (?P<zip>\d{4})"
                 r"(?![\w-]|[.,]\d)")
_CODE = re.compile(r"(?<![\w.,/:$€£-])(?=(?:[A-Z]*[ -]?[A-Z]*\d){3})[A-Z0-9]{2,8}"
                   r"(?:[ -][A-Z0-9]{2,4})?(?![\w/]|[.,:-]\w)")
_CONTEXT = re.compile(r"\b(?:post(?:al)?\s*code|zip(?:\s*code)?|plz|cep|pin\s*code|cp|"
                      r"c[oó]digo\s+postal|code\s+postal|eircode)\b|\bc\.\s?p\.|우편번호|"
                      r"郵便番号|〒|邮编|邮政编码", re.IGNORECASE)
_GAP = label_gap("no", "is")
_CITY_AFTER = re.compile(r" ([A-Z][\w'’.-]*(?: [A-Z][\w'’.-]*){0,2})")
#: How far before a code its label may stand (characters).
WINDOW = 24


# A city's or country's name and a code of five or six digits after it ("Singapore 560123",
# "Bengaluru 560087").
_CITY_CODE = re.compile(r"(?<![\w'’.-])" + NAME_OPENING +
                        r"[\w'’.-]*,? (\d{5,6})(?![\w/-]|[.,:]\d| \d)")


def _after_city(text: str) -> list[tuple[int, int]]:
    """Codes of five or six digits right after a city or country of the place lookup
    (``Singapore 560123``, ``Lagos 106104``); not a year."""
    from textdp.detect.places import lookup_names

    names = lookup_names()
    out = []
    for m in _CITY_CODE.finditer(text):
        word = m.group().rsplit(" ", 1)[0].rstrip(",")
        if names.get(word) in ("city", "town", "country") and not YEAR.fullmatch(m.group(1)):
            out.append((m.start(1), m.end(1)))
    return out


def _before_city(text: str, end: int, value: str) -> bool:
    """Whether a city (or town) of the place lookup follows the code ``value`` ending at
    ``end`` (``10115 Berlin``); a code of fewer than four digits (``300 Paris buses``) or a
    year (``1990 Berlin``) never counts."""
    from textdp.detect.places import lookup_names

    if YEAR.fullmatch(value) or sum(c.isdigit() for c in value) < 4:
        return False
    m = _CITY_AFTER.match(text, end)
    if m is None:
        return False
    names = lookup_names()
    words = m.group(1).split(" ")
    return any(names.get(" ".join(words[:k]).rstrip(".,")) in ("city", "town")
               for k in range(len(words), 0, -1))


# (a town's capital may be of any alphabet with case: "Örebro", "Łaziska", "Żagań")
_TOWN_BEFORE = re.compile(NAME_OPENING + r"[\w'’.-]*(?:,? |-)$")
# (a town may open with a particle: "33422-730 da Conceição", "75001 la Défense")
_TOWN_AFTER = re.compile(r",? (?:(?:da|de|do|dos|das|di|du|la|le|el|les|los) )?" +
                         NAME_OPENING)
# A code of an address's town line: 4–6 digits (a "-" may join it to its town:
# "Hospet-436687"), Poland's 12-345, Brazil's 12345-678 (or 12345678), the Netherlands'
# 1234 AB; not a group of a longer number ("(215) 847-3390", "0809 223 4471": a phone's).
_DIGITS_CODE = re.compile(r"(?<![\w.,/:$€£])(?<!\d[ -])"
                          r"(?:\d{4,6}|\d\d-\d{3}|\d{5}-?\d{3}|\d{4} ?[A-Z]{2})"
                          r"(?![\w/-]|[.,:]\d| \d)")


def _after_street(text: str, streets: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """Bare codes of 4–6 digits in the rest of a street address's line or on the two lines
    after it (``Södingweg 990\n00339 Monschau``, ``58, Maharaj Marg\nBhopal 160285``,
    ``64/697, Venkatesh Road, Coimbatore 378991``, a Brazilian neighbourhood's line between:
    ``Rua X, 19\nVila Satélite\n33422-730 Conceição``): the town line of an address, whose
    town the place lookup may not know; not a year."""
    out = []
    for _, b in streets:
        stop = b - 1
        for _ in range(3):  # the end of the street's line, then of the two after it
            stop = text.find("\n", stop + 1)
            if stop < 0:
                stop = len(text)
                break
        out += [(m.start(), m.end()) for m in _DIGITS_CODE.finditer(text, b, stop)
                if not YEAR.fullmatch(m.group()) and _beside_town(text, m.start(), m.end())]
    return out


def _beside_town(text: str, start: int, end: int) -> bool:
    """Whether a capitalised word (the town) stands right before or after the code, with a
    space, a comma or ``-`` between ("54009 Neunburg", "Coimbatore 378991", "Hospet-436687",
    "Segovia, 45188"), or the code ends its line ("1992GI"), not "4500 people"."""
    return bool(_TOWN_BEFORE.search(text[max(0, start - 40):start]) or
                _TOWN_AFTER.match(text, end) or text[end:end + 1] in ("\n", ""))


def find_postcodes(text: str, streets: Sequence[tuple[int, int]] | None = None
                   ) -> list[tuple[int, int]]:
    """``(start, end)`` of each postcode of ``text`` (see the module doc), in order, without
    overlaps (the longer first). ``streets``: the street addresses of ``text``
    (:func:`textdp.detect.streets.find_streets`) when the caller has them already."""
    if not any(c.isdigit() for c in text):
        return []
    found = [(m.start(), m.end()) for p in ANYWHERE for m in p.finditer(text)]
    found += [(m.start("zip"), m.end("zip")) for p in (_ZIP, _AU) for m in p.finditer(text)]
    for m in _CODE.finditer(text):
        if labelled(text, m.start(), _CONTEXT, WINDOW, _GAP) or \
                _before_city(text, m.end(), m.group()):
            found.append((m.start(), m.end()))
    if streets is None:
        streets = find_streets(text)
    found += _after_street(text, streets)
    found += _after_city(text)
    kept: list[tuple[int, int]] = []
    for a, b in sorted(found, key=lambda s: (s[0] - s[1], s[0])):
        if all(b <= x or y <= a for x, y in kept):
            kept.append((a, b))
    return sorted(kept)
