"""The patterns of the postal codes that are read anywhere (UK postcodes, Canadian postal
codes, Irish Eircodes) and of a town line's code before its town, for the ``POSTCODE``
recogniser (:mod:`textdp.detect.postcodes`), the place lookup (:mod:`textdp.detect.places`:
the town before or after one is an address's), which that recogniser reads in turn (no
import circle), and the register (:mod:`textdp.detect.register`)."""

from __future__ import annotations

import re

# Royal Mail: outward code (area letters, district digit(s) and letter), inward code (a
# digit and two letters of ABD-HJLNP-UW-Z); GIR 0AA is Girobank's.
UK = re.compile(r"(?<![\w-])(?:GIR ?0AA|[A-PR-UWYZ](?:\d[A-HJKPSTUW\d]?|"
                r"[A-HK-Y]\d[ABEHMNPRVWXY\d]?) ?\d[ABD-HJLNP-UW-Z]{2})(?![\w-])")
# Canada Post: A1A 1A1 without D F I O Q U, and no W or Z first.
CA = re.compile(r"(?<![\w-])[ABCEGHJ-NPRSTVXY]\d[ABCEGHJ-NPRSTV-Z] ?\d[ABCEGHJ-NPRSTV-Z]\d"
                r"(?![\w-])")

# Eircode (Ireland): a routing key (a letter of A C-F H K N P R T V-Y and two digits, or
# D6W) and a unique identifier of four characters of those letters and digits; read with
# both a letter and a digit in the identifier ("A65 F4E2", "D02 X285"; not "A41 FACE").
IE = re.compile(r"(?<![\w-])(?:D6W|[AC-FHKNPRTV-Y]\d\d) ?(?=[0-9]*[AC-FHKNPRTV-Y])"
                r"(?=[AC-FHKNPRTV-Y]*[0-9])[0-9AC-FHKNPRTV-Y]{4}(?![\w-])")
#: The postal codes read anywhere, by their own pattern.
ANYWHERE = (UK, CA, IE)


def starts_with_postcode(text: str) -> bool:
    """Whether ``text`` starts with a UK postcode, a Canadian postal code or an Eircode
    (``"LS6 2AB"``, ``"M5V 2T6"``, ``"D02 X285"``): the town before one is an address's
    (``Leeds LS6 2AB``)."""
    return any(p.match(text) for p in ANYWHERE)


# The code of a town line, right before its town: 4–6 digits ("80331 München"), Poland's
# 00-590, Portugal's 1100-053, Brazil's 12345-678, Sweden's 411 38, the Netherlands' 1012 LG,
# with a country's letters before it ("D-80331", "CH-8001"); not a year, nor the last group
# of a longer number ("020 7946 0958 London": a phone's), nor a code ending the line before.
_TOWN_CODE = re.compile(r"(?<![\w.,/:$€£+-])(?<!\d[ -])(?:[A-Z]{1,2}-)?"
                        r"(?:\d{4,6}|\d\d-\d{3}|\d{4,5}-\d{3}|\d{3} \d\d|\d{4} ?[A-Z]{2})"
                        r",?[ \t]*\Z")
#: A year (1800–2199): no postal code, before or after a town.
YEAR = re.compile(r"(?:1[89]|2[01])\d\d")


def ends_with_town_code(text: str) -> bool:
    """Whether ``text`` ends with the postal code of a town line (:data:`_TOWN_CODE`): the
    place after it is that address's town (``00184 Roma``, ``00-590 Warszawa``)."""
    m = _TOWN_CODE.search(text)
    return m is not None and not YEAR.fullmatch(m.group().rstrip(", \t\n"))
