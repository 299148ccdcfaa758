"""A labelled dev sample for the PII recognisers, generated with a fixed seed, and its check.

    textdp evaluate pii                                  # 60 values per label, seed 0
    textdp evaluate pii --per-label 200 --seed 1

Issue 36 asks that ≤ 1 % of identifier values per label survive verbatim and that ≤ 1 % of
ordinary numbers and words be taken for one. This module builds the sample for that check
(values of many countries and formats, each in a sentence; see :func:`positives`) and the
ordinary numbers a recogniser must leave alone (dates, amounts, order numbers, years and
ranges, times, versions, measurements, ISBNs, capitalised words; :func:`negatives`), runs them
through ``Privatizer(targets=IDENTIFIER_LABELS)`` (the ``pii`` preset without names) and
prints per label

* ``verbatim``: the share of values found unchanged in the output;
* ``partial``: the share whose output still holds one of the value's runs of 5+ digits or
  letters-and-digits (a value cut short by the recogniser);

and the share of ordinary items that no longer appear unchanged (``taken``). Values are
generated, not real people's: random digits in each country's published format, made valid
with the format's own checksum (libphonenumber's numbering plans for phones, python-stdnum
for IBANs, SSNs, ITINs, NHS numbers). A dev sample: the issue's held-out check is another
data set.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

# Regions whose phone numbers are drawn (libphonenumber's example numbers, last digits
# randomised and kept only when still valid).
PHONE_REGIONS = ("US", "CA", "GB", "DE", "FR", "IN", "BR", "JP", "ES", "IT", "NL", "AU", "MX",
                 "CN", "RU", "ZA", "NG", "KR", "SE", "CH", "PL", "IE", "BE", "AT", "SG", "AR")
IBAN_COUNTRIES = ("DE", "GB", "FR", "ES", "IT", "NL", "BE", "CH", "AT", "PL", "SE", "IE", "PT",
                  "NO", "DK", "FI", "LU", "CZ", "HU", "RO", "GR", "TR", "SA", "AE", "BR")

TEMPLATES: dict[str, tuple[str, ...]] = {
    "PHONE": ("Call me on {} tomorrow.", "Her number is {}.", "Reach the office at {} or by "
              "mail.", "Phone: {}", "He left {} as a contact."),
    "CREDIT_CARD": ("Card {} was charged.", "Please use {} for the deposit.",
                    "Payment by {}, expiring soon."),
    "IBAN": ("Transfer the fee to {} by Friday.", "IBAN: {}", "Account {} was credited."),
    "US_SSN": ("SSN {} on file.", "Her social security number is {}.", "Applicant {} signed."),
    "US_ITIN": ("ITIN {} was issued.", "Taxpayer ID {} is pending.", "Filed under {} last year."),
    "UK_NHS": ("NHS number {} registered.", "Patient NHS no. {} attended.",
               "His NHS number is {}."),
    "UK_NINO": ("NI number {} on the payslip.", "National Insurance: {}.",
                "Employee {} joined."),
    "CRYPTO": ("Send it to {} please.", "Wallet {} received funds.", "Donations: {}"),
    "EMAIL": ("Write to {} today.", "Contact: {}"),
    "URL": ("See {} for details.", "Profile at {}"),
    "IP": ("Login from {} failed.", "Server {} is down."),
    "HANDLE": ("Follow {} for updates.", "Ping {} on chat."),
    "US_PASSPORT": ("Passport number {} was scanned.", "Her US passport {} expires soon.",
                    "passport # {}", "Travelling on passport no. {} today."),
    "PASSPORT": ("Her German passport {} expires in May.", "Passport no. {} (Canada).",
                 "Travelling on Indian passport {} today.", "passport number: {}"),
    "UK_SORT_CODE": ("Sort code {}, account on file.", "Pay to sort code: {} please.",
                     "S/C {} (Barclays)", "sort-code {} was changed."),
    "US_DRIVER_LICENSE": ("Driver's license {} was suspended.", "DL# {}",
                          "His driving licence number is {}.", "License no. {} (CDL)."),
    "US_BANK_NUMBER": ("Checking account {} is overdrawn.", "Acct {} at First Bank.",
                       "Wire it to account number {} today.", "Savings a/c {} was closed."),
    "MEDICAL_LICENSE": ("Prescriber DEA {} signed.", "DEA number: {}", "{} is on the script.",
                        "Prescribed under DEA# {}."),
    "MAC_ADDRESS": ("Device {} joined the network.", "MAC: {}", "Blocked {} at the router."),
    "MEDICAL_RECORD": ("MRN {} admitted to ward 4.", "MRN: {}", "Patient ID {} was merged.",
                       "Medical record number {} is on the label.", "Chart # {} reviewed.",
                       "Pt ID: {}, seen today."),
}

NPI_TEMPLATES = ("Provider NPI {} billed.", "NPI: {}", "Her national provider id is {}.")


@dataclass(frozen=True)
class Item:
    """A sentence and the value in it (``label`` ``None``: an ordinary item to keep)."""

    text: str
    value: str
    label: str | None
    kind: str


def _d(rng: np.random.Generator, n: int) -> str:
    return "".join(str(x) for x in rng.integers(0, 10, size=n))


def _pick(rng: np.random.Generator, seq):
    return seq[int(rng.integers(len(seq)))]


def _luhn(body: str) -> str:
    from textdp.detect.pii import luhn_complete

    return luhn_complete(body)


def phone(rng: np.random.Generator) -> str:
    """A valid number of a random region in a random format (international, national,
    E.164)."""
    import phonenumbers as pn

    types = (pn.PhoneNumberType.FIXED_LINE, pn.PhoneNumberType.MOBILE)
    while True:
        region = _pick(rng, PHONE_REGIONS)
        example = pn.example_number_for_type(region, _pick(rng, types))
        if example is None:
            continue
        national = str(example.national_number)
        keep = max(2, len(national) - 4)
        candidate = pn.PhoneNumber(country_code=example.country_code,
                                   national_number=int(national[:keep] + _d(rng, len(national)
                                                                             - keep)))
        if not pn.is_valid_number(candidate):
            continue
        fmt = _pick(rng, (pn.PhoneNumberFormat.INTERNATIONAL, pn.PhoneNumberFormat.NATIONAL,
                          pn.PhoneNumberFormat.E164))
        return pn.format_number(candidate, fmt)


def card(rng: np.random.Generator) -> str:
    net = int(rng.integers(5))
    if net == 0:  # Amex, 4-6-5
        digits = _luhn(_pick(rng, ("34", "37")) + _d(rng, 12))
        return _pick(rng, (f"{digits[:4]} {digits[4:10]} {digits[10:]}", digits))
    prefix = ("4", "5" + str(int(rng.integers(1, 6))), "6011", "35")[net - 1]
    digits = _luhn(prefix + _d(rng, 15 - len(prefix)))
    sep = _pick(rng, (" ", "-", ""))
    return sep.join(digits[i:i + 4] for i in range(0, 16, 4))


def iban(rng: np.random.Generator) -> str:
    from stdnum import iban as stdiban

    country = _pick(rng, IBAN_COUNTRIES)
    spec = stdiban._ibandb.info(country)[0][1]["bban"]
    alphabet = {"n": "0123456789", "a": "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
                "c": "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"}
    while True:  # until the national check digits (ES, FR, BE, ...) fit too
        bban = "".join(_pick(rng, alphabet[k])
                       for count, k in re.findall(r"(\d+)!([nac])", spec)
                       for _ in range(int(count)))
        number = country + stdiban.calc_check_digits(country + "00" + bban) + bban
        if stdiban.is_valid(number):
            break
    if rng.random() < 0.5:
        return " ".join(number[i:i + 4] for i in range(0, len(number), 4))
    return number


def ssn(rng: np.random.Generator) -> str:
    from stdnum.us import ssn as stdssn

    while True:
        digits = _d(rng, 9)
        if stdssn.is_valid(digits):
            return _pick(rng, (f"{digits[:3]}-{digits[3:5]}-{digits[5:]}",
                               f"{digits[:3]} {digits[3:5]} {digits[5:]}"))


def itin(rng: np.random.Generator) -> str:
    from stdnum.us import itin as stditin

    while True:
        digits = "9" + _d(rng, 8)
        if stditin.is_valid(digits):
            return f"{digits[:3]}-{digits[3:5]}-{digits[5:]}"


def nhs(rng: np.random.Generator) -> str:
    while True:
        body = _d(rng, 9)
        check = 11 - sum(int(x) * (10 - i) for i, x in enumerate(body)) % 11
        if check != 10 and body[0] != "0":
            d = body + str(check % 11)
            return _pick(rng, (f"{d[:3]} {d[3:6]} {d[6:]}", d, f"{d[:3]}-{d[3:6]}-{d[6:]}"))


def nino(rng: np.random.Generator) -> str:
    from textdp.detect.pii import is_nino

    while True:
        letters = "ABCEGHJKLMNPRSTWXYZ"
        value = (_pick(rng, letters) + _pick(rng, letters) + _d(rng, 6)
                 + _pick(rng, "ABCD"))
        if is_nino(value):
            if rng.random() < 0.5:
                return f"{value[:2]} {value[2:4]} {value[4:6]} {value[6:8]} {value[8]}"
            return value


_B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_B32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"


def _bech32_address(program: bytes) -> str:
    gen = (0x3B6A57B2, 0x26508E6D, 0x1EA119FA, 0x3D4233DD, 0x2A1462B3)

    def polymod(values):
        chk = 1
        for v in values:
            top = chk >> 25
            chk = (chk & 0x1FFFFFF) << 5 ^ v
            for i in range(5):
                chk ^= gen[i] if (top >> i) & 1 else 0
        return chk

    acc, bits, data = 0, 0, [0]  # witness version 0
    for b in program:
        acc, bits = (acc << 8) | b, bits + 8
        while bits >= 5:
            bits -= 5
            data.append((acc >> bits) & 31)
    if bits:
        data.append((acc << (5 - bits)) & 31)
    hrp = [ord(c) >> 5 for c in "bc"] + [0] + [ord(c) & 31 for c in "bc"]
    mod = polymod([*hrp, *data, 0, 0, 0, 0, 0, 0]) ^ 1
    return "bc1" + "".join(_B32[d] for d in data) + "".join(
        _B32[(mod >> 5 * (5 - i)) & 31] for i in range(6))


def crypto(rng: np.random.Generator) -> str:
    payload = bytes(int(b) for b in rng.integers(0, 256, size=20))
    kind = int(rng.integers(4))
    if kind == 3:  # Ethereum, as wallets print it (mixed case) or lower case
        digits = payload.hex()
        return "0x" + (digits if rng.random() < 0.5 else "".join(
            c.upper() if c.isalpha() and rng.random() < 0.5 else c for c in digits))
    if kind == 2:
        return _bech32_address(payload)
    data = bytes([0 if kind == 0 else 5]) + payload
    data += hashlib.sha256(hashlib.sha256(data).digest()).digest()[:4]
    value, out = int.from_bytes(data, "big"), ""
    while value:
        value, r = divmod(value, 58)
        out = _B58[r] + out
    return "1" * (len(data) - len(data.lstrip(b"\0"))) + out


def email(rng: np.random.Generator) -> str:
    user = _pick(rng, ("maria.lopez", "j.smith", "kowalski_p", "li.wei", "a.o'neil"))
    return f"{user}{int(rng.integers(100))}@{_pick(rng, ('mail.com', 'corp.co.uk', 'uni.de'))}"


def url(rng: np.random.Generator) -> str:
    return f"https://{_pick(rng, ('social', 'blog', 'files'))}.example{int(rng.integers(99))}.com" \
        f"/u/{_d(rng, 6)}"


def ip(rng: np.random.Generator) -> str:
    if rng.random() < 0.7:
        return ".".join(str(int(x)) for x in rng.integers(1, 255, size=4))
    return "2001:db8:" + ":".join(f"{int(x):x}" for x in rng.integers(1, 65535, size=3)) + "::1"


def handle(rng: np.random.Generator) -> str:
    return "@" + _pick(rng, ("anna", "jsmith", "kowal", "liwei")) + _d(rng, 3)


def passport(rng: np.random.Generator) -> str:
    """A US passport number: nine digits, or a letter and eight digits (next generation)."""
    return _d(rng, 9) if rng.random() < 0.5 else _pick(rng, "ACEFGHJKLMNPRSTUVWXYZ") + _d(rng, 8)


# Passport number formats of other countries (L a letter, D a digit, X either, other
# characters as they are; ICAO Doc 9303 allows up to nine): Germany (C and eight letters
# or digits), Canada, Brazil (two letters, six digits), France, Japan, Spain, India.
_PASSPORT_FORMATS = ("CXXXXXXXX", "LLDDDDDD", "LDDDDDDD", "DDLLDDDDD", "LLDDDDDDD", "LLLDDDDDD",
                     "LDDDDDD")


def foreign_passport(rng: np.random.Generator) -> str:
    """A passport number of another country's format: two digits and a letter at least,
    never the U.S. book's letter and eight digits."""
    fmt = _pick(rng, _PASSPORT_FORMATS)
    letters, mixed = "CFGHJKLMNPRTVWXYZ", "CFGHJKLMNPRTVWXYZ0123456789"
    while True:  # only the German format can miss (too few digits): drawn again
        out = "".join(_pick(rng, letters) if c == "L" else _d(rng, 1) if c == "D" else
                      _pick(rng, mixed) if c == "X" else c for c in fmt)
        if sum(c.isdigit() for c in out) >= 2 and \
                not (len(out) == 9 and out[0].isalpha() and out[1:].isdigit()):
            return out


def sort_code(rng: np.random.Generator) -> str:
    """A British sort code: ``##-##-##``, spaced or bare."""
    digits = _d(rng, 6)
    sep = _pick(rng, ("-", "-", " ", ""))
    return sep.join((digits[:2], digits[2:4], digits[4:]))


# Driver licence formats of several states (letters L, digits D), from the states' DMVs.
_LICENCE_FORMATS = ("LDDDDDDD", "DDDDDDDDD", "LDDD-DDDD-DDDD", "LDDDDDDDDDDDD", "DDDDDDDD",
                    "LLDDDDDD", "LDDDDDDDDDDD", "LDDD DDD DD D", "DDD-DD-DDDD", "LLLLLDDDDDLL",
                    "DDDDDDDDDDDD", "LDDDDDD")


def driver_license(rng: np.random.Generator) -> str:
    """A driver licence number in a random state's format."""
    fmt = _pick(rng, _LICENCE_FORMATS)
    return "".join(_pick(rng, "ABCDEFGHJKLMNPRSTUVWXYZ") if c == "L" else _d(rng, 1)
                   if c == "D" else c for c in fmt)


def bank_number(rng: np.random.Generator) -> str:
    """A US bank account number of 8–17 digits, bare or (from 10 digits) grouped 4-rest."""
    digits = _d(rng, int(rng.integers(8, 18)))
    if rng.random() < 0.3 and len(digits) >= 10:
        return f"{digits[:4]}-{digits[4:]}"
    return digits


def medical_license(rng: np.random.Generator) -> str:
    """A DEA registration number with its check digit, or (one in four) an NPI."""
    if rng.random() < 0.25:
        return "1" + luhn_tail(rng)
    d = [int(x) for x in rng.integers(0, 10, size=6)]
    check = (d[0] + d[2] + d[4] + 2 * (d[1] + d[3] + d[5])) % 10
    return _pick(rng, "ABFGM") + _pick(rng, "ABCDEFGHJKLMNPRSTWZ") + \
        "".join(map(str, d)) + str(check)


def luhn_tail(rng: np.random.Generator) -> str:
    """The last nine digits of an NPI starting with 1 (Luhn over ``80840`` + the ten)."""
    return _luhn("808401" + _d(rng, 8))[6:]


# Medical record number layouts (each hospital numbers its own; D digit, L capital).
_RECORD_FORMATS = ("DDDDDDDD", "DDDDDDD", "DDDDDD", "DDDDDDDDDD", "DDD-DDD", "DD-DDDD-DD",
                   "LDDDDDDD", "LLDDDDDD", "LL-DDDDDD", "DDDD-DDDD")


def medical_record(rng: np.random.Generator) -> str:
    """A medical record number in one of several hospitals' layouts."""
    fmt = _pick(rng, _RECORD_FORMATS)
    return "".join(_pick(rng, "ABCDEFGHJKLMNPRSTUVWXYZ") if c == "L" else _d(rng, 1)
                   if c == "D" else c for c in fmt)


def _checked(rng: np.random.Generator, module: str, make: Callable[[], str]) -> str:
    """A value of ``make`` that python-stdnum's ``module`` accepts (drawn until one does)."""
    import importlib

    valid = importlib.import_module("stdnum." + module).is_valid
    while True:
        value = make()
        if valid(value):
            return value


def _birth(rng: np.random.Generator) -> tuple[int, int, int]:
    return int(rng.integers(1940, 2005)), int(rng.integers(1, 13)), int(rng.integers(1, 29))


def national_id(rng: np.random.Generator) -> tuple[str, str]:
    """A sentence holding a valid national or tax number of one of 18 schemes (python-stdnum
    or, for Singapore's NRIC, :func:`textdp.detect.national_ids.nric_valid` checks it), and
    the number: with its context word, or alone for the schemes
    :mod:`textdp.detect.national_ids` takes alone."""
    y, m, day = _birth(rng)
    kind = int(rng.integers(18))
    if kind == 0:
        body = "".join(_pick(rng, "BCDFGLMNPRSTVZ") for _ in range(6)) + f"{y % 100:02d}" + \
            "ABCDEHLMPRST"[m - 1] + f"{day + 40 * int(rng.integers(2)):02d}" + \
            _pick(rng, "ABCDEFGHLMZ") + _d(rng, 3)
        from stdnum.it import codicefiscale

        return "Codice fiscale: {}", body + codicefiscale.calc_check_digit(body)
    if kind == 1:
        from stdnum.es import dni

        body = _d(rng, 8)
        if rng.random() < 0.3:  # a space before the letter: after its label only
            return "Socio: Marc Puig · DNI {} / Tel", f"{body} {dni.calc_check_digit(body)}"
        return _pick(rng, ("DNI {}", "Applicant {} signed.")), body + dni.calc_check_digit(body)
    if kind == 2:
        from stdnum.es import nie

        body = _pick(rng, "XYZ") + _d(rng, 7)
        return "NIE: {}", body + nie.calc_check_digit(body)
    if kind == 3:
        v = _checked(rng, "br.cpf", lambda: _d(rng, 11))
        return _pick(rng, ("Her CPF is {}.", "CPF {}")), f"{v[:3]}.{v[3:6]}.{v[6:9]}-{v[9:]}"
    if kind == 4:
        from stdnum.cl import rut

        body = str(int(rng.integers(5_000_000, 25_000_000)))
        v = body + rut.calc_check_digit(body)
        return "RUT {}", f"{v[:-7]}.{v[-7:-4]}.{v[-4:-1]}-{v[-1]}"
    if kind == 5:
        from stdnum.fr import nir

        body = f"{int(rng.integers(1, 3))}{y % 100:02d}{m:02d}{int(rng.integers(1, 96)):02d}" \
               f"{_d(rng, 3)}{_d(rng, 3)}"
        v = body + nir.calc_check_digits(body)
        return "NIR {}", f"{v[0]} {v[1:3]} {v[3:5]} {v[5:7]} {v[7:10]} {v[10:13]} {v[13:]}"
    if kind == 6:
        v = _checked(rng, "se.personnummer",
                     lambda: f"{y % 100:02d}{m:02d}{day:02d}-{_d(rng, 4)}")
        return "Personnummer {}", v
    if kind == 7:
        v = _checked(rng, "fi.hetu", lambda: f"{day:02d}{m:02d}{y % 100:02d}-{_d(rng, 3)}"
                     + _pick(rng, "0123456789ABCDEFHJKLMNPRSTUVWXY"))
        return "Henkilötunnus {}", v
    if kind == 8:
        century = "12" if y < 2000 else "34"
        v = _checked(rng, "kr.rrn", lambda: f"{y % 100:02d}{m:02d}{day:02d}"
                     f"{_pick(rng, century)}{int(rng.integers(0, 9)):02d}{_d(rng, 4)}")
        return "RRN {}", f"{v[:6]}-{v[6:]}"
    if kind == 9:
        from stdnum.cn import ric

        body = f"110105{y}{m:02d}{day:02d}{_d(rng, 3)}"
        v = body + ric.calc_check_digit(body + "0")  # it reads the number with its check digit
        return _pick(rng, ("ID card number {}", "身份证 {}")), v
    if kind == 10:
        v = _checked(rng, "ca.sin", lambda: str(int(rng.integers(1, 8))) + _d(rng, 8))
        return "SIN: {}", f"{v[:3]} {v[3:6]} {v[6:]}"
    if kind == 11:
        v = _checked(rng, "in_.aadhaar", lambda: str(int(rng.integers(2, 10))) + _d(rng, 11))
        return "Aadhaar no. {}", f"{v[:4]} {v[4:8]} {v[8:]}"
    if kind == 12:
        return "BSN {}", _checked(rng, "nl.bsn", lambda: _d(rng, 9))
    if kind == 13:
        v = _checked(rng, "de.idnr", lambda: str(int(rng.integers(1, 10))) + _d(rng, 10))
        return "Steuer-ID: {}", f"{v[:2]} {v[2:5]} {v[5:8]} {v[8:]}"
    if kind == 14:
        from stdnum.pl import pesel

        body = f"{y % 100:02d}{m + (20 if y >= 2000 else 0):02d}{day:02d}{_d(rng, 4)}"
        return "PESEL {}", body + pesel.calc_check_digit(body)
    if kind == 15:
        from stdnum.tr import tckimlik

        body = str(int(rng.integers(1, 10))) + _d(rng, 8)
        return "TC kimlik no {}", body + tckimlik.calc_check_digits(body)
    if kind == 16:
        letters = "ABCDEFGHJKLMNPRSTUVWXYZ"
        v = "".join(_pick(rng, letters) for _ in range(3)) + "P" + _pick(rng, letters) + \
            _d(rng, 4) + _pick(rng, letters)
        return _pick(rng, ("PAN {}", "PAN card ({}) and")), v
    from textdp.detect.national_ids import nric_valid

    body = _pick(rng, "STFG") + _d(rng, 7)
    v = next(body + c for c in _LETTERS if nric_valid(body + c))
    return _pick(rng, ("Her son Ethan Tan ({}) will also stay.", "NRIC: {}")), v


def mac(rng: np.random.Generator) -> str:
    """A MAC address: colons or hyphens, upper or lower case, or Cisco's dotted form."""
    octets = [f"{int(x):02x}" for x in rng.integers(0, 256, size=6)]
    form = int(rng.integers(3))
    if form == 2:
        h = "".join(octets)
        return f"{h[:4]}.{h[4:8]}.{h[8:]}"
    value = (":" if form == 0 else "-").join(octets)
    return value.upper() if rng.random() < 0.5 else value


_LETTERS, _ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def _chars(rng: np.random.Generator, alphabet: str, n: int) -> str:
    return "".join(_pick(rng, alphabet) for _ in range(n))


def bic(rng: np.random.Generator) -> tuple[str, str]:
    """A BIC (bank, a real country code, location, optional branch) in a sentence that names
    it (a BIC of letters alone is taken only after ``SWIFT``/``BIC``)."""
    from stdnum import bic as stdbic

    value = _chars(rng, _LETTERS, 4) + _pick(rng, sorted(stdbic._country_codes)) + \
        _chars(rng, _ALNUM, 2) + ("" if rng.random() < 0.5 else _chars(rng, _ALNUM, 3))
    return _pick(rng, ("SWIFT code {} for the transfer.", "BIC: {}", "Pay to SWIFT/BIC {}.",
                       "Bank identifier code {} on the form.")), value


def vin(rng: np.random.Generator) -> tuple[str, str]:
    """A VIN with a valid check digit, after ``VIN`` or alone."""
    from textdp.detect.identifiers import VIN, surrogate

    form = "#A" + "".join(_pick(rng, "#A") for _ in range(6)) + "#" + \
        "".join(_pick(rng, "#A") for _ in range(8))  # the ninth: the check digit
    value = surrogate(VIN, form, rng)
    return _pick(rng, ("VIN {} on the title.", "Vehicle identification number: {}",
                       "The car ({}) was sold.", "chassis no. {}")), value


_PLATE_FORMATS = ("AA## AAA", "AA-###-AA", "A-AA ####", "#AAA###", "AAA-####", "#### AAA",
                  "AA ### AA", "##-AAA-#", "AA #####", "京A-#####", "##가####")


def plate(rng: np.random.Generator) -> tuple[str, str]:
    """A number plate in one of many countries' formats, right after its label."""
    form = _pick(rng, _PLATE_FORMATS)
    value = "".join(_pick(rng, "0123456789") if c == "#" else
                    _pick(rng, _LETTERS) if c == "A" else c for c in form)
    return _pick(rng, ("Car with plate {} was towed.", "Licence plate: {}",
                       "registration {} seen at the gate", "Number plate {} caught speeding.")), \
        value


def password(rng: np.random.Generator) -> tuple[str, str]:
    """A secret right after its label: a password of mixed kinds, a PIN or a one-time
    code."""
    kind = int(rng.integers(3))
    if kind == 0:
        pool = _LETTERS + _LETTERS.lower() + "0123456789" + "!#$%&*?@"
        value = "".join(_pick(rng, pool) for _ in range(int(rng.integers(8, 17))))
        value = value[:-1] + _pick(rng, "0123456789")  # a digit at least: a secret's look
        return _pick(rng, ("Your password is {}, please change it.", "password: {}",
                           "Passcode: {}", "pwd={} for the wifi", "contraseña: {}",
                           "Das Passwort ist {}", "mot de passe : {}", "senha {}",
                           "пароль: {}", "WiFi 密码：{}", "the password for the wifi is {}",
                           "Admin login reset to: admin / {}")), value
    if kind == 1:
        value = "".join(_pick(rng, "0123456789") for _ in range(int(rng.integers(4, 7))))
        return _pick(rng, ("Enter PIN {} to continue.", "PIN: {}", "Her PIN is {}.",
                           "Agent: I've sent a one-time PIN to your phone, please read it "
                           "back to me.\nCustomer: {}")), value
    value = "".join(_pick(rng, "0123456789") for _ in range(6))
    if rng.random() < 0.5:
        if rng.random() < 0.3:  # read out in groups
            value = f"{value[:3]}{_pick(rng, ' -')}{value[3:]}"
        return _pick(rng, ("Your one-time code is {}.", "Verification code: {}",
                           "OTP {} expires in 5 minutes.", "Your login code is {}. Don't "
                           "share it.", "Use sign-in code {} to log in.")), value
    # an API key or token, after its label or alone in a format of its own
    pool = _LETTERS + _LETTERS.lower() + "0123456789"
    body = "".join(_pick(rng, pool) for _ in range(36))
    value = _pick(rng, (f"sk_live_{body[:24]}", f"ghp_{body}", f"AKIA{body[:16].upper()}",
                        body[:32]))
    template = "api_key={}" if value == body[:32] else \
        _pick(rng, ("Use token {} for the build.", "Leaked: {}", "api_key={}"))
    return template, value


def personal_id(rng: np.random.Generator) -> tuple[str, str]:
    """An employee's, customer's or student's number right after its label."""
    digits = "".join(_pick(rng, "0123456789") for _ in range(int(rng.integers(4, 10))))
    value = _pick(rng, (f"EMP-{digits}", f"CUST{digits}", digits, f"S{digits}",
                        f"{digits[:3]}-{digits[3:]}"))
    return _pick(rng, ("My employee ID is {}.", "Customer ID: {} called.",
                       "Student no. {} enrolled.", "Badge number {} was scanned.",
                       "Client ID is {} per file.", "Membership no.: {}", "お客様番号：{}",
                       "N° adhérent : {}", "Your employee code will be {}.",
                       '{{"id": "{}", "name": "Ana Lima", "office": "JHB-2"}}')), value


#: Phrases with a secret's or a personal number's label and neither (``taken`` counts a
#: span on them).
NOT_SECRETS = ("Your password is incorrect.", "Password reset link sent.",
               "The PIN pad was broken.", "Forgot password? Click here.",
               "A password-protected file.", "OTP sent to your phone.",
               "password: ********", "Your passcode expired yesterday.",
               "The security code is on the back of the card.",
               "Enter your PIN to continue.", "The token was invalid.",
               "Employee ID checked on 2021-03-04.", "Customer ID cards are blue.")


_BIRTH_STYLES = ("%m/%d/%Y", "%d.%m.%Y", "%Y-%m-%d", "%B %d, %Y", "%d %b %Y", "%d/%m/%Y",
                 "%Y年%m月%d日", "%Y년 %m월 %d일")


def birth(rng: np.random.Generator) -> tuple[str, str]:
    """A date of birth in one of eight styles (Chinese/Japanese and Korean among them), or
    one in five written in French, Italian, Dutch or Spanish, after a birth cue."""
    from datetime import date, timedelta

    day = date(1931, 1, 1) + timedelta(days=int(rng.integers(0, 28800)))
    value = day.strftime(_pick(rng, _BIRTH_STYLES))
    if rng.random() < 0.2:  # written in another language (textdp.detect.dates.INTL_MONTHS)
        from textdp.detect.dates import INTL_MONTHS

        month = INTL_MONTHS[_pick(rng, ("fr", "it", "nl"))][day.month - 1]
        value = _pick(rng, (f"{day.day} {month} {day.year}",
                            f"{day.day} de {INTL_MONTHS['es'][day.month - 1]} de {day.year}"))
    return _pick(rng, ("DOB: {}", "Date of birth: {}.", "She was born on {} in Lyon.",
                       "Patient (D.O.B. {}) seen today.", "born in Rio de Janeiro on {}",
                       "Nata a Roma il {}", "Né(e) le : {}", "geboren in Köln am {}",
                       "Agent: please confirm your full name, date of birth and postcode."
                       "\nYou: Ana Lima, {}, E14 5AB")), value


def variant(label: str) -> Callable[[np.random.Generator], tuple[str, str]]:
    """Less common forms of ``label``'s values, each with its sentence: a 12-digit Maestro or
    a JCB ``1800`` card after a card word; a phone with an extension, a long bare number or a
    dotted one after a phone word; a national account number with letters or more than 17
    digits; a national number that fails its checksum right after its label; a user name
    after ``username``."""
    def make(rng: np.random.Generator) -> tuple[str, str]:
        k = int(rng.integers(3))
        if label == "CREDIT_CARD":
            body = ("50" + _d(rng, 9), "6759" + _d(rng, 7), "1800" + _d(rng, 10))[k]
            return "My card number is {}.", _luhn(body)
        if label == "PHONE":
            extension = f"{_d(rng, 3)}-{_d(rng, 3)}-{_d(rng, 4)}x{_d(rng, 3)}"
            return (("You can reach me at {} after 5pm.", extension),
                    ("Mobile: {}", _d(rng, int(rng.integers(12, 16)))),
                    ("Reach me at {} today.", f"{_d(rng, 4)}.{_d(rng, 4)}"))[k]
        if label == "US_BANK_NUMBER":
            if rng.random() < 0.4:  # a shorter number right after its label
                return _pick(rng, ("Account: {} (transit 30012)", "conta corrente {}",
                                   "三菱UFJ銀行 渋谷支店 普通 {}", "acc {}, ref FLAT2")), \
                    _pick(rng, (_d(rng, 7), f"{_d(rng, 5)}-{_d(rng, 1)}"))
            return ("Account number {} at the bank.",
                    (_chars(rng, _LETTERS, 4) + _d(rng, 14), _d(rng, int(rng.integers(18, 25))),
                     _chars(rng, _LETTERS, 1) + _d(rng, 22))[k])
        if label == "NATIONAL_ID":
            return (("Her social security number is {}.", f"{_d(rng, 6)}-{_d(rng, 7)}"),
                    ("National Insurance: {}", f"ZZ {_d(rng, 6)} T"),
                    ("Employer EIN {} on the form.", f"{_d(rng, 2)}-{_d(rng, 7)}"))[k]
        # HANDLE: a user name, not a word
        name = _chars(rng, "abcdefghijklmnopqrstuvwxyz", int(rng.integers(4, 9)))
        return (("My username is {}.", "Username: {}", "login: {} (reset)")[k],
                name + _d(rng, 2))

    return make


#: Labels whose less common forms :func:`variant` adds (a quarter as many as ``per_label``).
VARIANT_LABELS = ("CREDIT_CARD", "PHONE", "US_BANK_NUMBER", "NATIONAL_ID", "HANDLE")

GENERATORS: dict[str, Callable[[np.random.Generator], str]] = {
    "PHONE": phone, "CREDIT_CARD": card, "IBAN": iban, "US_SSN": ssn, "US_ITIN": itin,
    "UK_NHS": nhs, "UK_NINO": nino, "CRYPTO": crypto, "EMAIL": email, "URL": url, "IP": ip,
    "HANDLE": handle, "US_PASSPORT": passport, "PASSPORT": foreign_passport,
    "UK_SORT_CODE": sort_code, "US_DRIVER_LICENSE": driver_license,
    "US_BANK_NUMBER": bank_number, "MEDICAL_LICENSE": medical_license, "MAC_ADDRESS": mac,
    "MEDICAL_RECORD": medical_record,
}
#: Labels whose generator gives its own sentence template with the value.
TEMPLATED: dict[str, Callable[[np.random.Generator], tuple[str, str]]] = {
    "NATIONAL_ID": national_id, "BIC": bic, "VIN": vin, "LICENSE_PLATE": plate,
    "DATE_OF_BIRTH": birth, "PASSWORD": password, "PERSONAL_ID": personal_id,
}

_MONTHS = ("January", "March", "June", "September", "December")


def _ordinary(rng: np.random.Generator) -> tuple[str, str]:
    """One ordinary item (kind, value) that no PII recogniser should take."""
    kind = _pick(rng, ("date", "amount", "order", "year", "time", "version", "measure",
                       "isbn", "word", "count", "postcode_like", "range"))
    y, m, d = int(rng.integers(1950, 2030)), int(rng.integers(1, 13)), int(rng.integers(1, 29))
    if kind == "date":
        value = _pick(rng, (f"{y}-{m:02d}-{d:02d}", f"{d:02d}.{m:02d}.{y}", f"{d}/{m}/{y}",
                            f"{m:02d}/{d:02d}/{y}", f"{d} {_pick(rng, _MONTHS)} {y}",
                            f"{d:02d}-{m:02d}-{y}"))
    elif kind == "amount":
        n = int(rng.integers(1000, 10**8))
        value = _pick(rng, (f"${n:,}", f"{n:,}.{_d(rng, 2)} EUR", f"{n:,}".replace(",", " ")
                            + " €", f"£{n // 100}.{_d(rng, 2)}", f"{n:,}".replace(",", ".")))
    elif kind == "order":
        value = _pick(rng, (f"#{_d(rng, 8)}", f"INV-{y}-{_d(rng, 4)}", f"{_d(rng, 10)}",
                            f"PO {_d(rng, 7)}", f"A{_d(rng, 9)}"))
    elif kind == "year":
        value = str(y)
    elif kind == "range":
        value = _pick(rng, (f"{y}-{y + int(rng.integers(1, 9))}", f"{y}–{y + 3}",
                            f"pages {int(rng.integers(1, 300))}-{int(rng.integers(300, 900))}"))
    elif kind == "time":
        value = _pick(rng, (f"{int(rng.integers(0, 24)):02d}:{int(rng.integers(60)):02d}",
                            f"{int(rng.integers(0, 24)):02d}:{int(rng.integers(60)):02d}:"
                            f"{int(rng.integers(60)):02d}", f"{int(rng.integers(1, 13))}.30 pm"))
    elif kind == "version":
        major = int(rng.integers(1, 20))
        value = _pick(rng, (f"{major}.{int(rng.integers(0, 30))}.{int(rng.integers(0, 99))}",
                            f"v{major}.{_d(rng, 1)}.{_d(rng, 2)}", f"build {_d(rng, 5)}"))
    elif kind == "measure":
        value = _pick(rng, (f"{int(rng.integers(90, 180))}/{int(rng.integers(50, 110))}",
                            f"{_d(rng, 3)} kg", f"{int(rng.integers(1, 999))}.{_d(rng, 2)} km",
                            f"{_d(rng, 2)} x {_d(rng, 2)} cm"))
    elif kind == "isbn":
        from stdnum import ean

        body = "978" + _d(rng, 9)
        check = ean.calc_check_digit(body)
        value = f"{body[:3]}-{body[3]}-{body[4:6]}-{body[6:]}-{check}"
    elif kind == "count":
        value = f"{int(rng.integers(1, 10**6)):,} people"
    elif kind == "postcode_like":
        value = _pick(rng, (f"route {_d(rng, 3)}", f"room {_d(rng, 2)}-{_d(rng, 3)}",
                            f"flight LH{_d(rng, 4)}", f"ZIP {_d(rng, 5)}"))
    else:
        value = _pick(rng, ("NASA", "UNICEF", "ABBA", "BBC", "DE", "QUALITY", "ISO 9001",
                            "COVID-19", "GB", "USB-C", "MP3", "Form 1040", "A4"))
    return kind, value


ORDINARY_TEMPLATES = ("It happened on {} as planned.", "The total was {}.", "See item {}.",
                      "Reported: {}", "They noted {} in the file.")


def positives(per_label: int, seed: int = 0) -> list[Item]:
    """``per_label`` values of each PII label in sentences (fixed ``seed``)."""
    rng = np.random.default_rng(seed)
    out = []
    for label, make in GENERATORS.items():
        for _ in range(per_label):
            value = make(rng)
            # An NPI is taken only after its context word (textdp.detect.identifiers).
            templates = NPI_TEMPLATES if label == "MEDICAL_LICENSE" and value.isdigit() \
                else TEMPLATES[label]
            out.append(Item(_pick(rng, templates).format(value), value, label, label))
    id_rng = np.random.default_rng(seed + 3)  # the other labels' draws stay as they were
    for label, make_item in TEMPLATED.items():
        for _ in range(per_label):
            template, value = make_item(id_rng)
            out.append(Item(template.format(value), value, label, label))
    variant_rng = np.random.default_rng(seed + 5)
    for label in VARIANT_LABELS:
        for _ in range(per_label // 4):
            template, value = variant(label)(variant_rng)
            out.append(Item(template.format(value), value, label, label))
    return out


def negatives(n: int, seed: int = 0) -> list[Item]:
    """``n`` ordinary numbers and words in sentences (fixed ``seed``)."""
    rng = np.random.default_rng(seed + 1)
    out = []
    for _ in range(n):
        kind, value = _ordinary(rng)
        out.append(Item(_pick(rng, ORDINARY_TEMPLATES).format(value), value, None, kind))
    return out


# Ordinary numbers right after the context words of the context-bound identifiers
# (textdp.detect.identifiers): what must stay a date, an amount or a year there.
CONTEXT_TEMPLATES = ("The bank holiday falls on {}.", "Account opened {}.",
                     "Passport photos taken {}.", "Driver's license renewed {}.",
                     "Checking account balance: {}.", "DL test booked for {}.",
                     "Savings of {} this year.", "Passport office open {}.",
                     "Patient ID checked {}.", "MRN verified, total {}.",
                     "National ID card renewed {}.", "Tax ID: see the total of {}.",
                     "Passport renewed {}.", "Sort code changed {}.",
                     # the contexts of plates, VINs, BICs, cards, user names and bare phones
                     "Registration closes {}.", "Car plate renewed {}.", "VIN checked {}.",
                     "SWIFT transfer of {}.", "Card payment of {}.", "Login failed {}.",
                     "Mobile data used: {}.", "Call me at {}.", "Text me {}.",
                     # a request for other values, and a record's id where no person is named
                     "Agent: please confirm the order total and the delivery date.\nYou: {}",
                     '{{"id": "{}", "status": "shipped"}}')


def context_negatives(n: int, seed: int = 0) -> list[Item]:
    """``n`` ordinary items (dates, amounts, years, times, ranges, counts) right after a
    context word of :mod:`textdp.detect.identifiers` (fixed ``seed``)."""
    rng = np.random.default_rng(seed + 2)
    out = []
    while len(out) < n:
        kind, value = _ordinary(rng)
        if kind in ("word", "order", "postcode_like", "isbn", "version"):
            continue
        out.append(Item(_pick(rng, CONTEXT_TEMPLATES).format(value), value, None,
                        "after context: " + kind))
    return out


#: The column name each label's values stand under in a record (``--layout records``): the
#: names such a column has in exports and forms.
COLUMNS = {"EMAIL": "email", "PHONE": "phone", "URL": "website", "HANDLE": "twitter",
           "IP": "ip_address", "CREDIT_CARD": "card_number", "IBAN": "iban", "US_SSN": "ssn",
           "US_ITIN": "itin", "UK_NHS": "nhs_number", "UK_NINO": "ni_number",
           "NATIONAL_ID": "national_id", "CRYPTO": "wallet", "MAC_ADDRESS": "mac",
           "US_PASSPORT": "passport", "PASSPORT": "passport_number",
           "US_DRIVER_LICENSE": "driver_license", "MEDICAL_LICENSE": "medical_license",
           "UK_SORT_CODE": "sort_code", "US_BANK_NUMBER": "account_number",
           "MEDICAL_RECORD": "mrn", "BIC": "bic", "VIN": "vin", "LICENSE_PLATE": "plate",
           "PASSWORD": "password", "PERSONAL_ID": "employee_id",
           "DATE_OF_BIRTH": "date_of_birth"}
#: Columns of ordinary items in records: an ordinary value under each must stay.
ORDINARY_COLUMNS = ("reference", "amount", "quantity", "version", "order_id", "sku")
RECORD_DELIMITERS = (",", ";", "|", "\t")


def _record(rng: np.random.Generator, column: str, values: Sequence[str]) -> str:
    """A record block of ``values`` under ``column`` (``id``, ``name`` and ``city`` beside
    it), with a header line, in a delimiter drawn from :data:`RECORD_DELIMITERS` (a value
    holding it is quoted, as CSV writes it)."""
    d = _pick(rng, RECORD_DELIMITERS)
    rows = [d.join(("id", "name", column, "city"))]
    for k, v in enumerate(values):
        rows.append(d.join((str(101 + k), "Ana", f'"{v}"' if d in v else v, "Oslo")))
    return "\n".join(rows)


def records(per_label: int, n_ordinary: int, seed: int = 0) -> list[tuple[str, list[Item]]]:
    """The values of :func:`positives` and ordinary items of :func:`negatives` as record
    blocks (:func:`_record`): per block its text and its items, six rows a block."""
    rng = np.random.default_rng(seed + 7)
    groups: dict[str, list[Item]] = {}
    for it in positives(per_label, seed):
        groups.setdefault(it.label, []).append(it)
    for k, it in enumerate(negatives(n_ordinary, seed)):
        groups.setdefault("ordinary:" + ORDINARY_COLUMNS[k % len(ORDINARY_COLUMNS)],
                          []).append(it)
    out = []
    for key, items in groups.items():
        by_column: dict[str, list[Item]] = {}
        for it in items:
            by_column.setdefault(_column(key, it.value), []).append(it)
        for column, col_items in by_column.items():
            for i in range(0, len(col_items), 6):
                block = col_items[i:i + 6]
                out.append((_record(rng, column, [it.value for it in block]), block))
    return out


def _column(key: str, value: str) -> str:
    """The column a value of ``key`` (a label, or ``ordinary:<column>``) stands under: as
    exports name it (an account without its ``@`` under ``username``, an NPI under
    ``npi``)."""
    if key.startswith("ordinary:"):
        return key.split(":", 1)[1]
    if key == "HANDLE" and not value.startswith("@"):
        return "username"
    if key == "MEDICAL_LICENSE" and value.isdigit():
        return "npi"
    return COLUMNS[key]


def value_runs(value: str) -> list[str]:
    """A value's runs of 5+ letters and digits holding a digit: one of them still in an
    output means the value was partly left."""
    return [r for r in re.findall(r"[A-Za-z0-9]+", value) if len(r) >= 5 and
            any(c.isdigit() for c in r)]


def check(per_label: int = 60, n_ordinary: int = 600, seed: int = 0,
          layout: str = "sentences") -> dict[str, dict]:
    """Run the sample through ``Privatizer(targets=IDENTIFIER_LABELS)``: per label the shares left
    verbatim and partly left, and the share of ordinary items taken (per kind and overall).
    ``layout="records"``: the values and ordinary items as CSV, semicolon, pipe and tab
    records under a column named for their label (:func:`records`) instead of sentences."""
    from textdp import Privatizer
    from textdp.detect.pii import IDENTIFIER_LABELS

    if layout == "records":
        blocks = records(per_label, n_ordinary, seed)
        texts = [text for text, _ in blocks]
        pairs = [(it, k) for k, (_, block) in enumerate(blocks) for it in block]
    elif layout == "sentences":
        items = positives(per_label, seed) + negatives(n_ordinary, seed) + \
            context_negatives(n_ordinary // 4, seed) + \
            [Item(text, text, None, "not a secret") for text in NOT_SECRETS]
        texts = [it.text for it in items]
        pairs = [(it, k) for k, it in enumerate(items)]
    else:
        raise ValueError(f"layout must be 'sentences' or 'records', got {layout!r}")
    privatizer = Privatizer(seed=seed, targets=list(IDENTIFIER_LABELS))
    outputs = [r.text for r in privatizer.privatize(texts)]
    stats: dict[str, dict] = {}
    for it, out in ((it, outputs[k]) for it, k in pairs):
        s = stats.setdefault(it.label or "ordinary:" + it.kind,
                             {"n": 0, "verbatim": 0, "partial": 0, "taken": 0})
        s["n"] += 1
        if it.label is None:
            s["taken"] += it.value not in out
        else:
            s["verbatim"] += it.value in out
            s["partial"] += it.value not in out and any(r in out for r in value_runs(it.value))
    return stats


def report_lines(stats: dict[str, dict[str, int]]) -> list[str]:
    """The figures of :func:`check` as printed lines: per label the share of values left
    verbatim and partly left, then per kind of ordinary item the share taken for a value."""
    lines = [f"{'label':<24}{'n':>6}{'verbatim':>10}{'partial':>9}"]
    for label, s in stats.items():
        if not label.startswith("ordinary:"):
            lines.append(f"{label:<24}{s['n']:>6}{s['verbatim'] / s['n']:>10.1%}"
                         f"{s['partial'] / s['n']:>9.1%}")
    return lines + ordinary_lines(stats)


def ordinary_lines(stats: dict[str, dict[str, int]]) -> list[str]:
    """The table of ordinary items taken for a value, per kind and in all (the ``ordinary:``
    entries of ``stats``), shared by the PII and quasi-identifier dev checks."""
    lines = [f"\n{'ordinary kind':<24}{'n':>6}{'taken':>10}"]
    total = taken = 0
    for label, s in sorted(stats.items()):
        if label.startswith("ordinary:"):
            total, taken = total + s["n"], taken + s["taken"]
            lines.append(f"{label[9:]:<24}{s['n']:>6}{s['taken'] / s['n']:>10.1%}")
    lines.append(f"{'all ordinary':<24}{total:>6}{taken / max(total, 1):>10.1%}")
    return lines
