"""Recognisers of the identifiers Presidio's default English registry has beyond those of
:mod:`textdp.detect.pii`, and their layout-keeping surrogates.

Presidio's default registry for English (``presidio_analyzer/conf/default_recognizers.yaml``)
enables, besides the labels :mod:`textdp.detect.pii` already has, ``US_PASSPORT``,
``US_DRIVER_LICENSE``, ``US_BANK_NUMBER``, ``MEDICAL_LICENSE`` and ``MAC_ADDRESS``. Four of
them are formats too common to take alone (nine digits, eight to seventeen digits, a letter
and digits), so, as Presidio does with its context words, they are taken only after a context
word within :data:`CONTEXT_WINDOW` characters before the value:

* ``US_PASSPORT``: nine digits, or a letter then eight digits (the next-generation book,
  issued since 2021; U.S. Department of State), after ``passport``;
* ``PASSPORT``: another country's passport number: 6–9 capitals and digits holding at least
  two digits and a letter (ICAO Doc 9303: the document number of a machine-readable
  passport has at most nine characters; German ``C01X00T47``, Canadian ``AB123456``,
  Indian ``J8369854``, French ``12AB34567``), after ``passport``; not the U.S. formats
  above (which the U.S. label takes, as it does a nine-digit British number), a date, a
  year or an amount;
* ``US_DRIVER_LICENSE``: a state's driver licence number: 4–16 characters of capitals and
  digits holding at least four digits, optionally grouped by ``-`` or spaces (``D123-4567-8901``,
  ``S530 460 72 1``), after ``driver's licence``/``license``, ``driving licence``, ``DL``,
  ``DLN``, ``CDL`` or ``lic``; the states' formats differ and have no published checksum
  (source of truth: each state's DMV; Presidio's UsLicenseRecognizer takes the same family
  of patterns with the same context words);
* ``US_BANK_NUMBER``: a bank account number, 8–34 digits (U.S. numbers have 8–17, other
  countries' national numbers up to 30), bare or grouped by ``-`` or spaces, or 8–34
  capitals and digits holding a letter and eight digits (a national number with its bank
  code or check letters: ``WHAQ72542299351862``, ``R4629484700527870012996``), after
  ``account``, ``acct``, ``a/c``, ``bank`` (also ending a bank's name: ``Vietcombank``),
  ``checking``, ``savings``, ``routing``, ``ABA`` or ``CLABE``, or ``account`` in eleven
  other languages (``Konto``, ``rekening``, ``compte``, ``cuenta``, ``conta``, ``tài khoản``,
  ``계좌``, ``口座``, ``账号``, …); right after an account's label (:data:`RECORD_WINDOW`
  characters at most, only punctuation and ``no``, ``number``, ``is``, ``current``,
  ``corrente``, ... between) also 5–7 digits and a check digit (``Account: 4829175``,
  ``conta corrente 48291-7``, Japan's ``普通 4829173``); a nine-digit number after
  ``routing``/``ABA`` is taken only with the ABA routing checksum 3-7-1
  (:mod:`stdnum.us.rtn`, the ABA's rule).
  Presidio's label, kept for every country's account numbers;
* ``UK_SORT_CODE``: a British bank sort code, six digits as ``##-##-##`` (or spaced, or
  bare), after ``sort code`` or ``S/C`` (Pay.UK's format; no checksum exists). Not in
  Presidio's registry;
* ``MEDICAL_LICENSE``: a DEA registration number, two letters (the registrant type, then a
  letter or ``9``) and seven digits with the DEA's check digit (the seventh digit is the last
  digit of d1+d3+d5 + 2·(d2+d4+d6), DEA Diversion Control Division), taken alone (the
  checksum and the letters make it specific); and a National Provider Identifier, ten digits
  with the Luhn check over ``80840`` + the first nine (CMS, 45 CFR 162.406), after ``NPI``;
* ``MEDICAL_RECORD``: a medical record number (no national format exists: each hospital
  numbers its own), 4–16 capitals and digits holding at least four digits, optionally
  grouped by ``-`` (``00482913``, ``MR-0048-2913``) or 8–16 digits in groups split by a
  space (``2953 17184 1``), right after (:data:`RECORD_WINDOW`
  characters at most, only punctuation and ``no``, ``number``, ``is``, ``id`` between)
  ``MRN``, ``MR#``, ``medical record``, ``patient ID``/``no``/``number``/``#``,
  ``pt ID``, ``chart no``/``number``/``#``, ``hospital``/``hosp`` ``no``/``number`` or
  ``unit no``, and a health plan's beneficiary number after ``insurance``, ``member``, ``policy``,
  ``subscriber``, ``beneficiary``, ``Medicare``/``Medicaid`` ``ID``/``no``/``number``; not a
  date, a list of years or an amount. Not in Presidio's registry; the i2b2/n2c2
  de-identification guidelines list it among HIPAA's identifiers;
* ``MAC_ADDRESS``: six pairs of hex digits joined by one kind of ``:`` or ``-``
  (``00:1A:2B:3C:4D:5E``) or three groups of four joined by ``.`` (Cisco's ``001a.2b3c.4d5e``)
  (IEEE 802; no checksum exists), taken alone;
* ``BIC``: a bank's SWIFT code, four letters, a country code of ISO 3166, two characters of
  location and an optional branch of three (ISO 9362, :mod:`stdnum.bic`), taken alone when
  it holds a digit, else after ``SWIFT``, ``BIC`` or ``bank identifier`` (eight capitals
  alone are as often a word). Not in Presidio's registry;
* ``VIN``: a vehicle identification number, 17 capitals and digits without ``I``, ``O``,
  ``Q`` (ISO 3779), taken alone with a valid check digit (the ninth character, 49 CFR 565:
  North America and most makers), else after ``VIN``, ``vehicle identification``,
  ``chassis`` or ``frame number``. HIPAA lists vehicle identifiers; not in Presidio's
  registry;
* ``LICENSE_PLATE``: a number plate right after ``plate``, ``licence``/``number``/
  ``registration plate``, ``registration (mark)``, ``reg``, ``VRM``, ``Kennzeichen``,
  ``kenteken``, ``matrícula``, ``targa``, ``immatriculation``, ``registreringsnummer``,
  ``numer rejestracyjny``, ``placa``, ``nummerplade``, ``rekisterinumero``, ``rendszám``,
  ``SPZ``, ``차량번호`` or ``车牌号``
  (only punctuation and ``no``, ``number``, ``is``, ``was`` between): 3–12 capitals, digits
  and letters of scripts without case (``SJ-910-BS``, ``MÜ-LD-362``, ``沪A-50784``,
  ``437다4339``), holding a digit, in up to four groups; not a date or years. Alone, a
  British plate of the current format (two letters, the age identifier of a half-year from
  2001 to 2025, three letters: ``YX15 KDU``). No other country's format is checked (none
  has a checksum). Not in Presidio's registry;
* ``PASSWORD``: a secret right after its label (only punctuation and ``is``, ``was``,
  ``number``, ``no`` between): ``password``, ``passwd``, ``pwd``, ``pw:``, ``passcode``,
  ``passphrase``, ``pass is``, ``PIN``, ``OTP``, ``one-time code``/``password``,
  ``verification``/``security``/``access``/``door``/``gate``/``alarm``/``login``/
  ``sign-in``/``confirmation``/``authentication``/``2FA``/``SMS code``,
  ``WPA2``/``Wi-Fi``/``network key``, a label ending a variable's name (``DB_PASSWORD=``),
  ``API key``, ``secret (key)``, ``access key``, ``(auth/access/bearer) token``,
  ``Bearer``, and "password" in 24 other languages (``contraseña``, ``mot de passe``,
  ``Passwort``, ``senha``, ``hasło``, ``şifre``, ``пароль``, ``كلمة سر``, ``密码``,
  ``パスワード``, ``비밀번호``, …; also ``for the Wi-Fi`` between): one token of 4–64
  characters (128 for a key or token) that looks like a secret (a digit, a symbol or a
  capital inside it; ``Your password is incorrect`` holds none), not a masked value
  (``********``), or a numeric code read out in groups (``739 214``); after a user name and
  ``/`` behind a log-in's label (``login reset to: admin / Nile#Cairo77``); ``PIN code`` is
  India's postcode (:mod:`textdp.detect.postcodes`). Alone, the keys of public formats: AWS access
  key IDs (``AKIA`` + 16), GitHub tokens (``ghp_`` + 36, ...), Stripe secret keys
  (``sk_live_``), Slack tokens (``xoxb-``), Google API keys (``AIza`` + 35), JSON Web
  Tokens (``eyJ…``). Not in Presidio's registry;
* ``PERSONAL_ID``: an identifier an organisation gives a person, right after ``employee``
  (``emp``), ``staff``, ``student``, ``customer`` (``cust``), ``client``, ``member(ship)``,
  ``user``, ``badge``, ``applicant``, ``patron``, ``subscriber``, ``loyalty``, ``frequent
  flyer`` or ``account holder`` and
  ``ID``/``no``/``number``/``#``/``code``, ``account ID``, ``badge`` right before a number,
  India's ``UAN``, ``PF no`` (``MH/BAN/0012345/000/0001234``) and ``ESIC`` (``is``,
  ``was``, ``is now``, ``will be`` may stand between); a person's record ``"id"``
  in JSON (its object has a name key); or an employee, customer or member number's label in
  seven other languages (``Personalnummer``,
  ``matricule``, ``número de empleado``, ``사번``, ``社員番号``, ``工号``, …): 3–20
  capitals, digits and ``-``, with three digits or more (``EMP-204981``, ``CUST948372``;
  as a quoted value of a key-value pair or JSON, ``"user_id": "u_48213977"``, also small
  letters and ``_``); not a date or an amount. Not in Presidio's registry (Gretel's
  synthetic PII has ``employee_id`` and ``customer_id``).

Surrogates are drawn from ``rng`` given the value's layout only (``#`` for a digit, ``A`` for
a capital letter, ``a`` for a small one, ``h`` for a hex digit of a MAC, separators as they
are): they release the layout, nothing else:

* ``US_PASSPORT``, ``PASSPORT``, ``US_DRIVER_LICENSE``, ``US_BANK_NUMBER``,
  ``UK_SORT_CODE``, ``MEDICAL_RECORD``, ``LICENSE_PLATE``: random characters of the same
  kinds in the same places (no reserved range exists; such a number may exist, it carries
  nothing of the original); an account number is drawn again while it reads as a card;
* ``MEDICAL_LICENSE``: a DEA number with a random practitioner type (``A B F G``), a random
  second letter and digits, and a valid check digit; an NPI of random digits with a valid
  check digit;
* ``MAC_ADDRESS``: the IEEE's documentation block ``00-00-5E-00-53-xx`` (RFC 7042, section
  2.1.2), in the value's separators and letter case;
* ``BIC``: random letters and characters in the layout, with a country code drawn at random
  (not the value's);
* ``VIN``: random characters of ISO 3779 in the layout with a valid check digit;
* a number plate's letter of a script without case becomes a random Latin one;
* ``PASSWORD``: random characters of the same kinds (digit, capital, small letter, symbol)
  in the same places: the secret's length and character classes are released;
* ``PERSONAL_ID``: random characters of the same kinds in the same places.

Nothing here logs, prints or raises the text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import numpy as np

from textdp.detect.numbers import (
    CURRENCY,
    cut_back,
    date_or_years,
    label_gap,
    labelled,
    luhn_complete,
    luhn_valid,
)

US_PASSPORT = "US_PASSPORT"
PASSPORT = "PASSPORT"
UK_SORT_CODE = "UK_SORT_CODE"
US_DRIVER_LICENSE = "US_DRIVER_LICENSE"
US_BANK_NUMBER = "US_BANK_NUMBER"
MEDICAL_LICENSE = "MEDICAL_LICENSE"
MAC_ADDRESS = "MAC_ADDRESS"
MEDICAL_RECORD = "MEDICAL_RECORD"
BIC = "BIC"
VIN = "VIN"
LICENSE_PLATE = "LICENSE_PLATE"
PASSWORD = "PASSWORD"
PERSONAL_ID = "PERSONAL_ID"
#: The labels of this module, in the order their matches win where two overlap.
LABELS = (MAC_ADDRESS, US_PASSPORT, PASSPORT, US_DRIVER_LICENSE, MEDICAL_LICENSE,
          UK_SORT_CODE, US_BANK_NUMBER, MEDICAL_RECORD, BIC, VIN, LICENSE_PLATE, PASSWORD,
          PERSONAL_ID)
#: How far before a value its context word may stand (characters).
CONTEXT_WINDOW = 48
#: ... for a medical record number, whose digits have no format of their own: the number
#: follows its label ("MRN: 00482913", "Patient ID 884-221").
RECORD_WINDOW = 32

# "Account" in English and eleven other languages.
_ACCOUNT_WORDS = (r"\baccount|\bacct?\b|\ba/c\b|\bkonto|\brekening|\bcompte\b|\bcuenta\b|"
                  r"\bconta\b|\bconto\b|\btài\s+khoản|계좌|口座|账号|账户|帳號")
_CONTEXT = {
    US_PASSPORT: re.compile(r"\bpassports?\b|\bpassport\s*(?:no|number|#)", re.IGNORECASE),
    US_DRIVER_LICENSE: re.compile(
        r"\bdriver'?s?'?\s*licen[cs]e|\bdriving\s*licen[cs]e|\bdl\b|\bdln\b|\bcdl\b|"
        r"\blic\b|\blicen[cs]e\s*(?:no|number|#)", re.IGNORECASE),
    # "account" (also in other languages), a bank's own name ("Vietcombank", "Commerzbank"),
    # Mexico's CLABE
    US_BANK_NUMBER: re.compile(
        _ACCOUNT_WORDS + r"|bank\b|\bchecking\b|\bsavings\b|\brouting\b|\baba\b|\bclabe\b|"
        r"\bnumer\s+konta|\bsố\s+tk\b", re.IGNORECASE),
}
# An account's label right before a shorter number (5–7 digits and a check digit: Canadian,
# Japanese and Brazilian accounts): "Account: 4829175", "conta corrente 48291-7", Japan's
# account kinds "普通 4829173" (ordinary) and "当座" (current).
_ACCOUNT_LABEL = re.compile(_ACCOUNT_WORDS + r"|(?:普通|当座)(?:預金)?", re.IGNORECASE)
_ACCOUNT_GAP = label_gap("no", "nr", "number", "num", "is", "corrente", "courant", "current",
                         "checking", "savings")
_SHORT_ACCOUNT = re.compile(r"(?<![\w.,/:$€£-])\d{5,7}(?:-\d{1,2})?(?![\w/]|[.,:-]?\d)")
_RECORD_CONTEXT = re.compile(
    r"\bmrn\b|\bmr\s*#|\bmedical\s+record|\bpatient\s*(?:id\b|no\b|number|#)|"
    r"\bpt\.?\s*(?:id\b|#)|\bchart\s*(?:no\b|number|#)|\bhosp(?:ital|\.)?\s*(?:no\b|number)|"
    r"\bunit\s*no\b|"
    # health plan beneficiary numbers (HIPAA's identifier 8)
    r"\b(?:insurance|member|policy|subscriber|beneficiary|medicare|medicaid|health\s+plan)"
    r"\s*(?:id\b|no\b|number|#)", re.IGNORECASE)
_ROUTING = re.compile(r"\brouting\b|\baba\b", re.IGNORECASE)
_NPI_CONTEXT = re.compile(r"\bnpi\b|national provider", re.IGNORECASE)

_PASSPORT = re.compile(r"(?<![\w.,/:-])(?:\d{9}|[A-Z]\d{8})(?![\w/]|[.,:-]?\d)")
_ICAO_PASSPORT = re.compile(r"(?<![\w.,/:-])(?=(?:[A-Z]*\d){2})(?=\d*[A-Z])[A-Z0-9]{6,9}"
                            r"(?![\w/]|[.,:-]?\w)")
_SORT_CODE = re.compile(r"(?<![\w.,/:-])\d{2}([- ]?)\d{2}\1\d{2}(?![\w/]|[.,:-]?\d)")
_SORT_CONTEXT = re.compile(r"\bsort[\s-]*code|\bs/c\b", re.IGNORECASE)
_LICENCE = re.compile(r"(?<![\w.,/:-])[A-Z]{0,7}\d[A-Z0-9]{0,14}(?:[- ][A-Z0-9]{1,8}){0,4}"
                      r"(?![\w/]|[.,:-]\w)")
# (not the tail of a longer number written in groups: "Swedbank … +46 8 482 913 70")
_BANK = re.compile(r"(?<![\w.,/:$€£+-])(?<!\d )\d{2,34}(?:[- ]\d{2,34}){0,3}"
                   r"(?![\w/]|[.,:-]?\d)")
# A national account number (BBAN) with letters: a bank code or check letters among the
# digits (British WHAQ72542299351862, Italian R4629484700527870012996, Brazilian
# …26193FG); at least eight digits.
_BANK_ALNUM = re.compile(r"(?<![\w.,/:$€£-])(?=[A-Z0-9]*[A-Z])[A-Z0-9]{8,34}(?![\w/]|[.,:-]\w)")
# A BIC (SWIFT code): bank, country, location and optional branch (ISO 9362).
_BIC = re.compile(r"(?<![\w-])[A-Z]{6}[A-Z0-9]{2}(?:[A-Z0-9]{3})?(?![\w-])")
_BIC_CONTEXT = re.compile(r"\bswift\b|\bbic\b|bank\s+identifier", re.IGNORECASE)
# A vehicle identification number: 17 characters, no I, O or Q (ISO 3779).
_VIN = re.compile(r"(?<![\w-])(?=[A-HJ-NPR-Z0-9]*\d)(?=[A-HJ-NPR-Z0-9]*[A-Z])[A-HJ-NPR-Z0-9]{17}"
                  r"(?![\w-])")
_VIN_CONTEXT = re.compile(r"\bvin\b|vehicle\s+identification|\bchassis\b|frame\s+number",
                          re.IGNORECASE)
_VIN_WEIGHTS = (8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2)
_VIN_LETTERS, _VIN_DIGITS = "ABCDEFGHJKLMNPRSTUVWXYZ", "0123456789"
_VIN_VALUES = {**{str(d): d for d in range(10)}, **dict(zip("ABCDEFGH", range(1, 9))),
               **dict(zip("JKLMN", range(1, 6))), "P": 7, "R": 9,
               **dict(zip("STUVWXYZ", range(2, 10)))}
# A number plate right after its label ("plate SJ-910-BS", "registration: AK78 WBU"): 3–12
# capitals and digits with a digit, in up to four groups.
_PLATE_LABEL = re.compile(r"\b(?:(?:licen[cs]e|number|registration|reg\.?|car|vehicle)\s+)?"
                          r"plates?\b|\bregistration(?:\s+mark)?\b|\breg\b\.?|\bvrm\b|"
                          r"\b(?:wunsch)?kennzeichen\b|\bkenteken\b|\bmatr[ií]cula\b|\btarga\b|"
                          r"\bimmatriculation\b|\bregistreringsnummer\b|\brejestracyjn\w*(?:\s+pojazdu)?|"
                          r"\bplaca\b|\bnummerplade\b|\brekisterinumero\b|\brendszám\b|"
                          r"\bspz\b|차량번호|车牌号?", re.IGNORECASE)
# A British plate of the current format alone (two letters, the age identifier of a
# half-year from 2001 to 2025, three letters; I and Q never used): "YX15 KDU", "BK21NWU".
_UK_PLATE = re.compile(r"(?<![\w-])[A-HJ-PR-Y][A-HJ-PR-Y](?:0[2-9]|1\d|2[0-5]|5[1-9]|6\d|7[0-5])"
                       r" ?[A-HJ-NP-Z]{3}(?![\w-])")
# Capitals, digits and letters of scripts without case (沪A-50784, 437다4339, 福岡 71 の ・・31),
# not small Latin letters (a word follows the label: "plate 12 was cold").
_PLATE_CHAR = r"(?:[^\W_a-zß-ÿ]|[・·])"
_PLATE = re.compile(r"(?<![\w.,/:-])" + _PLATE_CHAR + "{1,8}(?:[- ]" + _PLATE_CHAR + "{1,8}){0,3}")
_PLATE_GAP = label_gap("no", "nr", "number", "num", "is", "was")
# What may stand between a record number's label and the number: "MRN: ", "Medical record
# number is ", "Patient ID # ".
_RECORD_GAP = label_gap("no", "nr", "number", "num", "is", "was", "id")
_RECORD = re.compile(r"(?<![\w.,/:$€£-])[A-Z]{0,4}-?\d[A-Z0-9]{0,15}(?:-[A-Z0-9]{1,8}){0,3}"
                     r"(?![\w/]|[.,:-]\w)")
# A record number in groups of digits ("2953 17184 1"), not the first of a longer run.
_RECORD_SPACED = re.compile(r"(?<![\w.,/:$€£-])\d{2,6}(?: \d{1,6}){1,3}(?![\w/]|[.,:-]?\d| \d)")
# not inside a file name or path ("LA1118909.DOC", "AB1234563/2"), as the patterns above
_DEA = re.compile(r"(?<![\w-])[A-Za-z][A-Za-z9]\d{7}(?![\w/-]|[.,:]\w)")
_NPI = re.compile(r"(?<![\w.,/:-])\d{10}(?![\w/]|[.,:-]?\d)")
_MAC = re.compile(r"(?<![\w:.-])(?:[0-9A-Fa-f]{2}([:-])(?:[0-9A-Fa-f]{2}\1){4}[0-9A-Fa-f]{2}|"
                  r"[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4})(?![\w:-]|\.\w)")
# A secret's label ("password: ", "PIN ", "one-time code is "); "PIN code" is a postcode's.
_SECRET_LABEL = re.compile(
    r"(?:\b|(?<=_))(?:pass(?:word|wd|code|phrase)s?|pass(?=\s*(?:is\b|[:=]))|pwd|"
    r"pw(?=\s*[:=])|"
    r"pin(?!\s*code)|otp|one[- ]time\s+(?:code|password|pin)|"
    r"(?:verification|security|access|door|gate|alarm|entry|lock|key|login|log-?in|"
    r"sign[- ]?in|confirmation|authentication|auth|2fa|mfa|sms)\s+code|"
    r"(?:wpa2?|wi-?fi|network|wireless)\s+key|"
    # "password" in other languages
    r"contrase[ñn]a|mot\s+de\s+passe|mdp|passwort|kennwort|senha|wachtwoord|has[łl]o|"
    r"[şs]ifre|parola|lösenord|adgangskode|salasana|jelsz[óo]|heslo|kata\s+sandi|"
    r"mật\s+khẩu|пароль|كلمة\s+(?:ال)?(?:سر|مرور)|密码|密碼|パスワード|暗証番号|비밀번호|"
    r"(?P<key>api[\s_-]?key|"
    r"secret(?:[\s_-]?key)?|access[\s_-]?key(?:[\s_-]?id)?|(?:auth|access|bearer|api)?"
    r"[\s_-]?token|bearer))\b", re.IGNORECASE)
# (and the network a Wi-Fi password is for: "password for the wifi is …", "كلمة سر الواي
# فاي"; "is" in Spanish, French, German, Portuguese and Italian)
_SECRET_GAP = label_gap("is", "was", "number", "no",
                        r"(?:(?:for|of)\s+(?:the\s+)?)?(?:wi-?fi|wlan)", r"(?:الواي\s+)?فاي",
                        "es", "est", "ist", "é", "è")
_SECRET = re.compile(r"\S{4,128}")
# A numeric code read out in groups ("Your verification code is 739 214", "PIN 48-21-77").
_GROUPED_CODE = re.compile(r"\d{2,4}(?:[ -]\d{2,4}){1,3}(?![\w/]|[.,:-]?\d)")
# A user name and its password after a log-in's label: "Admin login reset to: admin /
# Nile#Cairo77", "credentials: jdoe/Tr0ub4dor&3".
_CREDENTIALS = re.compile(r"\b(?:log-?in|sign-?in|credentials)\b[^\n:=]{0,20}[:=][ \t]*"
                          r"(?=[\w.@+-]*[^\W\d_])[\w.@+-]{2,40}[ \t]*/[ \t]*(?P<secret>\S)",
                          re.IGNORECASE)
# Keys of public formats, taken alone (gitleaks' rules: AWS, GitHub, Stripe, Slack, Google).
_KEY = re.compile(r"(?<![\w-])(?:(?:AKIA|ASIA)[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{36}|"
                  r"github_pat_\w{82}|[sr]k_live_[0-9A-Za-z]{24,99}|"
                  r"xox[baprs]-[0-9A-Za-z-]{10,72}|AIza[0-9A-Za-z_-]{35}|"
                  # a JSON Web Token (RFC 7519): header and payload, base64url JSON objects
                  r"eyJ[\w-]{8,}\.eyJ[\w-]{8,}\.[\w-]*)(?![\w-])")
# An identifier an organisation gives a person, after its label ("Employee ID: EMP-204981").
_PERSONAL_LABEL = re.compile(
    r"\b(?:employee|emp|staff|student|customer|cust|client|member(?:ship)?|user|badge|"
    r"applicant|patron|subscriber|loyalty|frequent\s+flyer|account\s+holder)[\s_]*"
    r"(?:(?:id|no|number|code)\b|#)|"
    r"\baccount[\s_]*id\b|\bbadge\b(?=\s*#?\s*\d)|"
    # India's provident fund and state insurance numbers of an employee
    r"\b(?:uan|esic|e?pf\s*(?:no|number|account)|esi\s*(?:no|number))\b|"
    # employee, customer and member numbers in other languages
    r"\b(?:personalnummer|mitarbeiternummer|kundennummer|mitgliedsnummer|personeelsnummer|"
    r"klantnummer|lidnummer|matricule|(?:numéro|n[°º])\s*(?:d['’]employé|d['’]adhérent|"
    r"adhérent|client|de\s+membre)|número\s+de\s+(?:empleado|cliente|socio)|"
    r"numero\s+(?:di\s+matricola|cliente|socio))(?!\w)|사번|고객번호|회원번호|社員番号|従業員番号|"
    r"顧客番号|お客様番号|会員番号|工号|员工编号|客户编号|会员号", re.IGNORECASE)
_PERSONAL_GAP = label_gap("is now", "will be", "is", "was")
_PERSONAL = re.compile(r"[A-Z]{2}/[A-Z]{3}/\d{5,7}(?:/\d{1,7}){1,2}(?![\w/])|"  # a PF number
                       r"(?=(?:[A-Z-]*\d){3})[A-Z0-9][A-Z0-9-]{2,19}(?![\w/]|[.,:-]\w)|"
                       r"(?<=[\"'])(?=(?:[A-Za-z_-]*\d){3})[A-Za-z0-9][\w-]{2,19}(?=[\"'])")
# A record's own "id" (JSON or a Python dict) where the same object names a person:
# {"id": "EMP-3310", "name": "Zanele Dlamini", …}.
_RECORD_ID = re.compile(r"""(?P<q>["'])_?id(?P=q)\s*:\s*(?P=q)(?P<value>[^"'\n]{3,20})(?P=q)""",
                        re.IGNORECASE)
_NAME_KEY = re.compile(r"""["'](?:(?:full|first|last|given|family|display)[_ ]?)?name["']\s*:|"""
                       r"""["'](?:surname|forename)["']\s*:""", re.IGNORECASE)


def _object(text: str, m: re.Match[str]) -> str:
    """The text of the innermost ``{…}`` object around a match, up to a nested one (its
    line where no brace encloses it)."""
    start = max(text.rfind("{", 0, m.start()), text.rfind("}", 0, m.start()))
    if start >= 0 and text[start] == "{":
        ends = [i for i in (text.find("}", m.end()), text.find("{", m.end())) if i >= 0]
        return text[start:min(ends, default=len(text))]
    end = text.find("\n", m.end())
    return text[text.rfind("\n", 0, m.start()) + 1:end if end >= 0 else len(text)]


#: Context words a list's heading may give its items ("licence numbers for the renewal:" ⏎
#: "- Andre Williams – NY 742 918 365"): those of the labels taken within
#: :data:`CONTEXT_WINDOW` characters after their word, or right after their label.
LIST_CONTEXTS = (_CONTEXT[US_PASSPORT], _CONTEXT[US_DRIVER_LICENSE], _CONTEXT[US_BANK_NUMBER],
                 _RECORD_CONTEXT, _SORT_CONTEXT, _VIN_CONTEXT, _PERSONAL_LABEL, _PLATE_LABEL)
# DEA registrant types (first letter): practitioners, mid-levels, distributors, ...
_DEA_TYPES = "ABCDEFGHJKLMPRSTUX"


def _after_context(text: str, start: int, pattern: re.Pattern[str]) -> bool:
    return bool(pattern.search(text, max(0, start - CONTEXT_WINDOW), start))


def dea_valid(value: str) -> bool:
    """Whether ``value`` is a DEA registration number: a registrant-type letter, a letter or
    ``9``, seven digits whose last is the last digit of d1+d3+d5 + 2·(d2+d4+d6)."""
    if not _DEA.fullmatch(value) or value[0].upper() not in _DEA_TYPES:
        return False
    d = [int(c) for c in value[2:]]
    return (d[0] + d[2] + d[4] + 2 * (d[1] + d[3] + d[5])) % 10 == d[6]


def npi_valid(value: str) -> bool:
    """Whether ten digits are a National Provider Identifier: a first digit 1 or 2 and the
    Luhn check over ``80840`` and the digits (CMS)."""
    return len(value) == 10 and value.isdigit() and value[0] in "12" and \
        luhn_valid("80840" + value)


def vin_valid(value: str) -> bool:
    """Whether 17 characters are a VIN with a valid check digit (the ninth: the weighted sum
    of the transliterated characters mod 11, ``X`` for 10; 49 CFR 565, used in North America
    and by most makers elsewhere)."""
    if len(value) != 17 or any(c not in _VIN_VALUES for c in value):
        return False
    total = sum(_VIN_VALUES[c] * w for c, w in zip(value, _VIN_WEIGHTS)) % 11
    return value[8] == ("X" if total == 10 else str(total))


def _plate(text: str, start: int) -> tuple[int, int] | None:
    """The number plate right at ``start``: 3–12 capitals, digits and letters of scripts
    without case, holding a digit, up to four groups, ending before a word; not a date or
    years."""
    def fits(value: str) -> bool:
        body = re.sub(r"[- ]", "", value)
        return bool(re.match(r"(?![\w/]|[.,:-]\w)", text[start + len(value):])) and \
            3 <= len(body) <= 12 and any(c.isdigit() for c in body) and \
            not date_or_years(value)

    m = _PLATE.match(text, start)
    value = cut_back(m.group(), fits) if m is not None else ""
    return (start, start + len(value)) if value else None


def _licence_like(value: str) -> bool:
    """A driver licence number's shape: 4–16 capitals and digits (separators aside) with at
    least four digits, seven if it has no letter."""
    body = re.sub(r"[- ]", "", value)
    digits = sum(c.isdigit() for c in body)
    return 4 <= len(body) <= 16 and digits >= (7 if body.isdigit() else 4)


def _other_number(text: str, end: int, value: str, *, hyphen_thousands: bool = True) -> bool:
    """A date, a list of years, or an amount: digits grouped as thousands (``31 087 385``;
    with ``hyphen_thousands`` also ``31-087-385``) or followed by a currency sign."""
    if date_or_years(value) or text[end:end + 2].strip()[:1] in tuple(CURRENCY):
        return True
    if not hyphen_thousands and "-" in value:
        return False
    groups = re.findall(r"[A-Z0-9]+", value)
    return len(groups) > 1 and len(groups[0]) <= 3 and all(len(g) == 3 for g in groups[1:])


def _secret(text: str, start: int, key: bool) -> tuple[int, int] | None:
    """The secret right at ``start`` (see ``PASSWORD`` in the module doc; ``key``: after a
    key's or token's label, 128 characters at most, else 64), or ``None``."""
    grouped = _GROUPED_CODE.match(text, start)
    if grouped is not None and not date_or_years(grouped.group()):
        return start, grouped.end()
    m = _SECRET.match(text, start)
    if m is None or (len(m.group()) > 64 and not key):
        return None
    value = m.group()
    while value[-1:] in ".,;:)\"'" and len(value) > 4:
        value = value[:-1]
    letters = [c for c in value if c.isalpha()]
    secret_like = any(c.isdigit() for c in value) or \
        any(not c.isalnum() for c in value) or any(c.isupper() for c in letters[1:])
    masked = set(value) <= set("*•xX#-")
    return (start, start + len(value)) if secret_like and not masked else None


def candidates(text: str, labels: Iterable[str]) -> Iterable[tuple[int, int, str]]:
    """``(start, end, label)`` matches of this module's ``labels`` in ``text`` (see the
    module doc); overlaps are resolved by the caller (:func:`textdp.detect.pii.find_pii`)."""
    labels = frozenset(labels)
    if MAC_ADDRESS in labels and (":" in text or "-" in text or "." in text):
        yield from ((m.start(), m.end(), MAC_ADDRESS) for m in _MAC.finditer(text))
    if BIC in labels:
        from stdnum import bic

        for m in _BIC.finditer(text):
            # alone with a digit (no word of capitals has one), else after "SWIFT"/"BIC"
            if bic.is_valid(m.group()) and (any(c.isdigit() for c in m.group()) or
                                            _after_context(text, m.start(), _BIC_CONTEXT)):
                yield m.start(), m.end(), BIC
    if PASSWORD in labels:
        for label in _SECRET_LABEL.finditer(text):
            gap = _SECRET_GAP.match(text, label.end())
            found = _secret(text, gap.end(), bool(label.group("key"))) \
                if gap and gap.end() > label.end() else None
            if found:
                yield found[0], found[1], PASSWORD
        yield from ((m.start(), m.end(), PASSWORD) for m in _KEY.finditer(text))
        for m in _CREDENTIALS.finditer(text):
            found = _secret(text, m.start("secret"), False)
            if found:
                yield found[0], found[1], PASSWORD
    if not any(c.isdigit() for c in text):
        return
    if MEDICAL_LICENSE in labels:
        yield from ((m.start(), m.end(), MEDICAL_LICENSE) for m in _DEA.finditer(text)
                    if dea_valid(m.group()))
        yield from ((m.start(), m.end(), MEDICAL_LICENSE) for m in _NPI.finditer(text)
                    if npi_valid(m.group()) and _after_context(text, m.start(), _NPI_CONTEXT))
    if US_PASSPORT in labels:
        yield from ((m.start(), m.end(), US_PASSPORT) for m in _PASSPORT.finditer(text)
                    if _after_context(text, m.start(), _CONTEXT[US_PASSPORT]))
    if PASSPORT in labels:
        for m in _ICAO_PASSPORT.finditer(text):
            if not _PASSPORT.fullmatch(m.group()) and \
                    not _other_number(text, m.end(), m.group()) and \
                    _after_context(text, m.start(), _CONTEXT[US_PASSPORT]):
                yield m.start(), m.end(), PASSPORT
    if UK_SORT_CODE in labels:
        yield from ((m.start(), m.end(), UK_SORT_CODE) for m in _SORT_CODE.finditer(text)
                    if _after_context(text, m.start(), _SORT_CONTEXT))
    if US_DRIVER_LICENSE in labels:
        for m in _LICENCE.finditer(text):
            if _licence_like(m.group()) and not _other_number(text, m.end(), m.group()) and \
                    _after_context(text, m.start(), _CONTEXT[US_DRIVER_LICENSE]):
                yield m.start(), m.end(), US_DRIVER_LICENSE
    if US_BANK_NUMBER in labels:
        yield from ((m.start(), m.end(), US_BANK_NUMBER) for m in _BANK_ALNUM.finditer(text)
                    if sum(c.isdigit() for c in m.group()) >= 8 and
                    _after_context(text, m.start(), _CONTEXT[US_BANK_NUMBER]))
        for m in _BANK.finditer(text):
            digits = re.sub(r"\D", "", m.group())
            if not 8 <= len(digits) <= 34 or _other_number(text, m.end(), m.group()) or \
                    not _after_context(text, m.start(), _CONTEXT[US_BANK_NUMBER]):
                continue
            if len(digits) == 9 and _after_context(text, m.start(), _ROUTING):
                from stdnum.us import rtn

                if not rtn.is_valid(digits):
                    continue
            yield m.start(), m.end(), US_BANK_NUMBER
        for m in _SHORT_ACCOUNT.finditer(text):
            if labelled(text, m.start(), _ACCOUNT_LABEL, RECORD_WINDOW, _ACCOUNT_GAP) and \
                    not _other_number(text, m.end(), m.group(), hyphen_thousands=False):
                yield m.start(), m.end(), US_BANK_NUMBER
    if VIN in labels:
        yield from ((m.start(), m.end(), VIN) for m in _VIN.finditer(text)
                    if vin_valid(m.group()) or _after_context(text, m.start(), _VIN_CONTEXT))
    if LICENSE_PLATE in labels:
        for label in _PLATE_LABEL.finditer(text):
            gap = _PLATE_GAP.match(text, label.end())
            found = _plate(text, gap.end()) if gap and gap.end() > label.end() else None
            if found:
                yield found[0], found[1], LICENSE_PLATE
        yield from ((m.start(), m.end(), LICENSE_PLATE) for m in _UK_PLATE.finditer(text))
    if PERSONAL_ID in labels:
        for label in _PERSONAL_LABEL.finditer(text):
            gap = _PERSONAL_GAP.match(text, label.end())
            m = _PERSONAL.match(text, gap.end()) if gap else None
            if m and not _other_number(text, m.end(), m.group(), hyphen_thousands=False):
                yield m.start(), m.end(), PERSONAL_ID
        for m in _RECORD_ID.finditer(text):
            v = _PERSONAL.match(text, m.start("value"))
            if v and v.end() == m.end("value") and _NAME_KEY.search(_object(text, m)):
                yield m.start("value"), m.end("value"), PERSONAL_ID
    if MEDICAL_RECORD in labels:
        # written in groups of digits ("Medicare number is 2953 17184 1"): the whole number
        spaced = [(m.start(), m.end()) for m in _RECORD_SPACED.finditer(text)
                  if 8 <= sum(c.isdigit() for c in m.group()) <= 16 and
                  labelled(text, m.start(), _RECORD_CONTEXT, RECORD_WINDOW, _RECORD_GAP)]
        for a, b in spaced:
            yield a, b, MEDICAL_RECORD
        for m in _RECORD.finditer(text):
            body = m.group().replace("-", "")
            if 4 <= len(body) <= 16 and sum(c.isdigit() for c in body) >= 4 and \
                    not any(a <= m.start() < b for a, b in spaced) and \
                    not _other_number(text, m.end(), m.group(), hyphen_thousands=False) and \
                    labelled(text, m.start(), _RECORD_CONTEXT, RECORD_WINDOW, _RECORD_GAP):
                yield m.start(), m.end(), MEDICAL_RECORD


def layout(label: str, value: str) -> str:
    """What a surrogate of ``value`` may depend on: ``#`` for a digit, ``A``/``a`` for a
    capital/small letter (for a MAC address ``h`` or ``H`` for every hex digit: whether its
    letters are small) and the
    separators ``-``, ``:``, ``.``, ``/`` and space as they stand; other characters dropped
    (in a password each is ``*``, a symbol)."""
    if label == MAC_ADDRESS:
        case = "h" if any(c.islower() for c in value) else "H"
        return re.sub(r"[^#hH:.\-]", "", re.sub(r"[0-9A-Fa-f]", case, value))
    if label == PASSWORD:  # every other character is a symbol, drawn anew
        return "".join("#" if c.isdigit() else ("A" if c.isupper() else "a") if c.isalpha()
                       else "*" for c in value)
    out = "".join("#" if c.isdigit() else ("A" if c.isupper() else "a") if c.isalpha()
                  else c for c in value)
    return re.sub(r"[^#Aa \-./]", "", out)


#: What a placeholder of a layout is filled with when the format's own characters run out.
_CLASSES = {"#": "0123456789", "A": "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
            "a": "abcdefghijklmnopqrstuvwxyz", "H": "0123456789ABCDEF", "h": "0123456789abcdef",
            # a secret's symbols: none a label's gap would take for punctuation ("#", "=")
            "*": "!$%&*+?@^_~"}


def _fill(layout_: str, chars: str, rng: np.random.Generator) -> str:
    """``layout_`` with its placeholders filled by ``chars`` in order, and any left over (a
    token longer than the value its format reads: ``AB1234563/2``) by characters of their
    class drawn from ``rng``."""
    it = iter(chars)
    return "".join(next(it, None) or _draw(rng, _CLASSES[c], 1) if c in _CLASSES else c
                   for c in layout_)


def _draw(rng: np.random.Generator, alphabet: str, n: int) -> str:
    return "".join(alphabet[i] for i in rng.integers(0, len(alphabet), size=n)) if n else ""


def surrogate(label: str, layout_: str, rng: np.random.Generator) -> str:
    """A replacement of ``layout_`` (see :func:`layout`) drawn from ``rng``; it depends on
    nothing else of the value (see the module doc for what each label's surrogate is)."""
    if label == MAC_ADDRESS:
        hexes = "00005E0053" + f"{int(rng.integers(256)):02X}"
        return _fill(layout_, hexes.lower() if "h" in layout_ else hexes, rng)
    if label == MEDICAL_LICENSE:
        if layout_.count("#") == 10:  # an NPI
            body = str(int(rng.integers(1, 3))) + _draw(rng, _CLASSES["#"], 8)
            return _fill(layout_, luhn_complete("80840" + body)[5:], rng)
        d = [int(x) for x in rng.integers(0, 10, size=6)]
        check = (d[0] + d[2] + d[4] + 2 * (d[1] + d[3] + d[5])) % 10
        letters = _draw(rng, "ABFG", 1) + _draw(rng, _CLASSES["A"], 1)
        chars = "".join(str(x) for x in d) + str(check)
        head = "".join("9" if k == "#" else c if k == "A" else c.lower()
                       for c, k in zip(letters, layout_[:2]))
        return head + _fill(layout_[2:], chars, rng)
    if label == BIC:  # a random bank code and country (nothing of the value's)
        from stdnum import bic

        countries = sorted(bic._country_codes)
        country = countries[int(rng.integers(len(countries)))]
        return _fill(layout_[:4], "", rng) + country + _fill(layout_[6:], "", rng)
    if label == VIN:  # random characters of ISO 3779 and a valid check digit
        while True:  # until the check character is of the layout's kind (a digit, or X)
            chars = [_draw(rng, _VIN_DIGITS if c == "#" else _VIN_LETTERS, 1) for c in layout_]
            total = sum(_VIN_VALUES[c] * w for c, w in zip(chars, _VIN_WEIGHTS)) % 11
            if (layout_[8] == "#") == (total < 10):
                chars[8] = "X" if total == 10 else str(total)
                return "".join(chars)
    while True:  # an account number that reads as a card would be re-found as one
        out = _fill(layout_, "", rng)
        digits = re.sub(r"\D", "", out)
        if label != US_BANK_NUMBER or not (13 <= len(digits) <= 19 and digits[0] in "23456"
                                           and luhn_valid(digits)):
            return out
