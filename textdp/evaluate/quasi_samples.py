"""A labelled dev sample for the quasi-identifiers of the ``quasi`` preset (dates, ages and
places), generated with a fixed seed, and its check.

    textdp evaluate quasi                               # 100 values per label, seed 0
    textdp evaluate quasi --per-label 400 --ordinary 2000 --seed 1

Dates are written in many styles (ISO, U.S. and European numeric orders, two-digit years,
month names and abbreviations, ordinals, weekdays, clinical ``04-MAR-1962``, month and year)
and ages in many forms (``67 y/o``, ``45-year-old``, ``aged 34``, ``age: 52``, ``34M``), each
in a sentence; places (``PLACE``: a country or a city of the shipped gazetteer,
``textdp/data/places.tsv``, half each, one word or several, in a sentence; any span of a
place label, ``GPE``/``LOC``/``FAC``, covering it counts as found); postcodes
(``POSTCODE``: seven countries' formats in address lines, :func:`postcode_item`); the
ordinary items are :mod:`textdp.evaluate.pii_samples`' numbers and words (but dates and
``ZIP 12345``, which are targets here) and numbers of years that are not ages (``a 30-year
mortgage``); hospitals, clinics, care homes and schools (``FACILITY``, found by a ``FAC``
span, :func:`facility_item`); coordinates (``COORDINATES``: five forms,
:func:`coordinates_item`) against
phrases of decimals that are none (:data:`NOT_COORDINATES`). Everything runs through
``Privatizer(targets="quasi", report_spans=True)``; per label it prints

* ``missed``: the share of values no span of their label (a place label for ``PLACE``)
  covers (the recogniser's misses, published as they are);
* ``unchanged``: the share found verbatim in the output (:func:`unchanged`: as itself, not
  inside a longer number): the misses, plus the values the noise happened to leave where
  they were (an offset or a noise of 0, printed beside it as ``P(Z=0)``, a property of the
  mechanism, not a miss: 0.03 % of dates and 0.9 % of ages at the default ε, both laws
  displaced, :mod:`textdp.quasi`; and a month-and-year date keeps its month when the
  offset is within about 15 days, at most 1 %);

and per kind of ordinary item the share a ``DATE``, ``AGE``, ``POSTCODE`` or place span
touches (``taken``). A place that comes back unchanged was missed or drawn as itself (the
mechanism's draw, at about 1 % for a place of the vocabulary at the default ε:
``tests/test_place_vocabulary.py``).
"""

from __future__ import annotations

import re

import numpy as np

from textdp.detect.ages import spelt
from textdp.evaluate.pii_samples import (
    ORDINARY_TEMPLATES,
    Item,
    _d,
    _ordinary,
    _pick,
    ordinary_lines,
)

_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")

DATE_TEMPLATES = ("Admitted on {} after a fall.", "DOB: {}", "Seen in clinic {}.",
                  "The contract was signed {} in Paris.", "Born {}, she moved later.",
                  "Follow-up ({}) was missed.")
AGE_TEMPLATES = ("A {} woman presented with pain.", "Patient, {}, was discharged.",
                 "The driver ({}) was unhurt.", "{} with chest pain.", "Her son, {}, called.")
PLACE_TEMPLATES = ("She moved to {} last year.", "The office in {} closed in March.",
                   "He was born in {} and grew up there.", "Flights from {} were cancelled.",
                   "Our team visited {} twice.")
#: Labels whose spans find a place.
PLACE_SPAN_LABELS = ("GPE", "LOC", "FAC")
NOT_AGES = ("a 30-year mortgage", "5 years ago", "a $34M budget", "2M people", "page 34",
            "a 10-year plan", "over 200 years old buildings", "in 34 days", "size 34m",
            "aged cheese", "2 years later", "3/4 cup", "F/5 lens", "may 5 times",
            "march 3 miles", "he is 5 minutes away", "I'm 6 foot tall", "they are 3 of us",
            "it's 5 and sunny", "the total is 34", "one of the two", "a thirty-year mortgage",
            "twenty years ago", "in fifty years")
#: Ages a person states or written in words, each a whole sentence with ``{a}`` for the
#: number (``{w}`` spelt out) and the age's expression in brackets (the value).
STATED_AGES = ("[She's {a}] and lives in Leeds.", "[I am {a}]!", "My dad [turned {a}] last week.",
               "[he'll be {a}] in May", "They said [he is {a}], not older.",
               "My [grandma is {w}] and lives in Kraków.", "A [{w}-year-old] man was hurt.",
               "Patient, [aged {w}], was seen.")


def _ordinal(day: int) -> str:
    return "th" if 11 <= day <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")


def date_value(rng: np.random.Generator) -> str:
    """A real date in a random style."""
    import datetime

    y = int(rng.integers(1930, 2030))
    m = int(rng.integers(1, 13))
    d = int(rng.integers(1, 29))
    when = datetime.date(y, m, d)
    month = _MONTHS[m - 1]
    style = int(rng.integers(len(_DATE_STYLES) + 1))
    if style < len(_DATE_STYLES):
        return _DATE_STYLES[style](y, m, d, month, when)
    return f"{y}-{m:02d}-{d:02d}T{int(rng.integers(24)):02d}:30"  # with a time: one more draw


def _intl(lang: str, month: int) -> str:
    from textdp.detect.dates import INTL_MONTHS

    return INTL_MONTHS[lang][month - 1]


#: Date styles, each ``(year, month, day, month name, date) -> text``.
_DATE_STYLES = (
    lambda y, m, d, month, when: f"{y}-{m:02d}-{d:02d}",
    lambda y, m, d, month, when: f"{y}/{m:02d}/{d:02d}",
    lambda y, m, d, month, when: f"{m}/{d}/{y}",
    lambda y, m, d, month, when: f"{m:02d}/{d:02d}/{y % 100:02d}" if 1931 <= y <= 2030
    else f"{m:02d}/{d:02d}/{y}",
    lambda y, m, d, month, when: f"{d:02d}.{m:02d}.{y}",
    lambda y, m, d, month, when: f"{d}-{m}-{y}",
    lambda y, m, d, month, when: f"{month} {d}, {y}",
    lambda y, m, d, month, when: f"{month[:3]}. {d}{_ordinal(d)} {y}",
    lambda y, m, d, month, when: f"{d} {month} {y}",
    lambda y, m, d, month, when: f"{d}{_ordinal(d)} of {month[:3]} {y}",
    lambda y, m, d, month, when: f"{d:02d}-{month[:3].upper()}-{y}",
    lambda y, m, d, month, when: f"{month} {y}",
    lambda y, m, d, month, when: f"{_WEEKDAYS[when.weekday()]}, {month} {d}, {y}",
    # other languages, day first (textdp.detect.dates.INTL_MONTHS)
    lambda y, m, d, month, when: f"{d} {_intl('fr', m)} {y}",
    lambda y, m, d, month, when: f"{d} de {_intl('es', m)} de {y}",
    lambda y, m, d, month, when: f"{d}. {_intl('de', m).capitalize()} {y}",
    lambda y, m, d, month, when: f"{d} {_intl('it', m)} {y}",
    # without a year
    lambda y, m, d, month, when: f"{month} {d}",
    lambda y, m, d, month, when: f"{d}{_ordinal(d)} of {month}",
    lambda y, m, d, month, when: f"{month[:3]}. {d}{_ordinal(d)}",
    lambda y, m, d, month, when: f"{_WEEKDAYS[when.weekday()][:3]}, {month[:3]} {d}",
)


#: Age expressions; form 5 is clinical shorthand, an adult age and a sex letter
#: (:data:`ADULT_FORMS`).
AGE_FORMS = ("{a} y/o", "{a}-year-old", "{a} years old", "aged {a}", "age: {a}", None, "{a}yo",
             "Age {a}", "{a} yrs old", "{a}-y/o", "{a} years of age")
ADULT_FORMS = ("{a}{s}", "{s}/{a}", "{a}/{s}")


def age_value(rng: np.random.Generator) -> str:
    """An age expression in a random form."""
    a = int(rng.integers(1, 100))
    form = AGE_FORMS[int(rng.integers(len(AGE_FORMS)))]
    if form is None:
        adult = ADULT_FORMS[int(rng.integers(len(ADULT_FORMS)))]
        return adult.format(a=int(rng.integers(18, 100)), s=_pick(rng, "MF"))
    return form.format(a=a)


def place_value(rng: np.random.Generator) -> str:
    """A country or (as often) a city of the shipped gazetteer."""
    from textdp.place_vocabulary import place_names

    names = place_names()
    kind = "country" if rng.random() < 0.5 else "city"
    return _pick(rng, names[kind])


_UK_AREAS = ("SW", "NW", "E", "EC", "M", "B", "BS", "LS", "G", "EH", "CF", "L", "OX", "CB")
_INWARD = "ABDEFGHJLNPQRSTUWXYZ"


def postcode_item(rng: np.random.Generator) -> tuple[str, str]:
    """A sentence holding a postcode of one of seven countries' formats, and the code."""
    kind = int(rng.integers(7))
    if kind == 0:  # UK
        code = f"{_pick(rng, _UK_AREAS)}{int(rng.integers(1, 20))} {_d(rng, 1)}" \
               f"{_pick(rng, _INWARD)}{_pick(rng, _INWARD)}"
        return _pick(rng, ("Flat 4, 19 Mill Lane, Bristol {}", "Postcode: {}",
                           "Send it to 10 High Street, London {} please.")).format(code), code
    if kind == 1:  # U.S. ZIP after a state code
        code = _d(rng, 5) if rng.random() < 0.7 else f"{_d(rng, 5)}-{_d(rng, 4)}"
        state = _pick(rng, ("IL", "NY", "CA", "TX", "DC", "WA"))
        return f"She lives at 42 Elm St, Springfield, {state} {code}.", code
    if kind == 2:  # Canada
        letters = "ABCEGHJKLMNPRSTVXY"
        code = f"{_pick(rng, letters)}{_d(rng, 1)}{_pick(rng, letters)} {_d(rng, 1)}" \
               f"{_pick(rng, letters)}{_d(rng, 1)}"
        return f"Mail: 24 Sussex Dr, Ottawa ON {code}", code
    if kind == 3:  # Germany, France: the code before the city
        code = _d(rng, 5)
        city = _pick(rng, ("Berlin", "Munich", "Paris", "Lyon", "Hamburg"))
        return f"Wohnt in der Hauptstr. 5, {code} {city}.", code
    if kind == 4:  # the Netherlands
        code = f"{int(rng.integers(1000, 9999))} {_pick(rng, 'ABCDEFGHJKLMNPRSTVWXZ')}" \
               f"{_pick(rng, 'ABCDEFGHJKLMNPRSTVWXZ')}"
        return f"Keizersgracht 12, {code} Amsterdam", code
    if kind == 5:  # Portugal, Brazil: after a postcode word
        code = f"{_d(rng, 4)}-{_d(rng, 3)}" if rng.random() < 0.5 else f"{_d(rng, 5)}-{_d(rng, 3)}"
        return _pick(rng, ("Código postal / postal code: {}", "CEP {} confirmed.")).format(code), \
            code
    code = _d(rng, 6)  # India
    return f"Deliver to MG Road, PIN code {code}.", code


_STREET_NAMES = ("Mill", "Baker", "Ellis", "Pennsylvania", "Sunset", "Jones", "Kensington")


def street_item(rng: np.random.Generator) -> tuple[str, str]:
    """A sentence holding a street address of one of six forms (English, with a unit or a
    direction, French, Italian and Polish, German and Swedish glued), and the address."""
    kind = int(rng.integers(6))
    number = str(int(rng.integers(1, 20000 if kind < 2 else 300)))
    name = _pick(rng, _STREET_NAMES)
    if kind == 0:
        street = f"{number} {name} {_pick(rng, ('Lane', 'Street', 'St', 'Road', 'Avenue', 'Dr'))}"
    elif kind == 1:
        unit = _pick(rng, ("Apt.", "Suite", "NW"))
        unit += "" if unit == "NW" else f" {int(rng.integers(1, 900))}"
        street = f"{number} {name} {_pick(rng, ('Burgs', 'Estate', 'Court', 'Way'))} {unit}"
    elif kind == 2:
        street = f"{number} rue de la {_pick(rng, ('Paix', 'Gare', 'République'))}"
    elif kind == 3:
        street = f"{_pick(rng, ('Via', 'Viale', 'ulica'))} " \
                 f"{_pick(rng, ('Roma', 'Garibaldi', 'Konopnickiej'))} {number}"
    elif kind == 4:
        street = f"{_pick(rng, ('Haupt', 'Linden', 'Berg'))}" \
                 f"{_pick(rng, ('straße', 'str.', 'weg', 'platz'))} {number}"
    else:
        street = f"{_pick(rng, ('Björk', 'Kyrko', 'Stor'))}{_pick(rng, ('gatan', 'vägen'))} " \
                 f"{number}"
    template = _pick(rng, ("She lives at {}, near the station.", "Address: {}",
                           "Ship to {} by Friday.", "Pt resides at {} with her son."))
    return template.format(street), street


def coordinates_item(rng: np.random.Generator) -> tuple[str, str]:
    """A sentence holding a latitude and longitude of one of five forms (decimal with a
    comma, in brackets, with degree signs and hemisphere letters, degrees-minutes-seconds,
    after a ``GPS`` label with two decimals), and the pair."""
    lat, lon = float(rng.uniform(-89.9, 89.9)), float(rng.uniform(-179.9, 179.9))
    kind = int(rng.integers(5))
    decimals = int(rng.integers(4, 7))
    if kind in (0, 1):
        value = f"{lat:.{decimals}f}, {lon:.{decimals}f}"
        if kind == 1:
            return f"The drone landed at [{value}] at noon.", value
        return _pick(rng, ("Pickup point {} confirmed.", "Photo taken at {} last night.",
                           "Pt found at {} by EMS.")).format(value), value
    if kind == 2:
        value = f"{abs(lat):.4f}° {'N' if lat >= 0 else 'S'}, " \
                f"{abs(lon):.4f}° {'E' if lon >= 0 else 'W'}"
        return f"Meet at {value} tomorrow.", value

    def dms(x: float, hemispheres: str) -> str:
        d, rest = int(abs(x)), (abs(x) % 1) * 60
        return f"{d}°{int(rest):02d}'{int(rest % 1 * 60):02d}\"" + \
            hemispheres[0 if x >= 0 else 1]

    if kind == 3:
        value = f"{dms(lat, 'NS')} {dms(lon, 'EW')}"
        return f"The wreck lies at {value} off the coast.", value
    value = f"{lat:.2f}, {lon:.2f}"
    return f"GPS: {value} (approx.)", value


_FACILITY_NAMES = ("Mercy", "Riverside", "St. Mary's", "Lincoln", "Oakwood", "Sunrise",
                   "Valley", "Northgate", "Cedar Grove", "Holy Cross")
_FACILITY_HEADS = ("General Hospital", "Medical Center", "Family Clinic", "Hospital",
                   "Nursing Home", "Elementary School", "Health Centre", "Hospice",
                   "Community Hospital", "Rehabilitation Center")


def facility_item(rng: np.random.Generator) -> tuple[str, str]:
    """A sentence naming a hospital, clinic, care home or school (a ``FAC`` place under
    ``quasi``), and the name."""
    value = f"{_pick(rng, _FACILITY_NAMES)} {_pick(rng, _FACILITY_HEADS)}"
    template = _pick(rng, ("Pt transferred from {} on Monday.", "Follow up at {} next week.",
                           "She was admitted to {} after the fall.",
                           "Discharged to {} with her daughter.", "He teaches at {}."))
    return template.format(value), value


#: Ordinary phrases with decimals, none of them coordinates (the coordinates recogniser's
#: false positives are counted on them: a ``COORDINATES`` span).
NOT_COORDINATES = ("Scores were 0.8123, 0.7654, 0.9012 overall.", "Prices 19.99, 24.99, 3.50",
                   "Temperature 36.6, pulse 72.", "version 2.4.1, build 3.2",
                   "The ratios were 1.25, 2.50 in May.", "Weights 72.5 kg, 68.3 kg",
                   "Trains at 12.30, 13.45 and 15.00", "AUC 0.9312, F1 0.8841",
                   "Between 0.0012 and 0.0034 of cases.", "Grades 3.75, 3.20 and 2.95 this term.")


#: Ordinary phrases with a number before capitalised words, none of them an address (the
#: street recogniser's false positives are counted on them: a ``STREET_ADDRESS`` span).
NOT_STREETS = ("In 2019 Apple Park opened.", "I have 3 Green apples.", "the 5 Star Hotel",
               "Chapter 4 Lake Poets", "Since 1998 Hyde Park has changed.",
               "Top 10 Beach Reads", "Win 2 Free Tickets", "Gate 12 Terminal B")


def positives(per_label: int, seed: int = 0) -> list[Item]:
    """``per_label`` dates, ages, places, postcodes and street addresses in sentences, and a
    quarter as many ages a person states or written in words (:data:`STATED_AGES`) (fixed
    ``seed``)."""
    rng = np.random.default_rng(seed + 10)
    out = []
    for label, make, templates in (("DATE", date_value, DATE_TEMPLATES),
                                   ("AGE", age_value, AGE_TEMPLATES)):
        for _ in range(per_label):
            written = make(rng)
            # an ISO date with a time: the date part is the value (the time is not taken)
            value = re.sub(r"T\d\d:\d\d$", "", written)
            out.append(Item(_pick(rng, templates).format(written), value, label, label))
    stated_rng = np.random.default_rng(seed + 17)  # the other draws stay as they were
    for _ in range(per_label // 4):
        a = int(stated_rng.integers(1, 100))
        sentence = _pick(stated_rng, STATED_AGES).format(a=a, w=spelt(a))
        value = sentence[sentence.index("[") + 1:sentence.index("]")]
        out.append(Item(sentence.replace("[", "").replace("]", ""), value, "AGE", "AGE"))
    place_rng = np.random.default_rng(seed + 12)  # the dates and ages stay as they were
    for _ in range(per_label):
        value = place_value(place_rng)
        out.append(Item(_pick(place_rng, PLACE_TEMPLATES).format(value), value, "PLACE",
                        "PLACE"))
    # each label its own stream: a label added later leaves the others' draws as they were
    for label, make, offset in (("POSTCODE", postcode_item, 13),
                                ("STREET_ADDRESS", street_item, 14),
                                ("FACILITY", facility_item, 16),
                                ("COORDINATES", coordinates_item, 15)):
        item_rng = np.random.default_rng(seed + offset)
        for _ in range(per_label):
            text, value = make(item_rng)
            out.append(Item(text, value, label, label))
    return out


def negatives(n: int, seed: int = 0) -> list[Item]:
    """``n`` ordinary items that are neither dates nor ages (fixed ``seed``)."""
    rng = np.random.default_rng(seed + 11)
    out = []
    while len(out) < n:
        if rng.random() < 0.2:
            value = _pick(rng, NOT_AGES)
            out.append(Item(f"They mentioned {value} in passing.", value, None, "not an age"))
            continue
        kind, value = _ordinary(rng)
        # dates are targets here, and so is a ZIP code after "ZIP"
        if kind != "date" and not value.startswith("ZIP"):
            out.append(Item(_pick(rng, ORDINARY_TEMPLATES).format(value), value, None, kind))
    return out


#: The one label that counts as taking a phrase of these kinds: a phrase of NOT_STREETS may
#: hold a place (Hyde Park), one of NOT_COORDINATES a date.
_OWN_LABEL = {"not a street": "STREET_ADDRESS", "not coordinates": "COORDINATES"}


def unchanged(value: str, text: str) -> bool:
    """Whether ``value`` stands in ``text`` as itself, not glued to a digit or letter: an age
    ``5 y/o`` is not in ``15 y/o``, a date ``1/2/2020`` not in ``11/2/2020``."""
    return re.search(rf"(?<![^\W_]){re.escape(value)}(?![^\W_])", text) is not None


def check(per_label: int = 100, n_ordinary: int = 600, seed: int = 0,
          epsilon_date: float | None = None, epsilon_age: float | None = None
          ) -> dict[str, dict]:
    """Run the sample through ``Privatizer(targets="quasi", report_spans=True)``: per label
    the shares missed and unchanged (and ``P(Z=0)``), per kind of ordinary item the share a
    ``DATE``/``AGE`` span touches."""
    from textdp import Privatizer
    from textdp.mechanisms import geometric
    from textdp.quasi import AGE_MAX_UNCHANGED, DATE_MAX_UNCHANGED, DATE_MONTH_WINDOW

    items = positives(per_label, seed) + negatives(n_ordinary, seed) + \
        [Item(text, text, None, "not a street") for text in NOT_STREETS] + \
        [Item(text, text, None, "not coordinates") for text in NOT_COORDINATES]
    settings = {k: v for k, v in (("epsilon_date", epsilon_date),
                                  ("epsilon_age", epsilon_age)) if v is not None}
    privatizer = Privatizer(seed=seed, targets="quasi", report_spans=True, **settings)
    results = privatizer.privatize([it.text for it in items])
    config = privatizer.config
    stats: dict[str, dict] = {}
    for it, res in zip(items, results):
        start = it.text.index(it.value)
        end = start + len(it.value)
        spans = [(a, b, "PLACE" if label in PLACE_SPAN_LABELS else label)
                 for a, b, label, _, _ in res.report.spans or ()
                 if label in ("DATE", "AGE", "POSTCODE", "STREET_ADDRESS", "COORDINATES",
                              *PLACE_SPAN_LABELS)]
        s = stats.setdefault(it.label or "ordinary:" + it.kind,
                             {"n": 0, "missed": 0, "unchanged": 0, "taken": 0})
        s["n"] += 1
        if it.label is None:
            s["taken"] += any(a < end and start < b for a, b, label in spans
                              if label == _OWN_LABEL.get(it.kind, label))
        else:
            # a facility is a place (FAC) found in a sentence
            want = "PLACE" if it.label == "FACILITY" else it.label
            covered = any(a <= start and end <= b and label == want for a, b, label in spans)
            s["missed"] += not covered
            s["unchanged"] += unchanged(it.value, res.text)
    date_shift = geometric.displacement_for(config.epsilon_date, DATE_MAX_UNCHANGED,
                                            DATE_MONTH_WINDOW)
    age_shift = geometric.displacement_for(config.epsilon_age, AGE_MAX_UNCHANGED)
    for label, eps, displacement in (("DATE", config.epsilon_date, date_shift),
                                     ("AGE", config.epsilon_age, age_shift)):
        if label in stats:
            stats[label]["p_zero"] = geometric.zero_probability(eps, displacement)
    return stats


def report_lines(stats: dict[str, dict]) -> list[str]:
    """The figures of :func:`check` as printed lines."""
    lines = [f"{'label':<24}{'n':>6}{'missed':>9}{'unchanged':>11}{'P(Z=0)':>9}"]
    for label, s in stats.items():
        if not label.startswith("ordinary:"):
            zero = f"{s['p_zero']:>9.1%}" if "p_zero" in s else f"{'-':>9}"
            lines.append(f"{label:<24}{s['n']:>6}{s['missed'] / s['n']:>9.1%}"
                         f"{s['unchanged'] / s['n']:>11.1%}{zero}")
    return lines + ordinary_lines(stats)
