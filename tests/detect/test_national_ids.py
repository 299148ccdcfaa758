"""National identity and tax numbers of many countries (textdp.detect.national_ids)."""

from __future__ import annotations

import numpy as np
import pytest

from textdp.detect.national_ids import SCHEMES, find_national_ids
from textdp.evaluate.pii_samples import national_id


def taken(text: str) -> list[str]:
    return [text[a:b] for a, b in find_national_ids(text)]


def test_every_generated_number_of_18_schemes_is_found():
    rng = np.random.default_rng(11)
    for _ in range(300):
        template, value = national_id(rng)
        assert taken(template.format(value)) == [value], template


@pytest.mark.parametrize("text, value", [
    ("DNI 12345678Z", "12345678Z"), ("Applicant 12345678Z signed.", "12345678Z"),  # alone
    ("codice fiscale RSSMRA85T10A562S", "RSSMRA85T10A562S"),
    ("Her CPF is 123.456.789-09.", "123.456.789-09"),
    ("SIN: 130 692 544", "130 692 544"), ("BSN 111222333", "111222333"),
    ("Steuer-ID 36 574 261 809", "36 574 261 809"), ("PAN AAAPZ1234C", "AAAPZ1234C"),
    ("national ID number is 85.07.30-033.28", "85.07.30-033.28"),
    ("Her son Ethan Tan (T2215990E) will stay.", "T2215990E"),  # Singapore's: alone
    ("NRIC S1234567D", "S1234567D"), ("FIN F1234567N", "F1234567N"),
    ("Socio 2: Marc Puig · DNI 12675738 R / Tel", "12675738 R"),  # a space before the letter
    ("your SIN (506 779 891 is what I have", "506 779 891"),      # in brackets
    ("PAN card (VXQPT9098Y) and", "VXQPT9098Y"),
    ("resident 784-1987-1234567-1, Dubai", "784-1987-1234567-1"),  # the UAE's: alone
    ("Emirates ID 784198712345672 on file", "784198712345672"),     # labelled: any check
    ('{"tckn": "10000000146"}', "10000000146"),                    # a JSON key, small letters
])
def test_numbers_with_their_checks(text, value):
    assert taken(text) == [value]


@pytest.mark.parametrize("text, value", [
    ("Her social security number is 740015-1446290.", "740015-1446290"),  # month 00
    ("Her social security number is ZZ 00 37 90 T.", "ZZ 00 37 90 T"),    # no NINO's rules
    ("social security number is 134099783715.", "134099783715"),
    ("Employer EIN 47-4767403 on the form.", "47-4767403"),
    ("national ID: 12345678 issued", "12345678"),
    ("Name: Zhang Wei\nID: 110101199003074578", "110101199003074578"),  # a bare "ID", capitals
    ("NRIC/FIN: S4912270E / Date of birth", "S4912270E"),       # a second label after "/"
    ("Residence card no.: UH48291736EA", "UH48291736EA"),
    ("My Number: 5774 9788 9850", "5774 9788 9850"),            # Japan's, in capitals
    ("Tax ID (TIN): 12-3456789", "12-3456789"),                  # a label in brackets
    ("N° sécurité sociale : 2 92 11 69 123 456 78", "2 92 11 69 123 456 78"),  # 7 groups
    ("My PPS number is 1234567TA. Thanks", "1234567TA"),          # Ireland's, not valid
])
def test_any_number_right_after_a_generic_label_is_taken_checksum_or_not(text, value):
    """A mistyped, foreign or generated number identifies a person as well as a valid one."""
    assert taken(text) == [value]


@pytest.mark.parametrize("text", [
    "Order 111222333 shipped.",             # a valid BSN without a context word
    "Call 130 692 544 now.",                # a valid SIN without one
    "SIN 130 692 545",                      # a wrong check digit
    "DNI 12345678A",                        # a wrong check letter
    "Tax ID: see the total of 111222333.",  # words between the context and the number
    "pan AAAPZ1234C",                       # acronyms are case-sensitive ("pan")
    "Invoice 2021-03-04, 12345678 items, the year 1985.",
    "tax number 2019", "national ID renewed 2021-03-04",  # a year, a date after the label
    "my id is 12345678", "ID 4471",         # "id" in small letters; fewer than six digits
    "born in 123456 BC",                                   # "in" is no label
    "my number is 123456789",                              # a phone's words, not Japan's
    "Order T2215990F shipped.",                            # an NRIC's shape, wrong letter
    "room 12675738 R",                                     # a DNI with a space, no label
    "We had 1234567 apps installed",                       # "apps" is no PPS label
    "ref 784-1987-1234567-2 ok",                           # an Emirates ID's shape, bad check
])
def test_other_numbers_are_not_national_ids(text):
    assert taken(text) == []


def test_schemes_name_their_validator():
    import importlib

    for s in SCHEMES:
        check = s.check or importlib.import_module("stdnum." + s.module).is_valid
        assert callable(check)
        assert bool(s.module) != bool(s.check)  # one validator, named once
        assert len(s.country) == 2 and s.country.isupper()
