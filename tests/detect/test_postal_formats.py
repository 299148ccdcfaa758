import pytest

from textdp.detect.postal_formats import ends_with_town_code, starts_with_postcode


@pytest.mark.parametrize("text", ["LS6 2AB Leeds", "M5V 2T6", "GIR 0AA", "D02 X285", "T12Y2XT"])
def test_uk_canadian_and_irish_codes_open_a_text(text):
    assert starts_with_postcode(text)


@pytest.mark.parametrize("text", ["Leeds LS6", "LS62AB1", "Q5V 2T6", "A41 FACE", "B12 X285"])
def test_other_openings_are_no_codes_read_anywhere(text):
    assert not starts_with_postcode(text)


@pytest.mark.parametrize("text", [
    "Hauptstraße 5, 80331 ", "Via Roma 10, 00184", "ul. X 10, 00-590 ", "Rua A 100, 1100-053 ",
    "Rua B, 12345-678 ", "Storgatan 4, 411 38 ", "D-80331 ", "CH-8001 ", "Damrak 1, 1012 LG ",
    "10115, "])
def test_a_town_lines_code_ends_the_text(text):
    assert ends_with_town_code(text)


@pytest.mark.parametrize("text", [
    "in 1996 ", "born 2001, ", "tel 020 7946 0958 ", "+49 30 8063 ", "page 12 ", "v1.80331 ",
    "80331 and ", "Singapore 560123\n"])
def test_years_phone_groups_and_other_numbers_are_no_town_codes(text):
    assert not ends_with_town_code(text)
