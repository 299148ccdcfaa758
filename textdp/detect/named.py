"""Detectors by name, for ``create_detector``, configs and the command line.

* ``"spacy"``: the embedded spaCy pipeline's NER (en_core_web_md);
* ``"trained"`` / ``"trained:<folder>"``: the packaged spaCy name tagger, or one written by
  ``textdp train-detector``;
* ``"rules"``: titles, other mentions, possessives (:mod:`textdp.detect.rules`);
* ``"similarity"``: closeness to seed names in the default table (:mod:`textdp.detect.similarity`);
* ``"minilm"`` / ``"minilm:<folder>"``: the packaged MiniLM name tagger, or one written by
  ``textdp train-detector --kind transformer`` (:mod:`textdp.detect.transformer`);
* ``"handles"``: names in @handles, #hashtags and e-mail addresses (:mod:`textdp.detect.handles`);
* ``"ensemble"``: :data:`~textdp.detect.ensemble.DEFAULT_ENSEMBLE`, the default detector;
* ``"a+b+..."``: the union of those members, with the rules applied on top when ``rules`` is
  one of them (``"trained+spacy+rules"``).

A union (and so ``"ensemble"``) runs on the normalised view of each text
(:class:`~textdp.detect.normalise.NormalisedView`: fullwidth forms, invisible characters and odd
whitespace cannot hide a name from it); a single member is returned as it is, for who wants
exactly that detector.
"""

from __future__ import annotations

from typing import Any

from textdp.detect.ensemble import DEFAULT_ENSEMBLE, EnsembleDetector
from textdp.detect.normalise import NormalisedView

NAMES = ("spacy", "trained", "minilm", "rules", "similarity", "handles", "ensemble")
# Members that take a model folder after a colon ("trained:<folder>").
_WITH_FOLDER = ("trained", "minilm")
DEFAULT_DETECTOR = "ensemble"


def is_named(spec: Any) -> bool:
    """Whether ``spec`` is a detector name this module builds (not a spaCy package name)."""
    if not isinstance(spec, str):
        return False
    parts = spec.split("+")
    return all(p in NAMES or p.partition(":")[0] in _WITH_FOLDER for p in parts) and \
        (len(parts) > 1 or spec != "spacy")


def _member(name: str, device: str = "cpu") -> Any:
    if name == "spacy":
        from textdp.detect.spacy_ner import SpacyNERDetector

        return SpacyNERDetector()
    if name == "trained" or name.startswith("trained:"):
        from textdp.detect.trained import DEFAULT_MODEL, TrainedNERDetector

        return TrainedNERDetector(name.partition(":")[2] or DEFAULT_MODEL)
    if name == "minilm" or name.startswith("minilm:"):
        from textdp.detect.transformer import DEFAULT_MODEL as MINILM
        from textdp.detect.transformer import TransformerNameDetector

        return TransformerNameDetector(name.partition(":")[2] or MINILM, device=device)
    if name == "similarity":
        from textdp.detect.similarity import SimilarityDetector

        return SimilarityDetector()
    if name == "handles":
        from textdp.detect.handles import HandleDetector

        return HandleDetector()
    raise ValueError(f"unknown detector {name!r}; known: {', '.join(NAMES)}, 'a+b' unions")


def named_detector(spec: str, *, device: str = "cpu") -> Any:
    """The detector for a name or a ``+``-joined union of names (see the module doc);
    ``device`` is the torch device of members that run a model on one (``minilm``)."""
    if spec == "ensemble":
        spec = DEFAULT_ENSEMBLE
    parts = [p.strip() for p in spec.split("+") if p.strip()]
    if not parts:
        raise ValueError("empty detector name")
    if "ensemble" in parts:
        raise ValueError("'ensemble' cannot be a member of a union; name its members instead")
    members = [_member(p, device) for p in parts if p != "rules"]
    rules = "rules" in parts
    if len(members) == 1 and not rules:
        return members[0]
    if not members:
        from textdp.detect.rules import NameRules

        return NameRules()
    return NormalisedView(EnsembleDetector(members, rules=rules))
