"""Calendar dates in text: the ``DATE`` recogniser, and each date written back shifted by a
number of days in its own style (the DP offset is :mod:`textdp.quasi`'s).

What is read (years 1800–2199; a day that does not exist in its month is not a date):

* numeric, year first: ``1962-03-04``, ``1962/03/04``, ``1962.03.04`` (ISO 8601 order), also
  with a time after it (``1962-03-04T10:30``: the date part is taken);
* Chinese, Japanese and Korean, year, month and day each with its unit: ``1962年3月4日``,
  ``1962년 3월 4일`` (written back unpadded unless the original shows a padding zero);
* numeric, year last, with ``/``: month first (``3/4/1962``, ``03/04/62``, the U.S. order)
  unless the first number exceeds 12, then day first (``25/03/1962``);
* numeric, year last, with ``.`` or ``-``: day first (``04.03.1962``, ``4-3-1962``, the
  European order) unless the second number exceeds 12, then month first;
* written: ``March 4, 1962``, ``Mar. 4th 1962``, ``4 March 1962``, ``4th of Mar 1962``,
  ``04-MAR-1962``, ``March 1962`` (a month and year: read as its 15th, written back as a
  month and year), each optionally after a weekday (``Monday, March 4, 1962``), which is
  written back as the shifted date's weekday;
* written in French, Spanish, Portuguese, Italian, German or Dutch, day first: ``3 mars
  1962``, ``1er mai 1962``, ``3 de marzo de 1962``, ``3. März 1962``, ``3 maart 1962``
  (full month names, :data:`INTL_MONTHS`), written back in the same language;
* two-digit years, with ``/`` only (``03/04/62``; ``1.2.30`` is a version), are read
  1931–2030 (``31``–``99`` → 19xx, ``00``–``30`` → 20xx) and written back with two digits.

* a month and a day without a year, the month capitalised (``March 4``, ``Mar. 4th``,
  ``4 March``, ``4th of March``, ``Tue, Mar 4``): read in the leap year 2000 (so
  ``February 29`` is a date; a shift across the end of February of another year may land a
  day off) and written back without a year, a weekday moved by the same number of days.

A year alone (``in 1962``), times and relative dates (``last Tuesday``) are not read, nor a
month and day in lower case (``may 5``, ``march 3 miles``: words more often). The ambiguous
numeric forms follow the rules above; a day-first date written with ``/`` and a day of 12 or
less is read month first (and so shifted as that date, and written back in that order).

The style of a date is what :func:`shift` keeps: its order (year, month, day), separators,
year digits, month form (number, full name or abbreviation, with or without a dot, its
casing), ordinal suffix and weekday. Numbers are written back zero-padded to two digits when
the date is numeric, unpadded in written dates, so the output's layout depends on the style
only, not on the value. Nothing here logs, prints or raises the text.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, timedelta

import numpy as np

DATE = "DATE"
#: A date right after a birth cue ("DOB: 03/04/1962"): an identifier of the ``pii`` preset,
#: replaced by a random date in its style (:func:`birth_surrogate`); under ``quasi`` the
#: ``DATE`` label (a DP shift) wins over it.
DATE_OF_BIRTH = "DATE_OF_BIRTH"
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
           "september", "october", "november", "december")
_ABBR = {m[:3]: i + 1 for i, m in enumerate(MONTHS)}
_ABBR["sept"] = 9
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_MONTH = (r"(?P<month>(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|"
          r"aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?)")
# The month of a date without a year: a full name takes no dot (a sentence's full stop
# follows "on 3rd of March."), an abbreviation may.
_MONTH_ALONE = (r"(?P<month>(?:january|february|march|april|may|june|july|august|september|"
                r"october|november|december)|(?:jan|feb|mar|apr|may|jun|jul|aug|sept?|"
                r"oct|nov|dec)\.?)")
#: Month names of other languages that write the day first (``3 mars 1990``, ``3 de marzo de
#: 1990``, ``3. März 1990``), in the order a name shared by two of them is read: with ``de``
#: between day and month Spanish then Portuguese, else French, Italian, German, Dutch.
INTL_MONTHS: dict[str, tuple[str, ...]] = {
    "es": ("enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto",
           "septiembre", "octubre", "noviembre", "diciembre"),
    "pt": ("janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto",
           "setembro", "outubro", "novembro", "dezembro"),
    "fr": ("janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août",
           "septembre", "octobre", "novembre", "décembre"),
    "it": ("gennaio", "febbraio", "marzo", "aprile", "maggio", "giugno", "luglio", "agosto",
           "settembre", "ottobre", "novembre", "dicembre"),
    "de": ("januar", "februar", "märz", "april", "mai", "juni", "juli", "august",
           "september", "oktober", "november", "dezember"),
    "nl": ("januari", "februari", "maart", "april", "mei", "juni", "juli", "augustus",
           "september", "oktober", "november", "december"),
}
# Other spellings of a month, with their language and number.
_INTL_ALIASES = {"setiembre": ("es", 9), "jänner": ("de", 1), "maerz": ("de", 3)}
_INTL_WORDS = sorted({w for names in INTL_MONTHS.values() for w in names} | set(_INTL_ALIASES),
                     key=len, reverse=True)
_WEEKDAY = (r"(?:(?P<weekday>(?:mon|tue|wed|thu|fri|sat|sun)(?:day|sday|nesday|rsday|urday)?"
            r"\.?),?\s+)?")
_DAY = r"(?P<day>[0-3]?\d)(?P<suffix>st|nd|rd|th)?"
_YEAR = r"(?P<year>1[89]\d\d|2[01]\d\d)"
_CAPITAL = r"(?=(?-i:[A-Z]))"  # the next letter is a capital, whatever the pattern's flags
_B = r"(?<![\w/.-])"  # no letter, digit or separator of another number before
_E = r"(?![\w/]|[.-]\d)"
_PATTERNS = (
    # ISO order, with an optional time after it
    ("ymd", re.compile(_B + r"(?P<year>1[89]\d\d|2[01]\d\d)(?P<sep>[-/.])(?P<month>[01]?\d)"
                       r"(?P=sep)(?P<day>[0-3]?\d)(?![\w/]|[.-]\d|T?\d)|" + _B +
                       r"(?P<year2>1[89]\d\d|2[01]\d\d)-(?P<month2>[01]\d)-(?P<day2>[0-3]\d)"
                       r"(?=T\d)")),
    ("num", re.compile(_B + r"(?P<a>[0-3]?\d)(?:(?P<sep>[-.])(?P<b>[0-3]?\d)(?P=sep)"
                       r"(?P<year>\d{4})|(?P<slash>/)(?P<b2>[0-3]?\d)/(?P<year3>\d{4}|\d{2}))"
                       + _E)),
    ("mdy", re.compile(r"(?<![\w])" + _WEEKDAY + _MONTH + r"\s+" + _DAY + r",?\s+" + _YEAR
                       + r"(?!\w)", re.IGNORECASE)),
    ("dmy", re.compile(r"(?<![\w])" + _WEEKDAY + _DAY + r"(?P<of>\s+of)?(?P<sep>\s+|-)" + _MONTH
                       + r"(?P<sep2>,?\s+|-)" + _YEAR + r"(?!\w)", re.IGNORECASE)),
    ("my", re.compile(r"(?<![\w])" + _MONTH + r",?\s+" + _YEAR + r"(?!\w)", re.IGNORECASE)),
    # other languages, day first: "3 mars 1990", "3 de marzo de 1990", "3. März 1990",
    # "1er mai 1990"
    ("intl", re.compile(r"(?<![\w.])(?P<day>[0-3]?\d)(?P<suffix>er|º|°|\.)?(?P<sep>\s+de\s+|\s+)"
                        r"(?P<month>" + "|".join(_INTL_WORDS) + r")(?P<sep2>,?\s+de\s+|,?\s+)"
                        + _YEAR + r"(?!\w)", re.IGNORECASE)),
    # Chinese, Japanese and Korean: year, month and day, each followed by its unit
    ("cjk", re.compile(r"(?<!\d)" + _YEAR + r"(?P<s1>\s?)(?P<u1>年|년)(?P<s2>\s?)"
                       r"(?P<month>[01]?\d)(?P<s3>\s?)(?P<u2>月|월)(?P<s4>\s?)"
                       r"(?P<day>[0-3]?\d)(?P<s5>\s?)(?P<u3>日|일)")),
    # without a year: the month capitalised ("may 5", "march 3 miles" are words)
    ("md", re.compile(r"(?<![\w])" + _WEEKDAY + _CAPITAL + _MONTH_ALONE + r"\s+" + _DAY
                      + r"(?!\w|[.,:/-]\d)", re.IGNORECASE)),
    ("dm", re.compile(r"(?<![\w$€£.,/-])" + _WEEKDAY + _DAY + r"(?P<of>\s+of)?(?P<sep>\s+)"
                      + _CAPITAL + _MONTH_ALONE + r"(?!\w)", re.IGNORECASE)),
)
#: Kinds read without a year: read in the leap year 2000 (so February 29 is a date) and
#: written back without one.
_NO_YEAR = ("md", "dm")


@dataclass(frozen=True)
class DateMatch:
    """A date at ``[start, end)`` of a text (offsets only: no text)."""

    start: int
    end: int


def _valid(y: int, m: int, d: int) -> bool:
    return 1800 <= y <= 2199 and 1 <= m <= 12 and 1 <= d <= calendar.monthrange(y, m)[1]


def _year(text: str) -> int:
    y = int(text)
    return y if len(text) == 4 else (1900 + y if y > 30 else 2000 + y)


def _month(name: str) -> int:
    key = name.rstrip(".").lower()
    return _ABBR.get(key[:4] if key.startswith("sept") else key[:3], 0)


def _reading(kind: str, m: re.Match[str]) -> tuple[int, int, int, str] | None:
    """``(year, month, day, order)`` of a match, or ``None`` if it is not a date."""
    g = m.groupdict()
    if kind == "cjk":
        y, mo, d = int(g["year"]), int(g["month"]), int(g["day"])
        return (y, mo, d, "ymd") if _valid(y, mo, d) else None
    if kind == "ymd":
        if g.get("year2"):
            y, mo, d = int(g["year2"]), int(g["month2"]), int(g["day2"])
        else:
            y, mo, d = int(g["year"]), int(g["month"]), int(g["day"])
        return (y, mo, d, "ymd") if _valid(y, mo, d) else None
    if kind == "num":
        slash = bool(g["slash"])
        a, b = int(g["a"]), int(g["b2"] if slash else g["b"])
        y = _year(g["year3"] if slash else g["year"])
        month_first = slash
        if month_first and a > 12:
            month_first = False
        elif not month_first and b > 12:
            month_first = True
        mo, d = (a, b) if month_first else (b, a)
        return (y, mo, d, "mdy" if month_first else "dmy") if _valid(y, mo, d) else None
    if kind == "intl":
        y, mo, d = int(g["year"]), _intl_month(g["month"], g["sep"])[1], int(g["day"])
        return (y, mo, d, "dmy") if _valid(y, mo, d) else None
    mo = _month(g["month"])
    y = 2000 if kind in _NO_YEAR else int(g["year"])
    d = int(g["day"]) if kind != "my" else 15
    return (y, mo, d, kind) if _valid(y, mo, d) else None


def find_dates(text: str) -> list[DateMatch]:
    """The dates of ``text`` (see the module doc), in text order, without overlaps (the
    longer match first)."""
    if not any(c.isdigit() for c in text):
        return []
    found = []
    for kind, pattern in _PATTERNS:
        for m in pattern.finditer(text):
            if _reading(kind, m) is not None:
                found.append((m.start(), m.end()))
    kept: list[tuple[int, int]] = []
    for a, b in sorted(found, key=lambda s: (s[0] - s[1], s[0])):
        if all(b <= x or y <= a for x, y in kept):
            kept.append((a, b))
    return [DateMatch(a, b) for a, b in sorted(kept)]


def parse(value: str) -> tuple[date, re.Match[str], str] | None:
    """The date a whole ``value`` reads as, with its match and kind, or ``None``."""
    for kind, pattern in _PATTERNS:
        m = pattern.fullmatch(value.strip())
        if m is not None:
            reading = _reading(kind, m)
            if reading is not None:
                y, mo, d, _ = reading
                return date(y, mo, d), m, kind
    return None


def _intl_month(word: str, sep: str) -> tuple[str, int]:
    """The language and number of a month name of :data:`INTL_MONTHS` (``sep``: what stands
    between day and month; ``de`` there says Spanish or Portuguese)."""
    key = word.lower()
    if key in _INTL_ALIASES:
        return _INTL_ALIASES[key]
    order = ("es", "pt", "fr", "it", "de", "nl") if "de" in sep.lower() else \
        ("fr", "it", "de", "nl", "es", "pt")
    lang = next(x for x in order if key in INTL_MONTHS[x])
    return lang, INTL_MONTHS[lang].index(key) + 1


def _month_name(new: int, written: str) -> str:
    """Month ``new`` in the form ``written`` had: full name or three-letter abbreviation (with
    its dot), in its casing."""
    stem = written.rstrip(".")
    full = MONTHS[new - 1]
    # "May." with its dot is the abbreviation's form: written back "Aug.", not "August"
    was_full = stem.lower() == MONTHS[_month(stem) - 1] and not written.endswith(".")
    name = full if was_full else full[:3]
    return _case(name, stem) + ("." if written.endswith(".") and not was_full else "")


def _case(word: str, like: str) -> str:
    if like.isupper() and len(like) > 1:
        return word.upper()
    if like[:1].isupper():
        return word.capitalize()
    return word.lower()


def _weekday(day: date, written: str | None, days: int | None = None) -> str:
    """The weekday of ``day`` in the form ``written`` had; with ``days``, the written
    weekday moved by that many days instead (a date without a year has no weekday of its
    own)."""
    if not written:
        return ""
    stem = written.rstrip(".")
    if days is None:
        full = WEEKDAYS[day.weekday()]
    else:
        old = next(i for i, w in enumerate(WEEKDAYS) if w.startswith(stem.lower()[:3]))
        full = WEEKDAYS[(old + days) % 7]
    name = full if len(stem) > 3 else full[:3]
    return _case(name, stem) + ("." if written.endswith(".") else "")


def _ordinal(day: int) -> str:
    return "th" if 11 <= day % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")


def shift(value: str, days: int) -> str | None:
    """``value`` (a whole date, see :func:`parse`) moved by ``days`` and written in its own
    style; ``None`` if it does not read as a date or the result leaves years 1800–2199
    (or 1931–2030 for a two-digit year)."""
    parsed = parse(value)
    if parsed is None:
        return None
    old, m, kind = parsed
    new = old + timedelta(days=int(days))
    if kind not in _NO_YEAR and not 1800 <= new.year <= 2199:
        return None
    g = m.groupdict()
    lead = value[:len(value) - len(value.lstrip())]
    tail = value[len(value.rstrip()):]
    if kind == "cjk":
        # zero-padded where the original shows a padding zero ("1984年06月09日")
        pad = "02d" if g["month"].startswith("0") or g["day"].startswith("0") else "d"
        return (f"{lead}{new.year}{g['s1']}{g['u1']}{g['s2']}{new.month:{pad}}{g['s3']}"
                f"{g['u2']}{g['s4']}{new.day:{pad}}{g['s5']}{g['u3']}{tail}")
    if kind == "intl":
        lang = _intl_month(g["month"], g["sep"])[0]
        month = g["month"] if new.month == old.month else \
            _case(INTL_MONTHS[lang][new.month - 1], g["month"])  # (an alias kept: setiembre)
        # a dot after the day is German's ordinal; French writes the first of a month "1er"
        padded = g["day"].startswith("0")
        suffix = "." if g["suffix"] == "." else (
            "er" if lang == "fr" and new.day == 1 and not padded else
            ("º" if g["suffix"] in ("º", "°") else ""))
        day = f"{new.day:02d}" if padded else f"{new.day}"
        return f"{lead}{day}{suffix}{g['sep']}{month}{g['sep2']}{new.year}{tail}"
    if kind == "ymd":
        if g.get("year2"):
            return f"{lead}{new.year:04d}-{new.month:02d}-{new.day:02d}{tail}"
        sep = g["sep"]
        return f"{lead}{new.year:04d}{sep}{new.month:02d}{sep}{new.day:02d}{tail}"
    if kind == "num":
        _, _, _, order = _reading(kind, m)  # type: ignore[misc]
        sep, year = (g["slash"], g["year3"]) if g["slash"] else (g["sep"], g["year"])
        if len(year) == 2:
            if not 1931 <= new.year <= 2030:
                return None
            y = f"{new.year % 100:02d}"
        else:
            y = f"{new.year:04d}"
        first, second = (new.month, new.day) if order == "mdy" else (new.day, new.month)
        return f"{lead}{first:02d}{sep}{second:02d}{sep}{y}{tail}"
    weekday = _weekday(new, g.get("weekday"), int(days) if kind in _NO_YEAR else None)
    prefix = ""
    if weekday:
        # the weekday and what followed it up to the month or day (", " or " ")
        start = m.start("month") if kind in ("mdy", "md") else m.start("day")
        between = m.group(0)[m.end("weekday") - m.start(0):start - m.start(0)]
        prefix = weekday + between
    month = _month_name(new.month, g["month"])
    if kind == "my":
        between = m.group(0)[m.end("month") - m.start(0):m.start("year") - m.start(0)]
        return f"{lead}{month}{between}{new.year}{tail}"
    suffix = _ordinal(new.day) if g.get("suffix") else ""
    if g.get("suffix") and g["suffix"].isupper():
        suffix = suffix.upper()
    day = f"{new.day}{suffix}"
    if kind == "md":
        between = m.group(0)[m.end("month") - m.start(0):m.start("day") - m.start(0)]
        return f"{lead}{prefix}{month}{between}{day}{tail}"
    if kind == "dm":
        return f"{lead}{prefix}{day}{g.get('of') or ''}{g['sep']}{month}{tail}"
    if kind == "mdy":
        between = m.group(0)[m.end("month") - m.start(0):m.start("day") - m.start(0)]
        comma = m.group(0)[m.end("suffix" if g.get("suffix") else "day") - m.start(0):
                           m.start("year") - m.start(0)]
        return f"{lead}{prefix}{month}{between}{day}{comma}{new.year}{tail}"
    day = f"{new.day:02d}{suffix}" if g["sep"] == "-" else day  # 04-MAR-1962
    of = g.get("of") or ""
    return f"{lead}{prefix}{day}{of}{g['sep']}{month}{g['sep2']}{new.year}{tail}"


# Words that say a date of birth follows ("DOB: ", "born on ", "date of birth is ", an XML
# tag's "<dob>").
# A birthplace between a cue and its date: "born in Rome on", "Nata a Roma il", "né(e) à
# Lyon le", "geboren in Köln am": one to four capitalised words (and particles).
_BIRTHPLACE = (r"(?:\s+(?:in|at|a|à|en|em|na|no)\s+(?-i:[A-ZÀ-Þ][\w'’.-]*)"
               r"(?:\s+(?-i:[A-ZÀ-Þ][\w'’.-]*|de|del|da|do|di|la|le|am|an|upon))"
               r"{0,3},?)?")
_BIRTH_CUE = re.compile(
    r"(?:\bDOB|\bD\.O\.B\.?|\bdate[\s_]+of[\s_]+birth|\bbirth[\s_]*date|\bbirthday|"
    r"\bborn" + _BIRTHPLACE + r"(?:\s+on)?|\bgeb\.|\bgeboren" + _BIRTHPLACE + r"(?:\s+am)?|"
    r"\bn[ée]e?(?:\(e\))?" + _BIRTHPLACE + r"\s+le|"
    r"\b(?-i:[Nn]at[oa])" + _BIRTHPLACE + r"\s+il|\bnacid[oa]" + _BIRTHPLACE + r"\s+el|"
    r"\bnascid[oa]" + _BIRTHPLACE + r"\s+(?:em|a)|\bfecha\s+de\s+nacimiento|"
    r"\bdata\s+di\s+nascita|\bdata\s+de\s+nascimento|\bdate\s+de\s+naissance|"
    r"\bgeburtsdatum|\bgeboortedatum|\bdata\s+urodzenia|\bfödelsedatum|\bfødselsdato|"
    r"\bsyntymäaika|\bdoğum\s+tarihi|\bngày\s+sinh|\btanggal\s+lahir|出生日期|生年月日|"
    r"생년월일)[\s:#=.\-\"'：>]*(?:(?:is|was|on)\s+)?$",
    re.IGNORECASE)
#: The date every birth-date layout is written at (a day above 12: the order of day and
#: month stays readable).
_LAYOUT_DATE = date(2000, 1, 28)
#: The dates a birth-date surrogate is drawn from, uniformly (two-digit years stay readable).
_BIRTH_RANGE = (date(1931, 1, 1), date(2009, 12, 31))


def find_births(text: str) -> list[DateMatch]:
    """The dates of ``text`` right after a birth cue (``DOB``, ``date of birth``, ``born
    on``, ``birthday``, ``geb.``, ``née le``, ...; punctuation and ``is``/``was``/``on``
    between), also with a birthplace between (``born in Rome on``, ``nata a Roma il``,
    ``né(e) à Lyon le``, ``geboren in Köln am``), the cue within 48 characters."""
    return [m for m in find_dates(text)
            if _BIRTH_CUE.search(text[max(0, m.start - 48):m.start])]


def birth_layout(value: str) -> str | None:
    """The style of a date: ``value`` written at the fixed date ``2000-01-28`` (its order,
    separators, month names and case, weekday and ordinal kept), nothing of its own day."""
    parsed = parse(value)
    return None if parsed is None else shift(value, (_LAYOUT_DATE - parsed[0]).days)


def birth_surrogate(layout: str, rng: np.random.Generator) -> str:
    """A date drawn uniformly from 1931–2009, written in ``layout``'s style
    (:func:`birth_layout`): it depends on the style only."""
    first, last = _BIRTH_RANGE
    drawn = first + timedelta(days=int(rng.integers((last - first).days + 1)))
    return shift(layout, (drawn - _LAYOUT_DATE).days) or layout
