"""Surface: joining the new words back with the original whitespace (textdp.surface)."""

from __future__ import annotations

import spacy

from textdp.surface import join_words, surface_form


def test_an_empty_word_takes_the_whitespace_before_it():
    """The later tokens of a place of several tokens are written empty, the place whole on
    its first token: the space between them goes, the space after the place stays."""
    doc = spacy.blank("en")("From New York. To New York City now")
    words = [t.text for t in doc]
    words[1:3] = ["Lyon", ""]
    words[5:8] = ["Oslo", "", ""]
    assert join_words(words, doc, 0, len(doc.text), collapse_tags=False) == \
        "From Lyon. To Oslo now"
    # A token written as it is stays as it is.
    assert join_words([t.text for t in doc], doc, 0, len(doc.text),
                      collapse_tags=False) == doc.text


def test_an_initial_in_a_name_written_in_capitals_is_replaced_in_capitals():
    from textdp.surface import among_capitals

    words = ["DR", ".", "K.", "OYELARAN", "NOTIFIED"]
    assert among_capitals(words, 2)
    assert surface_form("Zayan", "K.", capitals=True) == "ZAYAN"
    assert surface_form("Zayan", "K.") == "Zayan"  # elsewhere a Title-case name
    assert not among_capitals(["Dr.", "K.", "Oyelaran"], 1)
    assert not among_capitals(["Ana", "V.", "called", "I"], 1)  # one capital is no word


def test_the_default_privatizer_writes_an_initial_in_capitals_as_its_name():
    from textdp import Privatizer

    out = Privatizer(seed=1)("CHART REVIEWED BY DR. K. OYELARAN AT 0300.").text
    first = out.split("DR. ")[1].split()[0]
    assert first.isupper() and len(first) > 1 and "OYELARAN" not in out
