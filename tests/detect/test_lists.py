"""Allow and deny lists and the score threshold (textdp.detect.lists), and the findings
(detector names and scores) the wrappers pass through."""

from __future__ import annotations

import pytest

from textdp.detect import build_detector, find
from textdp.detect.base import Finding
from textdp.detect.ensemble import EnsembleDetector
from textdp.detect.lists import ListDetector, normalise_word, read_list
from textdp.detect.normalise import NormalisedView


class Marks:
    """Marks the tokens whose text is in ``words`` as PERSON, with a score per word (or
    none), one span per run of marked tokens."""

    def __init__(self, words, scores=None, name="fake"):
        self.words, self.scores, self.name = set(words), scores, name

    def findings(self, docs):
        out = []
        for doc in docs:
            spans, start = [], -1
            for t in [*doc, None]:
                hit = t is not None and t.text in self.words
                if hit and start < 0:
                    start = t.i
                elif not hit and start >= 0:
                    end = t.i if t is not None else len(doc)
                    score = None if self.scores is None else \
                        max(self.scores[doc[k].text] for k in range(start, end))
                    spans.append(Finding(start, end, "PERSON", self.name, score))
                    start = -1
            out.append(spans)
        return out

    def __call__(self, docs):
        return [[f.span for f in fs] for fs in self.findings(docs)]


def texts(doc, spans):
    return [(doc[s:e].text, lab) for s, e, lab in spans]


def test_allow_list_removes_words_from_spans(nlp):
    doc = nlp.make_doc("Jordan Smith bought Jordan shoes from Nike.")
    inner = Marks({"Jordan", "Smith", "Nike"})
    assert texts(doc, inner([doc])[0]) == [("Jordan Smith", "PERSON"), ("Jordan", "PERSON"),
                                           ("Nike", "PERSON")]
    d = ListDetector(inner, allow=["jordan", "NIKE"])
    assert texts(doc, d([doc])[0]) == [("Smith", "PERSON")]


def test_deny_list_adds_spans_case_insensitively_and_normalised(nlp):
    doc = nlp.make_doc("The nurse saw OKAFOR and Ｏｋａｆｏｒ, then Mrs Van der Berg.")
    d = ListDetector(Marks(set()), deny="okafor, van der berg", deny_label="PER")
    spans = d([doc])[0]
    assert texts(doc, spans) == [("OKAFOR", "PERSON"), ("Ｏｋａｆｏｒ", "PERSON"),
                                 ("Van der Berg", "PERSON")]
    assert {f.detector for f in d.findings([doc])[0]} == {"deny_list"}


def test_deny_does_not_duplicate_a_found_span(nlp):
    doc = nlp.make_doc("Anna called.")
    d = ListDetector(Marks({"Anna"}), deny=["anna"])
    assert d([doc])[0] == [(0, 1, "PERSON")]


def test_a_phrase_on_both_lists_is_refused():
    with pytest.raises(ValueError, match="both the allow and the deny list"):
        ListDetector(Marks(set()), allow=["Smith"], deny=["SMITH"])


@pytest.mark.parametrize("bad", [-0.1, 1.5, "high", True])
def test_bad_threshold_is_refused(bad):
    with pytest.raises(ValueError, match="threshold"):
        ListDetector(Marks(set()), threshold=bad)


def test_threshold_drops_low_scores_and_keeps_unscored_spans(nlp):
    doc = nlp.make_doc("Anna met Bob and Carl.")
    scored = Marks({"Anna", "Bob"}, scores={"Anna": 0.9, "Bob": 0.2})
    assert texts(doc, ListDetector(scored, threshold=0.5)([doc])[0]) == [("Anna", "PERSON")]
    assert len(ListDetector(scored, threshold=0.1)([doc])[0]) == 2
    unscored = Marks({"Carl"})
    assert texts(doc, ListDetector(unscored, threshold=0.99)([doc])[0]) == [("Carl", "PERSON")]


def test_threshold_in_an_ensemble_keeps_what_an_unscored_member_found(nlp):
    doc = nlp.make_doc("Anna met Bob and Carl.")
    scored = Marks({"Anna", "Bob"}, scores={"Anna": 0.9, "Bob": 0.2}, name="minilm")
    ensemble = EnsembleDetector([scored, Marks({"Bob", "Carl"}, name="handles")], rules=False)
    found = find(ensemble, [doc])[0]
    assert [(doc[f.start:f.end].text, f.detector, f.score) for f in found] == [
        ("Anna", "minilm", 0.9), ("Bob", "minilm+handles", None), ("Carl", "handles", None)]
    kept = ListDetector(ensemble, threshold=0.5)([doc])[0]
    assert texts(doc, kept) == [("Anna", "PERSON"), ("Bob", "PERSON"), ("Carl", "PERSON")]
    alone = ListDetector(EnsembleDetector([scored], rules=False), threshold=0.5)
    assert texts(doc, alone([doc])[0]) == [("Anna", "PERSON")]


def test_findings_match_the_plain_spans_through_the_normalised_view(nlp):
    doc = nlp.make_doc("Ａｎｎａ met Bob\u200b and left.")
    view = NormalisedView(EnsembleDetector([Marks({"Anna", "Bob"}, {"Anna": 0.8, "Bob": 0.7},
                                                  name="minilm")], rules=True))
    plain = view([doc])[0]
    found = find(view, [doc])[0]
    assert [f.span for f in found] == plain
    assert [(f.detector, f.score) for f in found] == [("minilm", 0.8), ("minilm", 0.7)]


def test_read_list_forms(tmp_path):
    f = tmp_path / "names.txt"
    f.write_text("# patients\nOkafor\n\n  Van  der Berg  # a surname\n", encoding="utf-8")
    assert read_list(f"@{f}") == ("Okafor", "Van der Berg")
    assert read_list(f) == ("Okafor", "Van der Berg")
    assert read_list("a, b ,,c") == ("a", "b", "c")
    assert read_list(["x", " "]) == ("x",)
    assert read_list(None) == ()
    with pytest.raises(ValueError):
        read_list([1])


def test_normalise_word():
    assert normalise_word("ＳＭＩ\u00adＴＨ") == normalise_word("smith") == "smith"


def test_repr_holds_no_words():
    d = ListDetector(Marks(set()), allow=["Okafor"], deny=["Quillonbrae"], threshold=0.3)
    assert "Okafor" not in repr(d) and "Quillonbrae" not in repr(d)
    assert "allow=1 phrases" in repr(d)


def test_build_detector_composes_pii_and_lists(nlp):
    d = build_detector("handles", targets="PERSON,EMAIL", allow=["support"], threshold=0.5)
    doc = nlp.make_doc("Write to anna.smith@example.com today.")
    assert sorted(lab for _, _, lab in d([doc])[0]) == ["EMAIL", "PERSON"]
    assert build_detector("rules").__class__.__name__ == "NameRules"
    with pytest.raises(ValueError):
        build_detector("rules", targets="PERSONS")
