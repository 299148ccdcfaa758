"""spaCy's place spans beside any detector (textdp.detect.places)."""

from __future__ import annotations

from textdp.detect.places import PLACE_LABELS, PlaceUnion, with_places
from textdp.detect.spacy_ner import SpacyNERDetector


def _inner(docs):
    return [[(0, 2, "PERSON")] for _ in docs]


def _ner(docs):
    return [[(1, 2, "GPE"), (3, 5, "GPE"), (6, 7, "ORG"), (8, 9, "LOC")] for _ in docs]


def test_place_spans_join_off_the_detectors_persons():
    union = PlaceUnion(_inner, ["GPE"], ner=_ner)
    # "Jordan" inside a person the detector found stays a name; ORG and LOC are not wanted.
    assert union([object()]) == [[(0, 2, "PERSON"), (3, 5, "GPE")]]
    found = union.findings([object()])[0]
    assert [(f.start, f.end, f.label, f.detector) for f in found if f.label == "GPE"] == \
        [(3, 5, "GPE", "spacy")]


def test_with_places_only_where_a_place_is_a_target():
    assert with_places(_inner, ("PERSON", "EMAIL")) is _inner
    assert with_places(_inner, "all") is _inner
    assert with_places(_inner, None) is _inner
    ner = SpacyNERDetector()
    assert with_places(ner, PLACE_LABELS) is ner  # spaCy's NER finds places already
    wrapped = with_places(_inner, ("PERSON", "GPE", "FAC"))
    assert isinstance(wrapped, PlaceUnion) and wrapped.labels == ("GPE", "FAC")
