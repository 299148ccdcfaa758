"""One detection for every mention, and the per-record review signal, through the core
(issue 33): the selection stage (:mod:`textdp.pipeline.selection`) with the default detector.

The examples are the issue's: a handle beside the name it spells (``RT @chiamaka_eze:`` …
``Chiamaka Eze``; ``follow @tnkosi`` beside ``Thandiwe Nkosi``), chat speaker labels
(``<wanjiru_mwangi>`` … ``Wanjiru``; ``amal:`` on one line and ``amal's`` on the next) and
the support note whose names are words. The same texts run through every front end
(tests/spacy_textdp/test_component_review.py, tests/hf_textdp/test_map_review.py,
tests/test_spark.py, tests/cli/test_cli_review.py).
"""

from __future__ import annotations

import math

import pytest
import spacy
from review_texts import EVERY_MENTION, NEAR, PARTIAL, PLAIN

from textdp.detect.base import Finding
from textdp.pipeline.selection import TargetSelector, decision_threshold, review_counts
from textdp.privatizer import Privatizer
from textdp.report import REVIEW_MARGIN, REVIEW_REASONS, review_record


@pytest.fixture(scope="module")
def reviewed():
    return Privatizer(seed=0, review=True, report_spans=True, allow=["Hunter Price"])


def _words(text: str) -> set[str]:
    return {w.strip(".,:!?<>@'s").casefold() for w in text.replace("_", " ").split()}


@pytest.mark.parametrize("text, names", EVERY_MENTION, ids=[n[0] for _, n in EVERY_MENTION])
def test_every_mention_of_a_targeted_name_is_replaced(reviewed, text, names):
    out = reviewed(text).text
    left = _words(out)
    assert not [n for n in names if n in left or n in out.casefold()]
    # Nothing else moved: the words around the names are kept.
    kept = [w for w in ("great", "summit", "follow", "hey", "bag", "called", "family")
            if w in text]
    assert all(w in out for w in kept)


def test_the_review_signal_counts_partial_mentions_and_scores_near_the_threshold(reviewed):
    results = reviewed.privatize([PARTIAL, NEAR, PLAIN, None, ""])
    partial, near, plain, missing, empty = results
    assert missing is None
    assert review_record(partial.report.review) == {
        "needs_review": True, "partial_mention": 1, "near_threshold": 0}
    assert partial.report.needs_review and "Price" in partial.text  # the allowed phrase
    assert dict(near.report.review)["near_threshold"] >= 1 and near.report.needs_review
    assert review_record(plain.report.review) == {
        "needs_review": False, "partial_mention": 0, "near_threshold": 0}
    assert empty.report.review == (("partial_mention", 0), ("near_threshold", 0))
    # near_threshold is exactly the person spans scored within the margin of the threshold.
    edge = math.log(0.015 / 0.985) + REVIEW_MARGIN
    for r in (partial, near, plain):
        scored = [s for s in r.report.spans if s[2] == "PERSON" and s[4] is not None
                  and math.log(s[4] / (1 - s[4])) <= edge]
        assert dict(r.report.review)["near_threshold"] == len(scored)
    # The report says what it releases; codes and counts only, never text.
    assert "with review" in plain.report.holds_between
    assert set(plain.report.to_dict()["review"]) == {"needs_review", *REVIEW_REASONS}


def test_review_is_off_by_default_and_changes_no_output():
    texts = [PARTIAL, NEAR, PLAIN, *(t for t, _ in EVERY_MENTION)]
    off = Privatizer(seed=0, report_spans=True, allow=["Hunter Price"]).privatize(texts)
    on = Privatizer(seed=0, report_spans=True, allow=["Hunter Price"],
                    review=True).privatize(texts)
    assert all(r.report.review is None and "review" not in r.report.to_dict() for r in off)
    assert "with review" not in off[0].report.holds_between
    assert [r.text for r in off] == [r.text for r in on]
    assert [r.report.spans for r in off] == [r.report.spans for r in on]


def test_a_long_texts_pieces_add_their_counts(reviewed):
    long = " ".join([PARTIAL] * 400)  # several chunks
    one = reviewed(PARTIAL).report
    whole = reviewed(long).report
    assert dict(whole.review)["partial_mention"] >= dict(one.review)["partial_mention"]
    assert whole.needs_review


def test_review_counts_of_given_findings():
    nlp = spacy.blank("en")
    doc = nlp("Ann Lee met Bob . Lee left , Bob too .")
    words = [t.text for t in doc]
    whole = ["PERSON", "PERSON", None, "PERSON", None, None, None, None, None, None, None]
    found = [Finding(0, 2, "PERSON", "minilm", 0.9), Finding(3, 4, "PERSON", "minilm", 0.02)]
    assert review_counts(words, whole, whole, found, 0.015) == (
        ("partial_mention", 2), ("near_threshold", 1))  # "Lee", "Bob" left; Bob at 0.02
    # A left mention outside the core does not count; no threshold known: nothing is near.
    assert review_counts(words, whole, whole, found, None, core=range(0, 6)) == (
        ("partial_mention", 1), ("near_threshold", 0))


def test_the_decision_threshold_is_read_through_the_wrappers():
    p = Privatizer(threshold=0.3)
    assert decision_threshold(p.selector.detector) == 0.3
    assert decision_threshold(Privatizer().selector.detector) == 0.015  # packaged MiniLM
    assert decision_threshold(None) is None
    assert TargetSelector("all", None, review=True).threshold is None


class _Nothing:
    """A detector that finds nothing (the entities a front end carries decide)."""

    def __call__(self, docs):
        return [[] for _ in docs]


def test_names_the_entities_add_get_every_mention_too():
    """spaCy's entities join after the detector's register stage: the names they add get
    the same rule there (a handle of the name, its other capitalised mentions)."""
    nlp = spacy.blank("en")
    doc = nlp("Chiamaka Eze spoke . RT @chiamaka_eze : Eze was great")
    selector = TargetSelector(("PERSON",), _Nothing())
    sel = selector.select([doc], entities=[[(0, 2, "PERSON")]])
    targeted = [t.text for t, label in zip(doc, sel.masks[0]) if label]
    assert targeted == ["Chiamaka", "Eze", "@chiamaka_eze", "Eze"]
    # Without entities adding a person nothing is added (the detector's output stands).
    assert not any(selector.select([doc], entities=[[(3, 4, "ORG")]]).masks[0])
