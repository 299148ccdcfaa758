"""The mechanisms added for parity with MLDP and pyPANTERA (issue 18): truncated Gumbel, CusText,
Vickrey on Mahalanobis noise and 1-Diffractor.

Same style as tests/mechanisms/test_mechanisms.py: fixed seeds, each sampler compared with its
exact law (computed here independently, by numerical integration or closed form) and accepted at
p > 0.001, with a case showing that a slightly wrong law *is* rejected. The last section is an
empirical privacy audit of each new mechanism against its stated guarantee (Clopper–Pearson
bounds on output-probability ratios, as tests/audit/test_metric_dp.py), with a positive control
that adds too little noise and must be caught.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from scipy import stats
from scipy.special import lambertw

from textdp.evaluate.privacy import worst_violation as privacy_audit
from textdp.index import NeighbourIndex
from textdp.mechanisms import (
    CusText,
    Diffractor,
    TruncatedGumbel,
    Vickrey,
    VickreyMahalanobis,
    available,
    create_mechanism,
)
from textdp.mechanisms.custext import partition_table
from textdp.mechanisms.diffractor import chain, sorted_lists, two_sided_geometric
from textdp.mechanisms.truncated_gumbel import (
    gumbel_scale,
    least_epsilon,
    pairwise_extremes,
    truncated_gumbel,
    truncated_poisson,
)
from textdp.rng import RandomSource

CPU = torch.device("cpu")
ALPHA = 1e-3
NEW = ["custext", "diffractor", "truncated_gumbel", "vickrey_mahalanobis"]
# Five words on a line, no two pairs at the same distance from one word (no ties in "k nearest").
LINE = np.array([[0.0], [1.0], [2.5], [4.5], [7.0]], dtype=np.float32)


def prepared(spec, epsilon, candidates, seed=0):
    candidates = np.ascontiguousarray(candidates, dtype=np.float32)
    m = create_mechanism(spec, epsilon)
    m.prepare(candidates, NeighbourIndex(candidates, backend="exact"), RandomSource(seed))
    return m


def draws(m, candidates, rows, n, seed):
    """``n`` draws for each of ``rows`` (tokens interleaved): ``(len(rows), n)`` ids."""
    vectors = torch.from_numpy(np.ascontiguousarray(candidates[rows], np.float32))
    inverse = torch.arange(len(rows)).repeat(n)
    ids = m.sample(vectors, inverse, RandomSource(seed)).numpy()
    return np.stack([ids[inverse.numpy() == g] for g in range(len(rows))])


def chi2_p(ids, probs):
    counts = np.bincount(ids, minlength=len(probs))
    keep = probs > 0
    if counts[~keep].sum():
        return 0.0  # drew an output of probability 0
    return stats.chisquare(counts[keep], probs[keep] * counts.sum()).pvalue


@pytest.fixture(scope="module")
def random_table():
    return np.random.default_rng(0).standard_normal((60, 8)).astype(np.float32) * 3


def test_registered_with_guarantee_and_metric():
    assert set(NEW) <= set(available())
    metrics = {"truncated_gumbel": "euclidean", "custext": None,
               "vickrey_mahalanobis": "mahalanobis", "diffractor": "list_position"}
    for name in NEW:
        m = create_mechanism(name, 1.5)
        assert m.name == name and m.guarantee and m.metric == metrics[name]
        assert m.describe()["epsilon"] == 1.5 and m.delta == 0.0
    assert TruncatedGumbel.table_words_only


@pytest.mark.parametrize("name", NEW)
@pytest.mark.parametrize("eps", [0, -1, float("nan"), float("inf")])
def test_new_mechanisms_reject_bad_epsilon(name, eps):
    with pytest.raises(ValueError, match="epsilon"):
        create_mechanism(name, eps)


@pytest.mark.parametrize("name", NEW)
def test_new_mechanisms_sample_valid_independent_reproducible_ids(name, random_table):
    eps = 40.0 if name == "truncated_gumbel" else 0.5
    m = prepared(name, eps, random_table)
    x = torch.from_numpy(random_table[:2])
    inverse = torch.tensor([0, 1] * 200)
    ids = m.sample(x, inverse, RandomSource(1))
    assert ids.shape == (400,) and ids.dtype == torch.int64
    assert int(ids.min()) >= 0 and int(ids.max()) < len(random_table)
    assert len(set(ids[inverse == 0].tolist())) > 1
    again = prepared(name, eps, random_table).sample(x, inverse, RandomSource(1))
    assert torch.equal(ids, again)
    with pytest.raises(RuntimeError, match="prepare"):
        create_mechanism(name, eps).sample(x, inverse, RandomSource(0))


# ================================================================= truncated Gumbel
def test_pairwise_extremes_are_exact(random_table):
    from scipy.spatial.distance import pdist

    table = np.concatenate([random_table, random_table[:3]])  # duplicates: distance 0
    d = pdist(table.astype(np.float64))
    lo, hi = pairwise_extremes(table)
    assert lo == pytest.approx(d[d > 0].min(), rel=1e-9)
    assert d.max() <= hi <= d.max() * (1 + 2e-5)


def test_gumbel_scale_is_the_papers_calibration():
    eps, n, lo, hi = 12.0, 5, 1.0, 7.0
    a = (eps - 2 * (1 + math.log(n)) / lo) / 3
    expected = 2 * hi / min(lambertw(2 * a * hi).real, math.log(a * lo))
    assert gumbel_scale(eps, n, lo, hi) == pytest.approx(expected, rel=1e-12)
    least = least_epsilon(n, lo)
    assert least == pytest.approx(2 * (1 + math.log(5)) + 3)
    gumbel_scale(least * 1.001, n, lo, hi)
    with pytest.raises(ValueError, match="epsilon"):
        gumbel_scale(least * 0.999, n, lo, hi)


def test_truncated_gumbel_refuses_an_epsilon_its_calibration_does_not_cover():
    with pytest.raises(ValueError, match=r"epsilon=5\.0"):
        prepared("truncated_gumbel", 5.0, LINE)


def _tg_cdf(t, scale, bound):
    """CDF of Gumbel(0, scale) truncated to [−bound, bound], written with scipy.stats."""
    g = stats.gumbel_r(scale=scale)
    lo, hi = g.cdf(-bound), g.cdf(bound)
    return np.clip((g.cdf(np.clip(t, -bound, bound)) - lo) / (hi - lo), 0, 1)


@pytest.mark.parametrize("scale, bound", [(2.0, 7.0), (0.5, 1.0), (1.5, 4.0)])
def test_truncated_gumbel_noise_law(scale, bound):
    g = truncated_gumbel((20000,), scale, bound, RandomSource(3), CPU).numpy()
    assert np.abs(g).max() <= bound
    assert stats.kstest(g, lambda t: _tg_cdf(t, scale, bound)).pvalue > ALPHA
    assert stats.kstest(g, lambda t: _tg_cdf(t, scale * 1.15, bound)).pvalue < ALPHA


def test_truncated_poisson_law():
    k = truncated_poisson(30000, math.log(4), 4, RandomSource(4))
    pmf = stats.poisson(math.log(4)).pmf(np.arange(5))
    assert k.max() <= 4
    assert chi2_p(k, pmf / pmf.sum()) > ALPHA


def _truncated_gumbel_law(row, eps, shrink=1.0, keep_on_k0=False):
    """Exact output law of the mechanism on LINE for input ``row``: Σ_k P(k)·P(argmin | k) +
    P(k = 0)·uniform, the argmin law by numerical integration over the winner's noisy
    distance t: P(j) = ∫ f(t − d_j) Π_{i≠j} (1 − F(t − d_i)) dt. ``shrink`` divides the
    Gumbel scale; ``keep_on_k0`` gives MLDP's law (the input unchanged when k = 0)."""
    n = len(LINE)
    d_all = np.abs(LINE[:, 0].astype(np.float64) - LINE[row, 0])
    lo, hi = pairwise_extremes(LINE)
    b = gumbel_scale(eps, n, lo, hi) / shrink
    g = stats.gumbel_r(scale=b)
    mass = g.cdf(hi) - g.cdf(-hi)
    t = np.linspace(-hi - 1e-9, d_all.max() + hi, 400001)

    def pdf(u):
        return np.where(np.abs(u) <= hi, g.pdf(u) / mass, 0.0)

    pk = stats.poisson(math.log(n - 1)).pmf(np.arange(n))
    pk /= pk.sum()
    law = np.full(n, pk[0] / n)
    if keep_on_k0:
        law[:] = 0.0
        law[row] = pk[0]
    order = np.argsort(d_all)
    for k in range(1, n):
        members = order[:k]
        surv = {i: 1 - _tg_cdf(t - d_all[i], b, hi) for i in members}
        for j in members:
            integrand = pdf(t - d_all[j])
            for i in members:
                if i != j:
                    integrand = integrand * surv[i]
            law[j] += pk[k] * np.trapezoid(integrand, t)
    return law


@pytest.mark.parametrize("row", [0, 2])
def test_truncated_gumbel_frequencies_match_the_exact_law(row):
    eps = 12.0
    law = _truncated_gumbel_law(row, eps)
    assert law.sum() == pytest.approx(1.0, abs=1e-4)  # trapezoid rule at the truncation edges
    law /= law.sum()
    ids = draws(prepared("truncated_gumbel", eps, LINE), LINE, [row], 40000, seed=5)[0]
    assert chi2_p(ids, law) > ALPHA
    # power: the law with an 8 times smaller Gumbel scale, and MLDP's law (the input
    # unchanged when k = 0), are rejected. (ε itself moves this law very little: on LINE
    # the calibrated scale is far above every distance, so the noise is nearly uniform
    # on [−Δmax, Δmax] and the draw of k dominates.)
    for wrong in (_truncated_gumbel_law(row, eps, shrink=8.0),
                  _truncated_gumbel_law(row, eps, keep_on_k0=True)):
        assert chi2_p(ids, wrong / wrong.sum()) < ALPHA


def test_truncated_gumbel_k0_is_a_uniform_draw_not_the_input():
    """With two words, k ~ Poisson(ln 1) is always 0: MLDP returns the word unchanged; here
    every draw is uniform over the table (docs/architecture.md rule 2)."""
    two = np.array([[0.0], [1.0]], dtype=np.float32)
    m = prepared("truncated_gumbel", 100.0, two)
    ids = draws(m, two, [0], 4000, seed=6)[0]
    assert chi2_p(ids, np.array([0.5, 0.5])) > ALPHA


# ================================================================= CusText
def _reference_partition(table, k):
    n = len(table)
    placed = np.zeros(n, bool)
    groups = []
    for r in range(n):
        if placed[r]:
            continue
        if n - placed.sum() < k and groups:
            groups[-1] = sorted(groups[-1] + list(np.flatnonzero(~placed)))
            break
        d = np.linalg.norm(table - table[r], axis=1)
        d[placed] = np.inf
        d[r] = -1
        members = list(np.argsort(d, kind="stable")[:k])
        placed[members] = True
        groups.append(sorted(members))
    return groups


@pytest.mark.parametrize("k", [2, 7, 20])
def test_custext_partition_is_the_papers_greedy_mapping(random_table, k):
    sets, set_of_row = partition_table(random_table, k)
    got = [sorted(s[s >= 0].tolist()) for s in sets]
    assert got == [list(map(int, g)) for g in _reference_partition(random_table, k)]
    flat = np.concatenate([s[s >= 0] for s in sets])
    assert sorted(flat.tolist()) == list(range(len(random_table)))  # a partition
    assert all(k <= len(g) <= 2 * k - 1 for g in got)
    for i, g in enumerate(got):
        assert (set_of_row[g] == i).all()


def _partition_row_by_row(candidates, k):
    """The partition as it was built before it was blocked: one matrix-vector product and
    one ``topk`` per set (members nearest first)."""
    x = torch.from_numpy(np.ascontiguousarray(candidates, dtype=np.float32))
    n = x.shape[0]
    sq = (x * x).sum(dim=1)
    placed = torch.zeros(n, dtype=torch.bool)
    groups = []
    for r in range(n):
        if placed[r]:
            continue
        left = n - int(placed.sum())
        if left < k and groups:
            groups[-1] = np.concatenate([groups[-1], torch.nonzero(~placed)[:, 0].numpy()])
            break
        d2 = sq + sq[r] - 2.0 * (x @ x[r])
        d2[placed] = math.inf
        d2[r] = -1.0
        members = torch.topk(d2, min(k, left), largest=False).indices
        placed[members] = True
        groups.append(members.numpy())
    return groups


@pytest.mark.parametrize("n, dim, k, cells", [(300, 16, 20, 1 << 22), (300, 16, 20, 300 * 7),
                                              (211, 5, 7, 211 * 3), (45, 4, 20, 1 << 22)])
def test_custext_partition_is_the_row_by_row_one_exactly(monkeypatch, n, dim, k, cells):
    # Blocked (several openers per matrix product, `cells` small: many blocks) or not, the
    # sets and the order of their members (which seeded draws depend on) are the old ones.
    import textdp.mechanisms.custext as custext

    monkeypatch.setattr(custext, "_CHUNK_CELLS", cells)
    monkeypatch.setattr(custext, "_PARTITIONS", {})
    table = np.random.default_rng(n + dim).standard_normal((n, dim)).astype(np.float32)
    sets, _ = partition_table(table, k)
    old = _partition_row_by_row(table, k)
    assert len(sets) == len(old)
    for got, want in zip(sets, old):
        assert got[got >= 0].tolist() == want.tolist()


def _custext_law(table, members, x, eps):
    d = np.linalg.norm(table[members].astype(np.float64) - x.astype(np.float64), axis=1)
    u = 1 - (d - d.min()) / (d.max() - d.min())
    w = np.exp(eps * u / 2)
    law = np.zeros(len(table))
    law[members] = w / w.sum()
    return law


def test_custext_frequencies_match_the_exponential_mechanism(random_table):
    eps = 3.0
    m = prepared({"name": "custext", "k": 6}, eps, random_table)
    sets, set_of_row = partition_table(random_table, 6)
    rows = [0, 17]
    ids = draws(m, random_table, rows, 20000, seed=7)
    for g, r in enumerate(rows):
        members = sets[set_of_row[r]]
        members = members[members >= 0]
        law = _custext_law(random_table, members, random_table[r], eps)
        assert set(np.unique(ids[g])) <= set(members.tolist())
        assert chi2_p(ids[g], law) > ALPHA
        assert chi2_p(ids[g], _custext_law(random_table, members, random_table[r],
                                           eps * 1.25)) < ALPHA


def test_custext_is_eps_dp_within_a_set(random_table):
    """Exact laws of every pair of inputs of one set: the log-ratio never exceeds ε."""
    eps = 2.0
    sets, _ = partition_table(random_table, 5)
    members = sets[0][sets[0] >= 0]
    laws = np.stack([_custext_law(random_table, members, random_table[r], eps)
                     for r in members])[:, members]
    assert np.log(laws[:, None, :] / laws[None, :, :]).max() <= eps + 1e-9


def test_custext_rejects_a_set_size_below_two():
    with pytest.raises(ValueError, match="k"):
        create_mechanism({"name": "custext", "k": 1}, 1.0)


# ================================================================= Vickrey on Mahalanobis
def test_vickrey_mahalanobis_noise_is_mahalanobis_noise(random_table):
    vm = prepared({"name": "vickrey_mahalanobis", "lam": 0.5}, 1.0, random_table)
    mh = prepared({"name": "mahalanobis", "lam": 0.5}, 1.0, random_table)
    torch.testing.assert_close(vm.noise(50, 8, RandomSource(8), CPU),
                               mh.noise(50, 8, RandomSource(8), CPU))
    assert isinstance(vm, VickreyMahalanobis) and isinstance(vm, Vickrey)


def test_vickrey_mahalanobis_at_lambda_zero_is_vickrey(random_table):
    vm = prepared({"name": "vickrey_mahalanobis", "lam": 0.0, "t": 0.6}, 1.0, random_table)
    v = prepared({"name": "vickrey", "t": 0.6}, 1.0, random_table)
    x = torch.from_numpy(random_table[:5])
    inverse = torch.arange(5).repeat(40)
    assert torch.equal(vm.sample(x, inverse, RandomSource(9)),
                       v.sample(x, inverse, RandomSource(9)))


def test_vickrey_mahalanobis_second_choice_frequency(random_table):
    """Given the noisy vector the choice is Bernoulli(t·d₁/(t·d₁ + (1 − t)·d₂)): the mean of
    those probabilities over draws predicts how often the second-nearest word is taken."""
    m = prepared({"name": "vickrey_mahalanobis", "t": 0.7}, 0.5, random_table)
    x = torch.from_numpy(np.repeat(random_table[:1], 20000, axis=0))
    noisy = m.perturb(x, RandomSource(10))
    dist, ids = m.index.search(noisy, 2)
    p2 = (0.7 * dist[:, 0] / (0.7 * dist[:, 0] + 0.3 * dist[:, 1])).double().numpy()
    got = m.sample(x[:1], torch.zeros(20000, dtype=torch.int64), RandomSource(10)).numpy()
    second = (got == ids[:, 1].numpy()).mean()
    assert abs(second - p2.mean()) < 4 * math.sqrt(p2.mean() * (1 - p2.mean()) / 20000)


# ================================================================= 1-Diffractor
def test_chain_is_a_greedy_nearest_neighbour_permutation():
    pts = np.array([[0.0], [10.0], [1.0], [11.0], [3.0]], dtype=np.float32)
    orders, positions = sorted_lists(pts, 2)
    assert orders[0].tolist() == [0, 2, 4, 1, 3]  # 0 → 1.0 → 3.0 → 10 → 11
    for o, p in zip(orders, positions):
        assert sorted(o.tolist()) == list(range(5)) and (p[o] == np.arange(5)).all()
    # when every neighbour is listed, the chain goes on at the first unlisted row
    assert chain(np.array([[1], [0], [0]]), 0).tolist() == [0, 1, 2]


def test_two_sided_geometric_law():
    eps = 0.7
    z = two_sided_geometric(40000, eps, RandomSource(11))
    support = np.arange(-15, 16)
    pmf = np.tanh(eps / 2) * np.exp(-eps * np.abs(support))
    counts = np.array([(z == s).sum() for s in support])
    tail = len(z) - counts.sum()
    exp_tail = len(z) * (1 - pmf.sum())
    obs, exp = np.append(counts, tail), np.append(pmf, 1 - pmf.sum()) * len(z)
    assert stats.chisquare(obs, exp).pvalue > ALPHA and exp_tail >= 0
    wrong = np.tanh(eps * 1.1 / 2) * np.exp(-eps * 1.1 * np.abs(support))
    wrong = np.append(wrong, 1 - wrong.sum()) * len(z)
    assert stats.chisquare(obs, wrong).pvalue < ALPHA


def _diffractor_law(m, row, method):
    orders = m._orders.numpy()
    positions = m._positions.numpy()
    n = orders.shape[1]
    law = np.zeros(n)
    q = math.exp(-m.epsilon)
    for o, p in zip(orders, positions):
        i = p[row]
        j = np.arange(n)
        if method == "geometric":
            pl = np.tanh(m.epsilon / 2) * q ** np.abs(j - i)
            pl[0] = q ** i / (1 + q)            # everything at or below 0 is clipped to 0
            pl[n - 1] = q ** (n - 1 - i) / (1 + q)
        else:
            pl = np.exp(-m.epsilon * np.minimum(np.abs(j - i), m.gamma) / 2)
            pl /= pl.sum()
        law[o] += pl / len(orders)
    return law


@pytest.mark.parametrize("method", ["geometric", "tem"])
def test_diffractor_frequencies_match_the_mixture_of_lists(random_table, method):
    eps = 0.8
    m = prepared({"name": "diffractor", "method": method, "lists": 3, "gamma": 4}, eps,
                 random_table)
    rows = [0, 31]
    ids = draws(m, random_table, rows, 30000, seed=12)
    for g, r in enumerate(rows):
        law = _diffractor_law(m, r, method)
        assert law.sum() == pytest.approx(1.0)
        assert chi2_p(ids[g], law) > ALPHA
    wrong = prepared({"name": "diffractor", "method": method, "lists": 3, "gamma": 4},
                     eps * 1.25, random_table)
    assert chi2_p(ids[0], _diffractor_law(wrong, rows[0], method)) < ALPHA


@pytest.mark.parametrize("kwargs, name", [({"method": "laplace"}, "method"),
                                          ({"lists": 0}, "lists"), ({"gamma": 0}, "gamma")])
def test_diffractor_rejects_bad_parameters(kwargs, name):
    with pytest.raises(ValueError, match=name):
        create_mechanism({"name": "diffractor", **kwargs}, 1.0)


# ================================================================= empirical audit
AUDIT_DRAWS = 100_000
AUDIT_ALPHA = 1e-3 / len(LINE) ** 3  # Bonferroni over every (x, x', y)


def audit_counts(m, seed=0):
    """counts[x, y] over AUDIT_DRAWS draws from every word of LINE."""
    rng = RandomSource(seed)
    m.prepare(LINE, NeighbourIndex(LINE, backend="exact"), rng)
    inverse = torch.arange(len(LINE)).repeat_interleave(AUDIT_DRAWS)
    ids = m.sample(torch.from_numpy(LINE), inverse, rng).numpy()
    counts = np.zeros((len(LINE), len(LINE)), dtype=np.int64)
    np.add.at(counts, (inverse.numpy(), ids), 1)
    return counts


def worst_violation(counts, bound):
    """The audit (:func:`textdp.evaluate.privacy.worst_violation`) at AUDIT_ALPHA."""
    return privacy_audit(counts, bound, AUDIT_ALPHA)


def euclidean_bound(eps):
    return eps * np.abs(LINE - LINE.T).astype(np.float64)


def list_bound(m):
    pos = m._positions.numpy().astype(np.float64)
    return m.epsilon * np.abs(pos[:, :, None] - pos[:, None, :]).max(axis=0)


class _TooLittleNoiseDiffractor(Diffractor):
    """Claims ε, draws with 4ε."""

    def sample(self, vectors, inverse, rng, index=None):
        saved = self.epsilon
        self.epsilon = 4 * saved
        try:
            return super().sample(vectors, inverse, rng, index)
        finally:
            self.epsilon = saved


class _TooLittleNoiseCusText(CusText):
    """Claims ε, draws with 3ε."""

    def sample(self, vectors, inverse, rng, index=None):
        saved = self.epsilon
        self.epsilon = 3 * saved
        try:
            return super().sample(vectors, inverse, rng, index)
        finally:
            self.epsilon = saved


class _TooLittleNoiseVickreyMahalanobis(VickreyMahalanobis):
    """Claims ε, adds the noise of 3ε."""

    def noise(self, n, dim, rng, device):
        return super().noise(n, dim, rng, device) / 3


@pytest.mark.parametrize("method", ["geometric", "tem"])
def test_audit_diffractor(method):
    m = create_mechanism({"name": "diffractor", "method": method}, 1.0)
    counts = audit_counts(m)
    assert worst_violation(counts, list_bound(m)) <= 0.05
    broken = _TooLittleNoiseDiffractor(1.0, method=method)
    assert worst_violation(audit_counts(broken), list_bound(broken)) > 0.5


def test_audit_custext():
    """All five words form one set (k = 5): pure ε-DP between every pair."""
    eps = 1.0
    bound = np.full((5, 5), eps)
    assert worst_violation(audit_counts(CusText(eps, k=5)), bound) <= 0.05
    assert worst_violation(audit_counts(_TooLittleNoiseCusText(eps, k=5)), bound) > 0.5


def test_audit_vickrey_mahalanobis():
    """On a line the regularised covariance is 1 (cov/var), so d_Σλ is |x − x'|."""
    eps = 1.0
    m = VickreyMahalanobis(eps)
    assert worst_violation(audit_counts(m), euclidean_bound(eps)) <= 0.05
    broken = _TooLittleNoiseVickreyMahalanobis(eps)
    assert worst_violation(audit_counts(broken), euclidean_bound(eps)) > 0.5


def test_audit_truncated_gumbel():
    """The calibration needs ε > (2(1 + ln 5) + 3)/Δmin ≈ 8.2 here, so the claimed bound ε·d
    is at least e^8 between any two words: far beyond what 10⁵ draws can refute. The audit
    finds no violation of it; as positive control, the same counts *do* refute a claim 20
    times smaller (0.6·d), so they carry the signal an audit needs."""
    eps = 12.0
    counts = audit_counts(TruncatedGumbel(eps))
    assert worst_violation(counts, euclidean_bound(eps)) <= 0.05
    assert worst_violation(counts, euclidean_bound(eps / 20)) > 0.5
