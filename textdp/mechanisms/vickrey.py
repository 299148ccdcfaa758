"""``vickrey``: the Vickrey mechanism (Xu et al. 2021).

After multivariate-Laplace noise, take the two public words nearest to the *noisy* vector and
pick the second with probability t·d₁ / (t·d₁ + (1 − t)·d₂). The choice looks only at the
noisy vector and public distances, never at the original word (the peer implementation that
skips the original word breaks post-processing), so the guarantee is that of ``mlaplace``.

``vickrey_mahalanobis`` (pyPANTERA's ``VickreyMhl``) is the same choice after the Mahalanobis
mechanism's elliptical noise instead: its guarantee is that of ``mahalanobis``.
"""

from __future__ import annotations

from typing import Any

import torch

from textdp.index import NeighbourIndex
from textdp.mechanisms.base import NoiseMechanism, multivariate_laplace, register_mechanism
from textdp.mechanisms.mahalanobis import DEFAULT_LAMBDA, Mahalanobis
from textdp.rng import RandomSource
from textdp.validation import check_closed_unit

DEFAULT_T = 0.75


@register_mechanism
class Vickrey(NoiseMechanism):
    """Multivariate Laplace noise, then a second-price choice between the two nearest words."""

    name = "vickrey"
    description = "Vickrey mechanism: noisy vector, pick 1st or 2nd nearest word by threshold t"
    guarantee = "ε·d(x, x') metric DP per token (post-processing of mlaplace)"
    metric = "euclidean"

    def __init__(self, epsilon: float, t: float = DEFAULT_T) -> None:
        super().__init__(epsilon)
        self.t = check_closed_unit("t (Vickrey threshold)", t)

    def noise(self, n: int, dim: int, rng: RandomSource, device: torch.device) -> torch.Tensor:
        return multivariate_laplace(n, dim, self.epsilon, rng, device)

    def sample(
        self, vectors: torch.Tensor, inverse: torch.Tensor, rng: RandomSource,
        index: NeighbourIndex | None = None,
    ) -> torch.Tensor:
        index = self._decode_index(index)
        noisy = self.perturb(vectors.to(index.device)[inverse.to(index.device)], rng)
        dist, ids = index.search(noisy, k=2)
        d1, d2 = dist[:, 0], dist[:, 1]
        denom = self.t * d1 + (1.0 - self.t) * d2
        p_second = torch.where(denom > 0, self.t * d1 / denom.clamp_min(1e-30),
                               torch.zeros_like(d1))
        u = rng.uniform(p_second.shape, index.device)
        return torch.where(u < p_second, ids[:, 1], ids[:, 0])

    def params(self) -> dict[str, Any]:
        return {"epsilon": self.epsilon, "t": self.t}


@register_mechanism
class VickreyMahalanobis(Mahalanobis, Vickrey):
    """Mahalanobis-shaped noise (Xu et al. 2020), then the Vickrey choice (pyPANTERA's
    ``VickreyMhl``): post-processing of ``mahalanobis``. The noise and its preparation are
    :class:`Mahalanobis`'s, the choice :class:`Vickrey`'s (method resolution order). It does
    not inherit ``mahalanobis``'s ``radial_law`` nor ``releases_table`` (declared per class):
    the second-price choice is not a nearest-word decode, so calibration samples it."""

    name = "vickrey_mahalanobis"
    description = ("Vickrey mechanism on Mahalanobis noise (λ·Σ + (1-λ)·I): pick 1st or 2nd "
                   "nearest word by threshold t")
    guarantee = ("ε·d_Σλ(x, x') metric DP per token (regularised Mahalanobis norm; "
                 "post-processing of mahalanobis)")
    metric = "mahalanobis"

    def __init__(self, epsilon: float, t: float = DEFAULT_T, lam: float = DEFAULT_LAMBDA
                 ) -> None:
        Vickrey.__init__(self, epsilon, t)
        self.lam = check_closed_unit("lam (Mahalanobis λ)", lam)
        self._root = None

    def params(self) -> dict[str, Any]:
        return {"epsilon": self.epsilon, "t": self.t, "lam": self.lam}
