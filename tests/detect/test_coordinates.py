"""The COORDINATES recogniser and its layout surrogate (textdp.detect.coordinates)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from textdp.detect.coordinates import COORDINATES, find_coordinates, layout
from textdp.detect.pii import find_pii, shape_of, surrogate


def taken(text: str) -> list[str]:
    return [text[a:b] for a, b in find_coordinates(text)]


@pytest.mark.parametrize("text, values", [
    ("The drone landed at [-71.6702, -107.6376] yesterday.", ["-71.6702, -107.6376"]),
    ("Meet at coordinates 40.7128° N, 74.0060° W.", ["40.7128° N, 74.0060° W"]),
    ("Photo taken at 48.8584N 2.2945E.", ["48.8584N 2.2945E"]),
    ("GPS: 51.50, -0.12 (approx.)", ["51.50, -0.12"]),  # two decimals after a context word
    ("Found at 40°42'46\"N 74°00'22\"W near the pier", ["40°42'46\"N 74°00'22\"W"]),
    ("40° 42′ 46.1″ N, 74° 0′ 22″ W", ["40° 42′ 46.1″ N, 74° 0′ 22″ W"]),
    ("lat 40.7128 lon -74.0060", ["40.7128", "-74.0060"]),  # each after its own label
    # negative controls: lists, amounts, versions, times, numbers out of range, no mark
    ("Scores were 0.8123, 0.7654, 0.9012 overall.", []),
    ("Prices 19.99, 24.99 and 3.50", []),
    ("version 2.4.1, build 3.2", []),
    ("Trains at 12.30, 13.45 and 15.00", []),
    ("Values 95.1234, 181.5678 were logged.", []),  # latitude over 90
    ("Between 0.0012 and 0.0034 of cases.", []),
    ("Ratio 12.3456 7.8901 in the table", []),  # a space apart, no mark
])
def test_coordinates_are_found_and_other_decimals_are_not(text, values):
    assert taken(text) == values


def test_the_surrogate_releases_the_layout_only():
    """The notation and each number's decimals are kept; the sign, the hemisphere and the
    count of integer digits are the drawn point's, in range."""
    rng = np.random.default_rng(0)
    assert layout("-0.1278, 51.5074") == layout("71.6702, -107.6376") == "I.####, I.####"
    signs, small = set(), 0
    for _ in range(400):
        lat, lon = (float(x) for x in surrogate(COORDINATES, shape_of(
            COORDINATES, "-0.1278, 51.5074"), rng).split(", "))
        assert abs(lat) <= 90 and abs(lon) <= 180
        signs.add((lat < 0, lon < 0))
        small += abs(lat) < 10
    assert signs == {(True, True), (True, False), (False, True), (False, False)}
    assert 20 <= small <= 70  # P(|lat| < 10) = 1/9: about 44 of 400, not every draw
    out = surrogate(COORDINATES, shape_of(COORDINATES, "40.7128° N, 74.0060° W"), rng)
    assert re.fullmatch(r"\d+\.\d{4}° [NS], \d+\.\d{4}° [EW]", out)
    out = surrogate(COORDINATES, shape_of(COORDINATES, "40°42'46\"N 74°00'22\"W"), rng)
    m = re.fullmatch(r"(\d+)°([0-5]\d)'([0-5]\d)\"([NS]) (\d+)°([0-5]\d)'([0-5]\d)\"([EW])", out)
    assert m and int(m.group(1)) <= 90 and int(m.group(5)) <= 180


def test_coordinates_win_over_the_other_number_labels_and_are_replaced():
    from textdp import Privatizer

    text = "Pt found at 40.712776, -74.005974 by EMS; GPS: 51.50, -0.12"
    assert [(m.label, text[m.start:m.end]) for m in find_pii(text)
            if m.label == COORDINATES] == [(COORDINATES, "40.712776, -74.005974"),
                                           (COORDINATES, "51.50, -0.12")]
    out = Privatizer(targets="quasi", seed=0)(text).text
    assert "40.712776" not in out and "-74.005974" not in out and "51.50" not in out
    assert re.search(r"found at -?\d+\.\d{6}, -?\d+\.\d{6} by EMS", out)
    # not a target of "pii": a place, not an identifier
    assert "40.712776" in Privatizer(targets="pii", seed=0)(text).text
