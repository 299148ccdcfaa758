"""The common-word list: ordinary words in, names that own their vector rows out."""

from __future__ import annotations

from textdp.detect.words import common_words


def test_common_words_hold_words_and_not_names():
    words = common_words()
    assert len(words) > 10_000 and all(w == w.lower() and " " not in w for w in words)
    assert {"notified", "hope", "rice", "email", "contact"} <= words
    assert not {"walker", "delgado", "jing", "mima"} & words
