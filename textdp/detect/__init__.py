"""Detectors: which tokens are targets. All share the :class:`Detector` protocol."""

from __future__ import annotations

from typing import Any

from textdp.detect.base import Detector, Span, merge_spans, normalise_label
from textdp.detect.named import DEFAULT_DETECTOR, is_named, named_detector
from textdp.detect.spacy_ner import SpacyNERDetector


def create_detector(spec: Any = None, *, device: Any = "cpu") -> Detector:
    """A detector from ``None`` (the default, ``"ensemble"``: the packaged MiniLM name tagger,
    the recall rules and the names in handles and e-mail addresses, on a normalised view of
    the text), a name (``"spacy"`` for the embedded spaCy NER, ``"trained"``, ``"rules"``,
    ``"similarity"``, ``"handles"``, ``"ensemble"``, or a union such as
    ``"trained+spacy+rules"``; see :mod:`textdp.detect.named`), a spaCy package name,
    ``"hf:<model>"`` (a ``transformers`` token-classification folder or hub name), or an
    object that follows the :class:`Detector` protocol. ``device`` (a torch device) is where
    model-based members run (the MiniLM tagger)."""
    if spec is None:
        return named_detector(DEFAULT_DETECTOR, device=str(device))
    if spec == "spacy":
        return SpacyNERDetector()
    if isinstance(spec, str) and spec.startswith("hf:"):
        from textdp.detect.hf_ner import HFNERDetector  # transformers is imported lazily

        return HFNERDetector(spec[3:])
    if is_named(spec):  # "trained", "rules", "handles", "ensemble", "trained+rules", ...
        return named_detector(spec, device=str(device))
    if isinstance(spec, str):
        return SpacyNERDetector(spec)
    if callable(spec):
        return spec
    raise ValueError(f"detector must be None, 'spacy', a spaCy package name, 'hf:<model>' or "
                     f"a Detector, got {type(spec).__name__}")


__all__ = ["Detector", "SpacyNERDetector", "Span", "create_detector", "merge_spans",
           "normalise_label"]
