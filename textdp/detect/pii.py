"""Pattern recognisers for personal data other than names, and their text-free surrogates.

Users of Presidio and scrubadub expect e-mail addresses, phone numbers, URLs and handles to be
handled too; a name tagger leaves them as they are. :class:`PIIDetector` marks them with these
labels (valid ``targets``, :data:`PII_LABELS`):

* ``EMAIL``: ``local@domain.tld`` (the local part may hold letters of any script, digits and
  ``. _ % + ' -``; the domain ends in a top-level domain of two letters or more), and an
  address written out to hide it from scrapers, with a bracketed ``at`` or ``dot``
  (``anna.smith[at]example.com``, ``jdoe (at) example (dot) org``) or both spelt out
  (``anna dot smith at gmail dot com``; not ``look at example.com``);
* ``URL``: ``http://``, ``https://`` and ``ftp://`` addresses and ``www.`` hosts, without the
  punctuation that ends a sentence or an unbalanced closing bracket;
* ``HANDLE``: ``@name`` mentions (letters, digits, ``_`` and inner dots, up to 30 characters,
  holding a letter), not the ``@`` of an e-mail address; and a user name right after its
  label (``username``, ``user ID``, ``login``, ``screen name``, ``gamertag``, ``account
  name``: ``My username is etta29``), unless it is a common English word;
* ``IP``: IPv4 dotted quads (each part 0–255) and IPv6 addresses (validated by
  :mod:`ipaddress`; ``10:30:45`` is a time, not an address);
* ``CREDIT_CARD``: 13–19 digits, ungrouped or grouped as cards are printed (fours, or
  4-6-4 / 4-6-5) by one kind of separator (space or ``-``), starting with 2–6 (the payment
  networks' major industry identifiers) or JCB's 15-digit ``1800`` range, and passing the
  Luhn checksum (:func:`luhn_valid`): an invalid number is not a card; after a card word
  (``card``, ``credit``, ``debit``, ``visa``, ``maestro``, ...) also any first digit (a
  national network's range), 12-digit Maestro numbers and numbers grouped as cards are
  printed without a valid checksum (typed wrong or made up); a number that runs into the expiry
  after it (``4111 1111 1111 1111 05/28``) loses groups from its end until a card fits; and
  a card's security code (3–4 digits, not a year) right after ``CVV``, ``CVC``, ``CSC``
  (in any case), ``CID`` or ``security code``;
* ``PHONE``: 7–15 digits in groups (``555-123-4567``, ``(555) 123 4567``, ``+44 20 7946
  0958``, ``01 23 45 67 89``, ``+15551234567``): a leading ``+``, a bracketed area code, or
  at least two groups joined by one kind of separator (space, ``-`` or ``.``); a bare run of
  digits is not a phone (record numbers, amounts), nor are dates (``2021-03-04``,
  ``04.03.2021``), year lists (``1999-2003``), numbers with thousands separators
  (``1,250,000``) or IPv4 addresses. Joined to these (overlaps merged): the numbers of every
  region that Google's libphonenumber (the :mod:`phonenumbers` port, leniency ``VALID``: a
  number of a real numbering plan, its source of truth) finds, read in ``region`` (default
  :data:`DEFAULT_REGION`, ``"US"``) when written without ``+`` and a country code
  (``+49 30 8063654``, ``+33 1 23 45 67 89``, ``+91 98765 43210``), under the same
  exclusions (a bare run of digits, a date, years, thousands); and national numbers of 8–13
  digits in groups (space or ``-``) that start with the trunk prefix ``0`` (``01512
  3459245``, ``011 15-2345-6892``) or, grouped like thousands (``512 340 063``), follow a
  phone word (``call``, ``phone``, ``mobile``, ``number``, ...) within 48 characters; an
  international prefix ``00`` counts as ``+`` (``0049 30 12345678``); a bare run of 10 or
  11 digits right after a phone word (``ph 5551234567``, ``call me at 5551234567``: only
  punctuation and ``no``, ``number``, ``is``, ``at``, ``me`` between); a bare run of 7–15
  digits, or two groups joined by one dot (``9487.5749``), right after a word that says
  phone and nothing else (``phone``, ``tel``, ``mobile``, ``cell``, ``fax``, ``call me``,
  ``reach me``: ``Mobile: 0579868282880``); after a ``+`` and a country code, groups of
  up to ten digits (``+3197-9711471``); an extension after a number is part of it
  (``555-123-4567x890``, ``ext. 12``). Not phones: an amount (a currency sign before or
  after it, or two groups joined by one ``.``) and a valid ISBN-13 (:mod:`stdnum.isbn`);
* ``IBAN``: an international bank account number, ungrouped or in groups of four by
  spaces (``DE89 3704 0044 0532 0130 00``), capitals only, with its country's length and
  BBAN format and the ISO 7064 mod-97 checksum (:mod:`stdnum.iban`, from SWIFT's registry);
  failing the length, a country that issues IBANs and the checksum alone
  (:func:`iban_checksum_only`: a generated or mistyped number identifies an account too);
* ``US_SSN``: ``123-45-6789`` or ``123 45 6789``, with the SSA's rules
  (:mod:`stdnum.us.ssn`: no area 000, 666 or 900–999, group 00, serial 0000, nor the
  numbers made public by mistake); nine bare digits only after a context word (``SSN``,
  ``social security``) within 48 characters;
* ``US_ITIN``: the same layout, area 9xx and group 70–88, 90–92 or 94–99
  (:mod:`stdnum.us.itin`, the IRS rules); bare digits only after ``ITIN``/``tax id``;
* ``UK_NHS``: ten digits, bare or grouped 3-3-4 by one kind of separator, with the NHS
  mod-11 check digit (:mod:`stdnum.gb.nhs`), and only after a context word (``NHS``,
  ``health service``) within 48 characters: one in eleven ten-digit numbers passes the
  check, so alone a 3-3-4 number is read as a phone (and replaced as one);
* ``UK_NINO``: a National Insurance number, ``AB 12 34 56 C`` or ``AB123456C``, with
  HMRC's allocation rules (NIM39110: first letter not ``D F I Q U V``, second not
  ``D F I O Q U V``, prefixes ``BG GB KN NK NT TN ZZ`` never used, suffix ``A``–``D``; a
  NINO has no checksum);
* ``CRYPTO``: a bitcoin address, base58check (``1...``, ``3...``) or bech32 (``bc1...``),
  its checksum verified (:mod:`stdnum.bitcoin`); an Ethereum address (``0x`` and 40 hex
  digits; its mixed-case EIP-55 checksum needs Keccak-256, which the standard library lacks,
  so the shape alone decides);
* ``US_PASSPORT``, ``US_DRIVER_LICENSE``, ``US_BANK_NUMBER``, ``MEDICAL_LICENSE`` (DEA
  numbers, NPIs) and ``MAC_ADDRESS``: the rest of Presidio's default English registry, and
  ``PASSPORT`` (other countries' passports), ``UK_SORT_CODE``, ``MEDICAL_RECORD`` (after
  ``MRN``, ``patient ID``, ...), ``BIC`` (SWIFT codes), ``VIN`` (vehicle identification
  numbers) and ``LICENSE_PLATE`` (after ``plate``, ``registration``), in
  :mod:`textdp.detect.identifiers` (what each matches, its context words and checksums, and
  what its surrogate releases: the layout);
* ``DATE_OF_BIRTH``: a date right after a birth cue (``DOB``, ``date of birth``, ``born
  on``, ``birthday``, ``geb.``, ``née le``, ...; :func:`textdp.detect.dates.find_births`), an
  identifier of the ``pii`` preset: its surrogate is a date drawn uniformly from 1931–2009
  written in the value's style, which is all it releases. Where ``DATE`` is a target too
  (``quasi``), ``DATE`` wins: the date is shifted by the text's DP offset like every other;
* ``DATE`` and ``AGE`` (:data:`QUASI_LABELS`): calendar dates (:mod:`textdp.detect.dates`)
  and ages (:mod:`textdp.detect.ages`), quasi-identifiers the privatizer releases with DP
  noise (:mod:`textdp.quasi`: one day offset per text, noisy ages); :func:`surrogate` alone
  gives their tag;
* ``POSTCODE`` (:data:`LOCATION_LABELS`): UK and Canadian postcodes, U.S. ZIP codes after a
  state code, and other countries' codes after a postcode word or before a listed city
  (:mod:`textdp.detect.postcodes`), a quasi-identifier replaced by a surrogate of its
  layout; ``STREET_ADDRESS``: a house number with its street (``19 Mill Lane``, ``Via
  Roma 12``, ``Hauptstraße 5``; :mod:`textdp.detect.streets`), replaced by random digits
  and a public street name of the same type; ``COORDINATES``: a latitude and longitude
  (``40.7128, -74.0060``, ``40°42'46"N 74°00'22"W``; :mod:`textdp.detect.coordinates`),
  replaced by a random point written in its layout.

Where matches overlap, the more specific one wins: URL, then EMAIL, IBAN, CRYPTO,
CREDIT_CARD, MAC_ADDRESS, IP, US_SSN, US_ITIN, UK_NHS, UK_NINO, NATIONAL_ID, US_PASSPORT,
PASSPORT, US_DRIVER_LICENSE, MEDICAL_LICENSE, UK_SORT_CODE, US_BANK_NUMBER, MEDICAL_RECORD,
BIC, VIN, LICENSE_PLATE, COORDINATES, DATE, DATE_OF_BIRTH, AGE, STREET_ADDRESS, POSTCODE,
PHONE, HANDLE; a value may so take
another identifier's label (a licence written as an SSN, an account number that passes
Luhn), and is replaced all the same. The recognisers run on
the normalised text of :mod:`textdp.detect.normalise`
(fullwidth digits, zero-width characters and odd spaces cannot hide an address from them) and
their character ranges are mapped back to the original. As a :class:`Detector` the matches
become token spans: every token that overlaps a match. Names inside an address are the name
detector's to find (:mod:`textdp.detect.handles` marks ``maria.lopez@example.com`` as
``PERSON`` too); :func:`with_pii <textdp.detect.with_pii>` runs both and keeps both spans.

Replacements (:func:`surrogate`, :func:`tag`) never copy a character of the original
beyond what the shape below releases (of all labels, only an IBAN's country code):

* a tag, ``[EMAIL]``, reveals the label only;
* a surrogate (format-preserving) is drawn from ``rng`` given the label and the match's
  :class:`Shape`, never its value. What it reveals is exactly that shape:

  - ``EMAIL``, ``URL``, ``HANDLE``: nothing but the label (``user4821@example.net``,
    ``https://example.org/3fa9c2d1``, ``@user519304``: reserved example domains, RFC 2606),
    and for a handle whether it had an ``@`` (a user name after ``username`` becomes
    ``user519304``);
  - ``IP``: the version (IPv4 → ``192.0.2.0/24``, IPv6 → ``2001:db8::/32``, the
    documentation ranges of RFC 5737 and RFC 3849);
  - ``PHONE`` and ``CREDIT_CARD``: the layout, i.e. where the digits stand and the other
    characters between them (``+## ## #### ####``, ``#### #### #### ####``), and so the
    number of digits; a phone's extension keeps its marker as written (``x``, ``ext.``)
    and gets random digits. A phone of 10 digits (11 with a leading ``1``) becomes a North American
    number in the fictional range ``555-0100``–``555-0199``; other phones keep their layout
    with random digits ending in ``55501##`` (no reserved range exists for every country, so
    such a number may exist; it carries nothing of the original). A card becomes a payment
    network's published test number of the same length (13–16 digits; another one when the
    value is itself a test number), or for 17–19 digits a Luhn-valid number starting with
    ``0`` (major industry identifier 0: not a payment card).
  - ``IBAN``: the country code and the layout (length, where the spaces stand): a random
    IBAN of that country's BBAN format with valid check digits, national ones included
    where python-stdnum checks them (it may exist; it carries nothing of the original but
    the country);
  - ``US_SSN``: the layout (``-`` or space): one of the SSA's advertising numbers
    ``987-65-4320``–``987-65-4329``, no one's (and refused by the recogniser);
  - ``US_ITIN``: the layout: a random valid ITIN (no reserved range exists; it may exist);
  - ``UK_NHS``: the layout: a valid number of the ``999`` range NHS Digital keeps for tests;
  - ``UK_NINO``: the layout: HMRC's example prefix ``QQ`` (never allocated), random digits
    and suffix;
  - ``CRYPTO``: the label and the chain: a random P2PKH address (``1...``, valid checksum;
    no one holds its key) for a bitcoin address, ``0x`` and 40 random lower-case hex digits
    for an Ethereum one.

  No ε is spent on a surrogate or a tag: the output is a function of the label, the shape and
  ``rng`` only, so two inputs of the same label and shape give the same output distribution
  (indistinguishable, the guarantee of ε = 0 between them); between inputs of different
  shapes there is no guarantee, as for the casing class a substituted name keeps.

Nothing here logs, prints or raises the text; :class:`PIIMatch` and :class:`Shape` reprs hold
no text.
"""

from __future__ import annotations

import ipaddress
import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from textdp.detect import (
    ages,
    coordinates,
    dates,
    delimited,
    identifiers,
    national_ids,
    postcodes,
    streets,
)
from textdp.detect.base import Finding, Span
from textdp.detect.numbers import (
    CURRENCY as _CURRENCY,
)
from textdp.detect.numbers import (
    DATE_FORM as _DATE,
)
from textdp.detect.numbers import (
    YEAR as _YEAR,
)
from textdp.detect.numbers import (
    cut_back,
    label_gap,
    labelled,
    luhn_complete,
    luhn_valid,
)

EMAIL = "EMAIL"
PHONE = "PHONE"
URL = "URL"
HANDLE = "HANDLE"
IP = "IP"
CREDIT_CARD = "CREDIT_CARD"
IBAN = "IBAN"
US_SSN = "US_SSN"
US_ITIN = "US_ITIN"
UK_NHS = "UK_NHS"
UK_NINO = "UK_NINO"
CRYPTO = "CRYPTO"
# Identifiers with a checksum or an issuing rule, validated by python-stdnum (see the doc),
# and those of Presidio's default English registry recognised in textdp.detect.identifiers.
ID_LABELS = (IBAN, US_SSN, US_ITIN, UK_NHS, UK_NINO, national_ids.NATIONAL_ID, CRYPTO,
             *identifiers.LABELS)
# Labels whose surrogate is random characters of the value's layout
# (textdp.detect.identifiers.surrogate).
LAYOUT_LABELS = (*identifiers.LABELS, national_ids.NATIONAL_ID, postcodes.POSTCODE)
#: Quasi-identifiers read by patterns (textdp.detect.dates, textdp.detect.ages): released with
#: DP noise (textdp.quasi), not a surrogate.
QUASI_LABELS = (dates.DATE, ages.AGE)
#: Quasi-identifiers replaced by a surrogate of their layout (textdp.detect.postcodes,
#: textdp.detect.streets).
LOCATION_LABELS = (postcodes.POSTCODE, streets.STREET_ADDRESS, coordinates.COORDINATES)
PII_LABELS = (EMAIL, PHONE, URL, HANDLE, IP, CREDIT_CARD, *ID_LABELS, dates.DATE_OF_BIRTH,
              *QUASI_LABELS, *LOCATION_LABELS)
#: The labels that identify a person or a device on their own (the ``pii`` preset of
#: :mod:`textdp.targets`); the quasi-identifiers of :data:`QUASI_LABELS` and
#: :data:`LOCATION_LABELS` are not in it.
IDENTIFIER_LABELS = tuple(x for x in PII_LABELS
                          if x not in QUASI_LABELS and x not in LOCATION_LABELS)
# Which match wins where two overlap (earlier wins): the more specific pattern first.
PRIORITY = (URL, EMAIL, IBAN, CRYPTO, CREDIT_CARD, identifiers.MAC_ADDRESS, IP, US_SSN, US_ITIN,
            UK_NHS, UK_NINO, national_ids.NATIONAL_ID, *identifiers.LABELS[1:],
            coordinates.COORDINATES, dates.DATE,
            dates.DATE_OF_BIRTH, ages.AGE, streets.STREET_ADDRESS, postcodes.POSTCODE, PHONE,
            HANDLE)
# The region phone numbers written without a country code are read in (ISO 3166 alpha-2).
DEFAULT_REGION = "US"

_EMAIL = re.compile(
    r"(?<![\w.%+'-])\w[\w.%+'-]*@[^\W_](?:[\w-]*[^\W_])?(?:\.[^\W_](?:[\w-]*[^\W_])?)*"
    r"\.[^\W\d_]{2,}(?![\w-])")
_URL = re.compile(r"(?<![\w@.])(?:(?:https?|ftp)://[^\s<>\"'`]+|www\.[^\s<>\"'`]+|"
                  # without a scheme, a domain with a path ("github.com/jdoe"): a bare
                  # domain is as often a company's name ("Amazon.com")
                  r"(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+(?:com|org|net|edu|gov|mil|int|io|"
                  r"info|biz|app|dev|xyz|online|site|[a-z]{2})(?::\d+)?/[^\s<>\"'`]+)",
                  re.IGNORECASE)
_URL_TRAILING = ".,;:!?'\"*"
_HANDLE = re.compile(r"(?<![\w@.])@(\w(?:[\w.]{0,28}\w)?)(?![\w@])")
# (an octet may be zero-padded: "192.168.001.010")
_IPV4 = re.compile(r"(?<![\w.])(?:(?:25[0-5]|2[0-4]\d|1\d\d|0\d\d|[1-9]?\d)\.){3}"
                   r"(?:25[0-5]|2[0-4]\d|1\d\d|0\d\d|[1-9]?\d)(?!\w|\.\d)")
# An e-mail address written out so that scrapers miss it: "anna.smith[at]example.com",
# "jdoe (at) example (dot) org", "anna dot smith at gmail dot com".
_AT = r"(?:\s*[\[({<]\s*(?:at|@)\s*[\])}>]\s*|\s+at\s+)"
_DOT = r"(?:\s*[\[({<]\s*(?:dot|\.)\s*[\])}>]\s*|\s+dot\s+|\.)"
_OBFUSCATED_EMAIL = re.compile(
    rf"(?<![\w.%+-])[^\W_][\w%+-]*(?:{_DOT}[\w%+-]+)*{_AT}[^\W_][\w-]*(?:{_DOT}[^\W_][\w-]*)*"
    rf"{_DOT}(?:com|org|net|edu|gov|io|co|uk|de|fr|in|info|biz|me|us|ca|au)\b", re.IGNORECASE)
_IPV6 = re.compile(r"(?<![\w:.])(?:[0-9A-Fa-f]{0,4}:){2,7}(?:\d{1,3}(?:\.\d{1,3}){3}|"
                   r"[0-9A-Fa-f]{1,4})?(?![\w:]|\.\d)")
_CARD = re.compile(r"(?<![\w.,+-])\d(?:[ -]?\d){11,18}(?!\w|[.,-]?\d)")
# A card's security code right after its label ("CVV: 166", "CVC 180", "security code 1234").
_CVV = re.compile(r"\b(?:(?i:cvv2?|cvc2?|csc)|CID|(?i:security\s+code|card\s+verification\s+"
                  r"(?:value|code)))\s*(?:is\s+|no\.?\s*)?[:#]?\s*(?P<code>\d{3,4})(?![\w/]|[.,]\d)")
# Where a phone number ends: not before a letter, "/", "@" or more digits, but before an
# extension ("555-123-4567x890", "… ext. 12").
_PHONE_END = r"(?!(?![xX]\d|[eE][xX][tT])[\w@/]|[.,:-]?\d)"
_PHONE = re.compile(
    r"(?<![\w+.,/:@-])(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,5}\)[ .-]?)?\d{1,12}(?:[ .-]\d{1,6}){0,5}"
    + _PHONE_END)
# After a "+" and a country code, a subscriber group may be long ("+3197-9711471").
_PHONE_PLUS = re.compile(r"(?<![\w+.,/:@-])\+\d{1,4}(?:[ .-]?\(?\d{1,5}\)?)?(?:[ .-]?\d{2,10}){1,4}"
                         + _PHONE_END)
_DIGITS = re.compile(r"\d+")
# A user name right after its label ("username: jdoe82", "my login is maria.k"): nothing but
# punctuation and "is" between, a name of letters, digits and "._-" holding a letter.
_USERNAME_LABEL = re.compile(r"\b(?:user\s*name|user\s*id|login(?:\s+(?:name|id))?|"
                             r"screen\s*name|gamer\s*tag|account\s+name)s?\b", re.IGNORECASE)
_USERNAME = re.compile(r"(?<![\w@.-])(?=[\w.-]*[^\W\d_])[\w][\w.-]{1,30}[\w](?![\w@-]|\.\w)")
_USERNAME_GAP = label_gap("is", "was")

# Published test card numbers of the payment networks, by length (all Luhn-valid).
TEST_CARDS: dict[int, tuple[str, ...]] = {
    13: ("4222222222222",),
    14: ("30569309025904", "38520000023237"),
    15: ("378282246310005", "371449635398431", "378734493671000"),
    16: ("4111111111111111", "4242424242424242", "4012888888881881", "5555555555554444",
         "5105105105105100", "6011111111111117", "6011000990139424", "3530111333300000"),
}


@dataclass(frozen=True)
class PIIMatch:
    """A match in character offsets of the text it was found in (end exclusive)."""

    start: int
    end: int
    label: str


def _groups(value: str) -> tuple[list[str], list[str]]:
    """The digit groups of a number and the separators between them."""
    groups = _DIGITS.findall(value)
    seps = re.split(r"\d+", value)[1:-1]
    return groups, seps


def is_card(value: str, *, after_card_word: bool = False) -> bool:
    """Whether a candidate (digits with ``' '``/``'-'`` separators) is a card number: 13–19
    digits, no separator or one kind grouping them as cards are printed (groups of 4, the
    last maybe shorter; or 4-6-4 / 4-6-5), a first digit of 2–6 (or JCB's 15-digit ``1800``
    range), and a valid Luhn checksum. With ``after_card_word`` (a card word stands before
    it) any first digit (a national network's range) and a 12-digit Maestro number (``50``,
    ``56``–``69``), which alone are as often an order or a reference number; and a number
    grouped as cards are printed (4-4-4-4, 4-6-5, 4-4-4-4-3) without a valid checksum: typed
    wrong or made up, after "card" or "Visa" it stands for a card all the same."""
    groups, seps = _groups(value)
    digits = "".join(groups)
    if after_card_word and 13 <= len(digits) <= 19 and len(set(seps)) == 1 and \
            [len(g) for g in groups] in ([4, 4, 4, 4], [4, 6, 5], [4, 4, 4, 4, 3]):
        return True  # grouped as a card right after a card word: typed or made up, a card
    maestro = after_card_word and len(digits) == 12 and (digits[:2] == "50" or
                                                         "56" <= digits[:2] <= "69")
    jcb = len(digits) == 15 and digits.startswith("1800")
    if not (maestro or jcb or (13 <= len(digits) <= 19 and
                               (digits[0] in "23456" or after_card_word))):
        return False
    if seps:
        if len(set(seps)) != 1 or seps[0] not in (" ", "-"):
            return False
        sizes = [len(g) for g in groups]
        fours = all(n == 4 for n in sizes[:-1]) and 1 <= sizes[-1] <= 4
        if not fours and sizes not in ([4, 6, 4], [4, 6, 5]):
            return False
    return luhn_valid(digits)


def _scores(groups: list[str]) -> bool:
    """Whether digit groups read as a list of scores or counts ("6-3 1-6 6-3 4-6 6-4"): three
    or more groups of one digit, which a phone written without ``+`` or a bracket never has
    (libphonenumber reads that tennis result as a valid U.S. number)."""
    return sum(len(g) == 1 for g in groups) >= 3


def is_phone(value: str) -> bool:
    """Whether a candidate of :data:`_PHONE` is a phone number (see the module doc)."""
    groups, seps = _groups(value)
    digits = "".join(groups)
    plus = value.startswith("+")
    paren = "(" in value
    if not (8 if plus else 7) <= len(digits) <= 15:
        return False
    if plus or paren:
        return True
    if len(groups) < 2 or _scores(groups):
        return False  # a bare run of digits: a record number, an amount; or scores
    if len(set(seps)) != 1 or _IPV4.fullmatch(value):
        return False
    if _DATE.match(value) or all(_YEAR.match(g) for g in groups):
        return False
    # 1,250,000 / 1.250.000 / 1 250 000: thousands separators.
    return not (len(groups[0]) <= 3 and all(len(g) == 3 for g in groups[1:]))


def _url_end(text: str, start: int, end: int) -> int:
    """``end`` without the sentence punctuation and unbalanced closing brackets after a URL.

    The brackets of ``text[start:end]`` are counted once and the counts kept as characters
    are dropped from the end (counting them again at every step took quadratic time on a URL
    ending in thousands of ``)``, issue 37)."""
    opens = {close: open_ for close, open_ in ((")", "("), ("]", "["), ("}", "{"))}
    count = {c: text.count(c, start, end) for pair in opens.items() for c in pair}
    while end > start:
        c = text[end - 1]
        if c in _URL_TRAILING:
            end -= 1
            continue
        if c in opens and count[opens[c]] < count[c]:
            count[c] -= 1
            end -= 1
            continue
        return end
    return end


# ------------------------------------------------------------ phones of every region
def _phone_plausible(raw: str) -> bool:
    """Whether a :mod:`phonenumbers` match is written as a phone rather than as another
    number: a leading ``+`` or bracket, or at least two groups that are not a date, a list of
    years, thousands or an IPv4 address (a bare run of digits stays a record number)."""
    groups, _ = _groups(raw)
    digits = "".join(groups)
    if not 7 <= len(digits) <= 15:
        return False
    if raw[:1] in "+(":
        return True
    if len(groups) < 2 or _scores(groups) or _IPV4.fullmatch(raw) or _DATE.match(raw):
        return False
    if all(_YEAR.match(g) for g in groups) or any(c in ",/:" for c in raw):
        return False
    return not (len(groups[0]) <= 3 and all(len(g) == 3 for g in groups[1:]))


# Phones the grammar of _PHONE leaves out: a national number with its trunk prefix 0 and a
# long subscriber group (01512 3459245, 030 8063654, 011 15-2345-6892), and groups that read
# as thousands (512 340 063) after a phone context word.
_PHONE_MORE = re.compile(r"(?<![\w+.,/:@-])\d{1,5}(?:[ -]\d{1,10}){1,4}" + _PHONE_END)
# "phone" and "mobile" in other languages ("móvil 612 345 678", "tlf 412 34 567", "Handy")
_PHONE_FOREIGN = r"m[óo]vil|celular|cellulare|telem[óo]vel|telefone|tel[eé]fono|telefon|" \
    r"tlf|handy|portable|t[ée]l|mobil|mobiel|puhelin|gsm"
_PHONE_CONTEXT = re.compile(r"\b(?:phone|ph|tel|telephone|call|calls|mobile|mob|cell|fax|"
                            r"number|contact|reach|whatsapp|sms|text|dial|ring|" +
                            _PHONE_FOREIGN + r")\b", re.IGNORECASE)
# After the number, fewer words say phone ("512 347 530 as a contact", "… (mobile)"): not
# "call" or "text", which follow counts ("512 340 063 calls").
_PHONE_CONTEXT_AFTER = re.compile(r"\b(?:phone|tel|telephone|mobile|cell|fax|number|contact|"
                                  r"whatsapp|" + _PHONE_FOREIGN + r")\b", re.IGNORECASE)
#: How far after a number :data:`_PHONE_CONTEXT_AFTER` is looked for, in characters.
_CONTEXT_AFTER = 16
# A bare run of 10 or 11 digits is a phone only right after a phone word ("ph 5551234567",
# "call me at 5551234567"): nothing but punctuation and these words between. A run of 7–15
# digits, or two groups joined by one dot ("9487.5749"), only right after a word that
# says phone and nothing else (not "number" or "contact", which also stand before an order
# or a case number): "Mobile: 0579868282880", "reach me at 351739336".
_PHONE_BARE = re.compile(r"(?<![\w+.,/:@$€£-])\d{7,15}" + _PHONE_END)
_PHONE_DOTTED = re.compile(r"(?<![\w+.,/:@$€£-])\d{3,5}\.\d{4,5}" + _PHONE_END)
_PHONE_WORD = re.compile(r"\b(?:phone|ph|tel|telephone|mobile|mob|cell|cellphone|fax|"
                         r"whatsapp|sms|msisdn|" + _PHONE_FOREIGN + r"|(?:call|reach|dial|ring|"
                         r"text)\s+(?:me|us|him|her|them))\b",
                         re.IGNORECASE)  # not "reach 2500000 people"
_PHONE_GAP = label_gap("no", "nr", "number", "num", "is", "at", "on", "me", "us", "him", "her")
# An extension after a phone number: "555-123-4567 x543", "ext. 12", "extension 4501".
_EXTENSION = re.compile(r"\s?(?:x|ext\.?|extn\.?|extension)\s?\d{1,6}(?![\w@/]|[.,:-]?\d)",
                        re.IGNORECASE)
_PHONE_WINDOW = re.compile(r"[+(]?\d(?:[\d \-.()/]|\u00a0){5,}\d\)?")


# A currency sign after an amount ("91 881 952 €"), not one opening the next ("$5 fee").
_TRAILING_CURRENCY = re.compile(" ?[" + re.escape("".join(_CURRENCY)) + r"](?!\s?\d)")


def _other_number(text: str, start: int, value: str) -> bool:
    """Whether a grammar match is another kind of number: an amount (a currency sign before
    or after it, or one ``.`` between two groups: a decimal) or a valid ISBN-13
    (``978``/``979``, :mod:`stdnum.isbn`)."""
    after = _TRAILING_CURRENCY.match(text, start + len(value))
    if text[max(0, start - 2):start].strip()[-1:] in tuple(_CURRENCY) or after:
        return True
    groups, seps = _groups(value)
    if seps == ["."]:
        return True
    digits = "".join(groups)
    if len(digits) == 13 and digits[:3] in ("978", "979"):
        from stdnum import isbn

        return isbn.is_valid(value)
    return False


def _more_phone(text: str, start: int, value: str) -> bool:
    """Whether a :data:`_PHONE_MORE` match is a phone (see there): 8–13 digits, not a date,
    and a leading ``0``, a phone context word within :data:`_CONTEXT` characters before, or
    one of :data:`_PHONE_CONTEXT_AFTER` within :data:`_CONTEXT_AFTER` characters after."""
    groups, _ = _groups(value)
    digits = "".join(groups)
    # "0049 30 12345678": the international prefix 00 before a country code
    national = digits[2:] if digits.startswith("00") and len(groups[0]) >= 3 else digits
    if not 8 <= len(national) <= 13 or _DATE.match(value) or _scores(groups) or \
            _other_number(text, start, value):
        return False
    if all(_YEAR.match(g) for g in groups):
        return False
    if digits[0] == "0" and len(groups[0]) >= 2:
        return True
    end = start + len(value)
    return bool(_PHONE_CONTEXT.search(text, max(0, start - _CONTEXT), start) or
                _PHONE_CONTEXT_AFTER.search(text, end, end + _CONTEXT_AFTER))


def _phone_candidates(text: str, region: str | None) -> list[PIIMatch]:
    """``PHONE`` matches: the numbers :class:`phonenumbers.PhoneNumberMatcher` finds valid
    (leniency ``VALID``: a real number plan of its country, read in ``region`` without a
    country code) and written as a phone (:func:`_phone_plausible`), together with the
    grammar's (:func:`is_phone`, which also takes numbers of no known plan, e.g. fictional
    ``555`` ones); overlapping matches are joined so no digit of either is left out."""
    spans = [(m.start(), m.end()) for m in _PHONE.finditer(text)
             if is_phone(m.group()) and not _other_number(text, m.start(), m.group())]
    spans += [(m.start(), m.end()) for m in _PHONE_PLUS.finditer(text)
              if is_phone(m.group())]
    spans += [(m.start(), m.end()) for m in _PHONE_MORE.finditer(text)
              if _more_phone(text, m.start(), m.group())]
    for m in _PHONE_BARE.finditer(text):
        if labelled(text, m.start(), _PHONE_WORD, _CONTEXT, _PHONE_GAP) or (
                len(m.group()) in (10, 11) and
                labelled(text, m.start(), _PHONE_CONTEXT, _CONTEXT, _PHONE_GAP)):
            spans.append((m.start(), m.end()))
    spans += [(m.start(), m.end()) for m in _PHONE_DOTTED.finditer(text)
              if labelled(text, m.start(), _PHONE_WORD, _CONTEXT, _PHONE_GAP)]
    import phonenumbers

    # The matcher is slow on long texts: run it on the digit-rich stretches only (a phone
    # is 7+ digits with separators between), with a character of context either side.
    # A stretch the grammar already took whole gains nothing from it.
    grammar = sorted(spans)
    starts = [a for a, _ in grammar]
    for w in _PHONE_WINDOW.finditer(text):
        k = bisect_right(starts, w.start()) - 1
        if k >= 0 and w.end() <= grammar[k][1]:
            continue
        if w.group().isdigit() or _DATE.match(w.group()):
            continue  # what it could find there _phone_plausible refuses
        a = max(0, w.start() - 1)
        window = text[a:w.end() + 1]
        for m in phonenumbers.PhoneNumberMatcher(window, region,
                                                 leniency=phonenumbers.Leniency.VALID):
            if _phone_plausible(m.raw_string):
                spans.append((a + m.start, a + m.end))
    spans.sort()
    merged: list[list[int]] = []
    for a, b in spans:
        if merged and a < merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    for span in merged:  # an extension is part of the number
        ext = _EXTENSION.match(text, span[1])
        if ext:
            span[1] = ext.end()
    return [PIIMatch(a, b, PHONE) for a, b in merged]


# ------------------------------------------------- identifiers with checksums (stdnum)
# Capitals as printed, or all in lower case as typed ("gb82west1234..."), never mixed.
# (a space after the country code too, as Polish banks print it: "PL 19 1984 …")
_IBAN = re.compile(r"(?<![\w-])(?:[A-Z]{2} ?\d\d(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?|"
                   r"[a-z]{2}\d\d(?: ?[a-z0-9]{4}){2,7}(?: ?[a-z0-9]{1,4})?)(?![\w-])")
_SSN = re.compile(r"(?<![\w.,+/:-])\d{3}([- ])\d\d\1\d{4}(?![\w/]|[.,:-]?\d)")
_SSN_BARE = re.compile(r"(?<![\w.,+/:-])\d{9}(?![\w/]|[.,:-]?\d)")
_NHS = re.compile(r"(?<![\w.,+/:-])\d{3}([- ]?)\d{3}\1\d{4}(?![\w/]|[.,:-]?\d)")
_NINO = re.compile(r"(?<![\w-])([A-Z]{2}) ?(\d\d) ?(\d\d) ?(\d\d) ?([A-D])(?![\w-])")
_CRYPTO = re.compile(r"(?<![\w-])(?:[13][1-9A-HJ-NP-Za-km-z]{25,34}|bc1[02-9ac-hj-np-z]{8,87})"
                     r"(?![\w-])")
_ETHEREUM = re.compile(r"(?<![\w-])0x[0-9a-fA-F]{40}(?![\w-])")
# Context words that must stand within _CONTEXT characters before a match of a format too
# common to take alone (an NHS number's ten digits; an SSN or ITIN without separators; a card
# number of no network's range).
_CONTEXT = 48
_CONTEXT_WORDS = {
    UK_NHS: re.compile(r"\bnhs\b|health service|health and care number", re.IGNORECASE),
    US_SSN: re.compile(r"\bssn\b|social security|\bsocial sec", re.IGNORECASE),
    US_ITIN: re.compile(r"\bitin\b|taxpayer identification|tax id", re.IGNORECASE),
    # a 12-digit Maestro number, any range, a card's grouping without its checksum
    CREDIT_CARD: re.compile(r"\b(?:card|credit|debit|visa|master\s*card|maestro|amex|"
                            r"american\s+express|discover|jcb|diners|cc)\b", re.IGNORECASE),
}
# HMRC NIM39110: first letter not D F I Q U V, second not D F I O Q U V, and these prefixes
# are not allocated.
_NINO_BAD_PREFIX = frozenset({"BG", "GB", "KN", "NK", "NT", "TN", "ZZ"})


def _has_context(text: str, start: int, label: str) -> bool:
    return bool(_CONTEXT_WORDS[label].search(text, max(0, start - _CONTEXT), start))


def is_iban(value: str) -> bool:
    """Whether ``value`` (spaces allowed) is an IBAN: its country's length and BBAN format
    and the ISO 7064 mod-97 checksum (:mod:`stdnum.iban`)."""
    from stdnum import iban

    return iban.is_valid(value)


def is_nhs(value: str) -> bool:
    """Whether ``value`` is a UK NHS number: ten digits with the mod-11 check digit
    (:mod:`stdnum.gb.nhs`)."""
    from stdnum.gb import nhs

    return nhs.is_valid(value)


def is_nino(value: str) -> bool:
    """Whether ``value`` is a UK National Insurance number as HMRC allocates them (NIM39110):
    two prefix letters (not ``D F I Q U V`` first, not ``D F I O Q U V`` second, not ``BG GB
    KN NK NT TN ZZ``), six digits and a suffix ``A``–``D``. A NINO has no checksum."""
    m = _NINO.fullmatch(value)
    if not m:
        return False
    prefix = m.group(1)
    return (prefix[0] not in "DFIQUV" and prefix[1] not in "DFIOQUV"
            and prefix not in _NINO_BAD_PREFIX)


def iban_checksum_only(value: str) -> bool:
    """Whether ``value`` has an IBAN's form, a country that issues IBANs and a valid ISO 7064
    mod-97 checksum, its length aside: generated and mistyped account numbers
    (``GB13VDGM2244643114367``, one character short of Britain's 22) still identify an
    account, and one string of that form in 97 passes the checksum by chance."""
    from stdnum import iban
    from stdnum.iso7064 import mod_97_10

    compact = value.replace(" ", "").upper()
    if not 15 <= len(compact) <= 34 or not iban._ibandb.info(compact[:2])[0][1]:
        return False
    return mod_97_10.is_valid(compact[4:] + compact[:4])


def _iban_matches(text: str) -> Iterable[PIIMatch]:
    for m in _IBAN.finditer(text):
        # The pattern may run into a following word of capitals: drop groups from the end
        # until the country's length and checksum fit; failing that, the whole match with
        # a valid checksum alone (iban_checksum_only).
        value = m.group()
        while len(value.replace(" ", "")) >= 15:
            if is_iban(value):
                yield PIIMatch(m.start(), m.start() + len(value), IBAN)
                break
            value = value[:-1].rstrip()
        else:
            if iban_checksum_only(m.group()):
                yield PIIMatch(m.start(), m.end(), IBAN)


def _id_candidates(text: str, labels: frozenset[str]) -> Iterable[PIIMatch]:
    """Matches of :data:`ID_LABELS` (see the module doc)."""
    if IBAN in labels:
        yield from _iban_matches(text)
    if CRYPTO in labels:
        from stdnum import bitcoin

        yield from (PIIMatch(m.start(), m.end(), CRYPTO) for m in _CRYPTO.finditer(text)
                    if bitcoin.is_valid(m.group()))
        yield from (PIIMatch(m.start(), m.end(), CRYPTO) for m in _ETHEREUM.finditer(text))
    if UK_NINO in labels:
        yield from (PIIMatch(m.start(), m.end(), UK_NINO) for m in _NINO.finditer(text)
                    if is_nino(m.group()))
    if US_SSN in labels or US_ITIN in labels:
        from stdnum.us import itin, ssn

        found = [(m, True) for m in _SSN.finditer(text)] + \
            [(m, False) for m in _SSN_BARE.finditer(text)]
        for m, grouped in found:
            value = re.sub(r"\D", "", m.group())  # stdnum strips '-' only
            for label, module in ((US_SSN, ssn), (US_ITIN, itin)):
                if label in labels and module.is_valid(value) and (
                        grouped or _has_context(text, m.start(), label)):
                    yield PIIMatch(m.start(), m.end(), label)
    if UK_NHS in labels:
        yield from (PIIMatch(m.start(), m.end(), UK_NHS) for m in _NHS.finditer(text)
                    if is_nhs(m.group()) and _has_context(text, m.start(), UK_NHS))


def _cards(text: str) -> Iterable[PIIMatch]:
    """``CREDIT_CARD`` matches: card numbers (:func:`is_card`, with a card word before or
    not) and security codes right after their label (not a year: "the CVC 2024 conference")."""
    for m in _CARD.finditer(text):
        near = _has_context(text, m.start(), CREDIT_CARD)
        # the pattern may run into the expiry after the number ("… 2176 12/29")
        value = cut_back(m.group(), lambda v, near=near: is_card(v, after_card_word=near))
        if value:
            yield PIIMatch(m.start(), m.start() + len(value), CREDIT_CARD)
    yield from (PIIMatch(m.start("code"), m.end("code"), CREDIT_CARD)
                for m in _CVV.finditer(text) if not _YEAR.match(m.group("code")))


def _written_out_emails(text: str) -> Iterable[PIIMatch]:
    """``EMAIL`` matches of addresses written out to hide them: a bracketed ``at`` or ``dot``
    ("anna.smith[at]example.com", "jdoe (at) example (dot) org"), or ``at`` and ``dot`` both
    spelt out after a word that is not a common one ("anna dot smith at gmail dot com"; not
    "look at example.com", "be at home dot com")."""
    if not re.search(r"\bat\b", text, re.IGNORECASE):
        return
    from textdp.detect.words import common_words

    for m in _OBFUSCATED_EMAIL.finditer(text):
        value = m.group()
        if re.search(r"[\[({<]", value) or (
                re.search(r"\sdot\s", value, re.IGNORECASE) and
                value.split()[0].lower() not in common_words()):
            yield PIIMatch(m.start(), m.end(), EMAIL)


def _usernames(text: str) -> Iterable[PIIMatch]:
    """``HANDLE`` matches without ``@``: a user name right after its label (``username``,
    ``user ID``, ``login``, ``screen name``, ``gamertag``, ``account name``), unless it is a
    common English word ("login is required", "username was wrong")."""
    from textdp.detect.words import common_words

    for label in _USERNAME_LABEL.finditer(text):
        gap = _USERNAME_GAP.match(text, label.end())
        m = _USERNAME.match(text, gap.end()) if gap else None
        if m and m.start() > label.end() and m.group().lower() not in common_words():
            yield PIIMatch(m.start(), m.end(), HANDLE)


def _candidates(text: str, labels: frozenset[str],
                region: str | None = DEFAULT_REGION) -> Iterable[PIIMatch]:
    if URL in labels and ("://" in text or "www." in text.lower() or "/" in text):
        for m in _URL.finditer(text):
            end = _url_end(text, m.start(), m.end())
            host = text[m.start():end].split("://")[-1]
            if "." in host or host.lower().startswith("localhost"):
                yield PIIMatch(m.start(), end, URL)
    if EMAIL in labels:
        yield from _written_out_emails(text)
    if "@" in text:
        if EMAIL in labels:
            yield from (PIIMatch(m.start(), m.end(), EMAIL) for m in _EMAIL.finditer(text))
        if HANDLE in labels:
            for m in _HANDLE.finditer(text):
                if any(c.isalpha() for c in m.group(1)):
                    yield PIIMatch(m.start(), m.end(), HANDLE)
    if HANDLE in labels:
        yield from _usernames(text)
    # (before the digit test: a BIC may have no digit)
    yield from (PIIMatch(a, b, label) for a, b, label
                in identifiers.candidates(text, labels & set(identifiers.LABELS)))
    if postcodes.POSTCODE in labels or streets.STREET_ADDRESS in labels:
        # once: a street's town line holds a postcode (before the digit test: a Chinese
        # block, "A座", may have no digit)
        found = streets.find_streets(text)
        if postcodes.POSTCODE in labels:
            yield from (PIIMatch(a, b, postcodes.POSTCODE)
                        for a, b in postcodes.find_postcodes(text, found))
        if streets.STREET_ADDRESS in labels:
            yield from (PIIMatch(a, b, streets.STREET_ADDRESS) for a, b in found)
    if ages.AGE in labels:  # (spelt out too: "a forty-year-old man")
        yield from (PIIMatch(a, b, ages.AGE) for a, b in ages.find_ages(text))
    if not any(c.isdigit() for c in text):
        return
    if CREDIT_CARD in labels:
        yield from _cards(text)
    if IP in labels:
        yield from (PIIMatch(m.start(), m.end(), IP) for m in _IPV4.finditer(text))
        if ":" in text:
            for m in _IPV6.finditer(text):
                value = m.group()
                if sum(1 for g in value.split(":") if g) < 2:
                    continue
                try:
                    ipaddress.IPv6Address(value)
                except ValueError:
                    continue
                yield PIIMatch(m.start(), m.end(), IP)
    yield from _id_candidates(text, labels)
    if national_ids.NATIONAL_ID in labels:
        yield from (PIIMatch(a, b, national_ids.NATIONAL_ID)
                    for a, b in national_ids.find_national_ids(text))
    if dates.DATE in labels:
        yield from (PIIMatch(m.start, m.end, dates.DATE) for m in dates.find_dates(text))
    if dates.DATE_OF_BIRTH in labels:
        yield from (PIIMatch(m.start, m.end, dates.DATE_OF_BIRTH)
                    for m in dates.find_births(text))
    if coordinates.COORDINATES in labels:
        yield from (PIIMatch(a, b, coordinates.COORDINATES)
                    for a, b in coordinates.find_coordinates(text))
    if PHONE in labels:
        yield from _phone_candidates(text, region)


def find_pii(text: str, labels: Iterable[str] = PII_LABELS,
             region: str | None = DEFAULT_REGION) -> list[PIIMatch]:
    """The PII matches of ``text`` for ``labels``, in text order, overlaps resolved by
    :data:`PRIORITY` (character offsets of ``text`` as given); ``region`` is where phone
    numbers without a country code are read (``None``: only ``+``-prefixed ones by
    :mod:`phonenumbers`, the grammar still applies)."""
    wanted = frozenset(check_labels(labels))
    rank = {label: i for i, label in enumerate(PRIORITY)}
    found = sorted([*_candidates(text, wanted, region), *_field_candidates(text, wanted, region),
                    *_answered_candidates(text, wanted, region),
                    *_listed_candidates(text, wanted, region)],
                   key=lambda m: (rank[m.label], m.start))
    if PHONE in wanted and postcodes.POSTCODE not in wanted and \
            any(m.label == PHONE for m in found):
        found = _without_postcodes(text, found)
    kept: list[PIIMatch] = []
    for m in found:
        if all(m.end <= k.start or k.end <= m.start for k in kept):
            kept.append(m)
    for m in _same_shape(text, kept):
        if all(m.end <= k.start or k.end <= m.start for k in kept):
            kept.append(m)
    return sorted(kept, key=lambda m: m.start)


def _without_postcodes(text: str, found: list[PIIMatch]) -> list[PIIMatch]:
    """``found`` without the phone numbers that are postcodes by their context (``TX
    75219-3504``, ``1200-195 Lisboa``, ``CEP 01304-001``, ``〒150-0001``) where ``POSTCODE``
    is no target: the phone recogniser reads a ZIP+4 or a Portuguese code as a number, and
    a postcode written back as a phone number reads wrong and tells the reader less."""
    codes = postcodes.find_postcodes(text, streets.find_streets(text))
    return [m for m in found if m.label != PHONE or
            not any(a < m.end and m.start < b for a, b in codes)]


#: Labels found after their label word whose other values of the same written shape in the
#: same text are taken too (:func:`_same_shape`).
SHAPE_LABELS = (national_ids.NATIONAL_ID, identifiers.US_PASSPORT, identifiers.PASSPORT,
                identifiers.US_DRIVER_LICENSE, identifiers.US_BANK_NUMBER,
                identifiers.MEDICAL_RECORD, identifiers.LICENSE_PLATE, identifiers.PERSONAL_ID)
_SHAPE_CLASS = {"#": r"\d", "A": "[A-Z]", "a": "[a-z]"}
_SHAPE_CODE = re.compile(r"(?<![\w-])([A-Z]{2,3}) $")


def _same_shape(text: str, found: list[PIIMatch]) -> Iterable[PIIMatch]:
    """Values of the same written shape as a value of :data:`SHAPE_LABELS` found in ``text``,
    with its label: a form or a message names a value's kind once and repeats the shape
    (``Driver license: GA 058214736`` … ``Additional driver: Kevin Carter, GA 047193582``).
    The code of two or three capitals right before a value (a state's, a country's: ``GA``)
    is part of its shape, not of the value. Only shapes specific enough to stand for that
    kind: six digits or more and a letter or a separator other than a space (``GA
    #########``, ``A###-####-####``); bare digits (``#########``) are as often an order or
    an amount."""
    for m in found:
        if m.label not in SHAPE_LABELS:
            continue
        shape = identifiers.layout(m.label, text[m.start:m.end])
        code = _SHAPE_CODE.search(text, max(0, m.start - 4), m.start)
        lead = f"[A-Z]{{{len(code.group(1))}}} " if code else ""
        if shape.count("#") < 6 or not (lead or set(shape) - {"#", " "}) or len(shape) > 40:
            continue
        body = "".join(_SHAPE_CLASS.get(c, re.escape(c)) for c in shape)
        for other in re.finditer(r"(?<![\w.,/:$€£+-])" + lead + f"({body})" +
                                 r"(?![\w/]|[.,:-]\w)", text):
            if other.start(1) != m.start:
                yield PIIMatch(other.start(1), other.end(1), m.label)


def _after_label(label: str, value: str, offset: int, labels: frozenset[str],
                 region: str | None) -> Iterable[PIIMatch]:
    """The matches inside ``value`` (which stands at ``offset`` of the text) when it is read
    right after ``label`` and a colon: a label its value does not stand beside (a column's
    header, a question, a list's heading) given to it."""
    lead = len(label) + 2
    for m in _candidates(f"{label}: {value}", labels, region):
        if m.start >= lead:
            yield PIIMatch(m.start - lead + offset, m.end - lead + offset, m.label)


# A turn that asks for values: a question, or a request ("please confirm your full name, date
# of birth and postcode", "I've sent a PIN to that number, please read it back to me", "send
# everyone's aadhaar no").
_REQUEST = re.compile(r"\b(?:confirm|provide|send|give|read|tell|share|enter|type|verify|"
                      r"spell)\b", re.IGNORECASE)
# A chat's speaker label opening a line ("Sasha: ", "Agent (Lwazi): ").
_SPEAKER = re.compile(r"[^\n:?]{1,30}:(?!\d)[ \t]*")
# The words that end a request's phrases: each phrase's last words may be a value's label.
_PHRASE_END = re.compile(r"[,;.!?]+(?:\s|$)|\s+(?:and|or|to|for|from|with|on)\s+",
                         re.IGNORECASE)
_LAST_WORDS = re.compile(r"(?:\S+\s+){0,3}\S+$")
# Words that end a phrase but no value's label ("please read it back to me").
_NO_LABEL_END = frozenset({"me", "it", "back", "you", "us", "them", "him", "her", "this",
                           "that", "please", "thanks", "now", "again", "here", "there",
                           "today", "pls"})
# (not the comma before a date's year: "March 04, 1990")
_ITEM_SEP = re.compile(r",(?!\s*\d{4}(?![\w/.-]))\s*|\s+and\s+|;\s*")
#: How many lines after a request may answer it (a request to a group gets several answers).
ANSWER_LINES = 3


def _asked_labels(line: str) -> set[str]:
    """The words of a request that may name the values asked for: the last four words of
    each of its phrases (punctuation, a question mark or :data:`_PHRASE_END`'s joining words
    end one)."""
    out: set[str] = set()
    for phrase in _PHRASE_END.split(line):
        last = _LAST_WORDS.search(phrase.strip())
        if last is not None and any(c.isalpha() for c in last.group()) and \
                last.group().rsplit(None, 1)[-1].casefold() not in _NO_LABEL_END:
            out.add(last.group())
    return out


def _answered_candidates(text: str, labels: frozenset[str], region: str | None
                         ) -> Iterable[PIIMatch]:
    """The values of an answer to a request that names their label: a chat or a call asks
    for values in one turn (a question, or ``please confirm …``, ``read it back``) and gets
    them in the next lines, up to :data:`ANSWER_LINES`, until an empty line, the asker's
    own turn or a line after a request of its own. The last four words of each phrase of
    the request are read as the label of the answer and of each of its items (``full name,
    date of birth and postcode`` ⏎ ``Chloe Marie Dubois, 03/11/1994, E14 5AB``); only
    matches inside the answer count."""
    if "\n" not in text or ("?" not in text and _REQUEST.search(text) is None):
        return
    lines, starts, pos = text.split("\n"), [], 0
    for line in lines:
        starts.append(pos)
        pos += len(line) + 1
    for i, line in enumerate(lines):
        if "?" not in line and _REQUEST.search(line) is None:
            continue
        speaker = _SPEAKER.match(line)
        asked = _asked_labels(line[speaker.end() if speaker else 0:])
        # an answer without a digit (a user name, a password of letters) is read only after
        # the question's own last words
        question = _LAST_WORDS.search(line[:line.rfind("?")].rstrip()) if "?" in line \
            else None
        for j in range(i + 1, min(i + 1 + ANSWER_LINES, len(lines))):
            answer = lines[j]
            who = _SPEAKER.match(answer)
            if not answer.strip() or (j > i + 1 and speaker and who and
                                      who.group().strip() == speaker.group().strip()):
                break
            body = answer[who.end() if who else 0:]
            offset = starts[j] + (who.end() if who else 0)
            if any(c.isdigit() for c in body):
                read_after = asked
            elif question is not None and any(c.isalnum() for c in body):
                read_after = {question.group()}
            else:
                read_after = set()
            for label in read_after:
                # a list's items each after the label (its first item opens the answer)
                for a, b in _items(body) or [(0, len(body))]:
                    yield from _after_label(label, body[a:b], offset + a, labels, region)
            if "?" in answer or _REQUEST.search(answer) is not None:
                break  # a request of its own: the next lines answer it


def _items(answer: str) -> list[tuple[int, int]]:
    """The character ranges of an answer's items when it lists several (``Chloe Marie
    Dubois, 03/11/1994, E14 5AB``): the first, and the others holding a digit."""
    cuts = [(m.start(), m.end()) for m in _ITEM_SEP.finditer(answer)]
    if not cuts:
        return []
    bounds = zip([0, *(e for _, e in cuts)], [*(s for s, _ in cuts), len(answer)])
    return [(a, b) for a, b in bounds if not a or any(c.isdigit() for c in answer[a:b])]


# A list's heading line ending in a colon, and the items under it ("- …", "• …", "2) …").
_LIST_HEAD = re.compile(r"(?m)^(?P<head>[^\n:]{3,120}):[ \t]*\n(?:[ \t]*\n)?")
_LIST_ITEM = re.compile(r"[ \t]*(?:[-•*–]|\d{1,2}[.)])[ \t]+(?P<item>[^\n]+)(?:\n|$)")


def _listed_candidates(text: str, labels: frozenset[str], region: str | None
                       ) -> Iterable[PIIMatch]:
    """The values of a list's items under a heading that names their kind (``here are the
    licence numbers for the renewal:`` ⏎ ``- Andre Williams – NY 742 918 365``): each item
    is read after each context word of the heading (:data:`textdp.detect.identifiers.
    LIST_CONTEXTS`); only matches inside the item count."""
    if ":\n" not in text and ": \n" not in text:
        return
    for head in _LIST_HEAD.finditer(text):
        words = {m.group() for p in identifiers.LIST_CONTEXTS
                 for m in p.finditer(head.group("head"))}
        pos = head.end()
        while words and (item := _LIST_ITEM.match(text, pos)) is not None:
            for word in words:
                yield from _after_label(word, item.group("item"), item.start("item"), labels,
                                        region)
            pos = item.end()


def _field_candidates(text: str, labels: frozenset[str], region: str | None
                      ) -> Iterable[PIIMatch]:
    """The matches in the fields of ``text``'s delimited records, each field read alone and,
    under a header line, after its column's name as a label (``ssn: 536-22-8726``):
    :mod:`textdp.detect.delimited`."""
    for f in delimited.fields(text):
        value = text[f.start:f.end]
        yield from (PIIMatch(m.start + f.start, m.end + f.start, m.label)
                    for m in _candidates(value, labels, region))
        if f.header:
            yield from _after_label(f.header, value, f.start, labels, region)


def _joined(*found: list[PIIMatch]) -> list[PIIMatch]:
    """Matches found on two views of one text, overlaps resolved by :data:`PRIORITY` (the
    longer first among equals). The normalised view reads fullwidth digits and hidden
    characters, but its disguise folds read ``60b`` as ``bob`` and ``4`` as ``a`` (leetspeak
    names, :mod:`textdp.detect.disguise`) and so break an IPv6 address or a phone number
    the text as it is shows: both views are searched."""
    rank = {label: i for i, label in enumerate(PRIORITY)}
    kept: list[PIIMatch] = []
    for m in sorted((m for ms in found for m in ms),
                    key=lambda m: (rank[m.label], m.start, m.start - m.end)):
        if all(m.end <= k.start or k.end <= m.start for k in kept):
            kept.append(m)
    return sorted(kept, key=lambda m: m.start)


def check_region(region: object, param: str = "phone_region") -> str:
    """``region`` as a region code :mod:`phonenumbers` reads national numbers in (ISO 3166
    alpha-2, upper-cased: ``"DE"``); raises ``ValueError`` naming ``param`` otherwise."""
    import phonenumbers

    code = region.strip().upper() if isinstance(region, str) else None
    if code not in phonenumbers.SUPPORTED_REGIONS:
        raise ValueError(f"{param} must be a region code of phonenumbers (ISO 3166 alpha-2, "
                         f"e.g. 'US', 'DE', 'GB'), got {region!r}")
    return code


def check_labels(labels: Iterable[str]) -> tuple[str, ...]:
    """``labels`` as a tuple of PII labels; ``ValueError`` naming the valid ones otherwise."""
    if isinstance(labels, str):
        labels = [labels]
    out = tuple(dict.fromkeys(str(label).strip().upper() for label in labels))
    unknown = [label for label in out if label not in PII_LABELS]
    if unknown or not out:
        raise ValueError(f"PII labels must be among {', '.join(PII_LABELS)}; got "
                         f"{', '.join(map(repr, unknown)) or 'none'}")
    return out


class PIIDetector:
    """Marks e-mail addresses, phone numbers, URLs, handles, IP addresses, card numbers and
    the identifiers of :data:`ID_LABELS` (see the module doc) as token spans labelled
    :data:`PII_LABELS`.

    Args:
        labels: which recognisers run (default: all of :data:`PII_LABELS`).
        region: where phone numbers without a country code are read (ISO 3166 alpha-2,
            default :data:`DEFAULT_REGION`; the front ends pass the ``phone_region``
            setting).
    """

    name = "pii"

    def __init__(self, labels: Iterable[str] = PII_LABELS,
                 region: str | None = DEFAULT_REGION) -> None:
        self.labels = check_labels(labels)
        self.region = region

    def matches(self, text: str) -> list[PIIMatch]:
        """Matches in character offsets of ``text``, found on its normalised form and on the
        text as it is (see :func:`_joined`)."""
        from textdp.detect.normalise import is_normal, normalise_text

        if is_normal(text):
            return find_pii(text, self.labels, self.region)
        norm = normalise_text(text)
        out = []
        for m in find_pii(norm.text, self.labels, self.region):
            a, b = norm.original_range(m.start, m.end)
            out.append(PIIMatch(a, b, m.label))
        return _joined(out, find_pii(text, self.labels, self.region))

    def __call__(self, docs: Sequence[Any]) -> list[list[Span]]:
        return [[f.span for f in found] for found in self.findings(docs)]

    def findings(self, docs: Sequence[Any]) -> list[list[Finding]]:
        """Token spans per doc: every token that overlaps a match (no score: patterns)."""
        return [self.token_findings(doc, self.matches(doc.text)) for doc in docs]

    def token_findings(self, doc: Any, matches: Sequence[PIIMatch]) -> list[Finding]:
        """The token spans of ``doc`` that ``matches`` (of its text) overlap."""
        if not matches:
            return []
        starts = [t.idx for t in doc]
        ends = [t.idx + len(t.text) for t in doc]
        found = []
        for m in matches:
            first, stop = bisect_right(ends, m.start), bisect_left(starts, m.end)
            if first < stop:
                found.append(Finding(first, stop, m.label, self.name, None))
        return found

    def __repr__(self) -> str:
        return f"PIIDetector(labels={list(self.labels)!r})"


# ---------------------------------------------------------------------------- replacements
@dataclass(frozen=True)
class Shape:
    """What a surrogate may depend on: the label and, for ``PHONE`` and ``CREDIT_CARD``, the
    layout (``#`` for each digit, other characters as they are; only digits, spaces,
    brackets, ``+``, ``-`` and ``.`` occur in such a match), for ``IP`` the version (4 or 6),
    for ``IBAN`` the country code and the layout, for ``US_SSN``, ``US_ITIN``, ``UK_NHS``
    and ``UK_NINO`` the layout (``A`` for a letter), for ``CRYPTO`` the chain (``"eth"``
    for an Ethereum address, else empty; see :func:`_id_shape`). Nothing else of the
    value, but for a card that is itself a payment network's published test number
    (:data:`TEST_CARDS`: nobody's card, public) that number (``public``), so that its
    surrogate is another one and no value comes back as it was; for a phone with an
    extension, the extension's layout (``public``: its marker, ``x``, ``ext.`` or
    ``extension``, as written, and ``#`` for each digit); for a ``HANDLE``, whether it is
    written with ``@`` (``layout``: ``"@"`` or empty, a user name after ``username``)."""

    label: str
    layout: str = ""
    version: int = 0
    public: str = ""


def shape_of(label: str, value: str) -> Shape:
    """The :class:`Shape` of a matched ``value`` of ``label`` (see :class:`Shape`)."""
    (label,) = check_labels([label])
    if label == streets.STREET_ADDRESS:
        return Shape(label, streets.layout(value))
    if label == coordinates.COORDINATES:
        return Shape(label, coordinates.layout(value))
    if label == dates.DATE_OF_BIRTH:
        return Shape(label, dates.birth_layout(value) or "")
    if label in ID_LABELS or label in LAYOUT_LABELS:
        return _id_shape(label, value)
    if label == PHONE and (ext := _EXTENSION.search(value)) and ext.end() == len(value):
        return Shape(label, shape_of(label, value[:ext.start()]).layout,
                     public=re.sub(r"\d", "#", ext.group()))
    if label == HANDLE:
        return Shape(label, "@" if value.startswith("@") else "")
    if label in (PHONE, CREDIT_CARD):
        layout = re.sub(r"\d", "#", value)
        # Keep only characters a phone or card layout is made of: anything else (which no
        # recogniser matches) would otherwise be carried into the output.
        layout = re.sub(r"[^#+()\-. ]", "", layout)
        digits = "".join(_DIGITS.findall(value))
        if label == CREDIT_CARD and digits in TEST_CARDS.get(len(digits), ()):
            return Shape(label, layout, public=digits)
        return Shape(label, layout)
    if label == IP:
        # "10.0.0.1:8080" (an address and its port, one token) is an IPv4 address
        return Shape(label, version=4 if _IPV4.match(value) or ":" not in value else 6)
    return Shape(label)


def tag(label: str) -> str:
    """The placeholder for ``label``: ``[EMAIL]``."""
    (label,) = check_labels([label])
    return f"[{label}]"


def _digits(rng: np.random.Generator, n: int) -> str:
    return "".join(str(d) for d in rng.integers(0, 10, size=n)) if n > 0 else ""


def _fill(layout: str, digits: str, rng: np.random.Generator) -> str:
    """``layout`` with its ``#`` places filled by ``digits`` in order, then by random ones:
    a value read inside a longer token (``123-45-6789,40`` of a CSV line, where a spaCy
    Doc's token cannot be split) has more places than the label's number."""
    it = iter(digits + _digits(rng, layout.count("#") - len(digits)))
    return "".join(next(it) if c == "#" else c for c in layout)


def surrogate(label: str, shape: Shape, rng: np.random.Generator) -> str:
    """A replacement of ``shape`` drawn from ``rng`` (see the module doc for what it
    reveals); it never depends on the original value beyond ``shape``."""
    (label,) = check_labels([label])
    if shape.label != label:
        raise ValueError(f"shape is for {shape.label}, not {label}")
    if label == EMAIL:
        tld = ("com", "org", "net")[int(rng.integers(3))]
        return f"user{int(rng.integers(1000, 10000))}@example.{tld}"
    if label == URL:
        return f"https://example.org/{int(rng.integers(0, 2**32)):08x}"
    if label == HANDLE:
        return f"{shape.layout}user{int(rng.integers(100000, 1000000))}"
    if label == IP:
        if shape.version == 6:
            low = int(rng.integers(0, 2**48)) << 48 | int(rng.integers(0, 2**48))
            return str(ipaddress.IPv6Address((0x20010DB8 << 96) | low))
        return f"192.0.2.{int(rng.integers(1, 255))}"
    if label == streets.STREET_ADDRESS:
        return streets.surrogate(shape.layout, rng)
    if label == coordinates.COORDINATES:
        return coordinates.surrogate(shape.layout, rng)
    if label == dates.DATE_OF_BIRTH:
        return dates.birth_surrogate(shape.layout, rng) if shape.layout else tag(label)
    if label in ID_LABELS or label in LAYOUT_LABELS:
        return _id_surrogate(shape, rng)
    if label in QUASI_LABELS:  # released with DP noise by textdp.quasi; alone, a tag
        return tag(label)
    n = shape.layout.count("#")
    if label == CREDIT_CARD:
        tests = [t for t in TEST_CARDS.get(n, ()) if t != shape.public]
        if tests:
            return _fill(shape.layout, tests[int(rng.integers(len(tests)))], rng)
        return _fill(shape.layout, luhn_complete("0" + _digits(rng, n - 2)) if n >= 2
                     else _digits(rng, n), rng)
    # PHONE
    if shape.public:  # its extension: the marker as written, random digits
        return surrogate(label, Shape(label, shape.layout), rng) + "".join(
            str(int(rng.integers(10))) if c == "#" else c for c in shape.public)
    north_american = n == 10 or (n == 11 and _leading_one(shape.layout))
    if north_american:
        area = str(int(rng.integers(2, 10))) + _digits(rng, 2)
        number = area + "55501" + _digits(rng, 2)
        return _fill(shape.layout, ("1" if n == 11 else "") + number, rng)
    if n >= 7:
        head = _digits(rng, n - 7)
        if head and shape.layout.lstrip("(").startswith("+"):
            head = str(int(rng.integers(1, 10))) + head[1:]  # a country code has no 0
        return _fill(shape.layout, head + "55501" + _digits(rng, 2), rng)
    return _fill(shape.layout, _digits(rng, n), rng)


def _id_shape(label: str, value: str) -> Shape:
    """The :class:`Shape` of an identifier: for ``IBAN`` the country code then ``#`` for each
    character with the spaces where they stand (``DE## #### ...``); for ``US_SSN``,
    ``US_ITIN``, ``UK_NHS`` and ``UK_NINO`` the layout, ``#`` for each digit, ``A`` for each
    letter and the separators (``###-##-####``, ``AA ## ## ## A``); for ``CRYPTO`` the chain
    (``"eth"`` or empty); for :data:`LAYOUT_LABELS` :func:`textdp.detect.identifiers.layout`."""
    if label == IBAN:
        # (where it starts: a token may hold more, "(IE80 …" of a spaCy Doc)
        head = re.search(r"[A-Za-z]{2}(?= ?\d)", value)
        start = head.start() if head else 0
        country = head.group().upper() if head else "XX"
        body = re.sub(r"[A-Za-z0-9]", "#", value[start + 2:])
        return Shape(label, country + re.sub(r"[^# ]", "", body))
    if label == CRYPTO:
        return Shape(label, "eth" if _ETHEREUM.fullmatch(value) else "")
    if label in LAYOUT_LABELS:
        return Shape(label, identifiers.layout(label, value))
    layout = re.sub(r"[A-Za-z]", "A", re.sub(r"\d", "#", value))
    return Shape(label, re.sub(r"[^#A \-]", "", layout))


_BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_ALNUM = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _pick(rng: np.random.Generator, alphabet: str, n: int) -> str:
    return "".join(alphabet[i] for i in rng.integers(0, len(alphabet), size=n)) if n else ""


def _iban_surrogate(layout: str, rng: np.random.Generator) -> str:
    from stdnum import iban

    country, n = layout[:2], layout.count("#")
    spec = re.findall(r"(\d+)!([nac])", iban._ibandb.info(country)[0][1].get("bban", ""))
    for _ in range(2000):  # until the national check digits (ES, FR, BE, ...) fit too
        bban = "".join(_pick(rng, {"n": "0123456789", "a": _ALNUM[10:], "c": _ALNUM}[kind],
                             int(count)) for count, kind in spec)
        odd = len(bban) != n - 2  # a country stdnum does not know, or a layout of other length
        if odd:
            bban = _digits(rng, n - 2)
        number = country + iban.calc_check_digits(country + "00" + bban) + bban
        if odd or iban.is_valid(number):  # a layout of another length: the checksum only
            break
    return country + _fill(layout[2:], number[2:], rng)


def _nhs_surrogate(rng: np.random.Generator) -> str:
    while True:
        body = "999" + _digits(rng, 6)
        check = 11 - sum(int(d) * (10 - i) for i, d in enumerate(body)) % 11
        if check != 10:
            return body + str(check % 11)


def _base58check(payload: bytes) -> str:
    import hashlib

    data = payload + hashlib.sha256(hashlib.sha256(payload).digest()).digest()[:4]
    value, out = int.from_bytes(data, "big"), ""
    while value:
        value, r = divmod(value, 58)
        out = _BASE58[r] + out
    return "1" * (len(data) - len(data.lstrip(b"\0"))) + out


def _id_surrogate(shape: Shape, rng: np.random.Generator) -> str:
    """A surrogate for :data:`ID_LABELS` and :data:`LAYOUT_LABELS` of ``shape`` (see the module
    doc)."""
    label, layout = shape.label, shape.layout
    if label == IBAN:
        return _iban_surrogate(layout, rng)
    if label in LAYOUT_LABELS:
        return identifiers.surrogate(label, layout, rng)
    if label == CRYPTO and layout == "eth":
        return "0x" + "".join("0123456789abcdef"[int(i)] for i in rng.integers(0, 16, size=40))
    if label == CRYPTO:
        return _base58check(b"\0" + bytes(int(b) for b in rng.integers(0, 256, size=20)))
    if label == US_SSN:  # the SSA's advertising numbers 987-65-4320..4329: no one's
        return _fill(layout, "98765432" + str(int(rng.integers(10))), rng)
    if label == US_ITIN:
        groups = (*range(70, 89), 90, 91, 92, *range(94, 100))
        middle = groups[int(rng.integers(len(groups)))]
        return _fill(layout, "9" + _digits(rng, 2) + f"{middle:02d}" + _digits(rng, 4), rng)
    if label == UK_NHS:
        return _fill(layout, _nhs_surrogate(rng), rng)
    # UK_NINO: HMRC's example prefix QQ, never allocated (NIM39110).
    suffix = "ABCD"[int(rng.integers(4))]
    it = iter("QQ" + _digits(rng, 6) + suffix)
    # (more places than a number's nine: a longer token's, random digits and letters)
    return "".join(next(it, None) or (str(int(rng.integers(10))) if c == "#" else
                                      "ABCD"[int(rng.integers(4))]) if c in "#A" else c
                   for c in layout)


def _leading_one(layout: str) -> bool:
    """Whether an 11-digit layout reads as ``+1``/``1`` then a 10-digit number (its first
    digit stands alone)."""
    stripped = layout.lstrip("+(")
    return stripped.startswith("#") and not stripped.startswith("##")


class Surrogates:
    """One surrogate per distinct value and label within a scope (a document): repeated
    mentions of one address get the same replacement, as repeated names do; this releases
    which mentions are equal, as the name consistency does (README). The values are held
    only until :meth:`reset` (call it at the end of each scope); nothing is logged.

    Args:
        rng: the generator the surrogates are drawn from (a privatizer's ``rng.numpy``).
    """

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self._memo: dict[tuple[str, str], str] = {}

    def __call__(self, label: str, value: str) -> str:
        key = (label, value)
        if key not in self._memo:
            self._memo[key] = surrogate(label, shape_of(label, value), self.rng)
        return self._memo[key]

    def reset(self) -> None:
        """Forget the values of the scope that ended."""
        self._memo.clear()

    def __repr__(self) -> str:
        return f"Surrogates(values={len(self._memo)})"
