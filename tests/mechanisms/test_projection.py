"""Tests for textdp.mechanisms.projection: when Mechanism 2 projects, and what it then claims.

With d = 300, δ = 1e-6 the formula's m exceeds d for β < 0.544. Capping m at d kept a random
d × d projection whose stretch exceeds 1 + β far more often than δ (7.4e-3 at β = 0.1), so
there the projection is skipped: exact distances, δ = 0.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from scipy import stats

import textdp.mechanisms.projection as projection_module
from textdp.index import NeighbourIndex
from textdp.mechanisms import create_mechanism
from textdp.mechanisms.base import multivariate_laplace
from textdp.mechanisms.projection import Projection, projected_dim
from textdp.rng import RandomSource

CPU = torch.device("cpu")
ALPHA = 1e-3
D, DELTA = 300, 1e-6


@pytest.fixture(scope="module")
def table_300() -> np.ndarray:
    return np.random.default_rng(12).standard_normal((500, D)).astype(np.float32)


def prepared(beta: float, epsilon: float, candidates: np.ndarray, seed: int = 0) -> Projection:
    m = create_mechanism({"name": "projection", "delta": DELTA, "beta": beta}, epsilon)
    m.prepare(candidates, NeighbourIndex(candidates, backend="exact"), RandomSource(seed))
    return m


def stretch_tail(m: int, beta: float) -> float:
    """P(‖Px‖ > (1 + β)‖x‖) for P a d × m Gaussian matrix scaled by 1/√m: ‖Px‖²/‖x‖² ~ χ²_m/m."""
    return float(stats.chi2.sf(m * (1 + beta) ** 2, m))


# ================================================================= where the projection applies
def test_the_smallest_beta_that_projects_for_d300():
    threshold = projection_module.identity_beta(D, DELTA)
    assert threshold == pytest.approx((math.log(300) + math.sqrt(math.log(1e6))) / math.sqrt(300))
    assert threshold == pytest.approx(0.54390, abs=1e-5)
    assert projection_module.skips_projection(D, DELTA, 0.5439)
    assert not projection_module.skips_projection(D, DELTA, 0.5440)
    assert projection_module.formula_dim(D, DELTA, 0.5440) == 299
    assert projected_dim(D, DELTA, 0.5440) == 299
    assert projection_module.formula_dim(D, DELTA, 0.1) == 8874  # what used to be capped at 300


def test_a_capped_projection_would_not_keep_delta():
    """Why small β may not keep a d × d projection: its stretch tail is nowhere near δ."""
    assert stretch_tail(D, 0.1) == pytest.approx(7.4e-3, rel=0.01)
    assert stretch_tail(D, 0.05) == pytest.approx(0.107, rel=0.01)


@pytest.mark.parametrize("d, delta", [(300, 1e-6), (50, 1e-3), (768, 1e-9)])
def test_where_a_projection_is_applied_its_stretch_tail_is_below_delta(d, delta):
    threshold = (math.log(d) + math.sqrt(math.log(1 / delta))) / math.sqrt(d)
    for beta in np.linspace(threshold + 1e-6, 3.0, 60):
        if projected_dim(d, delta, beta) == d:
            continue
        assert stretch_tail(projected_dim(d, delta, beta), beta) <= delta, beta


# ================================================================= small β: no projection
@pytest.mark.parametrize("beta", [0.1, 0.05, 0.5])
def test_small_beta_applies_no_projection(beta, table_300):
    eps = 3.0
    m = prepared(beta, eps, table_300)
    # Decoding against the table itself: every distance exact.
    assert m.index is not None and np.array_equal(m.index.vectors, table_300)
    assert m.matrix is None and m.identity
    x = torch.from_numpy(table_300[:5])
    noisy = m.perturb(x, RandomSource(1))
    torch.testing.assert_close(noisy, x + m.noise(5, D, RandomSource(1), CPU))
    # multivariate Laplace in d dims with sensitivity 1 + β: ‖z‖ ~ Gamma(d, (1 + β)/ε)
    r = np.linalg.norm(m.noise(5000, D, RandomSource(2), CPU).double().numpy(), axis=1)
    assert stats.kstest(r, stats.gamma(a=D, scale=(1 + beta) / eps).cdf).pvalue > ALPHA
    # Little noise: every word decodes to itself.
    big = prepared(beta, 1e6, table_300)
    ids = big.sample(torch.from_numpy(table_300), torch.arange(500), RandomSource(0))
    assert (ids.numpy() == np.arange(500)).all()


def test_small_beta_states_its_guarantee_exactly(table_300):
    m = create_mechanism({"name": "projection", "delta": DELTA, "beta": 0.1}, 2.0)
    assert m.delta == DELTA and m.guarantee == projection_module.GUARANTEE  # d not known yet
    m.prepare(table_300, NeighbourIndex(table_300, backend="exact"), RandomSource(0))
    want = ("ε·d(x, x') metric DP per token, δ = 0: at β = 0.1 the formula's m ≥ d = 300, so "
            "no projection is applied (identity: exact distances); the noise keeps the "
            "sensitivity 1 + β = 1.1, so the bound is in fact (ε/1.1)·d(x, x')")
    assert m.guarantee == want
    assert m.delta == 0.0
    assert m.describe() == {"mechanism": "projection", "epsilon": 2.0, "delta": DELTA,
                            "beta": 0.1, "guarantee": want}


# ================================================================= default β: as before
def test_default_beta_projects_as_before(table_300):
    """β = 0.7: m = 181, the same matrix from the same seed, the same noise and decoding."""
    eps, seed = 3.0, 5
    m = prepared(0.7, eps, table_300, seed=seed)
    assert m.delta == DELTA
    proj = (RandomSource(seed).spawn().numpy.standard_normal((D, 181)) / math.sqrt(181)
            ).astype(np.float32)
    assert m.matrix is not None and np.array_equal(m.matrix.numpy(), proj)
    projected = table_300 @ proj
    assert m.index is not None and np.array_equal(m.index.vectors, projected)
    x = torch.from_numpy(table_300[:64])
    ids = m.sample(x, torch.arange(64), RandomSource(9))
    noisy = x @ torch.from_numpy(proj) + multivariate_laplace(64, 181, eps / 1.7,
                                                              RandomSource(9), CPU)
    want = NeighbourIndex(projected, backend="exact").search(noisy, k=1)[1][:, 0]
    assert torch.equal(ids, want)


def test_default_beta_states_its_guarantee_exactly(table_300):
    m = prepared(0.7, 1.0, table_300)
    assert m.guarantee == (
        "(ε·d(x, x'), δ) metric DP per token, δ = 1e-06 per pair of inputs: the Gaussian "
        "projection from d = 300 to m = 181 dims, drawn once and kept secret, stretches a "
        "pair's distance past 1 + β = 1.7 (the noise's sensitivity) with probability ≤ δ")
    assert m.describe()["guarantee"] == m.guarantee and m.delta == 1e-6


def test_the_class_guarantee_names_both_cases():
    assert Projection.guarantee == projection_module.GUARANTEE
    text = Projection.guarantee
    assert "per pair of inputs" in text and "kept secret" in text
    assert "δ = 0 where the formula's m ≥ d" in text


def test_prepare_again_on_another_table_switches_case(table_300):
    """The case follows the table the mechanism was last prepared on (d = 300, then d = 8)."""
    m = prepared(0.7, 1.0, table_300)
    assert not m.identity
    small = np.random.default_rng(1).standard_normal((40, 8)).astype(np.float32)
    m.prepare(small, NeighbourIndex(small, backend="exact"), RandomSource(0))
    assert m.identity and m.matrix is None and m.delta == 0.0 and "d = 8" in m.guarantee
    m.prepare(table_300, NeighbourIndex(table_300, backend="exact"), RandomSource(0))
    assert not m.identity and m.matrix is not None and m.delta == DELTA


# ================================================================= small tables, large β
def test_a_projection_too_small_for_delta_falls_back_to_the_identity():
    """Issue 34 item 9: at d = 2, β = 3.15, δ = 1e-6 the formula gives m = 1, whose exact
    stretch tail (χ²₁ above (1 + β)²) is 33·δ; the promise fails, so no projection."""
    d, beta = 2, 3.15
    assert projection_module.formula_dim(d, DELTA, beta) == 1
    assert stretch_tail(1, beta) == pytest.approx(33.2 * DELTA, rel=0.01)
    table = np.random.default_rng(0).standard_normal((40, d)).astype(np.float32)
    m = create_mechanism({"name": "projection", "delta": DELTA, "beta": beta}, 2.0)
    m.prepare(table, NeighbourIndex(table, backend="exact"), RandomSource(0))
    assert m.identity and m.matrix is None and m.delta == 0.0
    assert "m = 1 is too small for δ = 1e-06 at d = 2" in m.guarantee
    assert "no projection is applied" in m.guarantee


@pytest.mark.parametrize("d", [2, 3, 5, 10, 25, 26, 50])
def test_every_applied_projection_keeps_delta_exactly(d):
    """Wherever a projection is applied, its exact stretch tail is at most δ."""
    for delta in (1e-6, 1e-3):
        for beta in np.linspace(0.05, 8.0, 80):
            if not projection_module.skips_projection(d, delta, beta):
                m = projected_dim(d, delta, beta)
                assert m < d and stretch_tail(m, beta) <= delta, (d, delta, beta)
