"""Batched sampling for exponential-mechanism substitutions (``tem``, ``santext``).

Score rows are computed once per *distinct* input vector, in chunks, so no |V|×|V| matrix is
ever held; every token still gets its own draw.

Draws use the Gumbel-max trick in log space: with G_j independent standard Gumbel variables,
P(argmax_j (ℓ_j + G_j) = j) = exp(ℓ_j) / Σ_k exp(ℓ_k), the softmax of the logits ℓ itself,
whatever the row's position in the batch. Nothing is summed across candidates or rows, so no
candidate's probability is rounded away by a cumulative total. (Inverse-CDF sampling on one
flat float64 CDF with a row offset did that: a candidate whose probability was below the
spacing of float64 numbers near the running total, or near the row's offset, could never be
drawn, and that spacing grew with the row's position in the batch.)

Each token draws in two Gumbel-max stages over blocks of S = ⌈√|V|⌉ consecutive candidates:
first a block b with logit log Σ_{k∈b} exp(ℓ_k) (a log-sum-exp per block, computed once per
distinct row), then a candidate j inside b with logit ℓ_j. The product of the two softmaxes is
exp(ℓ_j) / Σ_k exp(ℓ_k) again, exactly; a token costs about 2√|V| Gumbels instead of |V|, so
many tokens of one word (``targets="all"``) stay cheap.

The Gumbels come from :meth:`RandomSource.uniform`, so a seed or ``secure=True`` (ChaCha20)
governs every random bit. G = −log(E) with E = −log(1 − V) ~ Exponential(1) and V uniform on
the open interval (0, 1), built as (k + ½)·2⁻⁵² from a 52-bit integer k: never 0 nor 1. A large
Gumbel (a low-probability candidate winning) needs a tiny V, so where k = 0 (V < 2⁻⁵²) V is
refined with another 52 bits, repeatedly, down to 2⁻¹⁰⁴¹: every G lies in [−3.61, 721.57], all
finite. So each stage reaches any choice whose logit is within 725 of the best one, and every
candidate whose logit is within 725 − ln S (≥ 718 for up to a million candidates) of its row's
maximum has a probability > 0 of being drawn. A candidate further down has a true
probability below e⁻⁷¹⁸ ≈ 1e-312, among the smallest float64 numbers; only such a candidate
can be missed. Otherwise the sampled law is the softmax up to float64 rounding of the logits
and the 52-bit resolution of the uniforms.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch

from textdp.index import NeighbourIndex
from textdp.rng import RandomSource

# Cells (distinct rows × candidates) whose float64 logits are held at once.
_CHUNK_CELLS = 1 << 23
# Cells (tokens × block or block width) whose float64 scores and Gumbels are held at once:
# small enough (16 MiB) for the allocator to reuse the buffers from one chunk to the next.
_TOKEN_CELLS = 1 << 21
# Bits of one uniform used per level: floor(u·2⁵²) is exact for a float64 u in [0, 1).
_BITS = 52
# Refinements of V below 2⁻⁵²: the last level's smallest value is 2⁻⁵²·_LEVELS · 2⁻⁵³ = 2⁻¹⁰⁴¹,
# still a positive float64 (subnormals go down to 2⁻¹⁰⁷⁴), so log(V) is finite.
_LEVELS = 19


def _open_uniform(shape: tuple[int, ...] | int, rng: RandomSource,
                  device: torch.device) -> torch.Tensor:
    """(k + ½)·2⁻⁵² for k a uniform 52-bit integer: uniform on a grid strictly inside (0, 1).

    ``k`` is taken from the top 52 bits of a float64 draw in [0, 1) (numpy and torch both draw
    53-bit multiples of 2⁻⁵³; any finer grid works too). k + ½ < 2⁵² keeps the result exact, so
    it is at least 2⁻⁵³ and at most 1 − 2⁻⁵³, never 0 nor 1.
    """
    u = rng.uniform(shape, device, torch.float64)
    return u.mul_(2.0**_BITS).floor_().add_(0.5).mul_(2.0**-_BITS)


def _log_exponential(shape: tuple[int, int], rng: RandomSource,
                     device: torch.device) -> torch.Tensor:
    """log E for independent E ~ Exponential(1) (float64, finite): minus a standard Gumbel.

    E = −log(1 − V) for V uniform in (0, 1) (see the module docstring), through log1p so a
    small V keeps its precision. Where V's first 52 bits are all zero (V = 2⁻⁵³, probability
    2⁻⁵²) V is refined with another 52 bits, repeatedly, so the small E (large Gumbels) that let
    a low-probability candidate win are drawn with full precision instead of stopping at
    E = 2⁻⁵³ (a Gumbel of 36.7).
    """
    v = _open_uniform(shape, rng, device)
    flat = v.view(-1)
    if flat.numel() and float(flat.min()) < 2.0**-_BITS:  # rare: a reduction, not a copy
        small = torch.nonzero(flat < 2.0**-_BITS, as_tuple=True)[0]
        scale = 1.0  # level L: V = 2⁻⁵²ᴸ·(fresh open uniform), given its first 52·L bits are 0
        for _ in range(_LEVELS):
            if small.numel() == 0:
                break
            scale *= 2.0**-_BITS
            fine = _open_uniform(small.numel(), rng, device)
            flat[small] = fine * scale
            small = small[fine < 2.0**-_BITS]
    return v.neg_().log1p_().neg_().log_()


def gumbel_noise(shape: tuple[int, int], rng: RandomSource, device: torch.device) -> torch.Tensor:
    """Independent standard Gumbel draws G = −log(E) (float64), all in [−3.61, 721.57].

    See :func:`_log_exponential`: the upper tail is drawn with full precision.
    """
    return _log_exponential(shape, rng, device).neg_()


def _gumbel_argmax(scores: torch.Tensor, rng: RandomSource) -> torch.Tensor:
    """argmax over each row of ``scores`` + independent Gumbel noise (``scores`` is consumed):
    one draw from each row's softmax."""
    scores -= _log_exponential(tuple(scores.shape), rng, scores.device)  # += Gumbel noise
    return scores.argmax(dim=1)


def sample_softmax_rows(scores: torch.Tensor, rng: RandomSource) -> torch.Tensor:
    """One draw per row with P(j) ∝ exp(scores[j]), by the Gumbel-max trick of this module
    (exact in the sense of the module docstring: nothing is summed across candidates, every
    candidate within 718 of its row's best score is reachable). For mechanisms that compute
    their own logits (``dpmlm``); ``scores`` is not modified."""
    return _gumbel_argmax(scores.to(torch.float64, copy=True), rng)


def block_size(n_candidates: int) -> int:
    """S = ⌈√n⌉ candidates per block: about 2√n Gumbels per draw (blocks, then one block)."""
    return max(1, math.ceil(math.sqrt(n_candidates)))


def sample_from_logits(
    vectors: torch.Tensor,
    inverse: torch.Tensor,
    index: NeighbourIndex,
    logits_of_distances: Callable[[torch.Tensor], torch.Tensor],
    rng: RandomSource,
) -> torch.Tensor:
    """Draw one candidate per token with P(y | x) ∝ exp(logits(‖x − y‖)).

    ``vectors`` holds each distinct input once and ``inverse`` the row each token uses. Every
    token gets its own two-stage Gumbel-max draw from its row's softmax (see the module
    docstring: exact, every candidate reachable, independent of where the row sits in the
    batch). Distinct rows are scored in chunks of ``_CHUNK_CELLS`` float64 cells and their
    tokens drawn in chunks of ``_TOKEN_CELLS``, so memory stays bounded.
    """
    device = index.device
    vectors = vectors.to(device)
    inverse = inverse.to(device)
    out = torch.empty(inverse.shape[0], dtype=torch.int64, device=device)
    n_cand = len(index)
    size = block_size(n_cand)
    n_blocks = -(-n_cand // size)
    step = max(1, _CHUNK_CELLS // (n_blocks * size))
    token_step = max(1, _TOKEN_CELLS // max(n_blocks, size))
    for start in range(0, vectors.shape[0], step):
        stop = min(start + step, vectors.shape[0])
        tokens = torch.nonzero((inverse >= start) & (inverse < stop), as_tuple=True)[0]
        if tokens.numel() == 0:
            continue
        logits = logits_of_distances(index.distances_to(vectors[start:stop]))
        # float64 logits; the last block is padded with −inf: probability 0, never drawn.
        blocks = torch.full((stop - start, n_blocks * size), -math.inf, dtype=torch.float64,
                            device=device)
        blocks[:, :n_cand] = logits
        blocks = blocks.view(stop - start, n_blocks, size)
        del logits
        block_logits = torch.logsumexp(blocks, dim=2)  # log of each block's total mass
        for first in range(0, tokens.shape[0], token_step):
            batch = tokens[first:first + token_step]
            rows = inverse[batch] - start
            if n_blocks == 1:
                chosen = torch.zeros_like(rows)
            else:
                chosen = _gumbel_argmax(block_logits[rows], rng)  # [rows]: a copy
            within = _gumbel_argmax(blocks[rows, chosen], rng)
            out[batch] = chosen * size + within
    return out
