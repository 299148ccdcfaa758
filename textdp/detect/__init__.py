"""Detectors: which tokens are targets. All share the :class:`Detector` protocol.

Each detector registers itself where it is defined, in :data:`registry` (namespace
``textdp.detectors``, entry-point group ``textdp_detectors``; see
:mod:`textdp.detect.registry`): built-ins under ``textdp.<name>.v1`` with their short names as
aliases. Importing this package imports every built-in detector module, so every name is
registered before a spec is parsed (:mod:`textdp.detect.spec`, the one parser of the spec
grammar).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

# The built-in detector modules register their names on import (docs/architecture.md,
# "Detectors"); the order is the registry's, not a priority.
from textdp.detect import (  # noqa: F401
    glued,
    handles,
    hf_ner,
    rules,
    similarity,
    trained,
    transformer,
)
from textdp.detect.base import Detector, Finding, Span, find, merge_spans, normalise_label
from textdp.detect.ensemble import build_spec
from textdp.detect.places import with_entities
from textdp.detect.registry import available, register_detector, registry
from textdp.detect.spacy_ner import SpacyNERDetector
from textdp.detect.spec import (
    DEFAULT_DETECTOR,
    DetectorMember,
    DetectorSpec,
    detector_forms,
    parse_detector_spec,
)

# What a detector spec may be, with the built-in names (entry points are loaded only when a
# message needs them).
DETECTOR_FORMS = detector_forms(sorted(registry.aliases))


def create_detector(spec: Any = None, *, device: Any = "cpu") -> Detector:
    """A detector from ``None`` (the default, ``"ensemble"``: the packaged MiniLM name tagger,
    the recall rules and the names in handles and e-mail addresses, on a normalised view of
    the text), a registered name (``"spacy"`` for the embedded spaCy NER, ``"trained"``,
    ``"rules"``, ``"similarity"``, ``"handles"``, ``"glued"``, ``"ensemble"``,
    ``"hf:<model>"`` for a ``transformers`` token-classification folder or hub name, their
    versioned names such as ``"textdp.rules.v1"``, a third-party name from the
    ``textdp_detectors`` entry points, or a union such as ``"trained+spacy+rules"``; the
    grammar is :mod:`textdp.detect.spec`'s), a spaCy package name or pipeline folder, or an
    object that follows the :class:`Detector` protocol. ``device`` (a torch device) is where
    model-based members run (the MiniLM tagger, ``hf:<model>``)."""
    if spec is not None and not isinstance(spec, str):
        if callable(spec):
            return spec
        raise ValueError(f"detector must be {detector_forms()}; got {type(spec).__name__}")
    return build_spec(parse_detector_spec(spec), device=str(device))


class PIIUnion:
    """A detector's spans plus the PII pattern spans of :class:`~textdp.detect.pii.PIIDetector`
    (both kept where they overlap: ``maria.lopez@example.com`` is ``EMAIL`` and, by the
    handle rules, ``PERSON``; the privatizer decides which replacement applies).

    Args:
        inner: the name detector (or any detector).
        labels: the PII labels to recognise.
        region: where phone numbers without a country code are read (``None``: the
            default, :data:`textdp.detect.pii.DEFAULT_REGION`).
    """

    def __init__(self, inner: Any, labels: Iterable[str], region: str | None = None) -> None:
        from textdp.detect.pii import DEFAULT_REGION, PIIDetector

        if not callable(inner):
            raise ValueError(f"inner must be a detector, got {type(inner).__name__}")
        self.inner = inner
        self.pii = PIIDetector(labels, DEFAULT_REGION if region is None else region)

    @property
    def labels(self) -> tuple[str, ...]:
        return self.pii.labels

    def __call__(self, docs: Sequence[Any]) -> list[list[Span]]:
        docs = list(docs)
        return [merge_spans(list(a), b) for a, b in zip(self.inner(docs), self.pii(docs))]

    def findings(self, docs: Sequence[Any]) -> list[list[Finding]]:
        docs = list(docs)
        return [sorted([*a, *b]) for a, b in zip(find(self.inner, docs),
                                                   self.pii.findings(docs))]

    def __repr__(self) -> str:
        return f"PIIUnion({self.inner!r}, labels={list(self.labels)!r})"


def with_pii(detector: Any, labels: Iterable[str] | None, region: str | None = None) -> Any:
    """``detector`` with the PII recognisers of ``labels`` added (:class:`PIIUnion`); only the
    PII labels among ``labels`` count, so a privatizer can pass its ``targets`` as they are
    (``["PERSON", "EMAIL"]``). Returns ``detector`` itself when none is a PII label.
    ``region``: where phone numbers without a country code are read."""
    from textdp.detect.pii import PII_LABELS
    from textdp.targets import resolve_targets

    wanted = resolve_targets(labels) if labels is not None else ()
    if wanted == "all":
        return detector
    pii = [x for x in wanted if x in PII_LABELS]
    return PIIUnion(detector, pii, region) if pii else detector


def build_detector(spec: Any = None, *, device: Any = "cpu", targets: Any = None,
                   allow: Any = None, deny: Any = None, deny_label: str = "PERSON",
                   threshold: float | None = None, phone_region: str | None = None
                   ) -> Detector:
    """The whole detection stage: :func:`create_detector` of ``spec``, with the PII
    recognisers of the PII labels in ``targets`` (:func:`with_pii`) and spaCy's entity spans
    for its entity labels (:func:`~textdp.detect.places.with_entities`), then the allow and deny
    lists and the score threshold (:class:`~textdp.detect.lists.ListDetector`, outermost, so
    an allowed word is never targeted whatever found it). ``phone_region``: where phone
    numbers without a country code are read (``None``: ``"US"``). Every argument is
    validated here, before any text is read."""
    from textdp.targets import resolve_targets

    wanted = resolve_targets(targets) if targets is not None else None
    if phone_region is not None:
        from textdp.detect.pii import check_region

        phone_region = check_region(phone_region)
    detector = with_pii(with_entities(create_detector(spec, device=device), wanted), targets,
                        phone_region)
    if allow is None and deny is None and threshold is None:
        return detector
    from textdp.detect.lists import ListDetector

    return ListDetector(detector, allow=allow, deny=deny, deny_label=deny_label,
                        threshold=threshold)


__all__ = ["DEFAULT_DETECTOR", "DETECTOR_FORMS", "Detector", "DetectorMember", "DetectorSpec",
           "Finding", "PIIUnion", "SpacyNERDetector", "Span", "available", "build_detector",
           "create_detector", "detector_forms", "find", "merge_spans", "normalise_label",
           "parse_detector_spec", "register_detector", "registry", "with_pii"]
