"""Detectors: which tokens are targets. All share the :class:`Detector` protocol."""

from __future__ import annotations

from typing import Any

from textdp.detect.base import Detector, Span, merge_spans, normalise_label
from textdp.detect.spacy_ner import SpacyNERDetector


def create_detector(spec: Any = None) -> Detector:
    """A detector from ``None`` (embedded spaCy NER), a spaCy package name, or an object that
    follows the :class:`Detector` protocol."""
    if spec is None or spec == "spacy":
        return SpacyNERDetector()
    if isinstance(spec, str):
        return SpacyNERDetector(spec)
    if callable(spec):
        return spec
    raise ValueError(f"detector must be None, 'spacy', a spaCy package name or a Detector, "
                     f"got {type(spec).__name__}")


__all__ = ["Detector", "SpacyNERDetector", "Span", "create_detector", "merge_spans",
           "normalise_label"]
