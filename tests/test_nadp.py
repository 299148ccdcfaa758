"""NADP: neighbour graph, components, sensitivities, σ per component, cache and protocol."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from textdp.index import NeighbourIndex
from textdp.mechanisms import available, create_mechanism, registry
from textdp.mechanisms.gaussian import analytic_gaussian_sigma, gaussian_delta
from textdp.mechanisms.nadp import (
    NADP,
    cached_neighbourhoods,
    compute_neighbourhoods,
    nearest_neighbour_lists,
    neighbour_graph,
)
from textdp.rng import RandomSource

# Two squares far apart: side 1 at the origin, side 2 at x = 100. With lists of the 3 nearest
# words, two words of one square share 2 of 4 listed words: Jaccard 2 / 4 = 0.5.
SQUARES = np.array([[0, 0], [1, 0], [0, 1], [1, 1],
                    [100, 0], [102, 0], [100, 2], [102, 2]], dtype=np.float32)


pytestmark = pytest.mark.usefixtures("private_cache")


def test_nearest_lists_leave_the_word_out():
    dist, ids = nearest_neighbour_lists(SQUARES, 3)
    assert ids.shape == (8, 3)
    assert not (ids == np.arange(8)[:, None]).any()
    assert set(ids[0]) == {1, 2, 3} and set(ids[5]) == {4, 6, 7}
    np.testing.assert_allclose(dist[0], [1, 1, math.sqrt(2)], rtol=1e-6)


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
