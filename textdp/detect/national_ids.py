"""National identity and tax numbers of many countries: the ``NATIONAL_ID`` recogniser.

Presidio's default English registry knows U.S. and U.K. numbers only; texts about people of
other countries carry theirs (a Canadian SIN, an Indian Aadhaar, a Brazilian CPF, a Spanish
DNI, ...). Each scheme of :data:`SCHEMES` is one written form and the python-stdnum module
that validates it (checksum, and where the number encodes one, a real birth date or region:
the issuing authority's rule, as stdnum implements it). A scheme is taken

* alone where its form and check make a match by chance rare (letters in fixed places, a
  date and a checksum, punctuation of its own: ``12345678Z``, ``RSSMRA85T10A562S``,
  ``850709-9805``, ``123.456.789-09``);
* otherwise only right after a context word of its own or a generic one (``national ID``,
  ``ID number``, ``tax ID``; :data:`CONTEXT_WINDOW` characters at most, with only
  punctuation and ``no``, ``number``, ``is``, ``card`` between), since nine or eleven bare
  digits that pass a checksum are as often an order or an account number.

Right after a generic context word (``social security number is``, ``National Insurance:``,
``EIN``, ``TIN``, ``tax ID``), any number of 6+ digits (with capitals and ``-``/``.``/space between
groups, 5–24 characters) is taken as well, checksum or not: a mistyped, foreign or generated
number (``ZZ 00 37 90 T``, ``740015-1446290``, ``47-4767403``) identifies a person as well
as a valid one, and the label says what it is.

The surrogate is drawn as for the other identifiers (:func:`textdp.detect.identifiers.surrogate`:
random digits and capitals in the value's layout), so it releases the layout (and with it the
likely country), nothing else. Nothing here logs, prints or raises the text.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache

from textdp.detect.numbers import (
    CURRENCY,
    cut_back,
    date_or_years,
    label_gap,
    labelled,
    luhn_valid,
)

NATIONAL_ID = "NATIONAL_ID"
#: How far before a value its context word may stand (characters).
CONTEXT_WINDOW = 32


@dataclass(frozen=True)
class Scheme:
    """One written form of a country's number and its validator."""

    country: str  # ISO 3166 alpha-2
    name: str
    module: str  # python-stdnum module under ``stdnum.`` ("" where ``check`` is given)
    pattern: str  # the written form (capitals, digits, separators)
    alone: bool  # taken without a context word
    words: str = ""  # its own context words (a regular expression, case-sensitive)
    check: Callable[[str], bool] | None = None  # the validator, where stdnum has none


_NRIC_WEIGHTS = (2, 7, 6, 5, 4, 3, 2)
_NRIC_LETTERS = {"S": "JZIHGFEDCBA", "T": "JZIHGFEDCBA", "F": "XWUTRQPNMLK",
                 "G": "XWUTRQPNMLK"}


def nric_valid(value: str) -> bool:
    """Whether ``value`` is a Singapore NRIC or FIN (``S1234567D``): a series letter ``S``
    or ``T`` (citizens and permanent residents, born before or from 2000) or ``F``/``G``
    (foreigners), seven digits and the check letter of their weighted sum (weights 2 7 6 5
    4 3 2, plus 4 for ``T`` and ``G``, mod 11, read in the series' letter table). The
    ``M`` series of 2022 is not checked (its table is not published with the others)."""
    if len(value) != 9 or value[0] not in _NRIC_LETTERS or not value[1:8].isdigit():
        return False
    total = sum(int(d) * w for d, w in zip(value[1:8], _NRIC_WEIGHTS))
    total += 4 if value[0] in "TG" else 0
    return value[8] == _NRIC_LETTERS[value[0]][total % 11]


def emirates_id_valid(value: str) -> bool:
    """Whether ``value`` is an Emirates ID number (``784-1987-1234567-1``): 784 (the UAE's
    ISO 3166 number), a birth year, seven digits and a Luhn check digit over all fifteen."""
    return luhn_valid(value.replace("-", ""))


SCHEMES = (
    Scheme("IT", "codice fiscale", "it.codicefiscale",
           r"[A-Z]{6}\d{2}[A-EHLMPR-T]\d{2}[A-Z]\d{3}[A-Z]", True),
    Scheme("MX", "CURP", "mx.curp", r"[A-Z]{4}\d{6}[HM][A-Z]{5}[A-Z\d]\d", True),
    Scheme("ES", "DNI", "es.dni", r"\d{8}-?[A-Z]", True),
    # with a space before the letter ("DNI 12675738 R"), only after its label
    Scheme("ES", "DNI", "es.dni", r"\d{8} [A-Z]", False, r"DNI|NIF|D\.N\.I\.?"),
    Scheme("ES", "NIE", "es.nie", r"[XYZ]-?\d{7}-?[A-Z]", True),
    Scheme("BR", "CPF", "br.cpf", r"\d{3}\.\d{3}\.\d{3}-\d{2}", True),
    Scheme("BR", "CPF", "br.cpf", r"\d{11}", False, r"CPF"),
    Scheme("CL", "RUT", "cl.rut", r"\d{1,2}\.\d{3}\.\d{3}-[\dK]", True),
    Scheme("FR", "NIR", "fr.nir",
           r"[12] ?\d{2} ?\d{2} ?(?:\d{2}|2[AB]) ?\d{3} ?\d{3} ?\d{2}", True),
    Scheme("SE", "personnummer", "se.personnummer", r"(?:19|20)?\d{6}[-+]\d{4}", True),
    Scheme("FI", "henkilötunnus", "fi.hetu", r"\d{6}[-+A-FU-Y]\d{3}[\dA-Y]", True),
    Scheme("KR", "RRN", "kr.rrn", r"\d{6}-\d{7}", True),
    Scheme("CN", "resident identity card number", "cn.ric", r"\d{17}[\dX]", True),
    Scheme("BE", "national number", "be.nn", r"\d{2}\.\d{2}\.\d{2}-\d{3}\.\d{2}", True),
    Scheme("CA", "SIN", "ca.sin", r"\d{3}[ -]?\d{3}[ -]?\d{3}", False, r"SIN|NAS"),
    Scheme("IN", "Aadhaar", "in_.aadhaar", r"[2-9]\d{3}[ -]?\d{4}[ -]?\d{4}", False,
           r"UID|UIDAI|[Aa]adhaa?r|AADHAA?R"),
    Scheme("IN", "PAN", "in_.pan", r"[A-Z]{5}\d{4}[A-Z]", False, r"PAN"),
    Scheme("NL", "BSN", "nl.bsn", r"\d{4}\.?\d{2}\.?\d{3}|\d{9}", False, r"BSN"),
    Scheme("DE", "Steuer-ID", "de.idnr", r"\d{2} ?\d{3} ?\d{3} ?\d{3}", False, r"IdNr|TIN"),
    Scheme("AU", "TFN", "au.tfn", r"\d{3} ?\d{3} ?\d{2,3}", False, r"TFN"),
    Scheme("PL", "PESEL", "pl.pesel", r"\d{11}", False, r"PESEL"),
    Scheme("DK", "CPR", "dk.cpr", r"\d{6}-?\d{4}", False, r"CPR"),
    Scheme("NO", "fødselsnummer", "no.fodselsnummer", r"\d{6} ?\d{5}", False),
    Scheme("ZA", "ID number", "za.idnr", r"\d{6} ?\d{4} ?\d{2} ?\d", False),
    Scheme("TR", "T.C. kimlik no", "tr.tckimlik", r"[1-9]\d{10}", False, r"TC|TCKN"),
    Scheme("IL", "Teudat Zehut", "il.idnr", r"\d{9}|\d{8}-\d", False),
    Scheme("RO", "CNP", "ro.cnp", r"[1-9]\d{12}", False, r"CNP"),
    Scheme("IE", "PPS number", "ie.pps", r"\d{7}[A-W][ABWTXZ]?", False, r"PPSN?"),
    Scheme("SG", "NRIC/FIN", "", r"[STFG]\d{7}[A-Z]", True, check=nric_valid),
    Scheme("AE", "Emirates ID", "", r"784-?(?:19|20)\d\d-?\d{7}-?\d", True,
           check=emirates_id_valid),
)

# Words that say a national or tax number follows, in any country's scheme.
_GENERIC = re.compile(
    r"\b(?:national\s+(?:id|identity|insurance)|identity\s+(?:card|number|no)|id\s*(?:card|"
    r"number|no)|tax\s*(?:id|file\s+number|number|code)|social\s+(?:insurance|security)|"
    r"aadhaa?r|burgerservicenummer|steuer-?id|steueridentifikationsnummer|pesel|"
    r"personnummer|henkil[öo]tunnus|hetu|f[øo]dselsnummer|kimlik|teudat\s+zehut|"
    r"codice\s+fiscale|n[uú]mero\s+de\s+(?:seguridad|identidad)|s[ée]curit[ée]\s+sociale|"
    r"insee|c[ée]dula|curp|rfc|nric|ic\s+number|ni\s+number|nino|ein|fein|tin|ppsn?|"
    r"emirates\s+id|tckn|employer\s+"
    r"identification|residence\s+card|(?-i:My\s+Number)|"
    r"personal\s+(?:id|identity|identification)\s+(?:number|no|code)|"
    # a bare "ID" in capitals, no word before it on its line ("Name: Zhang Wei⏎ID: 1101…";
    # "Patient ID", "Employee ID" are other labels' context)
    r"(?<!\w )(?<!\w)(?-i:ID))\b", re.IGNORECASE)
# (and a second label after a slash: "NRIC/FIN: S4912270E")
_GAP = re.compile(r"(?:\s*/\s*[A-Za-z]{2,5}\b)?" +
                  label_gap("no", "nr", "number", "num", "is", "was", "card", "id").pattern,
                  re.IGNORECASE)
# Any number written right after a generic context word, valid or not: 6+ digits (with
# capitals and "-", ".", space between up to eight groups: France's "2 92 11 69 123 456 78"),
# 5–24 characters. A mistyped, foreign or generated number ("ZZ 00 37 90 T",
# "740015-1446290") identifies a person as well as a valid one; the label says what it is.
_LABELLED = re.compile(r"[A-Z0-9]{1,20}(?:[-. ][A-Z0-9]{1,20}){0,7}")
_LABELLED_FENCE = re.compile(r"(?![\w/]|[.,:-]\w)")
_FENCE = (r"(?<![\w.,/:$€£+-])", r"(?![\w/]|[.,:-]\w)")


@lru_cache(maxsize=1)
def _compiled() -> tuple[tuple[Scheme, re.Pattern[str], re.Pattern[str] | None,
                               Callable[[str], bool]], ...]:
    """Each scheme with its pattern, its own context words and its validator (a stdnum
    module's ``is_valid``, imported once, on first use)."""
    out = []
    for s in SCHEMES:
        pattern = re.compile(_FENCE[0] + "(?:" + s.pattern + ")" + _FENCE[1])
        words = re.compile(r"\b(?:" + s.words + r")\b") if s.words else None
        check = s.check or importlib.import_module("stdnum." + s.module).is_valid
        out.append((s, pattern, words, check))
    return tuple(out)


def candidates(text: str) -> Iterable[tuple[int, int, str]]:
    """``(start, end, country)`` of each valid number of :data:`SCHEMES` in ``text``
    (overlaps are resolved by the caller, :func:`textdp.detect.pii.find_pii`)."""
    if sum(c.isdigit() for c in text) < 4:  # PAN: four digits
        return
    for scheme, pattern, words, check in _compiled():
        for m in pattern.finditer(text):
            if not scheme.alone and not (
                    labelled(text, m.start(), _GENERIC, CONTEXT_WINDOW, _GAP) or (
                        words is not None and
                        labelled(text, m.start(), words, CONTEXT_WINDOW, _GAP))):
                continue
            try:
                valid = check(m.group())
            except Exception:  # a validator that trips on an odd value: not a number of it
                valid = False
            if valid:
                yield m.start(), m.end(), scheme.country
    yield from _labelled_any(text)


def _labelled_any(text: str) -> Iterable[tuple[int, int, str]]:
    """``(start, end, "")`` of a number of :data:`_LABELLED`'s form right after a generic
    context word (:data:`_GENERIC`), checksum or not; not a date, years or an amount."""
    for label in _GENERIC.finditer(text):
        gap = _GAP.match(text, label.end())
        if gap is None or gap.end() == label.end():
            continue
        m = _LABELLED.match(text, gap.end())
        if m is None:
            continue
        # cut back to a group that ends the number ("12345678 A lot" keeps no "A")
        start = m.start()
        def ends_number(v: str, a: int = start) -> bool:
            return _LABELLED_FENCE.match(text, a + len(v)) is not None

        value = cut_back(m.group(), ends_number, "-. ")
        end = start + len(value)
        if sum(c.isdigit() for c in value) >= 6 and 5 <= len(value) <= 24 and \
                not _date_or_amount(text, end, value):
            yield start, end, ""


def _date_or_amount(text: str, end: int, value: str) -> bool:
    return date_or_years(value, single_year=True) or \
        text[end:end + 2].strip()[:1] in tuple(CURRENCY)


def find_national_ids(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each national or tax number of ``text``, in order, without
    overlaps (the longer first)."""
    kept: list[tuple[int, int]] = []
    for a, b, _ in sorted(candidates(text), key=lambda s: (s[0] - s[1], s[0])):
        if all(b <= x or y <= a for x, y in kept):
            kept.append((a, b))
    return sorted(kept)
