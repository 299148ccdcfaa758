"""``tem``: the truncated exponential mechanism (Carvalho et al. 2021).

Candidates within distance γ of the input are scored by −d; all others share the score −γ
(the paper's ⊥ element followed by a uniform draw outside the γ-ball). This is the exponential
mechanism with score −min(d, γ), sampled with P ∝ exp(−ε·min(d, γ)/2), and
γ = (2/ε)·ln((1 − β)·|V| / β).
"""

from __future__ import annotations

import math
from typing import Any

import torch

from textdp.index import NeighbourIndex
from textdp.mechanisms.base import Mechanism, register_mechanism
from textdp.mechanisms.exponential import sample_from_logits
from textdp.rng import RandomSource
from textdp.validation import check_open_unit

DEFAULT_BETA = 0.001


@register_mechanism
class TruncatedExponential(Mechanism):
    """Exponential mechanism over distances, truncated at γ."""

    name = "tem"
    description = "Truncated exponential mechanism: P(y) ∝ exp(-ε·min(d(x,y), γ)/2)"
    guarantee = "ε·d(x, x') metric DP per token"
    metric = "euclidean"
    #: An exponential mechanism over any fixed public candidate set keeps the ε·d bound.
    decodes_subsets = True

    def __init__(self, epsilon: float, beta: float = DEFAULT_BETA) -> None:
        super().__init__(epsilon)
        self.beta = check_open_unit("beta (TEM truncation)", beta)

    def gamma(self, vocab_size: int) -> float:
        """The truncation radius γ for a vocabulary of ``vocab_size`` words."""
        return 2.0 / self.epsilon * math.log((1.0 - self.beta) * vocab_size / self.beta)

    def sample(
        self, vectors: torch.Tensor, inverse: torch.Tensor, rng: RandomSource,
        index: NeighbourIndex | None = None,
    ) -> torch.Tensor:
        index = self._decode_index(index)
        gamma = self.gamma(len(index))
        half_eps = self.epsilon / 2.0
        return sample_from_logits(
            vectors, inverse, index, lambda d: -half_eps * d.clamp(max=gamma), rng
        )

    def params(self) -> dict[str, Any]:
        return {"epsilon": self.epsilon, "beta": self.beta}
