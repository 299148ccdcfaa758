"""``santext``: SanText's exponential mechanism (Yue et al. 2021).

P(y | x) ∝ exp(−ε·d(x, y)/2) over the whole public vocabulary. The paper materialises a
|V|×|V| probability matrix; here rows are computed per distinct input in chunks.
"""

from __future__ import annotations

import torch

from textdp.index import NeighbourIndex
from textdp.mechanisms.base import Mechanism, register_mechanism
from textdp.mechanisms.exponential import sample_from_logits
from textdp.rng import RandomSource


@register_mechanism
class SanText(Mechanism):
    """Exponential mechanism with score −d(x, y)."""

    name = "santext"
    description = "SanText: sample y with P(y|x) ∝ exp(-ε·d(x,y)/2) over the public vocabulary"
    guarantee = "ε·d(x, x') metric DP per token"
    metric = "euclidean"
    #: An exponential mechanism over any fixed public candidate set keeps the ε·d bound.
    decodes_subsets = True

    def sample(
        self, vectors: torch.Tensor, inverse: torch.Tensor, rng: RandomSource,
        index: NeighbourIndex | None = None,
    ) -> torch.Tensor:
        index = self._decode_index(index)
        half_eps = self.epsilon / 2.0
        return sample_from_logits(vectors, inverse, index, lambda d: -half_eps * d, rng)
