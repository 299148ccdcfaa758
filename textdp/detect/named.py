"""Detectors by name, for ``create_detector``, configs and the command line.

Every built-in detector is registered in :data:`registry` (a catalogue registry, namespace
``textdp.detectors``) under a versioned name with its short name as an alias, both building
the same detector:

* ``"spacy"`` (``textdp.spacy.v1``): the embedded spaCy pipeline's NER (en_core_web_md);
* ``"trained"`` / ``"trained:<folder>"`` (``textdp.trained.v1``): the packaged spaCy name
  tagger, or one written by ``textdp train-detector``;
* ``"rules"`` (``textdp.rules.v1``): titles, other mentions, possessives
  (:mod:`textdp.detect.rules`);
* ``"similarity"`` (``textdp.similarity.v1``): closeness to seed names in the default table
  (:mod:`textdp.detect.similarity`);
* ``"minilm"`` / ``"minilm:<folder>"`` (``textdp.minilm.v1``): the packaged MiniLM name
  tagger, or one written by ``textdp train-detector --kind transformer``
  (:mod:`textdp.detect.transformer`);
* ``"handles"`` (``textdp.handles.v1``): names in @handles, #hashtags and e-mail addresses
  (:mod:`textdp.detect.handles`);
* ``"glued"`` (``textdp.glued.v1``): names glued into paths, URLs, query strings and
  account names (:mod:`textdp.detect.glued`);
* ``"hf:<model>"`` (``textdp.hf.v1``): a ``transformers`` token-classification folder or hub
  name (:mod:`textdp.detect.hf_ner`);
* ``"ensemble"`` (``textdp.ensemble.v1``): :data:`~textdp.detect.ensemble.DEFAULT_ENSEMBLE`,
  the default detector;
* ``"a+b+..."``: the union of those members, with the rules applied on top when ``rules`` is
  one of them (``"trained+spacy+rules"``).

A union (and so ``"ensemble"``) runs on the normalised view of each text
(:class:`~textdp.detect.normalise.NormalisedView`: fullwidth forms, invisible characters and odd
whitespace cannot hide a name from it); a single member is returned as it is, for who wants
exactly that detector.

A new detector is one module and one registry line: a factory under
``@register_detector("short")`` here, or, from another package, an entry point in the
``textdp_detectors`` group::

    [project.entry-points.textdp_detectors]
    "my_package.names.v1" = "my_package.detect:make_detector"

A factory is called with the keyword arguments its signature takes among ``model`` (the text
after a colon, ``"name:<model>"``; ``None`` without one) and ``device`` (the torch device of
model-based members, as a string), and returns an object that follows the
:class:`~textdp.detect.base.Detector` protocol. Model files are loaded lazily, so a factory
imports its module only when it is called.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, TypeVar

from textdp.detect.ensemble import DEFAULT_ENSEMBLE, EnsembleDetector
from textdp.detect.normalise import NormalisedView
from textdp.registries import VersionedRegistry, builtin_name

#: Every detector, built-in (``textdp.rules.v1`` and its alias ``rules``) and from the
#: ``textdp_detectors`` entry-point group.
registry = VersionedRegistry("textdp", "detectors")

F = TypeVar("F", bound=Callable[..., Any])

DEFAULT_DETECTOR = "ensemble"
# Members that take a model folder after a colon ("trained:<folder>"), for messages.
_WITH_FOLDER = ("trained", "minilm")


def register_detector(short: str, *, version: int = 1) -> Callable[[F], F]:
    """Decorator: register a detector factory as ``textdp.<short>.v<version>`` with ``short``
    as its alias (see the module docstring for what a factory is called with)."""
    def register(factory: F) -> F:
        return registry.register_versioned(builtin_name(short, version), factory, alias=short)

    return register


# ---------------------------------------------------------------------------- built-ins
@register_detector("spacy")
def spacy_ner(model: str | None = None) -> Any:
    """The NER of the embedded spaCy pipeline, or of the installed package or pipeline folder
    ``model``."""
    from textdp.detect.spacy_ner import SpacyNERDetector

    return SpacyNERDetector() if model is None else SpacyNERDetector(model)


@register_detector("trained")
def trained(model: str | None = None) -> Any:
    """The packaged spaCy name tagger, or the one in the folder ``model``."""
    from textdp.detect.trained import DEFAULT_MODEL, TrainedNERDetector

    return TrainedNERDetector(model or DEFAULT_MODEL)


@register_detector("minilm")
def minilm(model: str | None = None, device: str = "cpu") -> Any:
    """The packaged MiniLM name tagger, or the one in the folder ``model``, on ``device``."""
    from textdp.detect.transformer import DEFAULT_MODEL, TransformerNameDetector

    return TransformerNameDetector(model or DEFAULT_MODEL, device=device)


@register_detector("rules")
def rules() -> Any:
    """The name rules alone (in a union they are applied on top of the members instead)."""
    from textdp.detect.rules import NameRules

    return NameRules()


@register_detector("similarity")
def similarity() -> Any:
    """Closeness to the seed names in the default table."""
    from textdp.detect.similarity import SimilarityDetector

    return SimilarityDetector()


@register_detector("handles")
def handles() -> Any:
    """Names in @handles, #hashtags and e-mail addresses."""
    from textdp.detect.handles import HandleDetector

    return HandleDetector()


@register_detector("glued")
def glued() -> Any:
    """Names glued into paths, URLs, query strings and account names."""
    from textdp.detect.glued import GluedNameDetector

    return GluedNameDetector()


@register_detector("hf")
def hf_ner(model: str | None = None) -> Any:
    """A ``transformers`` token-classification model: ``"hf:<folder or hub name>"``."""
    if not model:
        raise ValueError("detector 'hf' needs a model: 'hf:<folder or hub name>'")
    from textdp.detect.hf_ner import HFNERDetector  # transformers is imported lazily

    return HFNERDetector(model)


@register_detector("ensemble")
def ensemble(device: str = "cpu") -> Any:
    """:data:`~textdp.detect.ensemble.DEFAULT_ENSEMBLE` on the normalised view."""
    return named_detector(DEFAULT_ENSEMBLE, device=device)


# ---------------------------------------------------------------------------- lookup
def available() -> list[str]:
    """Every registered detector once (built-in and from entry points), sorted: a built-in by
    its short name (``rules``; ``textdp.rules.v1`` is accepted too), a third-party one by the
    name it registered."""
    return registry.names()


def _head(part: str) -> tuple[str, str | None]:
    """``"trained:<folder>"`` → ``("trained", "<folder>")``; ``"rules"`` → ``("rules", None)``."""
    name, colon, model = part.partition(":")
    return name, (model if colon else None)


def _is(name: str, short: str) -> bool:
    """Whether the registered ``name`` (short or versioned) is the built-in ``short``."""
    return registry.versioned(name) == builtin_name(short)


def is_named(spec: Any) -> bool:
    """Whether ``spec`` is a registered detector name, ``name:<model>``, or a ``+``-joined
    union of those (not a spaCy package name or a folder)."""
    if not isinstance(spec, str) or not spec:
        return False
    return all(_head(p.strip())[0] in registry for p in spec.split("+"))


def build_named(part: str, *, device: str = "cpu") -> Any:
    """The detector of one registered name, ``"name"`` or ``"name:<model>"``: its factory
    called with ``model`` and ``device`` where it takes them."""
    name, model = _head(part)
    if name not in registry:
        raise ValueError(f"unknown detector {name!r}; known: {', '.join(available())}, "
                         "'a+b' unions")
    factory = registry.get(name)
    kwargs: dict[str, Any] = {}
    takes = _keywords(factory)
    if model is not None:
        if takes is not None and "model" not in takes:
            raise ValueError(f"detector {name!r} takes no model ('{name}:<model>'); give "
                             f"{name!r} alone")
        kwargs["model"] = model
    if takes is None or "device" in takes:
        kwargs["device"] = device
    detector = factory(**kwargs)
    if not callable(detector):
        raise ValueError(f"detector {name!r} did not build a detector (a callable on docs)")
    return detector


def _keywords(factory: Any) -> set[str] | None:
    """The keyword arguments ``factory`` takes, or ``None`` where it takes any."""
    try:
        params = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):  # a builtin or C callable: pass nothing it may refuse
        return set()
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
        return None
    return {p.name for p in params if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                                 inspect.Parameter.KEYWORD_ONLY)}


def named_detector(spec: str, *, device: str = "cpu") -> Any:
    """The detector for a name or a ``+``-joined union of names (see the module doc);
    ``device`` is the torch device of members that run a model on one (``minilm``)."""
    parts = [p.strip() for p in spec.split("+") if p.strip()]
    if not parts:
        raise ValueError("empty detector name")
    if len(parts) == 1:
        return build_named(parts[0], device=device)
    if any(_is(_head(p)[0], "ensemble") for p in parts):
        raise ValueError("'ensemble' cannot be a member of a union; name its members instead")
    # The rules are not a member: they expand the union of the others' names.
    with_rules = [_is(_head(p)[0], "rules") and _head(p)[1] is None for p in parts]
    members = [build_named(p, device=device) for p, r in zip(parts, with_rules) if not r]
    if not members:
        return build_named(parts[0], device=device)
    return NormalisedView(EnsembleDetector(members, rules=any(with_rules)))


def union_members_hint() -> str:
    """What a union may be made of, for messages: every registered name but ``ensemble``,
    and the members that take a folder."""
    names = [n for n in available() if not _is(n, "ensemble")]
    folders = ", ".join(f"'{n}:<folder>'" for n in _WITH_FOLDER)
    return f"{', '.join(names)}, {folders}, 'hf:<model>'"
