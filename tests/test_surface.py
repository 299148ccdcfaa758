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


def test_an_initial_stays_an_initial_written_from_the_substitute():
    from textdp.surface import INITIAL_LETTERS, initial_letters, initials_of, is_initials

    assert all(is_initials(t) for t in ("K.", "D.A.", "W.N.F."))
    # a capital alone is as often a regnal number ("Elizabeth I") as an initial
    assert not any(is_initials(t) for t in ("K", "I", "k.", "Ka.", "DA", "D.a.", "I.B.M", ".",
                                            ""))
    one = surface_form("Zayan", "K.", name=True)
    assert len(one) == 2 and one[0] in INITIAL_LETTERS and one[1] == "."
    assert surface_form("zayan", "I", name=True) == "Zayan"
    two = surface_form("Solange", "D.A.", name=True)
    assert len(two) == 4 and two[1::2] == ".." and two[0] != two[2]  # two distinct letters
    assert len(initials_of("Ia", "A.B.C.D.E.F.G.")) == 14  # more than the letters: repeated
    # A function of the substitute only: the same draw, the same initials.
    assert initial_letters("Zayan") == initial_letters("ZAYAN") == one[0]
    names = ["Ann", "Bob", "Chen", "Dara", "Emeka", "Farid", "Gita", "Hana", "Ivo", "Jun"]
    assert len({initial_letters(n) for n in names}) >= 3  # spread over the letters
    # A word of that shape that is no part of a name (all-token mode) becomes a word.
    assert surface_form("paris", "U.S.") == "Paris" and surface_form("paris", "I") == "Paris"


def test_the_default_privatizer_keeps_the_shape_of_initials():
    """An initial of a name (in capitals or not) becomes an initial, one for each: the name
    still reads as initials and a surname, as it did ("E. Auchard", "P.W. Botha")."""
    from textdp import Privatizer
    from textdp.surface import INITIAL_LETTERS

    out = Privatizer(seed=1)("CHART REVIEWED BY DR. K. OYELARAN AT 0300.").text
    first, last = out.split("DR. ")[1].split()[:2]
    assert len(first) == 2 and first[0] in INITIAL_LETTERS and first[1] == "."
    assert last.isupper() and len(last) > 1 and "OYELARAN" not in out
    out = Privatizer(seed=3)("Former president P.W. Botha met E. Auchard.").text
    words = out.split()
    assert len(words[2]) == 4 and words[2][1::2] == ".." and \
        set(words[2][0::2]) <= set(INITIAL_LETTERS)
    assert "Botha" not in out and "Auchard" not in out
    assert len(words[5]) == 2 and words[5].endswith(".")
