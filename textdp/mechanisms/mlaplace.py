"""``mlaplace``: calibrated multivariate perturbation (Feyisetan et al., WSDM 2020)."""

from __future__ import annotations

import torch

from textdp.mechanisms.base import NoiseMechanism, multivariate_laplace
from textdp.rng import RandomSource


class MultivariateLaplace(NoiseMechanism):
    """Add noise with density ∝ exp(−ε‖z‖), decode to the nearest public word."""

    name = "mlaplace"
    description = "Calibrated multivariate perturbation: x + z, p(z) ∝ exp(-ε‖z‖), nearest word"
    guarantee = "ε·d(x, x') metric DP per token (Euclidean distance in the table)"
    metric = "euclidean"

    def noise(self, n: int, dim: int, rng: RandomSource, device: torch.device) -> torch.Tensor:
        return multivariate_laplace(n, dim, self.epsilon, rng, device)
