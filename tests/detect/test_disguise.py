"""textdp.detect.disguise: disguised names are read as names on the normalised view, and a
disguised name maps back to exactly its original characters."""

from __future__ import annotations

import pytest

from textdp.detect.disguise import skeletons
from textdp.detect.normalise import is_normal, normalise_text


@pytest.mark.parametrize(("text", "view"), [
    ("ask Каrеn Whіtfіеld now", "ask Karen Whitfield now"),      # some letters Cyrillic
    ("ask Јоусе now", "ask Joyce now"),                            # every letter swapped
    ("ask Αlice now", "ask Alice now"),                            # Greek capital alpha
    ("Meet Владимир Петров today", "Meet Vladimir Petrov today"),  # Cyrillic script
    ("ask J o h n  S m i t h now", "ask John Smith now"),
    ("ask J o h n S m i t h now", "ask John Smith now"),
    ("ask J.o.h.n S.m.i.t.h. now", "ask John Smith. now"),
    ("ask M4r14 G4rc14 now", "ask Maria Garcia now"),
    ("ask &#74;ohn &#x53;mith now", "ask John Smith now"),
    ("Jos&eacute; &amp; co", "José &amp; co"),
    ("ask Jo<b></b>hn now", "ask John now"),
    ("See <b>John</b><i>Smith</i> now", "See John Smith now"),
    # a record's element names its field, as a form's label does; HTML's shape the text
    ("<record><name>Haruto Sato</name><dob>2001-06-18</dob></record>",
     "\nname: Haruto Sato\ndob: 2001-06-18"),
    ('<row><first_name>Hope</first_name><patientId type="mrn">77</patientId></row>',
     "\nfirst name: Hope\npatient Id: 77"),
    ("<p><span>Ann</span> wrote</p>", "Ann wrote"),
])
def test_disguises_are_read_as_the_name(text, view):
    assert normalise_text(text).text == view
    assert not is_normal(text)


@pytest.mark.parametrize("text", [
    "U S A and U.S.A. and a b c", "B2B mp3 2nd 10am COVID19 h2o", "x < y and y > z",
    "HPI: 51M, 34F, 300k",
    "&amp; &lt;b&gt;", "Siobhán Murphy’s café", "e.g. i.e. a.m.",
])
def test_plain_text_is_left_alone(text):
    assert normalise_text(text).text == text
    assert is_normal(text)


@pytest.mark.parametrize("text", [
    "[11:45] <yusuf> can you send the file", "<mei> yay\n<joaquin> ok", "x <br> y",
    "<crystal>: lol",
])
def test_a_tag_that_touches_no_word_is_read_as_written(text):
    # A chat speaker label has the form of a tag; folded away, its name left the view.
    assert normalise_text(text).text == text


@pytest.mark.parametrize(("text", "name", "original"), [
    ("ask Каrеn now", "Karen", "Каrеn"),
    ("ask J o h n  S m i t h now", "John", "J o h n"),
    ("ask J.o.h.n now", "John", "J.o.h.n"),
    ("ask M4r14 now", "Maria", "M4r14"),
    ("ask &#74;ohn now", "John", "&#74;ohn"),
    ("ask Jo<b></b>hn now", "John", "Jo<b></b>hn"),
    ("ask Петров now", "Petrov", "Петров"),
])
def test_a_folded_name_maps_back_to_exactly_its_original_characters(text, name, original):
    norm = normalise_text(text)
    start = norm.text.index(name)
    a, b = norm.original_range(start, start + len(name))
    assert text[a:b] == original


def test_skeletons_come_from_the_unicode_confusables_data():
    table = skeletons()
    assert table["а"] == "a" and table["К"] == "K" and table["і"] == "i" and table["ο"] == "o"
    assert "л" not in table and all(v.isascii() and v.isalpha() for v in table.values())
    assert len(table) > 100


@pytest.fixture(scope="module")
def privatizer():
    from textdp.privatizer import Privatizer

    return Privatizer(seed=5)


@pytest.mark.parametrize(("text", "hidden"), [
    ("Please ask Каrеn Whіtfіеld about the invoice.", ["Каrеn", "Whіtfіеld"]),
    ("Please ask J o h n  S m i t h about the invoice.", ["o h n", "m i t h"]),
    ("Please ask J.o.h.n S.m.i.t.h about the invoice.", ["J.o.h.n", "S.m.i.t.h"]),
    ("Please ask M4r14 G4rc14 about the invoice.", ["M4r14", "G4rc14"]),
    ("Please ask &#74;ohn &#83;mith about the invoice.", ["ohn", "mith"]),
    ("Please ask Jo<b></b>hn Sm<i></i>ith about the invoice.", ["Jo<b>", "</b>hn", "ith"]),
    ("Please ask Владимир Петров about the invoice.", ["Владимир", "Петров"]),
])
def test_disguised_names_are_replaced_and_the_rest_kept(privatizer, text, hidden):
    out = privatizer(text).text
    assert out.startswith("Please ask ") and out.endswith(" about the invoice.")
    for part in hidden:
        assert part not in out
    if "<" in text:
        assert "<b></b>" in out and "<i></i>" in out
