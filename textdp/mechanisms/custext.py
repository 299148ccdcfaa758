"""``custext``: CusText's customised exponential mechanism (Chen et al., Findings of ACL 2023).

Each input gets a small customised output set instead of the whole vocabulary. As in the
paper's mapping step, the public table alone is partitioned into sets of K words: in table order
(most frequent words first in spaCy, GloVe and word2vec tables), each word not yet placed opens a
set with its K − 1 nearest words not yet placed (a last set smaller than K joins the one before,
so no word is left alone). A word's output set is its own set, so every word of a set has the
same output set; that is what makes the guarantee a DP one. The partition is built from the
public table only (docs/architecture.md rule 1) and cached per table.

Per token, the input's set is the set of its nearest table word (a table word: its own set),
and a member y is drawn with P(y | x) ∝ exp(ε·u(x, y)/2), u(x, y) = 1 − (d(x, y) − d_lo)/(d_hi −
d_lo) the Euclidean distance min-max normalised over the set (u ∈ [0, 1]: sensitivity 1), as
the paper and pyPANTERA's ``CusText`` do. pyPANTERA builds a top-K set *per word*, so two words
rarely share a set and nothing bounds the ratio of their output laws (one may output what the
other never can); the partition restores the paper's guarantee.

Guarantee: pure ε-DP per token between any two inputs mapped to the same set; the set itself
(which of |V|/K groups the word is in) is not protected.
"""

from __future__ import annotations

import hashlib
import math
from typing import Any

import numpy as np
import torch

from textdp.index import NeighbourIndex
from textdp.mechanisms.base import Mechanism, register_mechanism
from textdp.mechanisms.exponential import gumbel_noise
from textdp.rng import RandomSource
from textdp.validation import check_positive_int

DEFAULT_K = 20  # the paper's default size of a customised output set
_CHUNK_CELLS = 1 << 22
_PARTITIONS: dict[tuple[str, tuple[int, ...], int], tuple[np.ndarray, np.ndarray]] = {}


def partition_table(candidates: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """CusText's mapping on a public table: ``(sets, set_of_row)``.

    ``sets`` is ``(n_sets, width)`` candidate rows padded with −1 (width K, or up to 2K − 1 for
    the last set); ``set_of_row[r]`` is the set holding row ``r``. Greedy in table order: each
    unplaced row opens a set with its K − 1 nearest unplaced rows (exact Euclidean distances).
    """
    k = check_positive_int("k (CusText set size)", k)
    data = np.ascontiguousarray(candidates, dtype=np.float32)
    key = (hashlib.blake2b(data.tobytes(), digest_size=16).hexdigest(), data.shape, k)
    if key in _PARTITIONS:
        return _PARTITIONS[key]
    n = data.shape[0]
    x = torch.from_numpy(data)
    sq = (x * x).sum(dim=1)
    placed = np.zeros(n, dtype=bool)
    set_of_row = np.full(n, -1, dtype=np.int64)
    groups: list[np.ndarray] = []
    block = max(1, _CHUNK_CELLS // max(1, n))
    r = 0  # rows before r are placed
    n_placed = 0
    while r < n:
        # The next unplaced rows in table order are the openers of the next sets (unless an
        # earlier one of them takes them): their distances come from one matrix product, not
        # one matrix-vector product per set, so the table is read once per block, not per
        # set. The per-set steps are numpy's: one thread, no parallel region per small step.
        rows = np.flatnonzero(~placed[r:])[:block] + r
        if rows.size == 0:
            break
        with torch.inference_mode():
            at = torch.from_numpy(rows)
            d2_block = (sq[at, None] + sq[None, :] - 2.0 * (x[at] @ x.T)).numpy()
        for i, row in enumerate(rows.tolist()):
            if placed[row]:
                continue
            left = n - n_placed
            if left < k and groups:  # too few for a set of their own: join the last set
                rest = np.flatnonzero(~placed)
                groups[-1] = np.concatenate([groups[-1], rest])
                set_of_row[rest] = len(groups) - 1
                placed[rest] = True
                break
            d2 = d2_block[i]
            d2[placed] = math.inf
            d2[row] = -1.0  # the row itself opens its set
            members = _nearest_first(d2, min(k, left))
            placed[members] = True
            n_placed += len(members)
            set_of_row[members] = len(groups)
            groups.append(members)
        r = int(rows[-1]) + 1
    width = max(len(g) for g in groups)
    sets = np.full((len(groups), width), -1, dtype=np.int64)
    for i, g in enumerate(groups):
        sets[i, :len(g)] = g
    _PARTITIONS[key] = (sets, set_of_row)
    return sets, set_of_row


def _nearest_first(d2: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` smallest entries, nearest first, equal distances by index."""
    part = np.argpartition(d2, k - 1)[:k] if k < d2.size else np.arange(d2.size)
    return part[np.lexsort((part, d2[part]))]


def set_logits(inputs: torch.Tensor, members: torch.Tensor, candidates: torch.Tensor,
               epsilon: float) -> torch.Tensor:
    """ε·u(x, y)/2 per (input, member) (float64), −inf on padding (``members`` = −1)."""
    valid = members >= 0
    vecs = candidates[members.clamp_min(0)].double()            # (n, width, dim)
    d = torch.linalg.vector_norm(vecs - inputs.double()[:, None, :], dim=2)
    d_lo = torch.where(valid, d, torch.full_like(d, math.inf)).min(dim=1, keepdim=True).values
    d_hi = torch.where(valid, d, torch.full_like(d, -math.inf)).max(dim=1, keepdim=True).values
    span = d_hi - d_lo
    u = torch.where(span > 0, 1.0 - (d - d_lo) / span.clamp_min(1e-300), torch.ones_like(d))
    return torch.where(valid, epsilon / 2.0 * u, torch.full_like(d, -math.inf))


@register_mechanism
class CusText(Mechanism):
    """Exponential mechanism over a customised output set from a public partition."""

    name = "custext"
    description = ("CusText (Chen et al. 2023): exponential mechanism over the input's set of "
                   "K similar public words (a partition of the table)")
    guarantee = ("ε-DP per token between inputs mapped to the same customised set of K public "
                 "words (a public partition of the table); which set it is is not protected")
    metric = None  # ε is a plain DP budget within one set

    def __init__(self, epsilon: float, k: int = DEFAULT_K) -> None:
        super().__init__(epsilon)
        self.k = check_positive_int("k (CusText set size)", k)
        if self.k < 2:
            raise ValueError(f"k (CusText set size) must be at least 2, got {k!r}")
        self._sets: torch.Tensor | None = None
        self._set_of_row: torch.Tensor | None = None
        self._matrix: torch.Tensor | None = None

    def prepare(self, candidates: np.ndarray, index: NeighbourIndex, rng: RandomSource) -> None:
        super().prepare(candidates, index, rng)
        sets, set_of_row = partition_table(candidates, self.k)
        device = index.device
        self._sets = torch.from_numpy(sets).to(device)
        self._set_of_row = torch.from_numpy(set_of_row).to(device)
        self._matrix = torch.from_numpy(np.ascontiguousarray(candidates, np.float32)).to(device)

    def sample(
        self, vectors: torch.Tensor, inverse: torch.Tensor, rng: RandomSource,
        index: NeighbourIndex | None = None,
    ) -> torch.Tensor:
        index = self._decode_index(index)
        assert self._sets is not None and self._set_of_row is not None
        device = index.device
        vectors = vectors.to(device)
        inverse = inverse.to(device)
        nearest = index.search(vectors, k=1)[1][:, 0]
        members = self._sets[self._set_of_row[nearest]]            # (distinct, width)
        assert self._matrix is not None
        width = members.shape[1]
        logits = torch.empty((vectors.shape[0], width), dtype=torch.float64, device=device)
        step = max(1, _CHUNK_CELLS // (width * max(1, vectors.shape[1])))
        for lo in range(0, vectors.shape[0], step):
            hi = min(vectors.shape[0], lo + step)
            logits[lo:hi] = set_logits(vectors[lo:hi], members[lo:hi], self._matrix,
                                       self.epsilon)
        out = torch.empty(inverse.shape[0], dtype=torch.int64, device=device)
        token_step = max(1, _CHUNK_CELLS // width)
        for lo in range(0, inverse.shape[0], token_step):
            rows = inverse[lo:lo + token_step]
            scores = logits[rows] + gumbel_noise((rows.shape[0], width), rng, device)
            out[lo:lo + token_step] = members[rows, scores.argmax(dim=1)]
        return out

    def params(self) -> dict[str, Any]:
        return {"epsilon": self.epsilon, "k": self.k}
