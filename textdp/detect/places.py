"""Places for the place targets: spaCy's NER, its place spans only, beside any detector.

The default detector finds persons only, so ``targets="GPE"`` (or the ``quasi`` preset) with
it found no place. :func:`with_places` adds the embedded spaCy pipeline's NER
(``en_core_web_md``, :class:`~textdp.detect.spacy_ner.SpacyNERDetector`) for the place labels
among the targets (:data:`PLACE_LABELS`), where the detector is not that NER already. Its
place spans are kept where no person token of the detector lies (a name the detector found
stays a name: "Jordan" in "Michael Jordan").
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from textdp.detect.base import Finding, Span, find, merge_spans
from textdp.detect.spacy_ner import SpacyNERDetector

#: spaCy's (OntoNotes) place labels: countries, cities and states (GPE); other locations
#: (LOC: mountains, rivers, regions); facilities (FAC: buildings, airports, roads).
PLACE_LABELS = ("GPE", "LOC", "FAC")
PERSON = "PERSON"


class PlaceUnion:
    """A detector's spans plus the place spans of spaCy's NER (see the module).

    Args:
        inner: the detector.
        labels: the place labels to keep from the NER.
        ner: the NER (``None``: the embedded pipeline's).
    """

    def __init__(self, inner: Any, labels: Iterable[str], ner: Any = None) -> None:
        self.inner = inner
        self.labels = tuple(labels)
        self.ner = ner if ner is not None else SpacyNERDetector()

    def _places(self, docs: Sequence[Any], persons: list[set[int]]) -> list[list[Span]]:
        wanted = set(self.labels)
        return [[(s, e, lab) for s, e, lab in spans
                 if lab in wanted and not any(k in taken for k in range(s, e))]
                for spans, taken in zip(self.ner(docs), persons)]

    def __call__(self, docs: Sequence[Any]) -> list[list[Span]]:
        docs = list(docs)
        inner = self.inner(docs)
        persons = [{k for s, e, lab in spans if lab == PERSON for k in range(s, e)}
                   for spans in inner]
        return [merge_spans(list(a), b) for a, b in zip(inner, self._places(docs, persons))]

    def findings(self, docs: Sequence[Any]) -> list[list[Finding]]:
        docs = list(docs)
        inner = find(self.inner, docs)
        persons = [{k for f in fs if f.label == PERSON for k in range(f.start, f.end)}
                   for fs in inner]
        return [sorted({*a, *(Finding(s, e, lab, "spacy", None) for s, e, lab in b)})
                for a, b in zip(inner, self._places(docs, persons))]

    def __repr__(self) -> str:
        return f"PlaceUnion({self.inner!r}, labels={list(self.labels)!r})"


def with_places(detector: Any, labels: Iterable[str] | str | None) -> Any:
    """``detector`` with spaCy's place spans of the place labels among ``labels`` (the
    resolved targets) added (:class:`PlaceUnion`); ``detector`` itself when no place label is
    a target or it is spaCy's NER already."""
    if labels is None or isinstance(labels, str):
        return detector
    places = [x for x in labels if x in PLACE_LABELS]
    if not places or isinstance(detector, SpacyNERDetector):
        return detector
    return PlaceUnion(detector, places)
