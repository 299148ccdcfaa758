"""Facts about numbers that several recognisers share: the Luhn checksum, the forms of a
numeric date and a year, the currency signs before an amount, and a number's label right
before it. Kept apart so the recognisers of :mod:`textdp.detect.pii`,
:mod:`textdp.detect.identifiers`, :mod:`textdp.detect.national_ids` and
:mod:`textdp.detect.postcodes` read them from one place without importing each other."""

from __future__ import annotations

import re
from collections.abc import Callable

#: Numeric dates a number recogniser leaves alone: 2021-03-04, 2021.03.04, 04-03-2021,
#: 04.03.2021 (and with spaces).
DATE_FORM = re.compile(r"^(?:\d{4}[-. ]\d{1,2}[-. ]\d{1,2}|"
                       r"\d{1,2}[-. ]\d{1,2}[-. ]\d{2}(?:\d{2})?)$")
#: A year of the twentieth or twenty-first century.
YEAR = re.compile(r"^(?:19|20)\d\d$")
#: Currency signs: a number after (or before) one is an amount.
CURRENCY = "$£€¥₹"


def date_or_years(value: str, *, single_year: bool = False) -> bool:
    """Whether a number is a date (``2021-03-04``, ``04 03 2021``) or a list of years
    (``2019-2021``; with ``single_year`` one year alone too)."""
    groups = re.findall(r"\d+", value)
    return bool(DATE_FORM.match(value)) or (len(groups) > (0 if single_year else 1) and
                                            all(YEAR.match(g) for g in groups))


def cut_back(value: str, fits: Callable[[str], bool], seps: str = " -") -> str:
    """The longest of ``value`` and its prefixes that end before one of ``seps`` for which
    ``fits`` holds, or ``""``: a pattern of grouped characters that ran into the next word
    or number ("4111 1111 1111 1111 05/28", "SJ-910-BS 2", "12345678 A lot") is cut back a
    group at a time."""
    while value:
        if fits(value):
            return value
        cut = max(value.rfind(c) for c in seps)
        value = value[:cut] if cut > 0 else ""
    return ""


def label_gap(*words: str) -> re.Pattern[str]:
    """What may stand between a number's label and the number: punctuation, ``words`` ("MRN:
    ", "Medical record number is ", "call me at "), an opening bracket (``SIN (506 779 891``,
    ``PAN card (VXQPT9098Y)``) and the quotes of a JSON key and value (``"mobile": "``,
    ``'user_id': '``) and the end of an XML tag (``<mrn>00482913</mrn>``), so a label reads
    the same in prose, in brackets, in JSON and in XML; a closing bracket after a label in
    brackets (``Tax ID (TIN): 12-3456789``)."""
    punct = r"[\s:：#=.\-\"'()\[\]>]*"
    return re.compile(punct + r"(?:(?:" + "|".join(words) + r")\b" + punct + r")*",
                      re.IGNORECASE)


def labelled(text: str, start: int, label: re.Pattern[str], window: int,
             gap: re.Pattern[str]) -> bool:
    """Whether a match of ``label`` ends right before ``start``: the last one within
    ``window`` characters, with only ``gap`` (:func:`label_gap`) between it and ``start``
    ("MRN: 00482913", not "MRN verified, total 2003")."""
    found = list(label.finditer(text, max(0, start - window), start))
    return bool(found) and gap.fullmatch(text, found[-1].end(), start) is not None


def luhn_valid(digits: str) -> bool:
    """Whether a string of decimal digits passes the Luhn checksum (ISO/IEC 7812-1)."""
    if not digits or not digits.isdigit():
        return False
    total = 0
    for i, c in enumerate(reversed(digits)):
        x = ord(c) - 48
        if i % 2:
            x = x * 2 - 9 if x > 4 else x * 2
        total += x
    return total % 10 == 0


def luhn_complete(body: str) -> str:
    """``body`` with the check digit appended that makes it Luhn-valid."""
    for d in "0123456789":
        if luhn_valid(body + d):
            return body + d
    raise AssertionError("unreachable: one check digit always fits")
