"""The two-sided geometric mechanism (discrete Laplace) on integers: the noise of date offsets
and ages (:mod:`textdp.quasi`).

Noise ``Z`` on the integers with ``P(Z = k) = (1 − α) / (1 + α) · α^|k|``, ``α = e^(−ε)``
(Ghosh, Roughgarden and Sundararajan, "Universally utility-maximizing privacy mechanisms",
STOC 2009). Released ``x + Z`` for an integer ``x``: for two inputs ``x`` and ``x'`` every
output's probability differs by at most ``e^(ε·|x − x'|)``, i.e. ε-DP between integers one
apart (one day, one year) and ε·k between integers k apart: the discrete analogue of the
Laplace mechanism with sensitivity 1, and exact (no floating-point Laplace draw is rounded).

``Z`` is drawn as the difference of two independent geometric variables on ``{0, 1, ...}``
with success probability ``1 − α``, whose distribution is exactly the pmf above. Clamping or
formatting the released value afterwards is post-processing and costs nothing.

This is not a :class:`~textdp.mechanisms.base.Mechanism` of the registry (those act on
vectors); it has no table, no decode and no state.
"""

from __future__ import annotations

import math

import numpy as np

#: The guarantee of one draw, in words (``textdp mechanisms`` and the reports quote it).
GUARANTEE = ("two-sided geometric (discrete Laplace) noise on integers: e^(ε·|x − x'|) "
             "between two values x, x' (ε-DP for values one unit apart)")


def check_epsilon(epsilon: float, name: str = "epsilon") -> float:
    """``epsilon`` as a float; ``ValueError`` naming ``name`` unless it is > 0 and finite."""
    try:
        value = float(epsilon)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number > 0, got {type(epsilon).__name__}") from None
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be > 0 and finite, got {value!r}")
    return value


def pmf(k: np.ndarray | int, epsilon: float) -> np.ndarray:
    """``P(Z = k)`` of the two-sided geometric noise of ``epsilon``."""
    alpha = math.exp(-check_epsilon(epsilon))
    return (1 - alpha) / (1 + alpha) * np.power(alpha, np.abs(np.asarray(k, dtype=float)))


def sample(epsilon: float, rng: np.random.Generator, size: int | None = None
           ) -> np.ndarray | int:
    """Noise of ``epsilon`` per unit from ``rng``: one integer, or an array of ``size``."""
    p = -math.expm1(-check_epsilon(epsilon))  # 1 − α, exact for small ε
    a = rng.geometric(p, size=size) - 1
    b = rng.geometric(p, size=size) - 1
    return int(a - b) if size is None else (a - b).astype(np.int64)


def release(value: int, epsilon: float, rng: np.random.Generator, *,
            low: int | None = None, high: int | None = None) -> int:
    """``value`` plus one draw of noise, clamped to ``[low, high]`` (post-processing)."""
    out = int(value) + int(sample(epsilon, rng))
    if low is not None:
        out = max(low, out)
    if high is not None:
        out = min(high, out)
    return out
