"""The detector registry: every detector by name, registered where it is defined.

:data:`registry` is a catalogue registry (namespace ``textdp.detectors``, entry-point group
``textdp_detectors``). Each built-in detector registers itself in its own module with
:func:`register_detector`, under a versioned name (``textdp.rules.v1``) with its short name
(``rules``) as an alias, both building the same detector; a built-in class carries its short
name as ``name`` (what audits report, :func:`~textdp.detect.base.detector_name`)::

    @register_detector("rules")
    class NameRules: ...

A registered object is a factory: a class or a function called with the keyword arguments
its signature takes among ``model`` (the text after a colon, ``"name:<model>"``; left out
without one, so a ``model`` without a default makes the name need one) and ``device`` (the
torch device of model-based detectors, as a string). It returns an object that follows the
:class:`~textdp.detect.base.Detector` protocol. Another package registers through the
``textdp_detectors`` entry-point group, under any name it chooses::

    [project.entry-points.textdp_detectors]
    "my_package.names.v1" = "my_package.detect:make_detector"

Which names a spec may combine is :mod:`textdp.detect.spec`'s concern; this module only keeps
the names and calls the factories.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, TypeVar

from textdp.registries import VersionedRegistry, builtin_name

#: Every detector, built-in (``textdp.rules.v1`` and its alias ``rules``) and from the
#: ``textdp_detectors`` entry-point group.
registry = VersionedRegistry("textdp", "detectors")

F = TypeVar("F", bound=Callable[..., Any])


def register_detector(short: str, *, version: int = 1) -> Callable[[F], F]:
    """Decorator: register a detector factory (a class or a function, see the module
    docstring) as ``textdp.<short>.v<version>`` with ``short`` as its alias. A class must
    carry ``short`` as its ``name`` (it is set when the class has none)."""
    def register(factory: F) -> F:
        if inspect.isclass(factory):
            own = getattr(factory, "name", None)
            if own is None:
                factory.name = short  # type: ignore[attr-defined]
            elif own != short:
                raise ValueError(f"detector class {factory.__name__} is named {own!r} but "
                                 f"registered as {short!r}; give it one name")
        return registry.register_versioned(builtin_name(short, version), factory, alias=short)

    return register


def available() -> list[str]:
    """Every registered detector once (built-in and from entry points), sorted: a built-in by
    its short name (``rules``; ``textdp.rules.v1`` is accepted too), a third-party one by the
    name it registered."""
    return registry.names()


def is_builtin(name: str, short: str) -> bool:
    """Whether the registered ``name`` (short or versioned) is the built-in ``short``."""
    return registry.versioned(name) == builtin_name(short)


def keywords(factory: Any) -> set[str] | None:
    """The keyword arguments ``factory`` takes, or ``None`` where it takes any (``**kwargs``);
    an empty set for a callable whose signature cannot be read (pass it nothing)."""
    try:
        params = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):  # a builtin or C callable: pass nothing it may refuse
        return set()
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
        return None
    return {p.name for p in params if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                                 inspect.Parameter.KEYWORD_ONLY)}


def needs_model(factory: Any) -> bool:
    """Whether ``factory`` has a ``model`` argument without a default (``hf``: the name alone
    names no model to load)."""
    try:
        param = inspect.signature(factory).parameters.get("model")
    except (TypeError, ValueError):
        return False
    return param is not None and param.default is inspect.Parameter.empty


def make_detector(name: str, *, model: str | None = None, device: str = "cpu") -> Any:
    """The detector the factory registered as ``name`` builds: called with ``model`` (where
    given) and ``device`` where its signature takes them. A name must be checked first
    (:func:`textdp.detect.spec.parse_detector_spec` does); raises ``ValueError`` when the
    factory returns something that is not a detector."""
    factory = registry.get(name)
    takes = keywords(factory)
    kwargs: dict[str, Any] = {}
    if model is not None:
        kwargs["model"] = model
    if takes is None or "device" in takes:
        kwargs["device"] = device
    detector = factory(**kwargs)
    if not callable(detector):
        raise ValueError(f"detector {name!r} did not build a detector (a callable on docs)")
    return detector


__all__ = ["available", "is_builtin", "keywords", "make_detector", "needs_model",
           "register_detector", "registry"]
