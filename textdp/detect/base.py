"""The detector protocol: which tokens are targets.

A detector receives tokenized spaCy ``Doc`` objects and returns, per doc, entity spans as
``(start_token, end_token, label)`` triples (end exclusive). Labels follow spaCy's scheme:
person names are ``"PERSON"`` (``"PER"`` from CoNLL-style models is mapped to it).
Detectors must not keep, log or raise the text they see.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple, Protocol, runtime_checkable

Span = tuple[int, int, str]

LABEL_ALIASES = {"PER": "PERSON", "PERS": "PERSON", "PERSON": "PERSON"}


def normalise_label(label: str) -> str:
    """Strip IOB prefixes and map CoNLL's ``PER`` to spaCy's ``PERSON``."""
    if len(label) > 2 and label[1] == "-" and label[0] in "BIES":
        label = label[2:]
    return LABEL_ALIASES.get(label.upper(), label.upper())


@runtime_checkable
class Detector(Protocol):
    """Anything that marks entity spans on tokenized docs."""

    def __call__(self, docs: Sequence[Any]) -> list[list[Span]]:
        """Spans per doc, in token indices of that doc."""
        ...


def merge_spans(*span_lists: list[Span]) -> list[Span]:
    """Union of several detectors' spans for one doc: overlapping spans are kept separately
    (targets are decided per token, so overlaps only widen the set of replaced tokens)."""
    seen: set[Span] = set()
    out: list[Span] = []
    for spans in span_lists:
        for span in spans:
            if span not in seen:
                seen.add(span)
                out.append(span)
    return sorted(out)


class Finding(NamedTuple):
    """A span with where it came from, for audits and score thresholds: token indices
    ``start``/``end`` (end exclusive), ``label``, the ``detector`` that found it (a short name
    such as ``"minilm"``, ``"handles"``, ``"rules"``, ``"pii"``, ``"deny_list"``; members of a
    union joined by ``+``) and its ``score`` in [0, 1] where the detector has one (the MiniLM
    tagger's person probability), else ``None``. Never holds text."""

    start: int
    end: int
    label: str
    detector: str
    score: float | None = None

    @property
    def span(self) -> Span:
        return (self.start, self.end, self.label)


def detector_name(detector: Any) -> str:
    """A short name for ``detector`` in audits: its ``name`` attribute when it has a string
    one (every built-in detector class carries its registered short name, see
    :mod:`textdp.detect.registry`), else its class name."""
    name = getattr(detector, "name", None)
    if isinstance(name, str) and name:
        return name
    return type(detector).__name__


def find(detector: Any, docs: Sequence[Any]) -> list[list[Finding]]:
    """:class:`Finding` lists per doc: ``detector.findings(docs)`` where the detector has that
    method (the built-in wrappers and the MiniLM tagger do), else its plain spans with its
    :func:`detector_name` and no score. The spans are the ones ``detector(docs)`` returns."""
    findings = getattr(detector, "findings", None)
    if callable(findings):
        return findings(docs)
    name = detector_name(detector)
    return [[Finding(s, e, label, name, None) for s, e, label in spans]
            for spans in detector(docs)]


def attribute(spans: Sequence[Span], sources: Sequence[Finding], fallback: str
              ) -> list[Finding]:
    """Each of ``spans`` as a :class:`Finding`: its detector is the ``+``-joined names of the
    ``sources`` of its label that overlap it (``fallback`` when none does), its score the
    highest source score, or ``None`` when an overlapping source has none (or none
    overlaps)."""
    out = []
    for s, e, label in spans:
        names: list[str] = []
        scores: list[float | None] = []
        for f in sources:
            if f.label == label and f.start < e and s < f.end:
                for part in f.detector.split("+"):
                    if part not in names:
                        names.append(part)
                scores.append(f.score)
        score = None if not scores or any(x is None for x in scores) else \
            max(x for x in scores if x is not None)
        out.append(Finding(s, e, label, "+".join(names) or fallback, score))
    return out


def span_records(doc: Any, findings: Iterable[Finding], *, offset: int = 0
                 ) -> list[dict[str, Any]]:
    """``findings`` (token spans of ``doc``) as span records in character offsets of the
    text ``doc`` was made from, plus ``offset`` (where that text starts in a longer one)."""
    out = []
    for f in findings:
        if not 0 <= f.start < f.end <= len(doc):
            continue
        last = doc[f.end - 1]
        out.append({"start": offset + doc[f.start].idx,
                    "end": offset + last.idx + len(last.text), "label": f.label,
                    "detector": f.detector, "score": f.score})
    return out
