"""The detector spec grammar, parsed in one place.

What a ``detector`` setting may say (Python, configs, ``--detector``, the spaCy component):

* ``None``: the default, :data:`DEFAULT_DETECTOR` (``"ensemble"``);
* a registered name, short or versioned (``"rules"``, ``"textdp.rules.v1"``, a third-party
  ``"acme.names.v1"``), see :mod:`textdp.detect.registry`;
* ``"name:<model>"`` for a detector that takes a model (``"trained:<folder>"``,
  ``"minilm:<folder>"``, ``"hf:<folder or hub name>"``);
* ``"a+b+..."``: the union of registered members, run on the normalised view of each text;
  ``rules`` in a union is not a member but the name rules applied on top of the others'
  names (``"trained+spacy+rules"``); ``ensemble`` cannot be a member;
* anything else: an installed spaCy package or a spaCy pipeline folder, whose NER is the
  detector (``"en_core_web_sm"``).

:func:`parse_detector_spec` turns a spec into a :class:`DetectorSpec`, checking every part
against the registry before any model loads or any text is read; each error names the
parameter and the part at fault. Building the detector is
:func:`textdp.detect.ensemble.build_spec`'s job.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from textdp.detect.registry import available, is_builtin, keywords, needs_model, registry

DEFAULT_DETECTOR = "ensemble"
# Members that take a model folder after a colon, for messages.
_WITH_FOLDER = ("trained", "minilm")


@dataclass(frozen=True)
class DetectorMember:
    """One registered detector of a spec.

    Attributes:
        name: the registered name as written (``"trained"``, ``"textdp.trained.v1"``).
        model: the text after its colon (``"trained:<folder>"``), ``None`` without one.
    """

    name: str
    model: str | None = None

    def __str__(self) -> str:
        return self.name if self.model is None else f"{self.name}:{self.model}"


@dataclass(frozen=True)
class DetectorSpec:
    """A parsed detector spec.

    Attributes:
        members: the detectors to run: one for a name or a spaCy package (member ``spacy``
            with the package or folder as its model), one or more for a union.
        rules: a union with ``rules`` among its parts: the name rules expand the members'
            names instead of running as a member.
        text: the spec as written, for messages.
    """

    members: tuple[DetectorMember, ...]
    rules: bool = False
    text: str = ""

    @property
    def is_union(self) -> bool:
        """Whether the spec names a union (run as an ensemble on the normalised view)."""
        return len(self.members) > 1 or self.rules


def detector_forms(names: list[str] | None = None) -> str:
    """What a detector spec may be, for error messages (``names``: the registered ones,
    entry points included, by default)."""
    names = available() if names is None else names
    return (f"None (the default, {DEFAULT_DETECTOR!r}), one of {', '.join(names)} (or its "
            "versioned name, 'textdp.<name>.v1'), a '+'-joined union of them "
            "('trained+spacy+rules'), 'trained:<folder>' / 'minilm:<folder>', an installed "
            "spaCy package or pipeline folder, 'hf:<model>', or a Detector object")


def union_members_hint() -> str:
    """What a union may be made of, for messages: every registered name but ``ensemble``,
    and the members that take a folder."""
    names = [n for n in available() if not is_builtin(n, "ensemble")]
    folders = ", ".join(f"'{n}:<folder>'" for n in _WITH_FOLDER)
    return f"{', '.join(names)}, {folders}, 'hf:<model>'"


def _head(part: str) -> tuple[str, str | None]:
    """``"trained:<folder>"`` → ``("trained", "<folder>")``; ``"rules"`` → ``("rules", None)``."""
    name, colon, model = part.partition(":")
    return name.strip(), (model.strip() if colon else None)


def parse_detector_spec(spec: str | None, *, param: str = "detector") -> DetectorSpec:
    """The :class:`DetectorSpec` of ``spec`` (see the module docstring for the grammar).

    ``param`` is the parameter named in errors (``"detector"``, ``"--detector"``). Raises
    ``ValueError`` naming it and the bad part: an empty spec or union member, an unknown
    name, a model given to a detector that takes none or missing where one is needed,
    ``ensemble`` inside a union. A spec that is not made of registered names must be an
    installed spaCy package or an existing folder.
    """
    if spec is None:
        spec = DEFAULT_DETECTOR
    if not isinstance(spec, str):
        raise ValueError(f"{param} must be a detector spec string, got {type(spec).__name__}")
    text = spec.strip()
    if not text:
        raise ValueError(f"{param} is empty; give {detector_forms()}")
    parts = [p.strip() for p in text.split("+")]
    if not all(p and _head(p)[0] in registry for p in parts):
        return _spacy_spec(spec, text, parts, param)
    members = [_member(p, text, param) for p in parts]
    if len(members) == 1:
        return DetectorSpec(tuple(members), text=text)
    if any(is_builtin(m.name, "ensemble") for m in members):
        raise ValueError(f"{param}={text!r}: 'ensemble' cannot be a member of a union; name "
                         "its members instead")
    # The rules are not a member: they expand the union of the others' names.
    rules = [m for m in members if is_builtin(m.name, "rules") and m.model is None]
    others = tuple(m for m in members if m not in rules)
    if not others:  # "rules+rules": the rules alone
        return DetectorSpec((members[0],), text=text)
    return DetectorSpec(others, rules=bool(rules), text=text)


def _member(part: str, text: str, param: str) -> DetectorMember:
    """One registered part, checked against its factory's signature."""
    name, model = _head(part)
    factory = registry.get(name)
    if model is not None and not model:
        raise ValueError(f"{param}={text!r}: {part!r} names no model after ':'; give "
                         f"'{name}:<model>' or {name!r} alone")
    takes = keywords(factory)
    if model is not None and takes is not None and "model" not in takes:
        raise ValueError(f"{param}={text!r}: detector {name!r} takes no model ({part!r}); "
                         f"give {name!r} alone")
    if model is None and needs_model(factory):
        raise ValueError(f"{param}={text!r}: detector {name!r} needs a model: "
                         f"'{name}:<model>'")
    return DetectorMember(name, model)


def _spacy_spec(spec: str, text: str, parts: list[str], param: str) -> DetectorSpec:
    """A spec that is not made of registered names: a spaCy pipeline folder or installed
    package, or an error naming the parts that are neither."""
    if os.path.isdir(spec):
        return DetectorSpec((DetectorMember("spacy", spec),), text=text)
    if len(parts) > 1:
        if not all(parts):
            raise ValueError(f"{param}={text!r}: an empty member in the union (a '+' with "
                             f"nothing on one side); valid members: {union_members_hint()}")
        unknown = [p for p in parts if _head(p)[0] not in registry]
        raise ValueError(f"{param}: unknown detector{'s' if len(unknown) > 1 else ''} "
                         f"{', '.join(map(repr, unknown))} in the union {text!r}; valid "
                         f"members: {union_members_hint()}")
    import spacy.util

    if not spacy.util.is_package(text):
        raise ValueError(f"{param}: unknown detector {text!r}: not a registered name, an "
                         f"installed spaCy package or a pipeline folder; valid: "
                         f"{detector_forms()}")
    return DetectorSpec((DetectorMember("spacy", text),), text=text)


__all__ = ["DEFAULT_DETECTOR", "DetectorMember", "DetectorSpec", "detector_forms",
           "parse_detector_spec", "union_members_hint"]
