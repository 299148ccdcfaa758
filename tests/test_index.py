"""textdp.index.NeighbourIndex: every backend against brute-force numpy."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import textdp.index as index_module
from textdp.index import BACKENDS, NeighbourIndex, nearest_other_rows

ROWS, DIM, QUERIES = 3000, 24, 400
EXACT_BACKENDS = ("exact", "flat")
# hnsw, ivf and any newer approximate backend (e.g. an int8 first stage with re-rank)
APPROXIMATE_BACKENDS = tuple(b for b in BACKENDS if b not in ("auto", *EXACT_BACKENDS))


@pytest.fixture(autouse=True)
def _own_rates_cache(monkeypatch, tmp_path):
    """Each test measures into its own user cache: "auto" keeps measured rates across
    processes (index.backend_rates), which would otherwise answer for faked timings."""
    monkeypatch.setenv("TEXTDP_CACHE", str(tmp_path / "textdp-cache"))


def _brute_force(data: np.ndarray, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    d2 = ((queries[:, None, :].astype(np.float64) - data[None, :, :].astype(np.float64)) ** 2
          ).sum(axis=2)
    ids = np.argsort(d2, axis=1, kind="stable")[:, :k]
    return np.sqrt(np.take_along_axis(d2, ids, axis=1)), ids


@pytest.fixture(scope="module")
def clustered():
    """Embedding-like data: a Gaussian mixture, and in-distribution queries drawn from it."""
    rng = np.random.default_rng(2024)
    centres = rng.standard_normal((30, DIM)) * 3.0

    def draw(n):
        return (centres[rng.integers(0, 30, n)] + rng.standard_normal((n, DIM))).astype(
            np.float32)

    data, queries = draw(ROWS), draw(QUERIES)
    return data, queries, _brute_force(data, queries, 2)


@pytest.fixture(scope="module")
def uniform():
    rng = np.random.default_rng(7)
    data = rng.standard_normal((ROWS, DIM)).astype(np.float32)
    queries = rng.standard_normal((QUERIES, DIM)).astype(np.float32)
    return data, queries, _brute_force(data, queries, 2)


@pytest.mark.parametrize("backend", EXACT_BACKENDS)
@pytest.mark.parametrize("dataset", ["clustered", "uniform"])
def test_exact_backends_match_brute_force(backend, dataset, request):
    data, queries, (ref_d, ref_i) = request.getfixturevalue(dataset)
    index = NeighbourIndex(data, backend=backend)
    assert index.backend == backend
    dist, ids = index.search(queries, k=2)
    assert dist.shape == ids.shape == (QUERIES, 2)
    assert ids.dtype == torch.int64
    np.testing.assert_array_equal(ids.numpy(), ref_i)
    np.testing.assert_allclose(dist.numpy(), ref_d, rtol=1e-4)
    # top-1 on its own gives the same answer as the first column of top-2
    d1, i1 = index.search(torch.from_numpy(queries), k=1)
    np.testing.assert_array_equal(i1.numpy()[:, 0], ref_i[:, 0])
    np.testing.assert_allclose(d1.numpy()[:, 0], ref_d[:, 0], rtol=1e-4)


def test_approximate_backends_include_hnsw_and_ivf():
    assert {"hnsw", "ivf"} <= set(APPROXIMATE_BACKENDS)


@pytest.mark.parametrize("backend", APPROXIMATE_BACKENDS)
@pytest.mark.parametrize("dataset", ["clustered", "uniform"])
def test_approximate_backends_recall(backend, dataset, request):
    data, queries, (ref_d, ref_i) = request.getfixturevalue(dataset)
    index = NeighbourIndex(data, backend=backend, recall=0.9)
    assert index.backend in BACKENDS and index.backend != "auto"
    dist, ids = index.search(queries, k=1)
    recall = float((ids.numpy()[:, 0] == ref_i[:, 0]).mean())
    assert recall >= 0.9, recall
    # whatever row is returned, the distance reported is its true distance
    true = np.linalg.norm(queries - data[ids.numpy()[:, 0]], axis=1)
    np.testing.assert_allclose(dist.numpy()[:, 0], true, rtol=1e-4, atol=1e-4)
    assert (dist.numpy()[:, 0] >= ref_d[:, 0] * (1 - 1e-4)).all()  # never beats the optimum


@pytest.mark.parametrize("backend", [b for b in BACKENDS if b != "auto"])
def test_rows_find_themselves(backend, clustered):
    data = clustered[0]
    index = NeighbourIndex(data, backend=backend, recall=0.9)
    dist, ids = index.search(data[:200], k=1)
    assert float((ids.numpy()[:, 0] == np.arange(200)).mean()) >= 0.95
    assert float(dist[:, 0].median()) < 0.05


def test_exact_search_chunks_agree(monkeypatch, uniform):
    """Many chunks of queries give the same answer as one."""
    data, queries, (ref_d, ref_i) = uniform
    monkeypatch.setattr(index_module, "_CHUNK_CELLS", ROWS * 7)  # 7 queries per chunk
    index = NeighbourIndex(data, backend="exact")
    dist, ids = index.search(queries, k=2)
    np.testing.assert_array_equal(ids.numpy(), ref_i)
    np.testing.assert_allclose(dist.numpy(), ref_d, rtol=1e-4)
    dist1, ids1 = index.search(queries, k=1)
    np.testing.assert_array_equal(ids1.numpy()[:, 0], ref_i[:, 0])
    np.testing.assert_allclose(dist1.numpy()[:, 0], ref_d[:, 0], rtol=1e-4)


@pytest.mark.parametrize("rows", [1, 2, 5, 31, 32, 33, 97])
def test_exact_on_tiny_and_odd_sized_tables(rows):
    rng = np.random.default_rng(rows)
    data = rng.standard_normal((rows, 6)).astype(np.float32)
    queries = rng.standard_normal((50, 6)).astype(np.float32)
    k = min(2, rows)
    ref_d, ref_i = _brute_force(data, queries, k)
    for backend in EXACT_BACKENDS:
        dist, ids = NeighbourIndex(data, backend=backend).search(queries, k=k)
        np.testing.assert_array_equal(ids.numpy(), ref_i)
        np.testing.assert_allclose(dist.numpy(), ref_d, rtol=1e-4, atol=1e-5)
        d1, i1 = NeighbourIndex(data, backend=backend).search(queries, k=1)
        np.testing.assert_array_equal(i1.numpy()[:, 0], ref_i[:, 0])
        np.testing.assert_allclose(d1.numpy()[:, 0], ref_d[:, 0], rtol=1e-4, atol=1e-5)


def test_search_accepts_numpy_and_torch(uniform):
    data, queries, _ = uniform
    for backend in ("exact", "flat"):
        index = NeighbourIndex(data, backend=backend)
        a = index.search(queries[:10], k=1)[1]
        b = index.search(torch.from_numpy(queries[:10]), k=1)[1]
        assert torch.equal(a, b)


def test_distances_to_is_the_full_matrix(uniform):
    data, queries, _ = uniform
    for backend in ("exact", "flat"):
        full = NeighbourIndex(data, backend=backend).distances_to(torch.from_numpy(queries[:20]))
        assert full.shape == (20, ROWS)
        ref = np.sqrt(((queries[:20, None, :].astype(np.float64) - data[None]) ** 2).sum(-1))
        np.testing.assert_allclose(full.numpy(), ref, rtol=1e-4, atol=1e-4)


def test_auto_picks_exact_on_small_tables(uniform):
    data = uniform[0]
    index = NeighbourIndex(data, backend="auto")
    assert index.backend == "exact"
    assert "exact" in repr(index) and str(ROWS) in repr(index)
    assert len(index) == ROWS


def test_auto_on_large_cpu_tables_still_finds_the_neighbours(monkeypatch, uniform):
    monkeypatch.setattr(index_module, "AUTO_EXACT_MAX_CELLS", 1000)
    data, queries, (_, ref_i) = uniform
    index = NeighbourIndex(data, backend="auto", device="cpu")
    assert index.backend in BACKENDS and index.backend != "auto"
    ids = index.search(queries, k=1)[1].numpy()[:, 0]
    assert (ids == ref_i[:, 0]).mean() >= 0.9


@pytest.mark.parametrize("backend", ["annoy", "EXACT", "", None, "brute"])
def test_bad_backend_rejected(backend, uniform):
    with pytest.raises(ValueError, match="backend"):
        NeighbourIndex(uniform[0], backend=backend)


@pytest.mark.parametrize("device", ["gpu", "quantum", "cuda:x", 42])
def test_bad_device_rejected(device):
    with pytest.raises(ValueError, match="device"):
        NeighbourIndex(np.eye(3, dtype=np.float32), backend="exact", device=device)


@pytest.mark.parametrize("recall", [0, -0.5, 1.5, float("nan")])
def test_bad_recall_rejected(recall):
    with pytest.raises(ValueError, match="recall"):
        NeighbourIndex(np.eye(3, dtype=np.float32), backend="hnsw", recall=recall)


def test_backends_constant():
    assert {"auto", "exact", "flat", "hnsw", "ivf"} <= set(BACKENDS)


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
@pytest.mark.parametrize("backend", ["exact", "flat", "auto"])
def test_cuda_exact_matches_brute_force(backend, clustered):
    data, queries, (ref_d, ref_i) = clustered
    index = NeighbourIndex(data, backend=backend, device="cuda")
    assert index.device.type == "cuda"
    assert index.backend in ("exact", "flat")
    dist, ids = index.search(torch.from_numpy(queries).cuda(), k=2)
    assert dist.device.type == "cuda" and ids.device.type == "cuda"
    np.testing.assert_array_equal(ids.cpu().numpy(), ref_i)
    np.testing.assert_allclose(dist.cpu().numpy(), ref_d, rtol=1e-4)


# ====================================================================== laziness and cache
def test_index_is_built_on_first_search_only(monkeypatch, uniform):
    """The arguments are checked at once; the backend is resolved (and timed) on first use."""
    calls = []
    monkeypatch.setattr(index_module, "AUTO_EXACT_MAX_CELLS", 1000)
    monkeypatch.setattr(index_module, "backend_rates",
                        lambda v: calls.append(v.shape) or {b: 1.0 for b in
                                                            index_module.cpu_backends()})
    data, queries, (_, ref_i) = uniform
    index = NeighbourIndex(data, backend="auto", device="cpu")
    assert not index.built and calls == [] and "not built" in repr(index)
    ids = index.search(queries, k=1)[1].numpy()[:, 0]
    assert index.built and calls == [data.shape] and index.backend == "exact"
    assert (ids == ref_i[:, 0]).all()
    index.search(queries[:3], k=1)
    assert calls == [data.shape]  # built once
    # distances_to needs no structure: it does not build
    fresh = NeighbourIndex(data, backend="exact")
    fresh.distances_to(torch.from_numpy(queries[:2]))
    assert not fresh.built


def _cache_to(monkeypatch, tmp_path):
    monkeypatch.setenv("TEXTDP_CACHE", str(tmp_path))
    monkeypatch.setattr(index_module, "_MEASURED", {})  # nothing measured in this process
    return tmp_path / index_module.RATES_FILE


def test_backend_rates_are_kept_in_the_user_cache(monkeypatch, tmp_path, uniform):
    path = _cache_to(monkeypatch, tmp_path)
    data = uniform[0]
    measured = []
    real = index_module.measure_backends
    monkeypatch.setattr(index_module, "measure_backends",
                        lambda v: measured.append(1) or real(v))
    first = index_module.backend_rates(data)
    assert measured == [1] and path.exists()
    assert set(first) == set(index_module.cpu_backends())
    monkeypatch.setattr(index_module, "_MEASURED", {})  # as a new process: the file answers
    assert index_module.backend_rates(data) == first and measured == [1]  # read, not measured
    assert index_module.backend_rates(data[:-1]) and measured == [1, 1]  # another shape


@pytest.mark.parametrize("content", ["{not json", "[1, 2]", '{"%s": {"exact": -1}}',
                                     '{"%s": {"exact": 1e9, "nonsense": 5}}',
                                     '{"%s": {"exact": "fast"}}', '{"%s": {}}'])
def test_a_stale_or_corrupt_rates_cache_is_ignored(monkeypatch, tmp_path, uniform, content):
    path = _cache_to(monkeypatch, tmp_path)
    data = uniform[0]
    key = index_module._rates_key(*data.shape)
    path.write_text(content.replace("%s", key), encoding="utf-8")
    measured = []
    monkeypatch.setattr(index_module, "measure_backends",
                        lambda v: measured.append(1) or {b: 10.0 for b in
                                                         index_module.cpu_backends()})
    rates = index_module.backend_rates(data)
    assert measured == [1] and rates == {b: 10.0 for b in index_module.cpu_backends()}
    monkeypatch.setattr(index_module, "_MEASURED", {})
    assert index_module.backend_rates(data) == rates and measured == [1]  # rewritten


def test_an_unwritable_rates_cache_is_skipped(monkeypatch, tmp_path, uniform):
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    monkeypatch.setenv("TEXTDP_CACHE", str(blocker / "sub"))  # a directory under a file
    rates = index_module.backend_rates(uniform[0])
    assert set(rates) == set(index_module.cpu_backends())



# Two squares far apart (side 1 at the origin, side 2 at x = 100).
SQUARES = np.array([[0, 0], [1, 0], [0, 1], [1, 1],
                    [100, 0], [102, 0], [100, 2], [102, 2]], dtype=np.float32)


def test_nearest_other_rows_leave_the_row_out():
    dist, ids = nearest_other_rows(SQUARES, 3)
    assert ids.shape == dist.shape == (8, 3) and ids.dtype == np.int64
    assert not (ids == np.arange(8)[:, None]).any()
    assert set(ids[0]) == {1, 2, 3} and set(ids[5]) == {4, 6, 7}
    np.testing.assert_allclose(dist[0], [1, 1, math.sqrt(2)], rtol=1e-6)
    np.testing.assert_allclose(dist[5], [2, 2, 2 * math.sqrt(2)], rtol=1e-6)


def test_nearest_other_rows_match_brute_force_with_duplicates():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(300, 16)).astype(np.float32)
    x[7] = x[8] = x[9] = x[10]  # four equal rows: a row may be returned behind its twins
    dist, ids = nearest_other_rows(x, 5)
    full = np.linalg.norm(x[:, None] - x[None], axis=2)
    np.fill_diagonal(full, np.inf)
    want = np.sort(full, axis=1)[:, :5]
    np.testing.assert_allclose(dist, want, rtol=1e-4, atol=1e-4)
    assert not (ids == np.arange(300)[:, None]).any()
    assert set(ids[7][:3]) == {8, 9, 10}
    np.testing.assert_allclose(np.take_along_axis(full, ids, 1), want, rtol=1e-4, atol=1e-4)


def test_nearest_other_rows_cap_k_and_refuse_one_row():
    assert nearest_other_rows(SQUARES[:3], 10)[1].shape == (3, 2)
    with pytest.raises(ValueError, match="at least 2 table rows"):
        nearest_other_rows(SQUARES[:1], 1)
