"""``truncated_gumbel``: the truncated Gumbel mechanism (Carvalho, Vasiloudis & Feyisetan 2021,
"Brr: preserving privacy of text data efficiently on device"; MLDP's ``TruncatedGumbel``).

Per token: draw k from a Poisson law with mean ln(|V| − 1) truncated to {0, …, |V| − 1}, take the
k public words nearest to the input, add to each distance an independent Gumbel(0, b) variable
truncated to [−Δmax, Δmax], and publish the word with the smallest noisy distance. The scale b
comes from the paper's calibration (as in the authors' code and MLDP):

    a = (ε − 2(1 + ln|V|)/Δmin) / 3,    b = 2Δmax / min(W(2aΔmax), ln(aΔmin)),

with W the Lambert W function, Δmin the smallest and Δmax the largest distance between two
distinct words of the table. It is defined only where a·Δmin > 1, i.e.
ε > (2(1 + ln|V|) + 3)/Δmin; a smaller ε is refused when the table is bound (``prepare``),
before any text is read. (MLDP computes Δmin and Δmax from one random start word, which
over-estimates Δmin and under-estimates Δmax, i.e. adds less noise than the calibration asks
for; here both are exact over every pair of candidates.)

Two departures from MLDP, both required by docs/architecture.md rule 2: when k = 0 MLDP returns
the input word unchanged; here the token gets a uniform draw over the table instead (it depends
on no input, so mixing it in never raises the worst ratio of the k ≥ 1 draws, while a point mass on
the input would), and an input without a vector never
reaches a mechanism (the Privatizer gives it a public stand-in first). The k nearest words are
found exactly (the candidate set is part of the mechanism, not post-processing).
"""

from __future__ import annotations

import hashlib
import math
from typing import Any

import numpy as np
import torch

from textdp.index import NeighbourIndex
from textdp.mechanisms.base import Mechanism, register_mechanism
from textdp.mechanisms.exponential import _open_uniform
from textdp.rng import RandomSource

# Cells (rows × candidates) of float32 distances held at once.
_CHUNK_CELLS = 1 << 22
# Exact-rescored nearest rows per candidate when searching for Δmin.
_RESCORE = 8
# Per table: (Δmin, Δmax) keyed by a hash of the candidate matrix.
_EXTREMES: dict[tuple[str, tuple[int, ...]], tuple[float, float]] = {}


def _matrix_key(candidates: np.ndarray) -> tuple[str, tuple[int, ...]]:
    data = np.ascontiguousarray(candidates, dtype=np.float32)
    return hashlib.blake2b(data.tobytes(), digest_size=16).hexdigest(), data.shape


def pairwise_extremes(candidates: np.ndarray) -> tuple[float, float]:
    """(Δmin, Δmax): the smallest positive and the largest Euclidean distance between two rows.

    Every pair is scanned in float32 chunks; each row's few nearest rows are then re-scored in
    float64 (the expanded ‖a‖² + ‖b‖² − 2a·b form loses small distances to cancellation), so
    Δmin is exact. Rows with identical vectors (distance 0) do not count: they are
    indistinguishable to every mechanism. Cached per table.
    """
    key = _matrix_key(candidates)
    if key in _EXTREMES:
        return _EXTREMES[key]
    x64 = np.asarray(candidates, dtype=np.float64)
    n = x64.shape[0]
    if n < 2:
        raise ValueError("the table needs at least two candidate words")
    x = torch.from_numpy(np.ascontiguousarray(x64, dtype=np.float32))
    sq = (x * x).sum(dim=1)
    step = max(1, _CHUNK_CELLS // n)
    k = min(_RESCORE, n)
    d_min, d_max_sq = math.inf, 0.0
    with torch.inference_mode():
        for lo in range(0, n, step):
            hi = min(n, lo + step)
            d2 = (sq[lo:hi, None] + sq[None, :] - 2.0 * (x[lo:hi] @ x.T)).clamp_min_(0.0)
            d_max_sq = max(d_max_sq, float(d2.max()))
            d2[torch.arange(hi - lo), torch.arange(lo, hi)] = math.inf  # not the row itself
            near = torch.topk(d2, k, dim=1, largest=False).indices.numpy()
            exact = np.linalg.norm(x64[near] - x64[lo:hi, None, :], axis=2)
            positive = exact[exact > 0]
            if positive.size:
                d_min = min(d_min, float(positive.min()))
    if not math.isfinite(d_min):
        raise ValueError("every candidate vector is identical: Δmin is undefined")
    # float32 rounding of the largest distance: round it up by a relative 1e-5.
    d_max = max(math.sqrt(d_max_sq) * (1.0 + 1e-5), d_min)
    _EXTREMES[key] = (d_min, d_max)
    return d_min, d_max


def least_epsilon(vocab_size: int, min_distance: float) -> float:
    """The smallest ε the calibration accepts: (2(1 + ln|V|) + 3)/Δmin (then a·Δmin = 1)."""
    return (2.0 * (1.0 + math.log(vocab_size)) + 3.0) / min_distance


def gumbel_scale(epsilon: float, vocab_size: int, min_distance: float,
                 max_distance: float) -> float:
    """The paper's Gumbel scale b for ε on a table of ``vocab_size`` words with extremes
    Δmin, Δmax; ``ValueError`` (naming epsilon) where the calibration is undefined."""
    from scipy.special import lambertw

    a = (epsilon - 2.0 * (1.0 + math.log(vocab_size)) / min_distance) / 3.0
    if a * min_distance <= 1.0:
        raise ValueError(
            f"epsilon={epsilon!r} is below what the truncated Gumbel calibration allows on this "
            f"table: it needs epsilon > {least_epsilon(vocab_size, min_distance):.6g} "
            f"(|V| = {vocab_size}, smallest distance between two words {min_distance:.6g})")
    w = float(lambertw(2.0 * a * max_distance).real)
    return 2.0 * max_distance / min(w, math.log(a * min_distance))


def truncated_gumbel(shape: tuple[int, ...], scale: float, bound: float, rng: RandomSource,
                     device: torch.device) -> torch.Tensor:
    """Gumbel(0, ``scale``) draws conditioned on |g| ≤ ``bound`` (float64), by inverse CDF:
    F(g) = exp(−exp(−g/b)) restricted to [F(−bound), F(bound)]."""
    lo = math.exp(-math.exp(min(bound / scale, 700.0)))
    hi = math.exp(-math.exp(-bound / scale))
    u = _open_uniform(shape, rng, device).mul_(hi - lo).add_(lo)
    return u.log_().neg_().log_().mul_(-scale).clamp_(-bound, bound)


def truncated_poisson(n: int, mean: float, maximum: int, rng: RandomSource) -> np.ndarray:
    """``n`` Poisson(``mean``) draws conditioned on ≤ ``maximum`` (by rejection)."""
    k = rng.numpy.poisson(mean, size=n).astype(np.int64)
    bad = np.flatnonzero(k > maximum)
    while bad.size:
        k[bad] = rng.numpy.poisson(mean, size=bad.size)
        bad = bad[k[bad] > maximum]
    return k


@register_mechanism
class TruncatedGumbel(Mechanism):
    """k ~ truncated Poisson nearest words, truncated-Gumbel-noised distances, argmin."""

    name = "truncated_gumbel"
    description = ("Truncated Gumbel (Carvalho et al. 2021): k ~ Poisson(ln(|V|-1)) nearest "
                   "words, distance + truncated Gumbel noise, argmin")
    guarantee = ("ε·d(x, x') metric DP per token between words of the table, with the Gumbel "
                 "scale from Carvalho et al.'s (2021) calibration over the table's exact "
                 "smallest and largest word distances; defined for ε > (2(1 + ln|V|) + 3)/Δmin")
    metric = "euclidean"
    table_words_only = True  # Δmin, Δmax are those of the table's words

    def __init__(self, epsilon: float) -> None:
        super().__init__(epsilon)
        self.min_distance: float | None = None
        self.max_distance: float | None = None
        self.scale: float | None = None

    def prepare(self, candidates: np.ndarray, index: NeighbourIndex, rng: RandomSource) -> None:
        """Bind the table; raises ``ValueError`` naming epsilon if the calibration is
        undefined for it on this table (before any text is read)."""
        d_min, d_max = pairwise_extremes(candidates)
        scale = gumbel_scale(self.epsilon, len(candidates), d_min, d_max)
        super().prepare(candidates, index, rng)
        self.min_distance, self.max_distance, self.scale = d_min, d_max, scale

    def sample(
        self, vectors: torch.Tensor, inverse: torch.Tensor, rng: RandomSource,
        index: NeighbourIndex | None = None,
    ) -> torch.Tensor:
        index = self._decode_index(index)
        assert self.scale is not None and self.max_distance is not None
        device = index.device
        n_cand = len(index)
        n_tok = int(inverse.shape[0])
        k = truncated_poisson(n_tok, math.log(n_cand - 1) if n_cand > 2 else 0.0,
                              n_cand - 1, rng)
        out = torch.from_numpy(rng.numpy.integers(0, n_cand, size=n_tok)).to(device)
        k_max = int(k.max()) if n_tok else 0
        if k_max == 0:
            return out  # every token drew k = 0: uniform draws, independent of the input
        vectors = vectors.to(device)
        inverse = inverse.to(device)
        near_d = torch.empty((vectors.shape[0], k_max), dtype=torch.float64, device=device)
        near_i = torch.empty((vectors.shape[0], k_max), dtype=torch.int64, device=device)
        step = max(1, _CHUNK_CELLS // n_cand)
        for lo in range(0, vectors.shape[0], step):
            hi = min(vectors.shape[0], lo + step)
            dist = index.distances_to(vectors[lo:hi]).double()
            d, i = torch.topk(dist, k_max, dim=1, largest=False)
            near_d[lo:hi], near_i[lo:hi] = d, i
        k_t = torch.from_numpy(k).to(device)
        token_step = max(1, _CHUNK_CELLS // k_max)
        cols = torch.arange(k_max, device=device)
        for lo in range(0, n_tok, token_step):
            hi = min(n_tok, lo + token_step)
            rows = inverse[lo:hi]
            noisy = near_d[rows] + truncated_gumbel((hi - lo, k_max), self.scale,
                                                    self.max_distance, rng, device)
            noisy.masked_fill_(cols[None, :] >= k_t[lo:hi, None], math.inf)
            pick = noisy.argmin(dim=1)
            chosen = near_i[rows, pick]
            out[lo:hi] = torch.where(k_t[lo:hi] > 0, chosen, out[lo:hi])
        return out

    def params(self) -> dict[str, Any]:
        return {"epsilon": self.epsilon}
