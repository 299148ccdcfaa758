"""``mahalanobis``: the Mahalanobis mechanism (Xu et al. 2020).

Noise is shaped by the table's covariance so that words in sparse regions move further:
z = Gamma(d, 1/ε) · Σ_λ^{1/2} u with u uniform on the sphere and
Σ_λ = λ·Σ/var + (1 − λ)·I. λ = 0 is exactly ``mlaplace``. The matrix root is computed once
per table (eigendecomposition of a symmetric PSD matrix).
"""

from __future__ import annotations

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
from textdp.validation import check_closed_unit

DEFAULT_LAMBDA = 0.2


def regularised_covariance_root(vectors: np.ndarray, lam: float) -> np.ndarray:
    """Σ_λ^{1/2} for Σ_λ = λ·cov/var + (1 − λ)·I (the paper's normalisation)."""
    vectors = np.asarray(vectors, dtype=np.float64)
    cov = np.cov(vectors, rowvar=False) / np.var(vectors)
    sigma = lam * cov + (1.0 - lam) * np.eye(vectors.shape[1])
    values, basis = np.linalg.eigh(sigma)
    return (basis * np.sqrt(np.clip(values, 0.0, None))) @ basis.T


@register_mechanism
class Mahalanobis(NoiseMechanism):
    """Elliptical noise from the table's regularised covariance, nearest public word."""

    name = "mahalanobis"
    description = "Mahalanobis mechanism: noise shaped by λ·Σ + (1-λ)·I, nearest word"
    guarantee = "ε·d_Σλ(x, x') metric DP per token (regularised Mahalanobis norm)"
    metric = "mahalanobis"
    releases_table = True  # the noisy vector itself is the private output before decoding

    def __init__(self, epsilon: float, lam: float = DEFAULT_LAMBDA) -> None:
        super().__init__(epsilon)
        self.lam = check_closed_unit("lam (Mahalanobis λ)", lam)
        self._root: torch.Tensor | None = None

    def prepare(self, candidates: np.ndarray, index: NeighbourIndex, rng: RandomSource) -> None:
        super().prepare(candidates, index, rng)
        root = regularised_covariance_root(candidates, self.lam)
        self._root = torch.from_numpy(root.astype(np.float32)).to(index.device)

    def noise(self, n: int, dim: int, rng: RandomSource, device: torch.device) -> torch.Tensor:
        z = multivariate_laplace(n, dim, self.epsilon, rng, device)
        if self._root is None:
            raise RuntimeError("mahalanobis was used before prepare()")
        return z @ self._root.to(device)  # root is symmetric, so z·R = (R·zᵀ)ᵀ

    def radial_law(self, rows: np.ndarray) -> RadialLaw:
        """A uniform direction shaped by Σ_λ^{1/2} times a Gamma(d, 1/ε) radius."""
        if self._root is None:
            raise RuntimeError("mahalanobis was used before prepare()")
        vectors = self.candidates
        dim = vectors.shape[1]
        root = self._root.cpu()
        sphere = sphere_directions(dim)
        return RadialLaw(vectors, vectors[rows], lambda n, rng: sphere(n, rng) @ root,
                         laplace_radius_cdf(dim))

    def params(self) -> dict[str, Any]:
        return {"epsilon": self.epsilon, "lam": self.lam}
