"""textdp.mechanisms: statistical checks of every mechanism against its definition.

Every test uses a fixed seed; every statistical test compares with the exact distribution and
accepts at p > 0.001, with sample sizes that give the tests real power (some cases check that a
slightly wrong distribution *is* rejected).
"""

from __future__ import annotations

import math

import catalogue
import numpy as np
import pytest
import torch
from scipy import stats

import textdp.mechanisms.exponential as exponential_module
from textdp.index import NeighbourIndex
from textdp.mechanisms import (
    Gaussian,
    Mahalanobis,
    Mechanism,
    MultivariateLaplace,
    Projection,
    SanText,
    TruncatedExponential,
    Vickrey,
    available,
    create_mechanism,
    registry,
)
from textdp.mechanisms.base import NoiseMechanism, laplace_directions
from textdp.mechanisms.gaussian import analytic_gaussian_sigma, diameter_bound, gaussian_delta
from textdp.mechanisms.mahalanobis import regularised_covariance_root
from textdp.mechanisms.projection import projected_dim
from textdp.rng import RandomSource

CPU = torch.device("cpu")
ALPHA = 1e-3
# The foundation's seven substitution mechanisms, plus NADP: all take vectors and return ids.
SEVEN = ["gaussian", "mahalanobis", "mlaplace", "projection", "santext", "tem", "vickrey"]
VECTOR_MECHANISMS = sorted([*SEVEN, "nadp"])
# Registered too, with their own protocols: DP-MLM draws from a masked language model in
# context; DPNR releases representations, not text.
OTHER_MECHANISMS = ["dpmlm", "dpnr"]


def prepared(spec, epsilon, candidates, seed=0):
    candidates = np.ascontiguousarray(candidates, dtype=np.float32)
    m = create_mechanism(spec, epsilon)
    m.prepare(candidates, NeighbourIndex(candidates, backend="exact"), RandomSource(seed))
    return m


def norms(z: torch.Tensor) -> np.ndarray:
    return np.linalg.norm(z.double().numpy(), axis=1)


@pytest.fixture(scope="module")
def random_table():
    return np.random.default_rng(0).standard_normal((60, 8)).astype(np.float32) * 3


# ================================================================= multivariate Laplace
@pytest.mark.parametrize("dim", [1, 50, 300])
def test_mlaplace_norm_is_gamma(dim):
    eps = 2.0
    m = create_mechanism("mlaplace", eps)
    r = norms(m.noise(5000, dim, RandomSource(100 + dim), CPU))
    assert stats.kstest(r, stats.gamma(a=dim, scale=1 / eps).cdf).pvalue > ALPHA
    # power: a 25 % wrong scale is rejected
    assert stats.kstest(r, stats.gamma(a=dim, scale=1.25 / eps).cdf).pvalue < ALPHA


def test_mlaplace_noise_shape_and_dtype():
    z = create_mechanism("mlaplace", 1.0).noise(7, 5, RandomSource(0), CPU)
    assert z.shape == (7, 5) and z.dtype == torch.float32 and z.device == CPU


def test_directions_d1_are_fair_signs():
    u = laplace_directions(5000, 1, torch.Generator().manual_seed(1), CPU).numpy()[:, 0]
    assert set(np.unique(u)) == {-1.0, 1.0}
    assert stats.binomtest(int((u > 0).sum()), len(u), 0.5).pvalue > ALPHA


def test_directions_d2_angle_is_uniform():
    z = create_mechanism("mlaplace", 1.0).noise(5000, 2, RandomSource(2), CPU).double().numpy()
    angle = np.arctan2(z[:, 1], z[:, 0])
    assert stats.kstest(angle, stats.uniform(loc=-np.pi, scale=2 * np.pi).cdf).pvalue > ALPHA


@pytest.mark.parametrize("dim", [3, 50, 300])
def test_directions_projection_has_the_beta_law(dim):
    """For u uniform on S^{d-1} and a fixed unit e, (u·e + 1)/2 ~ Beta((d-1)/2, (d-1)/2)."""
    z = create_mechanism("mlaplace", 1.0).noise(5000, dim, RandomSource(3 + dim), CPU)
    u = z.double().numpy()
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    e = np.random.default_rng(dim).standard_normal(dim)
    e /= np.linalg.norm(e)
    x = (u @ e + 1) / 2
    a = (dim - 1) / 2
    assert stats.kstest(x, stats.beta(a, a).cdf).pvalue > ALPHA
    # mean ≈ 0: n·d·‖mean‖² ~ χ²(d) (each coordinate has variance 1/d)
    n = len(u)
    q = n * dim * float((u.mean(axis=0) ** 2).sum())
    cdf = stats.chi2(dim).cdf(q)
    assert ALPHA / 2 < cdf < 1 - ALPHA / 2


def test_mlaplace_decodes_to_self_with_little_noise(random_table):
    m = prepared("mlaplace", 1e6, random_table)
    ids = m.sample(torch.from_numpy(random_table), torch.arange(len(random_table)),
                   RandomSource(0))
    assert ids.tolist() == list(range(len(random_table)))


def test_perturb_adds_exactly_the_noise(random_table):
    m = prepared("mlaplace", 1.0, random_table)
    x = torch.from_numpy(random_table[:10])
    noisy = m.perturb(x, RandomSource(4))
    noise = m.noise(10, random_table.shape[1], RandomSource(4), CPU)
    torch.testing.assert_close(noisy, x + noise)


# ================================================================= analytic Gaussian
def _delta_reference(sigma, eps, sens=1.0):
    """Balle & Wang (2018), Theorem 8, written independently with scipy.stats."""
    a, b = sens / (2 * sigma), eps * sigma / sens
    return stats.norm.cdf(a - b) - math.exp(eps) * stats.norm.cdf(-a - b)


@pytest.mark.parametrize("eps, delta", [(1.0, 1e-5), (0.1, 1e-6), (0.5, 0.1), (5.0, 1e-3),
                                        (10.0, 1e-9), (2.0, 1e-12)])
def test_analytic_sigma_meets_the_condition_and_is_tight(eps, delta):
    sigma = analytic_gaussian_sigma(eps, delta)
    assert gaussian_delta(sigma, eps) <= delta
    assert gaussian_delta(sigma * (1 - 1e-6), eps) > delta
    # the classical bound sqrt(2 ln(1.25/δ))/ε is never tighter (where it applies, ε < 1)
    if eps < 1:
        assert sigma < math.sqrt(2 * math.log(1.25 / delta)) / eps


def test_analytic_sigma_known_value():
    assert analytic_gaussian_sigma(1.0, 1e-5, 1.0) == pytest.approx(3.7306, abs=1e-4)


@pytest.mark.parametrize("sigma, eps", [(0.5, 0.3), (1.0, 1.0), (3.0, 2.0), (0.8, 5.0)])
def test_gaussian_delta_matches_independent_formula(sigma, eps):
    assert gaussian_delta(sigma, eps) == pytest.approx(_delta_reference(sigma, eps), rel=1e-9,
                                                       abs=1e-15)
    assert gaussian_delta(sigma, eps, 2.5) == pytest.approx(
        _delta_reference(sigma, eps, 2.5), rel=1e-9, abs=1e-15)


def test_analytic_sigma_scales_with_sensitivity_and_is_monotone():
    base = analytic_gaussian_sigma(1.0, 1e-5)
    assert analytic_gaussian_sigma(1.0, 1e-5, 7.5) == pytest.approx(7.5 * base, rel=1e-9)
    assert analytic_gaussian_sigma(1.0, 1e-7) > base > analytic_gaussian_sigma(1.0, 1e-3)
    assert analytic_gaussian_sigma(0.5, 1e-5) > base > analytic_gaussian_sigma(2.0, 1e-5)


@pytest.mark.parametrize("kwargs, name", [
    (dict(epsilon=0, delta=1e-5), "epsilon"), (dict(epsilon=1, delta=0), "delta"),
    (dict(epsilon=1, delta=1), "delta"), (dict(epsilon=1, delta=1e-5, sensitivity=0),
                                          "sensitivity"),
    (dict(epsilon=float("nan"), delta=1e-5), "epsilon"),
])
def test_analytic_sigma_rejects_bad_parameters(kwargs, name):
    with pytest.raises(ValueError, match=name):
        analytic_gaussian_sigma(**kwargs)


def test_gaussian_noise_std_is_sigma(random_table):
    m = prepared({"name": "gaussian", "delta": 1e-5, "sensitivity": 1.0}, 1.0, random_table)
    assert m.sigma == pytest.approx(analytic_gaussian_sigma(1.0, 1e-5, 1.0))
    z = m.noise(4000, 25, RandomSource(5), CPU).double().numpy().ravel() / m.sigma
    assert abs(z.std() - 1) < 0.02  # n = 100k: the sd of the estimate is ~0.0022
    assert stats.kstest(z, "norm").pvalue > ALPHA
    assert stats.kstest(z * 1.05, "norm").pvalue < ALPHA  # power: 5 % off is rejected


def test_gaussian_diameter_sensitivity(random_table):
    m = prepared({"name": "gaussian", "delta": 1e-6}, 2.0, random_table)
    pairwise = np.linalg.norm(random_table[:, None] - random_table[None], axis=2).max()
    bound = diameter_bound(random_table)
    assert pairwise <= bound <= 2 * pairwise
    assert m.sigma == pytest.approx(analytic_gaussian_sigma(2.0, 1e-6, bound), rel=1e-9)
    assert m.delta == 1e-6 and m.sensitivity == "diameter"


def test_gaussian_noise_before_prepare_is_a_runtime_error():
    with pytest.raises(RuntimeError, match="prepare"):
        create_mechanism("gaussian", 1.0).noise(3, 4, RandomSource(0), CPU)


# ================================================================= Mahalanobis
@pytest.fixture(scope="module")
def anisotropic_table():
    rng = np.random.default_rng(11)
    mix = np.array([[3.0, 0.0, 0.0], [1.5, 1.0, 0.0], [0.0, 0.3, 0.4]])
    return (rng.standard_normal((400, 3)) @ mix).astype(np.float32)


def test_mahalanobis_lambda_zero_is_mlaplace(anisotropic_table):
    maha = prepared({"name": "mahalanobis", "lam": 0.0}, 1.5, anisotropic_table)
    lap = prepared("mlaplace", 1.5, anisotropic_table)
    # same seed: the same noise (the covariance root is the identity) ...
    torch.testing.assert_close(maha.noise(100, 3, RandomSource(6), CPU),
                               lap.noise(100, 3, RandomSource(6), CPU), rtol=1e-5, atol=1e-5)
    # ... and independent seeds: the same distribution
    a = maha.noise(4000, 3, RandomSource(7), CPU).double().numpy()
    b = lap.noise(4000, 3, RandomSource(8), CPU).double().numpy()
    assert stats.ks_2samp(np.linalg.norm(a, axis=1), np.linalg.norm(b, axis=1)).pvalue > ALPHA
    assert stats.ks_2samp(a[:, 0], b[:, 0]).pvalue > ALPHA
    assert stats.ks_2samp(a[:, 2], b[:, 2]).pvalue > ALPHA


@pytest.mark.parametrize("lam", [0.2, 1.0])
def test_mahalanobis_noise_covariance(lam, anisotropic_table):
    """Cov(z) = E[r²]/d · Σ_λ = (d + 1)/ε² · Σ_λ, with Σ_λ = λ·cov/var + (1 − λ)·I."""
    eps, d = 2.0, 3
    m = prepared({"name": "mahalanobis", "lam": lam}, eps, anisotropic_table)
    z = m.noise(20000, d, RandomSource(9), CPU).double().numpy()
    vecs = anisotropic_table.astype(np.float64)
    sigma_lam = lam * np.cov(vecs, rowvar=False) / np.var(vecs) + (1 - lam) * np.eye(d)
    expected = (d + 1) / eps**2 * sigma_lam
    emp = np.cov(z, rowvar=False)
    assert np.linalg.norm(emp - expected) / np.linalg.norm(expected) < 0.08
    # the shape, not just the size: the anisotropy (largest / smallest axis) is reproduced
    got, want = np.linalg.eigvalsh(emp), np.linalg.eigvalsh(expected)
    assert want[-1] / want[0] > (10 if lam == 1.0 else 1.5)
    assert 0.8 < (got[-1] / got[0]) / (want[-1] / want[0]) < 1.25


def test_covariance_root_squares_to_the_regularised_covariance(anisotropic_table):
    root = regularised_covariance_root(anisotropic_table, 0.3)
    vecs = anisotropic_table.astype(np.float64)
    target = 0.3 * np.cov(vecs, rowvar=False) / np.var(vecs) + 0.7 * np.eye(3)
    np.testing.assert_allclose(root @ root, target, atol=1e-10)
    np.testing.assert_allclose(root, root.T, atol=1e-12)


@pytest.mark.parametrize("lam", [-0.1, 1.1, float("nan"), True, "0.5"])
def test_mahalanobis_rejects_bad_lambda(lam):
    with pytest.raises(ValueError, match="lam"):
        create_mechanism({"name": "mahalanobis", "lam": lam}, 1.0)


# ================================================================= projection (Mechanism 2)
def test_projected_dim_formula():
    assert projected_dim(300, 1e-6, 0.7) == 181
    for d, delta, beta in [(300, 1e-6, 0.8), (300, 1e-6, 0.9), (768, 1e-6, 0.7),
                           (1000, 1e-3, 0.5)]:
        want = math.floor((math.log(d) + math.sqrt(math.log(1 / delta))) ** 2 / beta**2)
        assert projected_dim(d, delta, beta) == min(d, want)
    assert projected_dim(10, 1e-6, 0.7) == 10  # never more than the input dimension
    assert projected_dim(300, 0.5, 100.0) == 1  # never less than one


@pytest.fixture(scope="module")
def table_300():
    return np.random.default_rng(12).standard_normal((500, 300)).astype(np.float32)


def test_projection_dimensions_and_noise(table_300):
    eps, beta = 3.0, 0.7
    m = prepared({"name": "projection", "delta": 1e-6, "beta": beta}, eps, table_300)
    assert m.matrix is not None and tuple(m.matrix.shape) == (300, 181)
    assert m.index is not None and m.index.vectors.shape == (500, 181)
    noisy = m.perturb(torch.from_numpy(table_300[:5]), RandomSource(1))
    assert noisy.shape == (5, 181)
    # multivariate Laplace in m dims with sensitivity 1 + β: ‖z‖ ~ Gamma(m, (1 + β)/ε)
    r = norms(m.noise(5000, 181, RandomSource(2), CPU))
    assert stats.kstest(r, stats.gamma(a=181, scale=(1 + beta) / eps).cdf).pvalue > ALPHA
    assert stats.kstest(r, stats.gamma(a=181, scale=1 / eps).cdf).pvalue < ALPHA
    assert m.delta == 1e-6


def test_projection_preserves_distances_and_decodes(table_300):
    m = prepared({"name": "projection", "beta": 0.7}, 1e6, table_300, seed=3)
    proj = table_300 @ m.matrix.numpy()
    orig = np.linalg.norm(table_300[:50, None] - table_300[None, 50:100], axis=2)
    kept = np.linalg.norm(proj[:50, None] - proj[None, 50:100], axis=2)
    ratio = kept / orig
    assert ((ratio > 1 - 0.7) & (ratio < 1 + 0.7)).all()
    ids = m.sample(torch.from_numpy(table_300), torch.arange(500), RandomSource(0))
    assert (ids.numpy() == np.arange(500)).mean() > 0.95  # little noise: each word itself


def test_projection_matrix_is_fixed_by_the_prepare_seed(table_300):
    a = prepared("projection", 1.0, table_300, seed=5).matrix
    b = prepared("projection", 1.0, table_300, seed=5).matrix
    c = prepared("projection", 1.0, table_300, seed=6).matrix
    assert torch.equal(a, b) and not torch.equal(a, c)


def test_projection_before_prepare_is_a_runtime_error():
    with pytest.raises(RuntimeError, match="prepare"):
        create_mechanism("projection", 1.0).perturb(torch.zeros(2, 4), RandomSource(0))


# ================================================================= Vickrey
LINE = np.array([[0.0], [1.0], [5.0], [10.0]], dtype=np.float32)


@pytest.mark.parametrize("t", [0.75, 0.5, 0.3])
def test_vickrey_choice_probability_on_a_line(t):
    """With negligible noise the noisy point is x = 0.3: d1 = 0.3 (word 0), d2 = 0.7 (word 1)."""
    m = prepared({"name": "vickrey", "t": t}, 1e7, LINE)
    n = 4000
    ids = m.sample(torch.tensor([[0.3]]), torch.zeros(n, dtype=torch.int64), RandomSource(1))
    ids = ids.numpy()
    assert set(np.unique(ids)) <= {0, 1}  # only the two nearest words
    p_second = t * 0.3 / (t * 0.3 + (1 - t) * 0.7)
    assert stats.binomtest(int((ids == 1).sum()), n, p_second).pvalue > ALPHA


def test_vickrey_threshold_extremes():
    x, inv = torch.tensor([[0.3]]), torch.zeros(500, dtype=torch.int64)
    first = prepared({"name": "vickrey", "t": 0.0}, 1e7, LINE).sample(x, inv, RandomSource(0))
    second = prepared({"name": "vickrey", "t": 1.0}, 1e7, LINE).sample(x, inv, RandomSource(0))
    assert (first == 0).all() and (second == 1).all()
    # an input exactly on a word with no noise has d1 = 0: it stays itself for any t
    on = prepared({"name": "vickrey", "t": 0.9}, 1e7, LINE)
    assert (on.sample(torch.tensor([[5.0]]), inv, RandomSource(0)) == 2).all()


def test_vickrey_picks_among_the_two_nearest_of_the_noisy_vector():
    rng = np.random.default_rng(13)
    cands = (rng.uniform(0, 10, (50, 2))).astype(np.float32)
    t = 0.75
    m = prepared({"name": "vickrey", "t": t}, 2.0, cands)
    x = torch.from_numpy(cands[:3])
    inverse = torch.arange(3).repeat(1000)
    ids = m.sample(x, inverse, RandomSource(14)).numpy()
    # the same generator state reproduces the noisy vectors the mechanism decoded
    noisy = m.perturb(x[inverse], RandomSource(14)).double().numpy()
    dist = np.linalg.norm(noisy[:, None, :] - cands[None].astype(np.float64), axis=2)
    order = np.argsort(dist, axis=1)[:, :2]
    assert ((ids == order[:, 0]) | (ids == order[:, 1])).all()
    d1 = np.take_along_axis(dist, order[:, :1], axis=1)[:, 0]
    d2 = np.take_along_axis(dist, order[:, 1:], axis=1)[:, 0]
    p = t * d1 / (t * d1 + (1 - t) * d2)
    seconds = int((ids == order[:, 1]).sum())
    # Poisson-binomial count of second choices: within 4 standard deviations of its mean
    assert abs(seconds - p.sum()) < 4 * math.sqrt((p * (1 - p)).sum())
    assert 0 < seconds < len(ids)


@pytest.mark.parametrize("t", [-0.01, 1.01, float("nan")])
def test_vickrey_rejects_bad_threshold(t):
    with pytest.raises(ValueError, match="threshold"):
        create_mechanism({"name": "vickrey", "t": t}, 1.0)


# ================================================================= TEM and SanText
POSITIONS = np.array([0.0, 1.0, 2.0, 3.0])
TOY = POSITIONS[:, None].astype(np.float32)  # four words on a line


def _em_probs(x, eps, gamma=np.inf):
    d = np.minimum(np.abs(POSITIONS - x), gamma)
    w = np.exp(-eps * d / 2)
    return w / w.sum()


def _draw_groups(m, inputs, n_per, seed):
    vectors = torch.tensor(np.asarray(inputs, dtype=np.float32)[:, None])
    inverse = torch.arange(len(inputs)).repeat(n_per)
    perm = torch.randperm(len(inverse), generator=torch.Generator().manual_seed(seed))
    inverse = inverse[perm]  # tokens of different inputs interleaved
    ids = m.sample(vectors, inverse, RandomSource(seed)).numpy()
    return inverse.numpy(), ids


def _chi2_p(observed_ids, probs):
    counts = np.bincount(observed_ids, minlength=len(probs))
    return stats.chisquare(counts, probs * counts.sum()).pvalue


def test_santext_frequencies_match_the_exponential_mechanism():
    eps = 2.0
    m = prepared("santext", eps, TOY)
    inputs = [0.0, 2.0]
    inverse, ids = _draw_groups(m, inputs, 6000, seed=21)
    for g, x in enumerate(inputs):
        assert _chi2_p(ids[inverse == g], _em_probs(x, eps)) > ALPHA
    # power: ε/2 off in the exponent is rejected
    assert _chi2_p(ids[inverse == 0], _em_probs(0.0, eps * 1.3)) < ALPHA


def test_tem_gamma_formula():
    for eps, beta, vocab in [(1.0, 0.001, 1000), (3.0, 0.1, 50_000), (0.5, 0.4, 4)]:
        m = create_mechanism({"name": "tem", "beta": beta}, eps)
        assert m.gamma(vocab) == pytest.approx(2 / eps * math.log((1 - beta) * vocab / beta))


def test_tem_truncated_frequencies():
    eps, beta = 2.0, 0.4
    m = prepared({"name": "tem", "beta": beta}, eps, TOY)
    gamma = m.gamma(4)
    assert gamma == pytest.approx(math.log(6.0))  # (2/2)·ln(0.6·4/0.4): inside the line
    inputs = [0.0, 3.0, 1.0]
    inverse, ids = _draw_groups(m, inputs, 6000, seed=22)
    for g, x in enumerate(inputs):
        assert _chi2_p(ids[inverse == g], _em_probs(x, eps, gamma)) > ALPHA
    # the truncation is visible: the untruncated (SanText) law is rejected
    assert _chi2_p(ids[inverse == 0], _em_probs(0.0, eps)) < ALPHA


def test_tem_with_a_wide_ball_is_santext():
    eps = 2.0
    m = prepared({"name": "tem", "beta": 0.001}, eps, TOY)
    assert m.gamma(4) > 3  # wider than the line: no truncation
    _, ids = _draw_groups(m, [1.0], 6000, seed=23)
    assert _chi2_p(ids, _em_probs(1.0, eps)) > ALPHA


@pytest.mark.parametrize("name", ["santext", "tem"])
def test_exponential_sampling_across_chunks(name, monkeypatch):
    """Two distinct inputs per score chunk: the offsets of the flat CDF must stay right."""
    monkeypatch.setattr(exponential_module, "_CHUNK_CELLS", 8)
    eps = 2.0
    m = prepared({"name": name, "beta": 0.4} if name == "tem" else name, eps, TOY)
    gamma = m.gamma(4) if name == "tem" else np.inf
    inputs = [0.0, 3.0, 1.0, 2.0, 1.5]
    inverse, ids = _draw_groups(m, inputs, 3000, seed=24)
    for g, x in enumerate(inputs):
        assert _chi2_p(ids[inverse == g], _em_probs(x, eps, gamma)) > ALPHA


@pytest.mark.parametrize("beta", [0, 1, -0.1, float("nan")])
def test_tem_rejects_bad_beta(beta):
    with pytest.raises(ValueError, match="beta"):
        create_mechanism({"name": "tem", "beta": beta}, 1.0)


# ================================================================= every mechanism
@pytest.mark.parametrize("name", VECTOR_MECHANISMS)
def test_every_mechanism_samples_valid_independent_ids(name, random_table):
    m = prepared(name, 0.5, random_table)
    x = torch.from_numpy(random_table[:2])
    inverse = torch.tensor([0, 1] * 100)
    ids = m.sample(x, inverse, RandomSource(1))
    assert ids.shape == (200,) and ids.dtype == torch.int64
    assert int(ids.min()) >= 0 and int(ids.max()) < len(random_table)
    # repeated tokens get independent draws, not one shared draw
    assert len(set(ids[inverse == 0].tolist())) > 1
    # fixed seed: reproducible
    again = prepared(name, 0.5, random_table).sample(x, inverse, RandomSource(1))
    assert torch.equal(ids, again)


@pytest.mark.parametrize("name", VECTOR_MECHANISMS)
def test_every_mechanism_before_prepare_is_a_runtime_error(name):
    m = create_mechanism(name, 1.0)
    assert not m.prepared
    with pytest.raises(RuntimeError, match="prepare"):
        m.sample(torch.zeros(2, 4), torch.tensor([0, 1, 1]), RandomSource(0))


@pytest.mark.parametrize("name", VECTOR_MECHANISMS)
@pytest.mark.parametrize("eps", [0, -1, float("nan"), float("inf"), True, None, "1"])
def test_every_mechanism_rejects_bad_epsilon(name, eps):
    with pytest.raises(ValueError, match="epsilon"):
        create_mechanism(name, eps)


@pytest.mark.parametrize("name", VECTOR_MECHANISMS)
def test_describe_and_repr(name):
    m = create_mechanism(name, 1.5)
    info = m.describe()
    assert info["mechanism"] == name == m.name
    assert info["epsilon"] == 1.5
    assert info["guarantee"]
    assert type(m).__name__ in repr(m) and "1.5" in repr(m)
    assert m.delta == (1e-6 if name in ("gaussian", "nadp", "projection") else 0.0)


# ================================================================= registry
def test_available_lists_every_built_in_mechanism():
    assert set(SEVEN) <= set(available())
    peers = ["custext", "diffractor", "truncated_gumbel", "vickrey_mahalanobis"]  # issue 18
    assert available() == sorted([*VECTOR_MECHANISMS, *OTHER_MECHANISMS, *peers])


def test_create_by_name_mapping_and_instance():
    classes = {"mlaplace": MultivariateLaplace, "projection": Projection,
               "mahalanobis": Mahalanobis, "vickrey": Vickrey, "tem": TruncatedExponential,
               "santext": SanText, "gaussian": Gaussian}
    for name, cls in classes.items():
        m = create_mechanism(name, 2.0)
        assert type(m) is cls and m.epsilon == 2.0
        assert registry.get(name) is cls
    m = create_mechanism({"name": "mahalanobis", "lam": 0.5}, 3.0)
    assert isinstance(m, Mahalanobis) and m.lam == 0.5 and m.epsilon == 3.0
    m = create_mechanism({"name": "tem", "epsilon": 4.0, "beta": 0.01})
    assert m.epsilon == 4.0 and m.beta == 0.01
    inst = Vickrey(1.0, t=0.6)
    assert create_mechanism(inst) is inst
    assert isinstance(inst, NoiseMechanism) and isinstance(inst, Mechanism)


def test_unknown_name_is_a_value_error_naming_it():
    with pytest.raises(ValueError, match="laplacian") as info:
        create_mechanism("laplacian", 1.0)
    assert "mlaplace" in str(info.value)  # the valid names are listed
    with pytest.raises(ValueError, match="laplacian"):
        create_mechanism({"name": "laplacian"}, 1.0)


@pytest.mark.parametrize("spec, words", [
    ({"lam": 0.2}, "name"),
    ({"name": 5}, "name"),
    ({"name": "mlaplace", "lam": 0.2}, "lam"),
    ({"name": "vickrey", "lambda_": 0.2}, "lambda_"),
    ({"name": "gaussian", "delta": 0.0}, "delta"),
    ({"name": "projection", "beta": -1}, "beta"),
    ({"name": "gaussian", "sensitivity": -2.0}, "sensitivity"),
    (5, "mechanism"),
    (None, "mechanism"),
])
def test_bad_specs_are_value_errors_naming_the_problem(spec, words):
    with pytest.raises(ValueError, match=words):
        create_mechanism(spec, 1.0)


def test_missing_epsilon_is_a_value_error():
    with pytest.raises(ValueError, match="epsilon"):
        create_mechanism("mlaplace")


@pytest.fixture
def custom_mechanism():
    class Identity(Mechanism):
        name = "toy_identity"
        guarantee = "none (test double)"

        def sample(self, vectors, inverse, rng):
            self._require_index()
            return inverse.clone()

    registry.register("toy_identity", func=Identity)
    yield Identity
    catalogue._remove(("textdp", "mechanisms", "toy_identity"))


def test_a_new_mechanism_is_one_registry_line(custom_mechanism):
    assert "toy_identity" in available()
    m = prepared("toy_identity", 1.0, TOY)
    assert isinstance(m, custom_mechanism)
    assert m.sample(torch.tensor(TOY), torch.tensor([2, 0]), RandomSource(0)).tolist() == [2, 0]


def test_registry_left_clean():
    assert "toy_identity" not in available()
