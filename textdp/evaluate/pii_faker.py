"""An independent check of the identifier recognisers: values made by Faker, in many locales.

    textdp evaluate pii --source faker                   # 30 values per provider and locale
    textdp evaluate pii --source faker --per-label 100

:mod:`textdp.evaluate.pii_samples` draws its values from the formats this project's
recognisers were written for, so it cannot show a format nobody thought of. This check draws
them from Faker (MIT licence; ``pip install faker``, in the ``eval`` and ``test`` extras),
whose per-locale providers write phone numbers, card numbers, IBANs, account numbers, national
numbers, number plates, VINs, BICs and user names the way another project does: generated
for testing, sometimes not even valid (a British IBAN one character short, a Korean
registration number with month ``00``, a National Insurance number ``ZZ 00 37 90 T``), as
test data and typing errors are. Each value stands in a sentence that says what it is
(:data:`PROVIDERS`), and the sentences run through ``Privatizer(targets=IDENTIFIER_LABELS)``;
per provider it prints the share of values left verbatim and the share partly left (one of
the value's runs of 5+ letters and digits, holding a digit, still in the output). Postcodes,
street addresses and whole postal addresses run through their quasi-identifier labels
(``POSTCODE``, ``STREET_ADDRESS``), where a verbatim value counts and, for a street, a word
of its name still in the output (its number is drawn at random), for a postal address a run
of 3+ digits of it (the house number, the postcode); passwords run through ``PASSWORD`` and
latitude-longitude pairs (Faker's ``latitude`` and ``longitude``) through ``COORDINATES``,
where a run left counts as for the identifiers.

The values are generated, not real people's. Which label took a value is not checked: a
value taken under another label (a Korean ``ssn`` as ``NATIONAL_ID``) is replaced all the
same.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from textdp.detect.streets import HANGUL

#: Faker locales drawn from: Europe, the Americas, South and East Asia, Oceania.
LOCALES = ("en_US", "en_GB", "de_DE", "fr_FR", "es_ES", "it_IT", "nl_NL", "pt_BR", "en_IN",
           "en_AU", "en_CA", "sv_SE", "pl_PL", "ja_JP", "zh_CN", "ru_RU", "ko_KR")

#: Faker provider -> the sentence its value stands in.
PROVIDERS = {
    "phone_number": "You can reach me at {} after 5pm.",
    "msisdn": "Mobile: {}",
    "email": "Send it to {} please.",
    "ipv4": "Login from {} was blocked.",
    "ipv6": "The server at {} is down.",
    "mac_address": "Device MAC {} registered.",
    "credit_card_number": "My card number is {}.",
    "iban": "Please transfer to IBAN {} by Friday.",
    "bban": "Account number {} at the bank.",
    "aba": "Routing number {} for the wire.",
    "swift": "SWIFT code {} for international transfers.",
    "ssn": "Her social security number is {}.",
    "ein": "Employer EIN {} on the form.",
    "itin": "ITIN {} on the return.",
    "passport_number": "Passport no. {} expires soon.",
    "url": "See {} for details.",
    "user_name": "My username is {}.",
    "license_plate": "Car with plate {} was towed.",
    "vin": "VIN {} on the title.",
    "date_of_birth": "Date of birth: {}.",
}
#: Providers run through labels of their own (quasi-identifiers, and a secret), and those
#: labels; drawn after :data:`PROVIDERS`, in this order (a provider added at the end leaves
#: the others' draws as they were).
QUASI_PROVIDERS = {
    "postcode": ("Postcode {} is outside the area.", ("POSTCODE",)),
    "street_address": ("She lives at {} with her cat.", ("STREET_ADDRESS",)),
    "address": ("Send to:\n{}\nThanks", ("STREET_ADDRESS", "POSTCODE")),
    "password": ("Your password is {}, please change it.", ("PASSWORD",)),
    "latlng": ("The photo was taken at {} last night.", ("COORDINATES",)),
}
#: Values Faker writes in two calls: a latitude and a longitude.
_MAKERS = {"latlng": lambda fake: f"{fake.latitude()}, {fake.longitude()}"}


@dataclass(frozen=True)
class Value:
    """A Faker value in its sentence."""

    provider: str
    locale: str
    value: str
    text: str


def values(per_provider: int = 30, seed: int = 0) -> list[Value]:
    """``per_provider`` values of each provider a locale has, per locale of :data:`LOCALES`
    (each locale's Faker seeded with ``seed``)."""
    try:
        from faker import Faker
    except ImportError as err:
        raise SystemExit("textdp evaluate pii --source faker needs Faker: pip install faker "
                         "(or the eval extra)") from err
    out = []
    for locale in LOCALES:
        fake = Faker(locale)
        fake.seed_instance(seed)
        templates = {**PROVIDERS, **{k: t for k, (t, _) in QUASI_PROVIDERS.items()}}
        for provider, template in templates.items():
            make = getattr(fake, provider, None) if provider not in _MAKERS else \
                functools.partial(_MAKERS[provider], fake)
            if make is None:
                continue  # a provider the locale does not have (ein, itin, vin: en_US's)
            for _ in range(per_provider):
                value = str(make()).strip()
                out.append(Value(provider, locale, value, template.format(value)))
    return out


def check(per_provider: int = 30, seed: int = 0) -> dict[str, dict[str, int]]:
    """Per provider: values (``n``), left verbatim, partly left (see the module doc)."""
    from textdp import Privatizer
    from textdp.detect.pii import IDENTIFIER_LABELS
    from textdp.evaluate.pii_samples import value_runs

    items = values(per_provider, seed)
    stats: dict[str, dict[str, int]] = {}
    runs = [(list(IDENTIFIER_LABELS), [v for v in items if v.provider in PROVIDERS])]
    runs += [(list(labels), [v for v in items if v.provider == provider])
             for provider, (_, labels) in QUASI_PROVIDERS.items()]
    for labels, group in runs:
        outputs = Privatizer(seed=seed, targets=labels).privatize([v.text for v in group])
        for v, out in zip(group, outputs):
            s = stats.setdefault(v.provider, {"n": 0, "verbatim": 0, "partial": 0})
            s["n"] += 1
            verbatim = v.value in out.text
            s["verbatim"] += verbatim
            if v.provider == "street_address":  # its name kept (the number is random)
                s["partial"] += not verbatim and any(w in out.text.split()
                                                     for w in _street_name_words(v.value))
            elif v.provider == "address":  # its house number or postcode kept
                s["partial"] += not verbatim and any(
                    r in out.text for r in re.findall(r"\d{3,}", v.value))
            elif v.provider not in QUASI_PROVIDERS or v.provider in _RUNS_LEFT:
                s["partial"] += not verbatim and any(r in out.text for r in value_runs(v.value))
    return stats


#: Providers of :data:`QUASI_PROVIDERS` whose runs of 5+ letters and digits left count as
#: partly left (a password's, a coordinate's decimals).
_RUNS_LEFT = ("password", "latlng")


#: A Korean address's province, city, county or district before its road (대전광역시 북구):
#: places, not the street's name.
_KO_DIVISION = re.compile(f"[{HANGUL}]+(?:특별시|광역시|특별자치시|특별자치도|도|시|군|구)")


def _street_name_words(value: str) -> list[str]:
    """The words of a street address that may name it: three letters or more, not a street
    type or unit word of the public lists (``Piso``, ``Appartamento``, ``Level``: written
    as they are) nor a Korean administrative division before the road."""
    from textdp.detect.streets import UNIT_WORDS, street_types

    public = set().union(*street_types().values()) | {w.lower() for w in UNIT_WORDS}
    return [w for w in re.findall(r"[^\W\d_]{3,}", value)
            if w.lower().rstrip(".") not in public and not _KO_DIVISION.fullmatch(w)]


def report_lines(stats: dict[str, dict[str, int]]) -> list[str]:
    """The figures of :func:`check` as printed lines, one per provider."""
    lines = [f"{'Faker provider':<24}{'n':>6}{'verbatim':>10}{'partial':>9}"]
    for provider, s in stats.items():
        lines.append(f"{provider:<24}{s['n']:>6}{s['verbatim'] / s['n']:>10.1%}"
                     f"{s['partial'] / s['n']:>9.1%}")
    total = sum(s["n"] for s in stats.values())
    left = sum(s["verbatim"] + s["partial"] for s in stats.values())
    lines.append(f"{'all values':<24}{total:>6}{left / max(total, 1):>10.1%}  (verbatim or "
                 "partly left)")
    return lines
