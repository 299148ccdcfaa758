"""The AGE recogniser and an age rewritten in its expression (textdp.detect.ages)."""

from __future__ import annotations

import pytest

from textdp.detect.ages import find_ages, parse, rewrite, spelt


@pytest.mark.parametrize("expr, age, as_70", [
    ("67 y/o", 67, "70 y/o"), ("67yo", 67, "70yo"), ("67 y.o.", 67, "70 y.o."),
    ("45-year-old", 45, "70-year-old"), ("30 years old", 30, "70 years old"),
    ("8 yrs old", 8, "70 yrs old"), ("aged 34", 34, "aged 70"), ("Age: 52", 52, "Age: 70"),
    ("age 7", 7, "age 70"), ("34M", 34, "70M"), ("28F", 28, "70F"), ("34yo M", 34, "70yo M"),
    ("age 120", 120, "age 70"), ("67-y/o", 67, "70-y/o"), ("M/67", 67, "M/70"),
    ("45 years of age", 45, "70 years of age"), ("67/F", 67, "70/F"),
])
def test_ages_are_read_and_rewritten(expr, age, as_70):
    text = f"Patient, {expr}, was seen."
    assert [text[a:b] for a, b in find_ages(text)] == [expr]
    assert parse(expr)[0] == age
    assert rewrite(expr, 70) == as_70


@pytest.mark.parametrize("text, expr, as_70", [
    ("She's 34 and lives in Leeds.", "She's 34", "She's 70"),
    ("I am 25!", "I am 25", "I am 70"),
    ("My dad turned 39 last week.", "turned 39", "turned 70"),
    ("he'll be 40 in May", "he'll be 40", "he'll be 70"),
    ("My grandma is 92 and lives in Kraków.", "grandma is 92", "grandma is 70"),
    # spelt out, and written back so
    ("my grandma is ninety-two and lives in Kraków", "grandma is ninety-two",
     "grandma is seventy"),
    ("A forty-year-old man was hurt.", "forty-year-old", "seventy-year-old"),
    ("Patient, aged Sixty, was seen.", "aged Sixty", "aged Seventy"),
    ("she is twenty one and", "she is twenty one", "she is seventy"),
])
def test_ages_a_person_states_are_read(text, expr, as_70):
    assert [text[a:b] for a, b in find_ages(text)] == [expr]
    assert rewrite(expr, 70) == as_70


@pytest.mark.parametrize("text", [
    "A $34M budget and 2M people.",
    "A 30-year mortgage, 5 years ago.",
    "It is 200 years old.",           # not a person's age
    "Page 34, line 12.",
    "Sizes 34m and 28f.",             # glued sex: capitals only
    "Add 3/4 cup; an F/5 lens; 34/m.",  # slashed: capitals and two digits only
    "He is 5 minutes away, I'm 6 foot tall, they are 3 of us.",  # a unit after it
    "It's 5 and sunny; the total is 34.",                        # no person's pronoun
    "One of the two; a thirty-year mortgage; twenty years ago.",  # words, no age
])
def test_other_numbers_are_not_ages(text):
    assert find_ages(text) == []


def test_ages_are_spelt_as_written():
    assert [spelt(a) for a in (1, 10, 19, 20, 42, 99, 100)] == \
        ["one", "ten", "nineteen", "twenty", "forty-two", "ninety-nine", "a hundred"]
    assert spelt(42, "Twenty One") == "Forty two"
    assert parse("aged ninety-two")[0] == 92 and parse("a hundred years old")[0] == 100
