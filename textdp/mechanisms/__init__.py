"""Mechanisms: one module each, all behind one catalogue registry.

Third-party packages add a mechanism through the ``textdp_mechanisms`` entry-point group::

    [project.entry-points.textdp_mechanisms]
    my_mechanism = "my_package.module:MyMechanism"

The registered object is called with ``epsilon`` and its own keyword arguments and must return
a :class:`Mechanism`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import catalogue

from textdp.mechanisms.base import Mechanism, NoiseMechanism
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

registry = catalogue.create("textdp", "mechanisms", entry_points=True)

for _cls in (MultivariateLaplace, Projection, Mahalanobis, Vickrey, TruncatedExponential,
             SanText, Gaussian, NADP):
    registry.register(_cls.name, func=_cls)
registry.register(DPNRMechanism.name, func=DPNRMechanism)  # representation release only
registry.register(DPMLM.name, func=DPMLM)  # draws from the text: a ContextMechanism
# Mechanism parity with MLDP and pyPANTERA (issue 18).
for _cls in (TruncatedGumbel, CusText, VickreyMahalanobis, Diffractor):
    registry.register(_cls.name, func=_cls)

MechanismSpec = str | Mapping[str, Any] | Mechanism


def available() -> list[str]:
    """Names of every registered mechanism (built-in and from entry points)."""
    return sorted(registry.get_all())


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
    "DPMLM", "NADP", "CusText", "DPNRMechanism", "Diffractor", "Gaussian", "Mahalanobis",
    "Mechanism", "MechanismSpec", "MultivariateLaplace", "NoiseMechanism", "Projection",
    "SanText", "TruncatedExponential", "TruncatedGumbel", "Vickrey", "VickreyMahalanobis",
    "available", "create_mechanism", "registry",
]
