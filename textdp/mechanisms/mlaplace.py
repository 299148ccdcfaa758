"""``mlaplace``: calibrated multivariate perturbation (Feyisetan et al., WSDM 2020)."""

from __future__ import annotations

import numpy as np
import torch

from textdp.mechanisms.base import (
    NoiseMechanism,
    RadialLaw,
    laplace_radius_cdf,
    multivariate_laplace,
    register_mechanism,
    sphere_directions,
)
from textdp.rng import RandomSource


@register_mechanism
class MultivariateLaplace(NoiseMechanism):
    """Add noise with density ∝ exp(−ε‖z‖), decode to the nearest public word."""

    name = "mlaplace"
    description = "Calibrated multivariate perturbation: x + z, p(z) ∝ exp(-ε‖z‖), nearest word"
    guarantee = "ε·d(x, x') metric DP per token (Euclidean distance in the table)"
    metric = "euclidean"
    releases_table = True  # the noisy vector itself is the private output before decoding

    def noise(self, n: int, dim: int, rng: RandomSource, device: torch.device) -> torch.Tensor:
        return multivariate_laplace(n, dim, self.epsilon, rng, device)

    def radial_law(self, rows: np.ndarray) -> RadialLaw:
        """A uniform direction times a Gamma(d, 1/ε) radius, around the word itself."""
        vectors = self.candidates
        dim = vectors.shape[1]
        return RadialLaw(vectors, vectors[rows], sphere_directions(dim), laplace_radius_cdf(dim))
