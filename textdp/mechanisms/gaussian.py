"""``gaussian``: Gaussian noise with σ from the analytic Gaussian mechanism (Balle & Wang 2018).

σ is the smallest noise scale for which the exact privacy profile of the Gaussian mechanism
with L2 sensitivity Δ meets (ε, δ):

    Φ(Δ/(2σ) − εσ/Δ) − e^ε · Φ(−Δ/(2σ) − εσ/Δ) ≤ δ,

solved by root finding on that (monotone) condition. By default Δ is an upper bound on the
table's diameter, which gives (ε, δ)-DP between *any* two words; a smaller ``sensitivity``
gives the guarantee only for words within that distance of each other.
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
    register_mechanism,
    sphere_directions,
)
from textdp.rng import RandomSource
from textdp.validation import check_epsilon, check_open_unit, check_positive

DEFAULT_DELTA = 1e-6


def gaussian_delta(sigma: float, epsilon: float, sensitivity: float = 1.0) -> float:
    """The exact δ(ε) of the Gaussian mechanism with noise ``sigma`` (Balle & Wang, Thm 8)."""
    from scipy.special import log_ndtr

    a = sensitivity / (2.0 * sigma)
    b = epsilon * sigma / sensitivity
    return float(math.exp(log_ndtr(a - b)) - math.exp(epsilon + log_ndtr(-a - b)))


def analytic_gaussian_sigma(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """Smallest σ with ``gaussian_delta(σ, ε, Δ) ≤ δ`` (to relative precision 1e-12)."""
    from scipy.optimize import brentq

    epsilon = check_epsilon(epsilon)
    delta = check_open_unit("delta", delta)
    sensitivity = check_positive("sensitivity", sensitivity)

    def excess(log_sigma: float) -> float:
        return gaussian_delta(math.exp(log_sigma), epsilon, sensitivity) - delta

    lo, hi = math.log(sensitivity) - 30.0, math.log(sensitivity) + 30.0
    log_sigma = brentq(excess, lo, hi, xtol=1e-14, rtol=1e-13, maxiter=500)
    sigma = math.exp(log_sigma)
    # brentq may land a hair below the root; nudge up so the condition holds.
    while gaussian_delta(sigma, epsilon, sensitivity) > delta:
        sigma *= 1.0 + 1e-12
    return sigma


def diameter_bound(vectors: np.ndarray) -> float:
    """2·max‖v − mean‖: an upper bound on the largest distance between two table rows."""
    centred = vectors - vectors.mean(axis=0, keepdims=True)
    return float(2.0 * np.sqrt((centred.astype(np.float64) ** 2).sum(axis=1).max()))


def chi_cdf(x: np.ndarray, dim: int) -> np.ndarray:
    """P(‖g‖ < x) for g standard normal in ``dim`` dimensions (a Gaussian noise radius)."""
    from scipy.special import gammainc

    return gammainc(dim / 2.0, np.square(x) / 2.0)


@register_mechanism
class Gaussian(NoiseMechanism):
    """Isotropic Gaussian noise calibrated by the analytic Gaussian mechanism."""

    name = "gaussian"
    description = "Gaussian noise, σ from the analytic Gaussian mechanism, nearest word"
    guarantee = "(ε, δ)-DP per token for inputs within L2 distance `sensitivity` (default: all)"
    releases_table = True  # the noisy vector itself is the private output before decoding

    def __init__(self, epsilon: float, delta: float = DEFAULT_DELTA,
                 sensitivity: float | str = "diameter") -> None:
        super().__init__(epsilon)
        self._delta = check_open_unit("delta", delta)
        if sensitivity != "diameter":
            sensitivity = check_positive("sensitivity", sensitivity)
        self.sensitivity = sensitivity
        self.sigma: float | None = None

    @property
    def delta(self) -> float:
        return self._delta

    def prepare(self, candidates: np.ndarray, index: NeighbourIndex, rng: RandomSource) -> None:
        super().prepare(candidates, index, rng)
        sens = diameter_bound(candidates) if self.sensitivity == "diameter" \
            else float(self.sensitivity)
        self.sigma = analytic_gaussian_sigma(self.epsilon, self._delta, sens)

    def noise(self, n: int, dim: int, rng: RandomSource, device: torch.device) -> torch.Tensor:
        if self.sigma is None:
            raise RuntimeError("gaussian was used before prepare()")
        return rng.normal((n, dim), device) * self.sigma

    def radial_law(self, rows: np.ndarray) -> RadialLaw:
        """A uniform direction times a chi(d) radius scaled by σ(ε) of the sensitivity."""
        vectors = self.candidates
        dim = vectors.shape[1]
        sens = diameter_bound(vectors) if self.sensitivity == "diameter" \
            else float(self.sensitivity)
        delta = self.delta
        return RadialLaw(vectors, vectors[rows], sphere_directions(dim),
                         lambda t, eps: chi_cdf(t / (sens * analytic_gaussian_sigma(
                             eps, delta, 1.0)), dim))

    def params(self) -> dict[str, Any]:
        return {"epsilon": self.epsilon, "delta": self._delta, "sensitivity": self.sensitivity}
