"""The detector protocol: which tokens are targets.

A detector receives tokenized spaCy ``Doc`` objects and returns, per doc, entity spans as
``(start_token, end_token, label)`` triples (end exclusive). Labels follow spaCy's scheme:
person names are ``"PERSON"`` (``"PER"`` from CoNLL-style models is mapped to it).
Detectors must not keep, log or raise the text they see.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

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
