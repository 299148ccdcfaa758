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

**Displaced** (``displacement = m > 0``): ``P(Z = k) ∝ α^| |k| − m |``, the two-sided law
centred on −m and +m instead of 0. Its log-pmf also changes by at most ε between neighbouring
integers (``| |k| − m |`` is 1-Lipschitz in k), so the guarantee is the same, e^(ε·|x − x'|);
what changes is where the mass sits: ``P(Z = 0)`` falls from ``tanh(ε/2)`` to ``α^m / S``
(:func:`zero_probability`), at the price of a larger typical error (about m + 1/ε instead of
1/ε). :func:`displacement_for` gives the least m that keeps ``P(|Z| ≤ w)`` under a bound, so a
value comes back unchanged (w = 0), or within w units, at most that often (ages: 1 % at
ε = 0.2 per year with m = 9; date offsets: 1 % within 15 days, so a date written as a month
and a year keeps its month at most that often).
It is drawn exactly as a mixture: ``|Z| = 0``; ``m − G`` with G a geometric truncated to
``{0, …, m − 1}``; or ``m + G'`` with G' geometric on ``{1, 2, …}``; the sign uniform.

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


def pmf(k: np.ndarray | int, epsilon: float, displacement: int = 0) -> np.ndarray:
    """``P(Z = k)`` of the two-sided geometric noise of ``epsilon`` (displaced by
    ``displacement``, see the module)."""
    alpha = math.exp(-check_epsilon(epsilon))
    m = _check_displacement(displacement)
    distance = np.abs(np.abs(np.asarray(k, dtype=float)) - m)
    return np.power(alpha, distance) / _normaliser(alpha, m)


def zero_probability(epsilon: float, displacement: int = 0) -> float:
    """``P(Z = 0)``: how often a released value equals its input (before clamping)."""
    return float(pmf(0, epsilon, displacement))


def within_probability(epsilon: float, displacement: int = 0, within: int = 0) -> float:
    """``P(|Z| ≤ within)``: how often a released value stays within ``within`` units of its
    input (``within = 0``: :func:`zero_probability`)."""
    if isinstance(within, bool) or not isinstance(within, int) or within < 0:
        raise ValueError(f"within must be an integer >= 0, got {within!r}")
    return float(pmf(np.arange(-within, within + 1), epsilon, displacement).sum())


def displacement_for(epsilon: float, max_zero: float, within: int = 0) -> int:
    """The least displacement whose ``P(|Z| ≤ within)`` is at most ``max_zero`` (0 when the
    plain law's already is; ``within = 0``: ``P(Z = 0)``, ``tanh(ε/2)`` undisplaced). A
    linear scan: the share is not monotone in m while m < ``within``."""
    if not 0 < max_zero < 1:
        raise ValueError(f"max_zero must be in (0, 1), got {max_zero!r}")
    check_epsilon(epsilon)
    m = 0
    while within_probability(epsilon, m, within) > max_zero:
        m += 1
    return m


def _check_displacement(displacement: int) -> int:
    if isinstance(displacement, bool) or not isinstance(displacement, int) or displacement < 0:
        raise ValueError(f"displacement must be an integer >= 0, got {displacement!r}")
    return displacement


def _normaliser(alpha: float, m: int) -> float:
    """``Σ_k α^| |k| − m |`` over the integers (``(1 + α) / (1 − α)`` for m = 0)."""
    if m == 0:
        return (1 + alpha) / (1 - alpha)
    return alpha ** m + 2 * ((1 - alpha ** m) + alpha) / (1 - alpha)


def sample(epsilon: float, rng: np.random.Generator, size: int | None = None,
           displacement: int = 0) -> np.ndarray | int:
    """Noise of ``epsilon`` per unit from ``rng`` (displaced by ``displacement``): one
    integer, or an array of ``size``."""
    p = -math.expm1(-check_epsilon(epsilon))  # 1 − α, exact for small ε
    m = _check_displacement(displacement)
    if m == 0:
        a = rng.geometric(p, size=size) - 1
        b = rng.geometric(p, size=size) - 1
        return int(a - b) if size is None else (a - b).astype(np.int64)
    alpha = 1.0 - p
    n = 1 if size is None else size
    # Mixture weights of |Z| = 0, |Z| in 1..m (m − G) and |Z| > m (m + G').
    weights = np.array([alpha ** m, 2 * (1 - alpha ** m) / p, 2 * alpha / p])
    part = rng.choice(3, size=n, p=weights / weights.sum())
    u = rng.random(n)
    # G on {0, …, m − 1} with P(G = i) ∝ α^i: inverse of its CDF (1 − α^(i+1)) / (1 − α^m).
    g = np.minimum(np.floor(np.log1p(-u * -math.expm1(m * math.log(alpha))) / math.log(alpha)),
                   m - 1)
    tail = rng.geometric(p, size=n)  # on {1, 2, …} with P ∝ α^(g − 1) · (1 − α)
    magnitude = np.where(part == 0, 0, np.where(part == 1, m - g, m + tail)).astype(np.int64)
    signed = np.where(rng.random(n) < 0.5, -magnitude, magnitude)
    return int(signed[0]) if size is None else signed


def release(value: int, epsilon: float, rng: np.random.Generator, *,
            low: int | None = None, high: int | None = None, displacement: int = 0) -> int:
    """``value`` plus one draw of noise (displaced by ``displacement``), clamped to
    ``[low, high]`` (post-processing)."""
    out = int(value) + int(sample(epsilon, rng, displacement=displacement))
    if low is not None:
        out = max(low, out)
    if high is not None:
        out = min(high, out)
    return out
