"""The dp_privatizer component: one detection for every mention and the review signal
(``doc._.dp_review``), as the core gives them (issue 33; the core's tests are
tests/pipeline/test_selection_mentions.py)."""

from __future__ import annotations

import pytest
import spacy
from review_texts import EVERY_MENTION, PARTIAL, PLAIN

import spacy_textdp  # noqa: F401  (registers the factory)

SETTINGS = {"seed": 0, "allow": ["Hunter Price"]}


@pytest.fixture(scope="module")
def reviewing():
    nlp = spacy.blank("en")
    nlp.add_pipe("dp_privatizer", config={**SETTINGS, "review": True})
    return nlp


def test_every_mention_of_a_name_is_replaced_in_the_doc(reviewing):
    docs = list(reviewing.pipe([t for t, _ in EVERY_MENTION]))
    for doc, (_, names) in zip(docs, EVERY_MENTION):
        assert not [n for n in names if n in doc.text.casefold()], names


def test_the_doc_carries_the_review_signal(reviewing):
    partial, plain, empty = reviewing.pipe([PARTIAL, PLAIN, ""])
    assert partial._.dp_review == {"needs_review": True, "partial_mention": 1,
                                   "near_threshold": 0}
    assert partial._.dp["review"] == partial._.dp_review
    assert "with review" in partial._.dp["holds_between"]
    assert plain._.dp_review == {"needs_review": False, "partial_mention": 0,
                                 "near_threshold": 0}
    assert empty._.dp_review["needs_review"] is False
    # The same signal as the core for the same settings.
    from textdp.privatizer import Privatizer

    core = Privatizer(**SETTINGS, review=True)([PARTIAL][0]).report.to_dict()["review"]
    assert core == partial._.dp_review


def test_without_review_the_extension_stays_none():
    nlp = spacy.blank("en")
    nlp.add_pipe("dp_privatizer", config=SETTINGS)
    doc = nlp(PARTIAL)
    assert doc._.dp_review is None and "review" not in doc._.dp
