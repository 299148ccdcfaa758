"""NADP: neighbour graph, components, sensitivities, σ per component, cache and protocol."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
import torch

from textdp.index import NeighbourIndex
from textdp.mechanisms import available, create_mechanism, registry
from textdp.mechanisms.gaussian import analytic_gaussian_sigma, gaussian_delta
from textdp.mechanisms.nadp import (
    NADP,
    Neighbourhoods,
    NeighbourhoodShares,
    cached_neighbourhoods,
    compute_neighbourhoods,
    neighbour_graph,
    neighbourhood_shares,
    table_shares,
)
from textdp.rng import RandomSource

# Two squares far apart: side 1 at the origin, side 2 at x = 100. With lists of the 3 nearest
# words, two words of one square share 2 of 4 listed words: Jaccard 2 / 4 = 0.5.
SQUARES = np.array([[0, 0], [1, 0], [0, 1], [1, 1],
                    [100, 0], [102, 0], [100, 2], [102, 2]], dtype=np.float32)


pytestmark = pytest.mark.usefixtures("private_cache")


def test_components_and_sensitivities_of_two_squares():
    nb = compute_neighbourhoods(SQUARES, 0.5, graph_k=2, list_k=3)
    assert nb.count == 2 and sorted(nb.sizes.tolist()) == [4, 4]
    assert len(set(nb.labels[:4])) == 1 and len(set(nb.labels[4:])) == 1
    np.testing.assert_allclose(nb.row_sensitivity()[[0, 4]], [math.sqrt(2), 2 * math.sqrt(2)],
                               rtol=1e-6)


def test_a_high_threshold_leaves_single_words_with_their_nearest_distance():
    nb = compute_neighbourhoods(SQUARES, 0.51, graph_k=2, list_k=3)
    assert nb.count == 8 and (nb.sizes == 1).all()
    np.testing.assert_allclose(nb.row_sensitivity(), [1] * 4 + [2] * 4, rtol=1e-6)


def test_edges_need_top_k_and_jaccard():
    lists = np.array([
        [1, 2, 3], [0, 2, 3], [3, 0, 1], [2, 0, 1],
        [5, 9, 8], [4, 6, 7],   # 4 and 5 are each other's nearest but share no neighbour
        [7, 8, 9], [6, 8, 9],   # share 8 and 9: Jaccard 2 / 4 = 0.5
        [0, 1, 9], [0, 1, 8],   # Jaccard 0.5, but each only third in the other's list
    ])
    graph = neighbour_graph(lists, tau=0.5, graph_k=2)
    edges = {tuple(sorted(map(int, e))) for e in zip(graph.row, graph.col)}
    assert (0, 1) in edges and (6, 7) in edges
    assert (4, 5) not in edges and (8, 9) not in edges
    from scipy.sparse.csgraph import connected_components

    _, labels = connected_components(graph, directed=False)
    groups = {frozenset(np.nonzero(labels == c)[0].tolist()) for c in set(labels.tolist())}
    assert groups == {frozenset({0, 1, 2, 3}), frozenset({4}), frozenset({5}),
                      frozenset({6, 7}), frozenset({8}), frozenset({9})}
    # τ = 0 keeps every top-2 edge, whatever the lists share.
    assert (4, 5) in {tuple(sorted(map(int, e))) for e in zip(
        *neighbour_graph(lists, tau=0.0).nonzero())}


def test_sigma_per_component_is_the_analytic_gaussian_sigma_of_its_diameter():
    mech = NADP(epsilon=2.0, delta=1e-5, tau=0.5)
    nb = compute_neighbourhoods(SQUARES, 0.5, graph_k=2, list_k=3)
    for diameter in np.unique(nb.sensitivity):
        sigma = diameter * mech.unit_sigma
        assert sigma == pytest.approx(analytic_gaussian_sigma(2.0, 1e-5, diameter), rel=1e-9)
        assert gaussian_delta(sigma, 2.0, diameter) <= 1e-5
        assert gaussian_delta(sigma * 0.99, 2.0, diameter) > 1e-5  # the smallest such σ


def _table(n: int = 60, dim: int = 8, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((n, dim)).astype(np.float32) * 3


def test_prepare_caches_and_sample_scales_noise_per_neighbourhood(tmp_path):
    vectors = _table()
    index = NeighbourIndex(vectors, backend="exact")
    mech = create_mechanism({"name": "nadp", "tau": 0.25}, 5.0)
    mech.prepare(vectors, index, RandomSource(0))
    cache_files = list((tmp_path / "cache" / "nadp").glob("*.npz"))
    assert len(cache_files) == 1
    again = cached_neighbourhoods(vectors, 0.25)
    np.testing.assert_array_equal(again.labels, mech.neighbourhoods.labels)
    np.testing.assert_allclose(again.sensitivity, mech.neighbourhoods.sensitivity)
    # A damaged cache file is recomputed, not trusted.
    cache_files[0].write_bytes(b"not an npz")
    np.testing.assert_array_equal(cached_neighbourhoods(vectors, 0.25).labels, again.labels)

    # The noise of a word (and of a vector near it) has the σ of the word's neighbourhood.
    row = 7
    expected = mech.neighbourhoods.row_sensitivity()[row] * mech.unit_sigma
    near = torch.from_numpy(vectors[row] + 1e-3)
    noisy = mech.perturb(near.repeat(4000, 1), RandomSource(1))
    assert float((noisy - near).std()) == pytest.approx(expected, rel=0.03)
    ids = mech.sample(torch.from_numpy(vectors[[row, 3]]), torch.tensor([0, 1, 1, 0]),
                      RandomSource(2))
    assert ids.shape == (4,) and int(ids.max()) < len(vectors)


def test_huge_epsilon_keeps_every_word():
    vectors = _table()
    mech = NADP(epsilon=1e6)
    mech.prepare(vectors, NeighbourIndex(vectors, backend="exact"), RandomSource(0))
    inverse = torch.arange(len(vectors)).repeat(3)
    ids = mech.sample(torch.from_numpy(vectors), inverse, RandomSource(0))
    assert torch.equal(ids, inverse)
    released = mech.release(vectors, RandomSource(0))
    assert released.shape == vectors.shape and not np.array_equal(released, vectors)
    sigma = mech.neighbourhoods.row_sensitivity() * mech.unit_sigma
    assert (np.abs(released - vectors) < 6 * sigma[:, None]).all()


@pytest.mark.parametrize("kwargs, name", [({"tau": 1.5}, "tau"), ({"delta": 0.0}, "delta"),
                                          ({"epsilon": -1.0}, "epsilon")])
def test_parameters_are_validated(kwargs, name):
    args = {"epsilon": 1.0, **kwargs}
    with pytest.raises(ValueError, match=name):
        NADP(**args)


def test_duplicate_vectors_alone_are_rejected():
    vectors = np.array([[0, 0], [0, 0], [10, 0], [10, 1]], dtype=np.float32)
    with pytest.raises(ValueError, match="duplicate"):
        compute_neighbourhoods(vectors, 1.0, graph_k=1, list_k=1)


def test_registered_and_listed(capsys):
    assert "nadp" in available() and registry.get("nadp") is NADP
    from textdp.cli import main

    assert main(["mechanisms"]) == 0
    out = capsys.readouterr().out
    assert "nadp" in out and "neighbourhood" in out


def test_privatizer_refuses_nadp_on_contextual_vectors():
    from textdp.privatizer import Privatizer

    # σ is per neighbourhood of a table word; a contextual vector is no table word.
    with pytest.raises(ValueError, match="words of its table only"):
        Privatizer(representation="contextual", mechanism="nadp", epsilon=20.0)


# ================================================================= neighbourhood shares
def _clusters() -> tuple[np.ndarray, np.ndarray]:
    """A 12-d table whose neighbourhoods under the default graph (τ = 0.2, 2 of 10 neighbours)
    are known: four chains of 12 words, one of 5, one of 3, and two lone words. Returns the
    vectors and the intended group of each row.

    Chains are spaced 0.1 apart, their centres 10 apart, so every word's two nearest are its
    chain neighbours and a chain's lists share ≥ 7 of 10 words (Jaccard ≥ 0.54). The first lone
    word sits between the four long chains (its ten nearest: ≤ 4 words of any one chain, whose
    own lists hold only their chain: ≤ 2 shared); the second lies 9 beyond it along the
    chains' direction, so its nearest is the first, whose list it shares nothing with.
    """
    axes = np.eye(12)
    rows, groups = [], []
    for chain, (axis, size, along) in enumerate(
            [(0, 12, 8), (1, 12, 8), (2, 12, 8), (3, 12, 8), (4, 5, 9), (5, 3, 9)]):
        for k in range(size):
            rows.append(10 * axes[axis] + 0.1 * (k - (size - 1) / 2) * axes[along])
            groups.append(chain)
    centre = 2.5 * axes[:4].sum(axis=0)
    rows += [centre, centre + 9 * axes[8]]
    groups += [6, 7]
    return np.array(rows, dtype=np.float32), np.array(groups)


def _same_partition(a: np.ndarray, b: np.ndarray) -> bool:
    return {frozenset(np.nonzero(a == x)[0].tolist()) for x in set(a.tolist())} == \
        {frozenset(np.nonzero(b == x)[0].tolist()) for x in set(b.tolist())}


def test_shares_of_known_clusters_come_from_the_neighbourhoods_prepare_builds():
    vectors, groups = _clusters()
    mech = NADP(epsilon=3.0)  # default τ, graph_k, list_k: the structure users get
    mech.prepare(vectors, NeighbourIndex(vectors, backend="exact"), RandomSource(0))
    assert _same_partition(mech.neighbourhoods.labels, groups)
    assert sorted(mech.neighbourhoods.sizes.tolist()) == [1, 1, 3, 5, 12, 12, 12, 12]
    assert mech.shares() == NeighbourhoodShares(
        words=58, neighbourhoods=8, singleton_share=2 / 58, small_share=5 / 58,
        small_limit=3, median_size=8.5, median_word_size=12.0, largest=12)
    assert mech.shares() == neighbourhood_shares(mech.neighbourhoods)

    info = mech.describe()
    assert info["neighbourhood_shares"] == mech.shares().as_dict()
    assert info["neighbourhood_shares"]["singleton_share"] == 2 / 58
    assert info["coverage"] == mech.shares_line() == (
        "guarantee covers pairs within one neighbourhood only: 3.4 % of the 58 words are "
        "alone in theirs (no guarantee), 8.6 % in neighbourhoods of ≤ 3 words "
        "(8 neighbourhoods, median size 8.5, largest 12)")


def test_shares_of_hand_built_neighbourhoods():
    labels = np.array([0, 1, 2, 2, 2, 3, 3, 3, 3, 3])  # sizes 1, 1, 3, 5
    sizes = np.bincount(labels)
    nb = Neighbourhoods(labels, np.ones(4), sizes)
    shares = neighbourhood_shares(nb)
    assert shares == NeighbourhoodShares(
        words=10, neighbourhoods=4, singleton_share=0.2, small_share=0.5, small_limit=3,
        median_size=2.0, median_word_size=4.0, largest=5)
    assert neighbourhood_shares(nb, small_limit=1).small_share == 0.2
    assert neighbourhood_shares(nb, small_limit=5).small_share == 1.0
    summary = nb.summary()
    assert summary["singleton_share"] == 0.2 and summary["small_share"] == 0.5
    with pytest.raises(ValueError, match="small_limit"):
        neighbourhood_shares(nb, small_limit=0)


def test_shares_exist_only_once_prepared():
    mech = NADP(epsilon=1.0)
    with pytest.raises(RuntimeError, match="prepare"):
        mech.shares()
    assert "coverage" not in mech.describe()
    assert "neighbourhood_shares" not in mech.describe()


def test_guarantee_states_its_scope():
    text = NADP.guarantee
    assert "only between two words of the same neighbourhood" in text
    assert "no guarantee between words of different neighbourhoods" in text
    assert "alone in its neighbourhood (singleton)" in text
    assert "not multiplied by a distance" in text and "never compare" in text
    assert "no guarantee" in NADP.__doc__ and "never be compared" in NADP.__doc__


def test_default_table_shares_are_printed_beside_the_guarantee():
    from textdp.calibration import resolve_table
    from textdp.index import shared_index

    shares = table_shares()
    # Measured: 15,248 words, 7,641 neighbourhoods, 37.4 % singletons, 56.3 % in ≤ 3, largest
    # 512 (τ = 0.2, median-norm clipping). Bounds, not the figures, so a retuned default table
    # still passes while a broken count does not.
    assert shares.words > 10_000
    assert 0.25 <= shares.singleton_share <= 0.5
    assert 0.45 <= shares.small_share <= 0.7
    assert shares.singleton_share < shares.small_share
    assert shares.median_size == 1.0 and 100 <= shares.largest <= 2_000
    assert table_shares("default") is shares  # cached for the CLI

    space = resolve_table(None)
    mech = create_mechanism("nadp", 20.0)
    mech.prepare(space.vectors, shared_index(space, "auto", torch.device("cpu")),
                 RandomSource(0))
    assert mech.shares() == shares
    coverage = mech.describe()["coverage"]
    assert f"{100 * shares.singleton_share:.1f} % of the {shares.words:,} words" in coverage
    assert f"{100 * shares.small_share:.1f} % in neighbourhoods of ≤ 3" in coverage


def test_the_report_states_the_share_of_the_table_the_guarantee_covers():
    from textdp.privatizer import Privatizer

    report = Privatizer(mechanism="nadp", epsilon=20.0, targets="all", seed=0)("word").report
    assert "only between two words of the same neighbourhood" in report.guarantee
    assert re.search(r"\d+\.\d % of the [\d,]+ words are alone in theirs", report.guarantee)
    assert report.epsilon_at_diameter is None  # its ε multiplies no distance
