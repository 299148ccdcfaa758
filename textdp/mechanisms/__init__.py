"""Mechanisms: one module each, all behind one catalogue registry.

Each built-in mechanism registers itself in its own module with
:func:`~textdp.mechanisms.base.register_mechanism`, under a versioned name
(``textdp.mlaplace.v1``) with its short name (``mlaplace``) as an alias; both resolve to the
same class, and an instance's ``name`` is the short one. A new built-in mechanism is one new
module (a :class:`Mechanism` subclass under ``@register_mechanism``) imported below.

Third-party packages add a mechanism through the ``textdp_mechanisms`` entry-point group::

    [project.entry-points.textdp_mechanisms]
    "my_package.my_mechanism.v1" = "my_package.module:MyMechanism"

The registered object is called with ``epsilon`` and its own keyword arguments and must return
a :class:`Mechanism`. What it can do beyond ``sample`` is declared on its class
(``reads_context``, ``perturbs``, ``releases_table``, ``radial_law``; see
:mod:`textdp.mechanisms.base`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from textdp.mechanisms.base import (
    ContextMechanism,
    Mechanism,
    NoiseMechanism,
    RadialLaw,
    register_mechanism,
    registry,
)
from textdp.mechanisms.custext import CusText
from textdp.mechanisms.diffractor import Diffractor
from textdp.mechanisms.dpmlm import DPMLM
from textdp.mechanisms.dpnr import DPNRMechanism
from textdp.mechanisms.gaussian import Gaussian
from textdp.mechanisms.mahalanobis import Mahalanobis
from textdp.mechanisms.mlaplace import MultivariateLaplace
from textdp.mechanisms.nadp import NADP
from textdp.mechanisms.projection import Projection
from textdp.mechanisms.santext import SanText
from textdp.mechanisms.tem import TruncatedExponential
from textdp.mechanisms.truncated_gumbel import TruncatedGumbel
from textdp.mechanisms.vickrey import Vickrey, VickreyMahalanobis

MechanismSpec = str | Mapping[str, Any] | Mechanism


def available() -> list[str]:
    """Every registered mechanism once (built-in and from entry points), sorted: a built-in
    by its short name (``mlaplace``; its versioned name ``textdp.mlaplace.v1`` is accepted
    too, see :func:`versioned_name`), a third-party one by the name it registered."""
    return registry.names()


def versioned_name(name: str) -> str:
    """The versioned registry name of the mechanism ``name`` (``mlaplace`` →
    ``textdp.mlaplace.v1``; a name without an alias is returned as it is)."""
    return registry.versioned(name)


@dataclass(frozen=True)
class CatalogueRow:
    """One mechanism as ``textdp mechanisms`` lists it.

    Attributes:
        name: the short name (``mlaplace``), what :func:`available` lists and reports carry.
        versioned: its versioned registry name (``textdp.mlaplace.v1``), or ``name`` itself
            for an entry without one.
        description, guarantee: the class's own lines (empty where it has none).
        decodes_subsets: whether person names can decode to the public name vocabulary.
        releases_table: whether ``textdp release-table`` accepts it.
    """

    name: str
    versioned: str
    description: str
    guarantee: str
    decodes_subsets: bool
    releases_table: bool

    @property
    def label(self) -> str:
        """``"mlaplace (textdp.mlaplace.v1)"``, or the name alone where both are the same."""
        return self.name if self.versioned == self.name else f"{self.name} ({self.versioned})"


def catalogue_rows() -> list[CatalogueRow]:
    """Every registered mechanism once, in :func:`available` order, with what the command
    line shows about it (see :class:`CatalogueRow`)."""
    rows = []
    for name in available():
        factory = registry.get(name)
        rows.append(CatalogueRow(
            name=name, versioned=registry.versioned(name),
            description=str(getattr(factory, "description", "") or ""),
            guarantee=str(getattr(factory, "guarantee", "") or ""),
            decodes_subsets=bool(getattr(factory, "decodes_subsets", False)),
            releases_table=bool(getattr(factory, "releases_table", False))))
    return rows


def table_releasing() -> list[str]:
    """Names (as :func:`available` lists them) of the mechanisms whose class declares
    ``releases_table`` (for messages of ``textdp release-table``)."""
    return [row.name for row in catalogue_rows() if row.releases_table]


def create_mechanism(spec: MechanismSpec, epsilon: float | None = None) -> Mechanism:
    """Build a mechanism from a name, a ``{"name": ..., **args}`` mapping or an instance.

    Raises ``ValueError`` naming the parameter when the name is unknown or an argument is
    rejected, before any text is read.
    """
    if isinstance(spec, Mechanism):
        if epsilon is not None and float(epsilon) != spec.epsilon:
            raise ValueError(f"epsilon={epsilon!r} conflicts with the mechanism's own "
                             f"epsilon={spec.epsilon!r}; give it once")
        return spec
    if isinstance(spec, str):
        name, kwargs = spec, {}
    elif isinstance(spec, Mapping):
        kwargs = dict(spec)
        name = kwargs.pop("name", None)
        if not isinstance(name, str):
            raise ValueError("mechanism mapping needs a 'name' key with a registered name")
    else:
        raise ValueError(f"mechanism must be a name, a mapping or a Mechanism, got {spec!r}")
    if name not in registry:
        raise ValueError(f"mechanism must be one of {available()}, got {name!r}")
    if epsilon is not None:
        if "epsilon" in kwargs and kwargs["epsilon"] != epsilon:
            raise ValueError(f"epsilon={epsilon!r} conflicts with the mechanism mapping's "
                             f"epsilon={kwargs['epsilon']!r}; give it once")
        kwargs["epsilon"] = epsilon
    if "epsilon" not in kwargs:
        raise ValueError("mechanism needs 'epsilon'")
    factory = registry.get(name)
    _check_parameters(name, factory, kwargs)
    try:
        mech = factory(**kwargs)
    except TypeError as err:
        raise ValueError(f"mechanism {name!r} rejected its arguments: {err}") from None
    if not isinstance(mech, Mechanism):
        raise ValueError(f"mechanism {name!r} did not build a textdp Mechanism")
    return mech


def _check_parameters(name: str, factory: Any, kwargs: Mapping[str, Any]) -> None:
    """Refuse arguments the mechanism does not take, naming the ones it does (a misspelt
    ``lamda`` must not fall back to the default λ silently, or fail as a bare TypeError)."""
    import inspect

    try:
        params = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):  # a builtin or C callable: let the call decide
        return
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
        return
    valid = [p.name for p in params if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                                  inspect.Parameter.KEYWORD_ONLY)]
    unknown = [k for k in kwargs if k not in valid]
    if unknown:
        raise ValueError(f"mechanism {name!r}: unknown parameter"
                         f"{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))}; "
                         f"valid: {', '.join(valid)}")


__all__ = [
    "DPMLM", "NADP", "CatalogueRow", "ContextMechanism", "CusText", "DPNRMechanism",
    "Diffractor", "Gaussian", "Mahalanobis", "Mechanism", "MechanismSpec",
    "MultivariateLaplace", "NoiseMechanism", "Projection", "RadialLaw", "SanText",
    "TruncatedExponential", "TruncatedGumbel", "Vickrey", "VickreyMahalanobis", "available",
    "catalogue_rows", "create_mechanism", "register_mechanism", "registry", "table_releasing",
    "versioned_name",
]
