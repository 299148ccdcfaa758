"""Delimited records (textdp.detect.delimited): which lines are records, their fields and
the column each field stands in; and what the PII recognisers read in them."""

from __future__ import annotations

import pytest

from textdp.detect.delimited import fields
from textdp.detect.pii import find_pii
from textdp.targets import PRESETS

IDENTIFIERS = [label for label in PRESETS["pii"] if label != "PERSON"]


def read(text: str) -> list[tuple[str, str]]:
    return [(text[f.start:f.end], f.header) for f in fields(text)]


def test_a_csv_block_with_its_header_names_each_field_by_column():
    text = 'id,first_name,date-of-birth\n1,Ana,"March 3, 1990"\n2,Bo,1990-01-02'
    assert read(text) == [("1", "id"), ("Ana", "first name"), ("March 3, 1990", "date of birth"),
                          ("2", "id"), ("Bo", "first name"), ("1990-01-02", "date of birth")]


@pytest.mark.parametrize("d", [";", "|", "\t", " | "])
def test_other_delimiters_and_padded_pipes(d):
    text = d.join(["ssn", "phone", "city"]) + "\n" + d.join(["536-22-8726", "555-0192", "Oslo"])
    assert read(text) == [("536-22-8726", "ssn"), ("555-0192", "phone"), ("Oslo", "city")]


def test_records_without_a_header_have_fields_without_names():
    assert read("7,Ana,536-22-8726,x") == [("7", ""), ("Ana", ""), ("536-22-8726", ""), ("x", "")]
    # a header needs a following record of as many fields; a line of digits is no header
    assert read("1,2,3\n4,5,6") == [(c, "") for c in "123456"]


@pytest.mark.parametrize("text", [
    "Hi Anna, thanks, see you on Monday.",            # prose: spaces after the commas
    "They noted 40,763,474.21 EUR in the file.",      # thousands separators
    "see http://www.example.com/a/0,1640,16686,FF.html",  # a URL's commas
    "one, two;three",                                 # fewer than two of one delimiter
])
def test_prose_numbers_and_urls_are_no_records(text):
    assert fields(text) == []


def test_values_glued_by_delimiters_and_labelled_by_their_header_are_found():
    text = ("id,name,ssn,passport_number,card\n"
            "1,Ana,536-22-8726,X12345678,4111-1111-1111-1111\n"
            "2,Bo,412-25-7788,Y98765432,5500 0000 0000 0004")
    found = {(text[m.start:m.end], m.label.replace("US_", "")) for m in find_pii(text)}
    assert {("536-22-8726", "SSN"), ("412-25-7788", "SSN"),
            ("4111-1111-1111-1111", "CREDIT_CARD"), ("5500 0000 0000 0004", "CREDIT_CARD"),
            ("X12345678", "PASSPORT"), ("Y98765432", "PASSPORT")} <= found
    # the same passport numbers without their column's name are no one's
    bare = "1,Ana,X12345678\n2,Bo,Y98765432"
    assert not [m for m in find_pii(bare, IDENTIFIERS) if "PASSPORT" in m.label]


def test_ordinary_records_give_no_personal_data():
    text = ("order_id,amount,date,sku,qty\n100234,59.99,2024-05-01,AB-1234,2\n"
            "year;revenue;growth\n2021;1200000;4.5")
    assert find_pii(text, IDENTIFIERS) == []


def test_header_cells_are_the_column_names_of_a_header_line():
    from textdp.detect.delimited import header_cells

    text = "id,first_name,sort_code\n7,Ana,20-45-77\n8,Bo,20-45-78"
    assert [text[a:b] for a, b in header_cells(text)] == ["id", "first_name", "sort_code"]
    assert header_cells("Hi Anna, thanks, see you") == []
    assert header_cells("7,Ana,20-45-77\n8,Bo,20-45-78") == []  # no header: every line has a digit
