"""The two-sided geometric mechanism (textdp.mechanisms.geometric): its draws follow the exact
pmf (χ² with a fixed seed), a wrong law is rejected by the same test (positive control), and
the pmf's ratio between neighbours is e^ε."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from textdp.mechanisms import geometric

N = 200_000


def chi2_pvalue(draws: np.ndarray, epsilon: float) -> float:
    """χ² of integer ``draws`` against the exact pmf, cells |k| ≤ K pooled beyond."""
    alpha = math.exp(-epsilon)
    # cells with an expected count of at least 20, the two tails pooled
    tail = int(math.log(20 * (1 + alpha) / (N * (1 - alpha))) / math.log(alpha))
    ks = np.arange(-tail, tail + 1)
    expected = geometric.pmf(ks, epsilon) * len(draws)
    observed = np.array([(draws == k).sum() for k in ks], dtype=float)
    rest = len(draws) - expected.sum()
    observed = np.append(observed, len(draws) - observed.sum())
    expected = np.append(expected, rest)
    return float(stats.chisquare(observed, expected).pvalue)


@pytest.mark.parametrize("epsilon", [0.05, 0.3, 1.5])
def test_draws_follow_the_exact_pmf(epsilon):
    draws = geometric.sample(epsilon, np.random.default_rng(11), size=N)
    assert chi2_pvalue(draws, epsilon) > 1e-3


@pytest.mark.parametrize("epsilon", [0.05, 0.3, 1.5])
def test_the_test_rejects_a_wrong_law(epsilon):
    """Positive control: the geometric of an ε 10 % off is rejected; so is a rounded
    continuous Laplace of the same scale where the two laws differ enough to tell apart
    (they converge as ε → 0)."""
    rng = np.random.default_rng(11)
    if epsilon >= 0.3:
        rounded = np.rint(rng.laplace(0, 1 / epsilon, size=N)).astype(int)
        assert chi2_pvalue(rounded, epsilon) < 1e-6
    off = geometric.sample(epsilon * 1.1, rng, size=N)
    assert chi2_pvalue(off, epsilon) < 1e-6


def test_pmf_sums_to_one_and_its_ratio_is_e_to_the_epsilon():
    eps = 0.3
    ks = np.arange(-400, 401)
    assert geometric.pmf(ks, eps).sum() == pytest.approx(1.0, abs=1e-12)
    ratio = geometric.pmf(ks[:-1], eps) / geometric.pmf(ks[1:], eps)
    # neighbouring outputs: e^ε one way or the other, never more
    assert np.allclose(np.maximum(ratio, 1 / ratio), math.exp(eps))


def test_release_is_clamped_and_epsilon_is_checked():
    rng = np.random.default_rng(0)
    out = [geometric.release(1, 0.05, rng, low=0, high=120) for _ in range(2000)]
    assert min(out) == 0 and max(out) <= 120
    for bad in (0, -1, float("inf"), float("nan"), "x"):
        with pytest.raises(ValueError, match="epsilon_age"):
            geometric.check_epsilon(bad, "epsilon_age")


# ================================================================ displaced
def displaced_pvalue(draws: np.ndarray, epsilon: float, m: int) -> float:
    """χ² of ``draws`` against the displaced pmf, cells of expected count ≥ 20, rest pooled."""
    ks = np.arange(-400, 401)
    expected = geometric.pmf(ks, epsilon, m) * len(draws)
    keep = expected >= 20
    observed = np.array([(draws == k).sum() for k in ks[keep]], dtype=float)
    observed = np.append(observed, len(draws) - observed.sum())
    expected = np.append(expected[keep], len(draws) - expected[keep].sum())
    return float(stats.chisquare(observed, expected).pvalue)


@pytest.mark.parametrize("epsilon, m", [(0.2, 9), (0.5, 6), (1.5, 3)])
def test_displaced_draws_follow_their_pmf_and_not_a_neighbours(epsilon, m):
    draws = geometric.sample(epsilon, np.random.default_rng(5), size=N, displacement=m)
    assert displaced_pvalue(draws, epsilon, m) > 1e-3
    # positive controls: one step more or less of displacement, or ε 10 % off, is rejected
    assert displaced_pvalue(draws, epsilon, m + 1) < 1e-6
    assert displaced_pvalue(draws, epsilon, m - 1) < 1e-6
    assert displaced_pvalue(draws, epsilon * 1.1, m) < 1e-6
    assert (draws == 0).mean() == pytest.approx(geometric.zero_probability(epsilon, m),
                                                abs=4e-3)


def test_displaced_pmf_keeps_the_guarantee():
    ks = np.arange(-600, 601)
    for eps, m in ((0.2, 9), (1.0, 4)):
        p = geometric.pmf(ks, eps, m)
        assert p.sum() == pytest.approx(1.0, abs=1e-12)
        ratio = p[:-1] / p[1:]
        # neighbouring outputs differ by e^ε at most (exactly e^ε away from the modes)
        assert np.maximum(ratio, 1 / ratio).max() == pytest.approx(math.exp(eps))
        assert p[600] == geometric.zero_probability(eps, m) < p[600 + m]


def test_displacement_for_the_least_shift_under_the_bound():
    assert geometric.displacement_for(0.2, 0.01) == 9
    assert geometric.zero_probability(0.2, 9) <= 0.01 < geometric.zero_probability(0.2, 8)
    assert geometric.displacement_for(0.01, 0.01) == 0  # tanh(0.005) = 0.5 % already
    assert isinstance(geometric.sample(0.3, np.random.default_rng(1), displacement=4), int)
    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError, match="displacement"):
            geometric.pmf(0, 0.3, bad)
    with pytest.raises(ValueError, match="max_zero"):
        geometric.displacement_for(0.2, 0.0)


def test_displacement_within_a_window():
    """Date offsets: the least m that keeps P(|Z| ≤ 15) at 1 %, so a month-and-year date keeps
    its month at most that often; the share is the pmf summed over the window."""
    m = geometric.displacement_for(0.01, 0.01, within=15)
    assert m == 219
    share = geometric.within_probability(0.01, m, 15)
    assert share <= 0.01 < geometric.within_probability(0.01, m - 1, 15)
    assert share == pytest.approx(geometric.pmf(np.arange(-15, 16), 0.01, m).sum())
    assert geometric.within_probability(0.3, 4, 0) == geometric.zero_probability(0.3, 4)
    # Drawn: the share of 200,000 offsets within the window matches (4 standard errors).
    draws = geometric.sample(0.01, np.random.default_rng(5), size=200_000, displacement=m)
    assert abs((np.abs(draws) <= 15).mean() - share) < 4 * math.sqrt(share / 200_000)
    for bad in (-1, 2.5, True):
        with pytest.raises(ValueError, match="within"):
            geometric.within_probability(0.3, 0, bad)
