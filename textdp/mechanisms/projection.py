"""``projection``: Mechanism 2 of Feyisetan & Kasiviswanathan (TrustNLP 2021).

A Gaussian random projection (Johnson–Lindenstrauss) of the d-dimensional vectors to
m = ⌊(ln d + √ln(1/δ))² / β²⌋ dimensions stretches the distance of any one pair of inputs by
more than a factor 1 + β with probability ≤ δ over the draw of the projection; multivariate
Laplace noise calibrated to sensitivity 1 + β is then added in the projected space and decoded
against the projected candidates. So δ is *per pair of inputs*, over one projection that is
drawn once per candidate table, independently of any text, and kept secret (it is never
returned; a seeded run is reproducible and therefore not private, docs/architecture.md rule 6).

When the formula gives m ≥ d (for d = 300, δ = 1e-6: β ≤ 0.5439) no projection is applied.
A d × d Gaussian matrix (the formula's m capped at d) would not keep the promise: at d = 300,
δ = 1e-6 a pair is stretched past 1 + β with probability 7.4e-3 for β = 0.1 and 0.11 for
β = 0.05, not 1e-6. The identity keeps every distance exactly, so the release is plain
multivariate Laplace with no δ at all; the noise keeps the sensitivity 1 + β, which makes the
bound (ε/(1 + β))·d(x, x'), within the stated ε·d(x, x').

The formula's promise is a bound, not the exact law: the squared stretch of a pair is exactly
χ²ₘ/m, and for very small tables and large β its tail exceeds δ (33·δ at d = 2, β = 3.15,
δ = 1e-6, where m = 1). The exact tail is computed with ``scipy.stats.chi2`` and, where it
exceeds δ, no projection is applied either (the identity case above).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch

from textdp.index import NeighbourIndex
from textdp.mechanisms.base import (
    NoiseMechanism,
    RadialLaw,
    laplace_radius_cdf,
    multivariate_laplace,
    register_mechanism,
    sphere_directions,
)
from textdp.rng import RandomSource
from textdp.validation import check_open_unit, check_positive

DEFAULT_DELTA = 1e-6
DEFAULT_BETA = 0.7

#: The guarantee before :meth:`Projection.prepare` has seen the table's dimension d.
GUARANTEE = ("(ε·d(x, x'), δ) metric DP per token, δ per pair of inputs over a Gaussian "
             "projection drawn once and kept secret (it stretches that pair's distance past "
             "1 + β with probability ≤ δ); δ = 0 where the formula's m ≥ d (β ≤ (ln d + "
             "√ln(1/δ))/√d) or its exact stretch tail exceeds δ (small d, large β), as no "
             "projection is then applied")


def formula_dim(dim: int, delta: float, beta: float) -> int:
    """The paper's m = ⌊(ln d + √ln(1/δ))² / β²⌋, uncapped (it may exceed ``dim``)."""
    return math.floor((math.log(dim) + math.sqrt(math.log(1.0 / delta))) ** 2 / beta**2)


def projected_dim(dim: int, delta: float, beta: float) -> int:
    """m = ⌊(ln d + √ln(1/δ))² / β²⌋, never more than ``dim`` nor less than 1.

    ``dim`` means "no projection": see :func:`skips_projection`.
    """
    return max(1, min(dim, formula_dim(dim, delta, beta)))


def stretch_tail(m: int, beta: float) -> float:
    """P(‖Px‖ > (1 + β)‖x‖) for P a d × m Gaussian matrix scaled by 1/√m, exactly:
    ‖Px‖²/‖x‖² ~ χ²ₘ/m."""
    from scipy import stats

    return float(stats.chi2.sf(m * (1.0 + beta) ** 2, m))


def skips_projection(dim: int, delta: float, beta: float) -> bool:
    """Whether the vectors are used as they are (identity): the formula's m ≥ ``dim``, or its
    m is too small for δ (the exact stretch tail, :func:`stretch_tail`, exceeds δ).

    A square Gaussian matrix would not keep the promise (its distortion does not shrink with
    β), nor would a projection whose exact tail exceeds δ, so there is none.
    """
    m = formula_dim(dim, delta, beta)
    return m >= dim or stretch_tail(max(1, m), beta) > delta


def identity_beta(dim: int, delta: float) -> float:
    """The largest β at which the projection is skipped: (ln d + √ln(1/δ)) / √d.

    m ≥ d exactly when β ≤ this value (0.5439 for d = 300, δ = 1e-6), up to floating-point
    rounding at the boundary itself, where :func:`skips_projection` decides.
    """
    return (math.log(dim) + math.sqrt(math.log(1.0 / delta))) / math.sqrt(dim)


@register_mechanism
class Projection(NoiseMechanism):
    """Random projection to m dims, multivariate Laplace with sensitivity 1 + β, decode there.

    The guarantee is (ε·d(x, x'), δ) metric DP per token where δ is per pair of inputs x, x',
    over the Gaussian projection, which is drawn once in :meth:`prepare` and kept secret: with
    probability ≥ 1 − δ it stretches ‖x − x'‖ by at most 1 + β, and the noise is calibrated to
    that sensitivity. When the formula's m ≥ d (small β) no projection is applied: distances
    are exact, δ is 0 and the release is (ε/(1 + β))·d(x, x') metric DP, within ε·d(x, x').
    ``guarantee`` and :attr:`delta` state which case applies once :meth:`prepare` has seen d.

    Args:
        epsilon: the metric-DP parameter ε per token.
        delta: the probability, per pair of inputs, that the projection stretches their
            distance by more than 1 + β (0 < δ < 1).
        beta: the distortion β > 0 the projection is allowed; it sets m and the sensitivity
            1 + β of the noise.
    """

    name = "projection"
    description = ("Mechanism 2: Gaussian random projection to m dims (none when m ≥ d), "
                   "mLaplace with sens. 1+β")
    guarantee = GUARANTEE
    metric = "euclidean"

    def __init__(self, epsilon: float, delta: float = DEFAULT_DELTA,
                 beta: float = DEFAULT_BETA) -> None:
        super().__init__(epsilon)
        self._delta = check_open_unit("delta", delta)
        self.beta = check_positive("beta (projection distortion)", beta)
        #: The (d, m) projection matrix, or ``None``: before :meth:`prepare`, or when skipped.
        self.matrix: torch.Tensor | None = None
        #: True once :meth:`prepare` found m ≥ d and applies no projection.
        self.identity = False

    @property
    def delta(self) -> float:
        """δ per pair of inputs; 0 once :meth:`prepare` has skipped the projection."""
        return 0.0 if self.identity else self._delta

    def prepare(self, candidates: np.ndarray, index: NeighbourIndex, rng: RandomSource) -> None:
        dim = candidates.shape[1]
        self.identity = skips_projection(dim, self._delta, self.beta)
        if self.identity:
            # Exact distances: decode against the table's own index, no δ.
            self.matrix = None
            m = formula_dim(dim, self._delta, self.beta)
            why = f"the formula's m ≥ d = {dim}" if m >= dim else (
                f"the formula's m = {max(1, m)} is too small for δ = {self._delta:g} at "
                f"d = {dim} (its exact stretch tail is {stretch_tail(max(1, m), self.beta):.3g})")
            self.guarantee = (
                f"ε·d(x, x') metric DP per token, δ = 0: at β = {self.beta:g} {why}, so no "
                f"projection is applied (identity: exact distances); "
                f"the noise keeps the sensitivity 1 + β = {1.0 + self.beta:g}, so the bound "
                f"is in fact (ε/{1.0 + self.beta:g})·d(x, x')")
            super().prepare(candidates, index, rng)
            return
        m = projected_dim(dim, self._delta, self.beta)
        self.guarantee = (
            f"(ε·d(x, x'), δ) metric DP per token, δ = {self._delta:g} per pair of inputs: "
            f"the Gaussian projection from d = {dim} to m = {m} dims, drawn once and kept "
            f"secret, stretches a pair's distance past 1 + β = {1.0 + self.beta:g} (the "
            f"noise's sensitivity) with probability ≤ δ")
        gen = rng.spawn().numpy
        proj = gen.standard_normal((dim, m)) / math.sqrt(m)
        self.matrix = torch.from_numpy(proj.astype(np.float32)).to(index.device)
        projected = candidates @ proj.astype(np.float32)
        # Decode in the projected space: a fresh index of the projected candidates.
        super().prepare(projected, NeighbourIndex(projected, backend=index.backend,
                                                  device=index.device, recall=index.recall), rng)

    def noise(self, n: int, dim: int, rng: RandomSource, device: torch.device) -> torch.Tensor:
        return multivariate_laplace(n, dim, self.epsilon / (1.0 + self.beta), rng, device)

    def radial_law(self, rows: np.ndarray) -> RadialLaw:
        """Multivariate Laplace noise at ε/(1 + β) in the (projected) decode space."""
        space = np.ascontiguousarray(self.candidates, dtype=np.float32)
        m = space.shape[1]
        return RadialLaw(space, space[rows], sphere_directions(m),
                         laplace_radius_cdf(m, scale=1.0 + self.beta))

    def decode_space(self, candidates: np.ndarray) -> np.ndarray:
        if self.matrix is None:
            return candidates
        return candidates @ self.matrix.cpu().numpy()

    def perturb(self, vectors: torch.Tensor, rng: RandomSource) -> torch.Tensor:
        if self.index is None:
            raise RuntimeError("projection was used before prepare()")
        if self.matrix is not None:
            vectors = vectors @ self.matrix.to(vectors.device)
        return super().perturb(vectors, rng)

    def params(self) -> dict[str, Any]:
        return {"epsilon": self.epsilon, "delta": self._delta, "beta": self.beta}
