"""The POSTCODE recogniser and its layout surrogate (textdp.detect.postcodes)."""

from __future__ import annotations

import numpy as np
import pytest

from textdp.detect.pii import shape_of, surrogate
from textdp.detect.postcodes import POSTCODE, find_postcodes


def taken(text: str) -> list[str]:
    return [text[a:b] for a, b in find_postcodes(text)]


@pytest.mark.parametrize("text, codes", [
    ("Flat 4, 19 Mill Lane, Bristol BS1 4DJ", ["BS1 4DJ"]),          # UK, anywhere
    ("221B Baker Street, London NW1 6XE", ["NW1 6XE"]),
    ("Postcode: SW1A 1AA", ["SW1A 1AA"]),
    ("Mail: 24 Sussex Dr, Ottawa ON K1A 0B1", ["K1A 0B1"]),           # Canada
    ("12 Main St, Dublin 2, D02 X285", ["D02 X285"]),                  # Ireland's Eircode
    ("Eircode A65F4E2, Co. Louth", ["A65F4E2"]), ("Rathmines, D6W Y2T7", ["D6W Y2T7"]),
    ("42 Elm St, Springfield, IL 62704.", ["62704"]),                  # a ZIP after a state
    ("4/21 Kingsford St, Brisbane QLD 4000.", ["4000"]),               # Australia
    ("Sydney NSW 2000", ["2000"]), ("Raised 4000 dollars in WA in 2019", []),
    ("Washington, DC 20500-0003", ["20500-0003"]),
    ("zip 90210", ["90210"]), ("PLZ 80331", ["80331"]), ("CEP 01310-100", ["01310-100"]),
    ("Hauptstr. 5, 10115 Berlin.", ["10115"]),                         # before a listed city
    ("Keizersgracht 12, 1012 AB Amsterdam", ["1012 AB"]),
    ("Deliver to MG Road, PIN code 560001.", ["560001"]),
    ("Postcode 95-883 is outside the area.", ["95-883"]),              # Poland
    ("Col. Americana, C.P. 44160, Guadalajara", ["44160"]),            # Mexico's C.P.
    ("col. Tlacopac, CP 01040 verdad?", ["01040"]),
    ("Blk 123 Ang Mo Kio Avenue 6, #08-215, Singapore 560123", ["560123"]),  # after a city
    ("Lekki Phase 1, Lagos 106104", ["106104"]), ("Paris 2024 Olympics", []),
    # the town line of a street address, whatever the town
    ("Sontagweg 190\n54009 Neunburg vorm Wald", ["54009"]),
    ("58, Maharaj Marg\nBhopal 160285", ["160285"]),
    ("H.No. 01\nGara Road\nHospet-436687", ["436687"]),
    ("Callejón de Natalia Arranz 10\nSegovia, 45188", ["45188"]),
    ("ul. Sadowa 29\n72-243 Jastrzębie-Zdrój", ["72-243"]),
    ("Jennadreef 7\n5638SB\nDen Ham", ["5638SB"]),
    # a neighbourhood's line between, a town opening with a particle (Brazil)
    ("Rua Clarice Macedo, 67\nBela Vitoria\n93928-412 da Conceição\nRJ", ["93928-412"]),
    ("Rua de Guerra, 12\nAcaiaca\n36531650 Costa", ["36531650"]),       # a CEP without "-"
    ("Sontagweg 190\nline one\nline two\n54009 Neunburg", []),          # three lines below
    ("Bäckvägen 89\n71614 Örebro", ["71614"]),                        # a town's capital Ö
    ("pl. Słowackiego 529\n32-312 Świebodzice", ["32-312"]),
    ("Lake Stephanie, FM 63745", ["63745"]),                            # a freely associated state
])
def test_postcodes_of_many_countries(text, codes):
    assert taken(text) == codes


@pytest.mark.parametrize("text", [
    "The total was 12345.",            # a bare five-digit number
    "In 1990 Berlin was one city.",    # a year before a city
    "We sold 300 Paris tickets.",      # under four digits before a city
    "Route 66 Chicago", "A4 paper", "NHS 943 476 5919", "IL 627", "room 12-345",
    "A41 FACE", "F12 2024 model", "B12 AB34",  # no Eircode: letters only, digits only, B
    "ZIP code unknown, call 555-0101.",
    "We met at 19 Mill Lane in 2019 and 4500 people came.",  # no town beside the number
    # a phone's groups on an address's town lines
    "Address: 1420 Pine St Apt 4B, Philadelphia\nPhone: (215) 847-3390",
    "12B Ogunlana Drive, Surulere. 0809 223 4471",
])
def test_other_numbers_are_not_postcodes(text):
    assert taken(text) == []


def test_surrogates_keep_the_layout_only():
    rng = np.random.default_rng(0)
    for value in ("SW1A 1AA", "62704", "20500-0003", "1012 AB", "K1A 0B1"):
        shape = shape_of(POSTCODE, value)
        outs = {surrogate(POSTCODE, shape, rng) for _ in range(40)}
        assert all(shape_of(POSTCODE, out) == shape for out in outs)
        assert len(outs) > 30 and value not in outs
    # the same layout, the same draw: nothing of the value itself reaches the output
    a = surrogate(POSTCODE, shape_of(POSTCODE, "SW1A 1AA"), np.random.default_rng(3))
    assert a == surrogate(POSTCODE, shape_of(POSTCODE, "NW1A 2BB"), np.random.default_rng(3))


def test_postcodes_are_replaced_under_quasi_only():
    from textdp import Privatizer

    text = "Pt lives at 42 Elm St, Springfield, IL 62704; postcode SW1A 1AA."
    out = Privatizer(targets="quasi", seed=0, report_spans=True)(text)
    assert "62704" not in out.text and "SW1A 1AA" not in out.text
    assert sum(lab == "POSTCODE" for _, _, lab, *_ in out.report.spans) == 2
    kept = Privatizer(targets="pii", seed=0)(text).text
    assert "62704" in kept and "SW1A 1AA" in kept  # not an identifier alone


def test_a_caller_with_the_streets_passes_them():
    from textdp.detect.postcodes import find_postcodes
    from textdp.detect.streets import find_streets

    text = "Sontagweg 190\n54009 Neunburg vorm Wald"
    assert find_postcodes(text, find_streets(text)) == find_postcodes(text) == [(14, 19)]
    assert find_postcodes(text, []) == []  # no street: the town line is no postcode's
