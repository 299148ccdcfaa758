"""Batched sampling for exponential-mechanism substitutions (``tem``, ``santext``).

Score rows are computed once per *distinct* input vector, in chunks, so no |V|×|V| matrix is
ever held; every token still gets its own draw. Draws use inverse-CDF sampling on a flat,
offset float64 CDF: token i of distinct row r draws u ~ U(0, 1) and searches r + u.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from textdp.index import NeighbourIndex
from textdp.rng import RandomSource

_CHUNK_CELLS = 1 << 23


def sample_from_logits(
    vectors: torch.Tensor,
    inverse: torch.Tensor,
    index: NeighbourIndex,
    logits_of_distances: Callable[[torch.Tensor], torch.Tensor],
    rng: RandomSource,
) -> torch.Tensor:
    """Draw one candidate per token with P(y | x) ∝ exp(logits(‖x − y‖))."""
    device = index.device
    vectors = vectors.to(device)
    inverse = inverse.to(device)
    out = torch.empty(inverse.shape[0], dtype=torch.int64, device=device)
    n_rows = len(index)
    step = max(1, _CHUNK_CELLS // n_rows)
    for start in range(0, vectors.shape[0], step):
        stop = min(start + step, vectors.shape[0])
        logits = logits_of_distances(index.distances_to(vectors[start:stop])).double()
        probs = torch.softmax(logits, dim=1)
        cdf = torch.cumsum(probs, dim=1)
        cdf /= cdf[:, -1:].clone()  # exact 1.0 at the end of each row
        flat = (cdf + torch.arange(stop - start, device=device, dtype=torch.float64)[:, None])
        mask = (inverse >= start) & (inverse < stop)
        tokens = torch.nonzero(mask, as_tuple=True)[0]
        if tokens.numel() == 0:
            continue
        local = (inverse[tokens] - start).double()
        u = rng.uniform(tokens.shape[0], device, torch.float64)
        pos = torch.searchsorted(flat.reshape(-1), local + u, right=True)
        col = pos - (local.long() * n_rows)
        out[tokens] = col.clamp_(0, n_rows - 1)
    return out
