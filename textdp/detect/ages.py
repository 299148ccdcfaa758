"""Ages of people in text: the ``AGE`` recogniser, and an age written back with a new value
(the DP noise is :mod:`textdp.quasi`'s).

What is read (a whole number of years, 0–120, as the expression's one number):

* after the number: ``67 y/o``, ``67yo``, ``67-y/o``, ``67 y.o.``, ``67-year-old``,
  ``67 years old``, ``67 yrs old``, ``67 year old``, ``67 years of age``;
* before it: ``aged 34``, ``age 34``, ``age: 52``, ``Age - 52``;
* an age stated with a pronoun or a kin word: ``She's 34 and lives in Leeds``, ``I am 25!``,
  ``my grandma is 92 and``, ``my dad turned 70 last week`` (the clause ends or goes on with
  ``and``, ``but`` or a time word after the number: not ``he is 5 minutes away``, ``I'm 6
  foot``);
* the same with the number spelt out, 1–99 and a hundred (``a forty-year-old man``, ``aged
  sixty``, ``she is ninety-two and``), written back spelt out;
* a clinical note's age and sex glued together: ``34M``, ``34F`` (two digits and a capital;
  not after a currency sign or another number: ``$34M``, ``2M`` are amounts), ``34yo M``,
  or joined by a slash: ``67/M``, ``F/34`` (capitals and two digits; ``3/4`` is a
  fraction).

A number of years that is not a person's age (``a 30-year mortgage``, ``5 years ago``) is not
read. The match covers the whole expression; only its number is rewritten. Nothing here logs,
prints or raises the text.
"""

from __future__ import annotations

import re

AGE = "AGE"
#: The ages read and written (inclusive): a released age is clamped to it.
AGE_RANGE = (0, 120)

_AFTER = re.compile(r"(?<![\w$€£.,])(?P<n>\d{1,3})(?:(?:[\s-]?(?:y/o|y\.o\.|yo)|\s?yrs?\.?\s+old|"
                    r"\s?years?\s+old|-?years?-old|-yr-old|\s(?:years?|yrs?)\s+of\s+age)"
                    r"(?:\s?(?P<sex>[MF]))?"
                    r"|(?P<sex2>[MF]))(?![\w/])", re.IGNORECASE)
# Age and sex with a slash, as clinical notes write them: "67/M", "F/34" (capitals, two
# digits: "3/4" is a fraction or a date).
_SLASHED = re.compile(r"(?<![\w/])(?:(?P<n>\d{2})/[MF]|[MF]/(?P<n2>\d{2}))(?![\w/])")
_BEFORE = re.compile(r"(?<!\w)(?:aged|age)\s*(?:[:=-]\s*)?(?P<n>\d{1,3})(?![\w.,]\d|\w)",
                     re.IGNORECASE)


# An age a person states or is said to be: "She's 34 and lives in Leeds", "I am 25!", "my
# dad turned 70 last week", "he'll be 40 in May": a pronoun or a kin word and
# "is"/"am"/"was", or "turned", before the number, and the clause's end (or "and", "but", a
# time word) after it, so "he is 5 minutes away" and "I'm 6 foot" are no ages.
_STATED = re.compile(
    r"(?<!\w)(?:(?:i|he|she|they|you|u|"
    # a kin word for a pronoun ("my grandma is 92 and", "our son turned 5 today")
    r"grandma|grandpa|grandmother|grandfather|granny|nan|mum|mom|mother|dad|father|son|"
    r"daughter|brother|sister|wife|husband|baby|kid|child|aunt|uncle)"
    r"\s*(?:['’](?:s|m|re|ll\s+be)|\s+(?:is|am|are|was|"
    r"were|will\s+be))(?:\s+(?:just|now|only|almost|nearly|turning))?|"
    r"(?:turned|turns|turning))\s+(?P<n>\d{1,3})"
    r"(?=\s*(?:[.,!?;)]|$)|\s+(?:and|but|now|today|tomorrow|yesterday|next|last|this|in|on)"
    r"\b)", re.IGNORECASE)
_PATTERNS = (_AFTER, _BEFORE, _SLASHED, _STATED)

# Ages written in words, 1–99 and a hundred ("a forty-year-old man", "aged sixty", "she is
# ninety-two and"): the same expressions with the number spelt out.
_ONES = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_TEENS = ("ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen",
          "seventeen", "eighteen", "nineteen")
_TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_WORDS = (rf"(?:(?:{'|'.join(_TENS)})(?:[- ](?:{'|'.join(_ONES)}))?|{'|'.join(_TEENS)}|"
          rf"{'|'.join(_ONES)}|(?:a|one)\s+hundred)")
_SPELLED = tuple(re.compile(pattern.format(w=rf"(?P<w>{_WORDS})"), re.IGNORECASE) for pattern in (
    r"(?<![\w-]){w}(?:-years?-old|\s+years?\s+old|\s+years\s+of\s+age)(?![\w-])",
    r"(?<!\w)aged\s+{w}(?![\w-])",
    _STATED.pattern.replace(r"(?P<n>\d{1,3})", "{w}")))


def _from_words(words: str) -> int:
    """The number a spelt-out age names (``ninety-two`` → 92, ``a hundred`` → 100)."""
    parts = re.split(r"[- ]+", words.casefold())
    if parts[-1] == "hundred":
        return 100
    value = 0
    for part in parts:
        for table, base in ((_ONES, 1), (_TEENS, 10), (_TENS, 20)):
            if part in table:
                value += base + table.index(part) * (10 if table is _TENS else 1)
    return value


def spelt(age: int, like: str = "") -> str:
    """``age`` spelt out in the writing of ``like`` (its capital, its hyphen; by default
    lower case and hyphenated: ``ninety-two``)."""
    if age >= 100:
        out = "a hundred"
    elif age < 10:
        out = _ONES[age - 1] if age else "zero"
    elif age < 20:
        out = _TEENS[age - 10]
    else:
        out = _TENS[age // 10 - 2] + (("-" if "-" in like or " " not in like else " ") +
                                      _ONES[age % 10 - 1] if age % 10 else "")
    return out[:1].upper() + out[1:] if like[:1].isupper() else out


def _number(m: re.Match[str]) -> str:
    """The name of the group that holds the match's number."""
    return next(g for g in ("n2", "w", "n") if m.groupdict().get(g))


def _value(m: re.Match[str]) -> int:
    n = _number(m)
    return _from_words(m.group(n)) if n == "w" else int(m.group(n))


def _ok(m: re.Match[str]) -> bool:
    if m.groupdict().get("sex2") and (m.group("sex2") not in "MF" or len(m.group("n")) != 2):
        return False  # glued sex: capitals and two digits only (2M, 150M are counts)
    return AGE_RANGE[0] <= _value(m) <= AGE_RANGE[1]


def find_ages(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each age expression of ``text`` (see the module doc), in order."""
    patterns = (*(_PATTERNS if any(c.isdigit() for c in text) else ()), *_SPELLED)
    found = [(m.start(), m.end()) for p in patterns for m in p.finditer(text) if _ok(m)]
    kept: list[tuple[int, int]] = []
    for a, b in sorted(found, key=lambda s: (s[0] - s[1], s[0])):
        if all(b <= x or y <= a for x, y in kept):
            kept.append((a, b))
    return sorted(kept)


def parse(value: str) -> tuple[int, int, int] | None:
    """``(age, start, end)`` of the number in a whole age expression, or ``None``."""
    for pattern in (*_PATTERNS, *_SPELLED):
        m = pattern.fullmatch(value)
        if m is not None and _ok(m):
            n = _number(m)
            return _value(m), m.start(n), m.end(n)
    return None


def rewrite(value: str, age: int) -> str | None:
    """``value`` with its number replaced by ``age``; ``None`` if it is not an age."""
    parsed = parse(value)
    if parsed is None:
        return None
    _, a, b = parsed
    number = value[a:b]
    written = str(int(age)) if number.isdigit() else spelt(int(age), number)
    return f"{value[:a]}{written}{value[b:]}"
