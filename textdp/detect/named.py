"""Detectors by name, for ``create_detector``, configs and the command line.

* ``"spacy"``: the embedded spaCy pipeline's NER (en_core_web_md);
* ``"trained"`` / ``"trained:<folder>"``: the packaged CoNLL-2003 tagger, or one written by
  ``textdp train-detector``;
* ``"rules"``: titles, other mentions, possessives (:mod:`textdp.detect.rules`);
* ``"similarity"``: closeness to seed names in the default table (:mod:`textdp.detect.similarity`);
* ``"ensemble"``: :data:`~textdp.detect.ensemble.DEFAULT_ENSEMBLE`, the default detector;
* ``"a+b+..."``: the union of those members, with the rules applied on top when ``rules`` is
  one of them (``"trained+spacy+rules"``).
"""

from __future__ import annotations

from typing import Any

from textdp.detect.ensemble import DEFAULT_ENSEMBLE, EnsembleDetector

NAMES = ("spacy", "trained", "rules", "similarity", "ensemble")
DEFAULT_DETECTOR = "ensemble"


def is_named(spec: Any) -> bool:
    """Whether ``spec`` is a detector name this module builds (not a spaCy package name)."""
    if not isinstance(spec, str):
        return False
    parts = spec.split("+")
    return all(p in NAMES or p.startswith("trained:") for p in parts) and \
        (len(parts) > 1 or spec != "spacy")


def _member(name: str) -> Any:
    if name == "spacy":
        from textdp.detect.spacy_ner import SpacyNERDetector

        return SpacyNERDetector()
    if name == "trained" or name.startswith("trained:"):
        from textdp.detect.trained import DEFAULT_MODEL, TrainedNERDetector

        return TrainedNERDetector(name.partition(":")[2] or DEFAULT_MODEL)
    if name == "similarity":
        from textdp.detect.similarity import SimilarityDetector

        return SimilarityDetector()
    raise ValueError(f"unknown detector {name!r}; known: {', '.join(NAMES)}, 'a+b' unions")


def named_detector(spec: str) -> Any:
    """The detector for a name or a ``+``-joined union of names (see the module doc)."""
    if spec == "ensemble":
        spec = DEFAULT_ENSEMBLE
    parts = [p.strip() for p in spec.split("+") if p.strip()]
    if not parts:
        raise ValueError("empty detector name")
    if "ensemble" in parts:
        raise ValueError("'ensemble' cannot be a member of a union; name its members instead")
    members = [_member(p) for p in parts if p != "rules"]
    rules = "rules" in parts
    if len(members) == 1 and not rules:
        return members[0]
    if not members:
        from textdp.detect.rules import NameRules

        return NameRules()
    return EnsembleDetector(members, rules=rules)
