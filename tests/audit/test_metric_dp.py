"""Empirical metric-DP audit of every metric-DP mechanism, with a positive control.

On a toy public vocabulary (five words on a line), each mechanism is run many times from every
input. For each pair of inputs (x, x') and each output y, a Clopper–Pearson lower bound on
ln(P[M(x)=y] / P[M(x')=y]) must not exceed ε·d(x, x') (plus a small tolerance). The same audit
must *catch* a deliberately broken mechanism that adds three times too little noise, which shows
the audit has the power to fail.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from textdp.evaluate.privacy import worst_violation as privacy_audit
from textdp.index import NeighbourIndex
from textdp.mechanisms import MultivariateLaplace, create_mechanism
from textdp.rng import RandomSource

POSITIONS = np.arange(5, dtype=np.float32)[:, None]  # five public words on a line
EPSILON = 1.0
DRAWS = 100_000
# Family-wise error 1e-3 split over every (x, x', y) comparison (Bonferroni).
ALPHA = 1e-3 / (len(POSITIONS) ** 3)
TOLERANCE = 0.05


def output_counts(mechanism, seed: int = 0) -> np.ndarray:
    """counts[x, y]: how often input word x came out as word y over DRAWS draws."""
    rng = RandomSource(seed)
    mechanism.prepare(POSITIONS, NeighbourIndex(POSITIONS, backend="exact"), rng)
    vectors = torch.from_numpy(POSITIONS)
    inverse = torch.arange(len(POSITIONS)).repeat_interleave(DRAWS)
    ids = mechanism.sample(vectors, inverse, rng).numpy()
    counts = np.zeros((len(POSITIONS), len(POSITIONS)), dtype=np.int64)
    np.add.at(counts, (inverse.numpy(), ids), 1)
    return counts


def worst_violation(counts: np.ndarray, epsilon: float) -> float:
    """The audit (:func:`textdp.evaluate.privacy.worst_violation`) of ε·d(x, x') on the line."""
    bound = epsilon * np.abs(POSITIONS[:, :1] - POSITIONS[:, :1].T).astype(np.float64)
    return privacy_audit(counts, bound, ALPHA)


@pytest.mark.parametrize("name", ["mlaplace", "mahalanobis", "vickrey", "tem", "santext"])
def test_mechanism_passes_metric_dp_audit(name: str) -> None:
    counts = output_counts(create_mechanism(name, EPSILON))
    assert worst_violation(counts, EPSILON) <= TOLERANCE


class _TooLittleNoise(MultivariateLaplace):
    """A broken mlaplace: claims ε but draws noise for 3ε (three times too little)."""

    def noise(self, n, dim, rng, device):
        saved = self.epsilon
        self.epsilon = 3 * saved
        try:
            return super().noise(n, dim, rng, device)
        finally:
            self.epsilon = saved


def test_audit_catches_a_mechanism_with_too_little_noise() -> None:
    counts = output_counts(_TooLittleNoise(EPSILON))
    assert worst_violation(counts, EPSILON) > 1.0


def test_audit_is_not_trivially_loose() -> None:
    """The correct mechanism comes close to its bound: the audit measures something."""
    counts = output_counts(create_mechanism("mlaplace", EPSILON))
    assert worst_violation(counts, EPSILON) > -1.0
