"""Street addresses (textdp.detect.streets): the forms taken, what is left, the surrogate."""

from __future__ import annotations

import numpy as np
import pytest

from textdp.detect.pii import find_pii, shape_of, surrogate
from textdp.detect.streets import find_streets, layout, street_names, street_types


def taken(text: str) -> list[str]:
    return [text[a:b] for a, b in find_streets(text)]


@pytest.mark.parametrize("text, street", [
    ("She lives at 19 Mill Lane, Bristol BS1 4DJ.", "19 Mill Lane"),
    ("Ship to 5650 Ellis Burgs Apt. 289, Rachelhaven", "5650 Ellis Burgs Apt. 289"),
    ("Address: 221B Baker Street, London", "221B Baker Street"),
    ("Meet at 1600 Pennsylvania Avenue NW tomorrow", "1600 Pennsylvania Avenue NW"),
    ("Flat 4, 19 Mill Lane", "Flat 4, 19 Mill Lane"),
    ("123 W 45th St", "123 W 45th St"),
    ("She lives at 1900 Main Street.", "1900 Main Street"),      # a year-like number, a cue
    ("3 rue de la Paix, Paris", "3 rue de la Paix"),
    ("Via Roma 12, Milano", "Via Roma 12"),
    ("Canale Faggiani, 240", "Canale Faggiani, 240"),
    ("aleja Żeromskiego 24", "aleja Żeromskiego 24"),
    ("Jost-Klingelhöfer-Straße 93-15", "Jost-Klingelhöfer-Straße 93-15"),
    ("Björkgatan 561", "Björkgatan 561"),
    ("бул. Минина, д. 7/2", "бул. Минина, д. 7/2"),
    ("551 小林 Street", "551 小林 Street"),
    ("Studio 9\nPhillips Fort", "Studio 9\nPhillips Fort"),
])
def test_street_addresses_of_many_forms(text, street):
    assert taken(text) == [street]


@pytest.mark.parametrize("text", [
    "In 2019 Apple Park opened.",               # a year after a preposition
    "the 1979 Democracy Wall movement",         # a year without an address cue
    "I have 3 green apples.", "the 5 Star Hotel",
    "Dunvant 21 Ebbw Vale 10",                  # a score: a number after the "street"
    "Worcestershire 238, K. Spiring 130 not out",  # a surname ending like a street type
    "31 : 12 Cue The Lonely Island",            # a capitalised article in the name
    "rue de Maillard",                          # no house number
])
def test_other_phrases_are_not_streets(text):
    assert taken(text) == []


def test_the_public_lists_load():
    types = street_types()
    assert {"after", "before", "glued"} <= set(types)
    assert {"lane", "street", "burgs"} <= types["after"] and "via" in types["before"]
    assert "straße" in types["glued"] and "ring" not in types["glued"]
    names = street_names()
    assert len(names) == len(set(names)) >= 50 and "Main" in names


def test_the_surrogate_keeps_the_layout_and_draws_the_name_and_number():
    rng = np.random.default_rng(0)
    for value in ("19 Mill Lane", "5650 Ellis Burgs Apt. 289", "Via Roma 12", "Björkgatan 561",
                  "Jost-Klingelhöfer-Straße 93-15", "Flat 4, 19 MILL LANE"):
        shape = shape_of("STREET_ADDRESS", value)
        assert shape.layout == layout(value)
        outs = {surrogate("STREET_ADDRESS", shape, rng) for _ in range(40)}
        assert value not in outs and len(outs) > 20
        for out in outs:
            assert layout(out) == shape.layout or out.upper() == out  # same layout again
            assert not any(w in out for w in ("Mill", "Ellis", "Roma", "Björk", "Klingel")
                           if w.lower() not in {n.lower() for n in street_names()})
    # the street type, the unit word and the case of the name are kept
    out = surrogate("STREET_ADDRESS", shape_of("STREET_ADDRESS", "5650 Ellis Burgs Apt. 289"),
                    np.random.default_rng(1))
    assert out.split()[2:4] == ["Burgs", "Apt."] and out.split()[1] in street_names()
    upper = surrogate("STREET_ADDRESS", shape_of("STREET_ADDRESS", "19 MILL LANE"),
                      np.random.default_rng(2))
    assert upper.isupper() and upper.endswith(" LANE")


def test_a_street_is_one_target_of_the_quasi_preset():
    from textdp import Privatizer

    text = "Pt lives at 19 Mill Lane, Bristol BS1 4DJ."
    assert [m.label for m in find_pii(text, ["STREET_ADDRESS", "POSTCODE"])] == [
        "STREET_ADDRESS", "POSTCODE"]
    out = Privatizer(targets="quasi", seed=0).privatize([text])[0].text
    assert "19 Mill" not in out and " Lane," in out and "BS1 4DJ" not in out
