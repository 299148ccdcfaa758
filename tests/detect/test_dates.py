"""The DATE recogniser and the shifted date written back in its own style
(textdp.detect.dates)."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from textdp.detect.dates import find_dates, parse, shift


def taken(text: str) -> list[str]:
    return [text[m.start:m.end] for m in find_dates(text)]


@pytest.mark.parametrize("value, when, plus_40", [
    ("1962-03-04", date(1962, 3, 4), "1962-04-13"),
    ("1962/03/04", date(1962, 3, 4), "1962/04/13"),
    ("3/4/1962", date(1962, 3, 4), "04/13/1962"),        # slashes: month first
    ("25/03/1962", date(1962, 3, 25), "04/05/1962"),      # ... unless the first exceeds 12
    ("04.03.1962", date(1962, 3, 4), "13.04.1962"),      # dots: day first
    ("4-3-1962", date(1962, 3, 4), "13-04-1962"),        # dashes: day first
    ("03-25-1962", date(1962, 3, 25), "05-04-1962"),     # ... unless the second exceeds 12
    ("03/04/62", date(1962, 3, 4), "04/13/62"),
    ("03/04/21", date(2021, 3, 4), "04/13/21"),
    ("March 4, 1962", date(1962, 3, 4), "April 13, 1962"),
    ("Mar. 4th 1962", date(1962, 3, 4), "Apr. 13th 1962"),
    ("4 March 1962", date(1962, 3, 4), "13 April 1962"),
    ("4th of Mar 1962", date(1962, 3, 4), "13th of Apr 1962"),
    ("04-MAR-1962", date(1962, 3, 4), "13-APR-1962"),
    ("march 1962", date(1962, 3, 15), "april 1962"),
    ("Sunday, March 4, 1962", date(1962, 3, 4), "Friday, April 13, 1962"),
    ("May 31, 2020", date(2020, 5, 31), "July 10, 2020"),
    ("1962年3月4日", date(1962, 3, 4), "1962年4月13日"),      # Chinese and Japanese
    ("1962年03月04日", date(1962, 3, 4), "1962年04月13日"),    # a padding zero kept
    ("1962년 3월 4일", date(1962, 3, 4), "1962년 4월 13일"),   # Korean, its spaces kept
])
def test_formats_are_read_and_written_back_shifted(value, when, plus_40):
    text = f"Seen on {value}; fine."
    assert taken(text) == [value]
    assert parse(value)[0] == when
    assert shift(value, 40) == plus_40
    if value not in ("25/03/1962", "03-25-1962", "march 1962"):
        # read back in the default order of its separator: the same date again
        assert parse(shift(plus_40, -40))[0] == when


def test_a_date_read_in_the_other_order_is_written_in_that_order():
    """The documented rule: the order a date was read in is its style and is kept, so a
    day-first date with slashes is written day first even where a reader of the output
    would take it month first (04/05/1962 is the 4th of May)."""
    assert shift("25/03/1962", 40) == "04/05/1962"
    assert shift("25/03/1962", 0) == "25/03/1962"


def test_iso_dates_with_a_time_keep_the_time():
    text = "Logged 2021-03-04T10:30:00Z."
    assert taken(text) == ["2021-03-04"]


@pytest.mark.parametrize("text", [
    "Version 1.2.30 and 5.12.45 shipped.",   # versions, not dates
    "BP 120/80, pulse 72.",
    "From 1999-2003 in 1962.",               # years
    "At 10:30 we march 4 miles; you may 5 times.",  # lower-case months are words
    "Take 3 Marching bands and Mar 3.5 units.",
    "Invoice 31/02/2021 is void.",           # no such day
    "Code 13/13/2021.",                      # no such month either way
    "ISBN 978-3-16-148410-0.",
    "Call 555-123-4567.",
    "2024年13月1日、1962年2月30日",            # no such month, no such day
])
def test_other_numbers_are_not_dates(text):
    assert taken(text) == []


@pytest.mark.parametrize("days", [-1000, -1, 0, 1, 59, 366, 20000])
def test_shift_moves_every_style_by_the_same_days(days):
    for value in ("1962-03-04", "03/04/1962", "04.03.1962", "March 4, 1962", "4 Mar 1962"):
        out = shift(value, days)
        assert parse(out)[0] - parse(value)[0] == timedelta(days=days)


@pytest.mark.parametrize("text, value, plus_100", [
    ("Seen on March 3 for follow-up.", "March 3", "June 11"),
    ("Appointment on 3rd of March.", "3rd of March", "11th of June"),  # the full stop stays
    ("Back on Mar. 3rd, then", "Mar. 3rd", "Jun. 11th"),
    ("Due 25th December!", "25th December", "4th April"),
    ("Tue, Mar 4 at noon", "Tue, Mar 4", "Thu, Jun 12"),  # the weekday moved by 100 days
    ("Clinic Tuesday 4 March", "Tuesday 4 March", "Thursday 12 June"),
    ("DOB: May. 16th", "May. 16th", "Aug. 24th"),
])
def test_a_month_and_day_without_a_year(text, value, plus_100):
    """Clinical notes and chats write dates without a year: read (the month capitalised)
    and written back shifted, without a year; a longer date with a year still wins."""
    assert taken(text) == [value]
    assert shift(value, 100) == plus_100
    assert shift(value, 0) == value and shift(value, 7 * 52) != value
    assert parse("Feb 29")[0] == date(2000, 2, 29)  # read in a leap year
    assert taken("on March 3, 2021.") == ["March 3, 2021"]


@pytest.mark.parametrize("text, value, plus_40", [
    ("le 3 mars 1990 à Paris", "3 mars 1990", "12 avril 1990"),
    ("el 3 de marzo de 1990", "3 de marzo de 1990", "12 de abril de 1990"),
    ("em 3 de março de 1985", "3 de março de 1985", "12 de abril de 1985"),
    ("am 3. März 1990", "3. März 1990", "12. April 1990"),
    ("il 15 gennaio 1990", "15 gennaio 1990", "24 febbraio 1990"),
    ("op 3 maart 1970", "3 maart 1970", "12 april 1970"),
    ("le 03 MARS 1990", "03 MARS 1990", "12 AVRIL 1990"),
    ("el 12 de setiembre de 2001", "12 de setiembre de 2001", "22 de octubre de 2001"),
])
def test_written_dates_of_other_languages_are_shifted_in_their_language(text, value, plus_40):
    assert taken(text) == [value]
    assert shift(value, 40) == plus_40
    assert shift(value, 0) == value


def test_the_first_of_a_month_in_french_is_written_1er():
    assert shift("1er mai 1990", 31) == "1er juin 1990"
    assert shift("3 mars 1990", -2) == "1er mars 1990"
    assert shift("1er mai 1990", 1) == "2 mai 1990"
    assert shift("03 mars 1990", -2) == "01 mars 1990"  # padded: no ordinal


@pytest.mark.parametrize("text", ["3 Mars bars in 1990", "le mars 1990", "33 mars 1990"])
def test_other_words_are_no_dates_of_other_languages(text):
    assert taken(text) == []


def test_leap_days_and_the_range_of_years():
    assert shift("Feb 28, 2024", 1) == "Feb 29, 2024"
    assert shift("2199-12-31", 1) is None          # out of the years a style can write
    assert shift("12/31/30", 1) is None             # a two-digit year leaving 1931–2030
    assert parse("Feb 29, 2023") is None


@pytest.mark.parametrize("text, value", [
    ("Geburtsdatum: 04.09.1991", "04.09.1991"),
    ("Geboortedatum: 22-07-1988", "22-07-1988"),
    ("Data urodzenia: 06.08.1992", "06.08.1992"),
    ('  "dob": "1977-11-02",', "1977-11-02"),         # a JSON key and its quotes
    ("date_of_birth=1990-01-02", "1990-01-02"),
    ("出生日期 DOB：1984年6月9日 / 手机", "1984年6月9日"),
    ("생년월일: 1984년 6월 9일", "1984년 6월 9일"),
    # a birthplace between the cue and the date
    ("Nata a Roma il 15/01/1990", "15/01/1990"),
    ("Né(e) le : 14/08/1988", "14/08/1988"),
    ("born in Rio de Janeiro on 3 May 1984", "3 May 1984"),
    ("nacido en Madrid el 12/03/1975", "12/03/1975"),
    ("geboren in Köln am 01.02.1980", "01.02.1980"),
])
def test_birth_dates_after_labels_of_many_languages_and_formats(text, value):
    from textdp.detect.dates import find_births

    assert [text[m.start:m.end] for m in find_births(text)] == [value]
    assert find_births(f"the meeting: {value}") == []  # a date without a birth label


@pytest.mark.parametrize("text", [
    "NATO il 12/03/2020",                      # the alliance, not "nato" (born)
    "born in 1980 and moved on 12/03/1999",    # words that are no birthplace between
    "he was born in a small town, and on 12/03/1999 left",
])
def test_dates_after_other_words_are_no_birth_dates(text):
    from textdp.detect.dates import find_births

    assert find_births(text) == []
