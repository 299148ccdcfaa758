"""``diffractor``: 1-Diffractor (Meisenbacher, Chevli & Matthes, IWSPA 2024).

The public table is turned into L one-dimensional word lists: each list is a greedy
nearest-neighbour chain (start at a word, repeatedly append the nearest word not yet listed,
looked up among its 50 nearest words; where all 50 are listed, the first unlisted word in table
order), as the authors' ``create_sorted_list``. The paper builds one list per embedding model
(five public models); with one table the L lists here start from L evenly spaced words of the
table, so they differ. Lists are built from the public table only and cached per table.

Per token, the input's position in a list is that of its nearest table word (a table word: its
own position), and a new position is drawn on the list:

* ``method="geometric"`` (the paper's default): position + G₁ − G₂, G ~ Geometric(1 − e^(−ε)),
  i.e. a two-sided geometric law P(j) ∝ exp(−ε·|j − i|), clipped to the list (post-processing);
* ``method="tem"``: the truncated exponential mechanism on positions, window ±γ scored
  −|j − i|, every position outside it scored −γ, P ∝ exp(ε·score/2).

The authors draw a candidate from every list and publish one of the L candidates uniformly at
random. Drawing one list uniformly and only its candidate gives exactly the same output law and
is L times cheaper: that is the faster substitution used here.

Guarantee: each list's draw is ε·|π_l(x) − π_l(x')| metric DP (π_l: position in list l), and a
uniform mixture of them is ε·max_l |π_l(x) − π_l(x')| metric DP (a ratio of averages is at most
the largest ratio). The distance is that of list positions, not of embeddings.
"""

from __future__ import annotations

import hashlib
import math
from typing import Any

import numpy as np
import torch

from textdp.index import NeighbourIndex, nearest_other_rows
from textdp.mechanisms.base import Mechanism, register_mechanism
from textdp.mechanisms.exponential import gumbel_noise
from textdp.rng import RandomSource
from textdp.validation import check_choice, check_positive_int

DEFAULT_LISTS = 5   # the paper's five embedding models
DEFAULT_GAMMA = 5   # the authors' TEM window
METHODS = ("geometric", "tem")
NEIGHBOURS = 50     # the authors' look-ahead when chaining
_LISTS: dict[tuple[str, tuple[int, ...], int], tuple[np.ndarray, np.ndarray]] = {}


def chain(neighbours: np.ndarray, start: int) -> np.ndarray:
    """A greedy nearest-neighbour ordering of every row, starting at ``start``."""
    n = neighbours.shape[0]
    listed = np.zeros(n, dtype=bool)
    order = np.empty(n, dtype=np.int64)
    nxt = 0  # first row, in table order, that may still be unlisted
    current = start
    for step in range(n):
        order[step] = current
        listed[current] = True
        if step == n - 1:
            break
        free = neighbours[current][~listed[neighbours[current]]]
        if free.size:
            current = int(free[0])
        else:
            while listed[nxt]:
                nxt += 1
            current = nxt
    return order


def sorted_lists(candidates: np.ndarray, n_lists: int) -> tuple[np.ndarray, np.ndarray]:
    """``(orders, positions)``, both ``(n_lists, n)``: ``orders[l, j]`` is the row at position
    ``j`` of list ``l`` and ``positions[l, r]`` the position of row ``r``. Cached per table."""
    data = np.ascontiguousarray(candidates, dtype=np.float32)
    key = (hashlib.blake2b(data.tobytes(), digest_size=16).hexdigest(), data.shape, n_lists)
    if key in _LISTS:
        return _LISTS[key]
    n = data.shape[0]
    neighbours = nearest_other_rows(data, NEIGHBOURS)[1] if n > 1 else \
        np.zeros((n, 0), dtype=np.int64)
    orders = np.stack([chain(neighbours, (i * n) // n_lists) for i in range(n_lists)])
    positions = np.empty_like(orders)
    for i in range(n_lists):
        positions[i, orders[i]] = np.arange(n)
    _LISTS[key] = (orders, positions)
    return orders, positions


def two_sided_geometric(n: int, epsilon: float, rng: RandomSource) -> np.ndarray:
    """G₁ − G₂ for G ~ Geometric(1 − e^(−ε)) on {1, 2, …}: P(j) ∝ exp(−ε·|j|) on ℤ."""
    p = -math.expm1(-epsilon)
    return rng.numpy.geometric(p, size=n) - rng.numpy.geometric(p, size=n)


@register_mechanism
class Diffractor(Mechanism):
    """Noise on positions in L public one-dimensional word lists; one list per draw."""

    name = "diffractor"
    description = ("1-Diffractor (Meisenbacher et al. 2024): geometric (or TEM) noise on the "
                   "word's position in one of L public sorted word lists")
    guarantee = ("ε·max_l |π_l(x) − π_l(x')| metric DP per token, π_l the position of the "
                 "input's nearest table word in public sorted list l (list positions, not "
                 "embedding distances)")
    metric = "list_position"

    def __init__(self, epsilon: float, lists: int = DEFAULT_LISTS, method: str = "geometric",
                 gamma: int = DEFAULT_GAMMA) -> None:
        super().__init__(epsilon)
        self.lists = check_positive_int("lists (Diffractor)", lists)
        self.method = check_choice("method (Diffractor)", method, METHODS)
        self.gamma = check_positive_int("gamma (Diffractor TEM window)", gamma)
        self._orders: torch.Tensor | None = None
        self._positions: torch.Tensor | None = None

    def prepare(self, candidates: np.ndarray, index: NeighbourIndex, rng: RandomSource) -> None:
        super().prepare(candidates, index, rng)
        orders, positions = sorted_lists(candidates, self.lists)
        self._orders = torch.from_numpy(orders).to(index.device)
        self._positions = torch.from_numpy(positions).to(index.device)

    def sample(
        self, vectors: torch.Tensor, inverse: torch.Tensor, rng: RandomSource,
        index: NeighbourIndex | None = None,
    ) -> torch.Tensor:
        index = self._decode_index(index)
        assert self._orders is not None and self._positions is not None
        device = index.device
        n = len(index)
        n_tok = int(inverse.shape[0])
        nearest = index.search(vectors.to(device), k=1)[1][:, 0][inverse.to(device)]
        which = torch.from_numpy(rng.numpy.integers(0, self.lists, size=n_tok)).to(device)
        pos = self._positions[which, nearest]
        if self.method == "geometric":
            noise = torch.from_numpy(two_sided_geometric(n_tok, self.epsilon, rng)).to(device)
            new = (pos + noise).clamp_(0, n - 1)
        else:
            new = self._tem(pos, n, rng, device)
        return self._orders[which, new]

    def _tem(self, pos: torch.Tensor, n: int, rng: RandomSource, device: torch.device
             ) -> torch.Tensor:
        """TEM on positions: window columns, then one ⊥ column for the rest of the list."""
        g = self.gamma
        offsets = torch.arange(-g, g + 1, device=device)
        window = pos[:, None] + offsets[None, :]                       # (tokens, 2γ+1)
        inside = (window >= 0) & (window < n)
        lo = (pos - g).clamp_min(0)
        hi = (pos + g).clamp_max(n - 1)
        outside = (n - (hi - lo + 1)).double()
        half = self.epsilon / 2.0
        logits = torch.where(inside, -half * offsets.abs().double()[None, :],
                             torch.full(window.shape, -math.inf, dtype=torch.float64,
                                        device=device))
        bottom = torch.where(outside > 0, -half * g + outside.clamp_min(1).log(),
                             torch.full_like(outside, -math.inf))
        logits = torch.cat([logits, bottom[:, None]], dim=1)
        pick = (logits + gumbel_noise(tuple(logits.shape), rng, device)).argmax(dim=1)
        u = torch.from_numpy(rng.numpy.random(pos.shape[0])).to(device)
        j = (u * outside).floor().long().clamp_max((outside - 1).clamp_min(0).long())
        far = torch.where(j < lo, j, j + (hi - lo + 1))
        near = window.gather(1, pick.clamp_max(2 * g)[:, None])[:, 0]
        return torch.where(pick == 2 * g + 1, far, near)

    def params(self) -> dict[str, Any]:
        return {"epsilon": self.epsilon, "lists": self.lists, "method": self.method,
                "gamma": self.gamma}
