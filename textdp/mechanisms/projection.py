"""``projection``: Mechanism 2 of Feyisetan & Kasiviswanathan (TrustNLP 2021).

A Gaussian random projection (Johnson–Lindenstrauss) of the vectors to
m = ⌊(ln d + √ln(1/δ))² / β²⌋ dimensions keeps every distance within a factor (1 ± β) with
probability ≥ 1 − δ; multivariate Laplace noise calibrated to sensitivity 1 + β is then added in
the projected space and decoded against the projected candidates. The projection is drawn once,
independently of any text.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch

from textdp.index import NeighbourIndex
from textdp.mechanisms.base import NoiseMechanism, multivariate_laplace
from textdp.rng import RandomSource
from textdp.validation import check_open_unit, check_positive

DEFAULT_DELTA = 1e-6
DEFAULT_BETA = 0.7


def projected_dim(dim: int, delta: float, beta: float) -> int:
    """m = ⌊(ln d + √ln(1/δ))² / β²⌋, never more than ``dim`` nor less than 1."""
    m = math.floor((math.log(dim) + math.sqrt(math.log(1.0 / delta))) ** 2 / beta**2)
    return max(1, min(dim, m))


class Projection(NoiseMechanism):
    """Random projection to m dims, multivariate Laplace with sensitivity 1 + β, decode there."""

    name = "projection"
    description = "Mechanism 2: Gaussian random projection to m dims, mLaplace with sens. 1+β"
    guarantee = "(ε·d(x, x'), δ) metric DP per token (distances kept within 1±β w.p. 1-δ)"

    def __init__(self, epsilon: float, delta: float = DEFAULT_DELTA,
                 beta: float = DEFAULT_BETA) -> None:
        super().__init__(epsilon)
        self._delta = check_open_unit("delta", delta)
        self.beta = check_positive("beta (projection distortion)", beta)
        self.matrix: torch.Tensor | None = None

    @property
    def delta(self) -> float:
        return self._delta

    def prepare(self, candidates: np.ndarray, index: NeighbourIndex, rng: RandomSource) -> None:
        dim = candidates.shape[1]
        m = projected_dim(dim, self._delta, self.beta)
        gen = rng.spawn().numpy
        proj = gen.standard_normal((dim, m)) / math.sqrt(m)
        self.matrix = torch.from_numpy(proj.astype(np.float32)).to(index.device)
        projected = candidates @ proj.astype(np.float32)
        # Decode in the projected space: a fresh index of the projected candidates.
        super().prepare(projected, NeighbourIndex(projected, backend=index.backend,
                                                  device=index.device, recall=index.recall), rng)

    def noise(self, n: int, dim: int, rng: RandomSource, device: torch.device) -> torch.Tensor:
        return multivariate_laplace(n, dim, self.epsilon / (1.0 + self.beta), rng, device)

    def perturb(self, vectors: torch.Tensor, rng: RandomSource) -> torch.Tensor:
        if self.matrix is None:
            raise RuntimeError("projection was used before prepare()")
        return super().perturb(vectors @ self.matrix.to(vectors.device), rng)

    def params(self) -> dict[str, Any]:
        return {"epsilon": self.epsilon, "delta": self._delta, "beta": self.beta}
