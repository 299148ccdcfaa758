"""Surface: joining the new words back with the original whitespace (textdp.surface)."""

from __future__ import annotations

import spacy

from textdp.surface import join_words


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
