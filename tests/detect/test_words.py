"""The common-word list: ordinary words in, names that own their vector rows out."""

from __future__ import annotations

from textdp.detect.words import common_words


def test_common_words_hold_words_and_not_names():
    words = common_words()
    assert len(words) > 10_000 and all(w == w.lower() and " " not in w for w in words)
    assert {"notified", "hope", "rice", "email", "contact"} <= words
    assert not {"walker", "delgado", "jing", "mima"} & words


def test_a_misspelt_common_word_is_one_edit_from_one():
    from textdp.detect.words import misspelt_common

    # a letter swapped, changed, added, dropped
    assert all(misspelt_common(w) for w in ("vidoe", "evidance", "borring", "recieve"))
    assert misspelt_common("notified")  # a common word itself
    # two edits, too short, or a name one edit from no common word
    assert not any(misspelt_common(w) for w in ("adptaple", "vido", "ishawna", "peyton",
                                                  "jaden"))
