"""textdp.index: the int8 and bf16 first stages with exact re-rank, the blocked argmax, the
measured "auto" choice and the chunk workers.

Brute force in float64 is the reference. A first stage only shortlists; the returned distance
is always the exact distance of the returned row, so it can never beat the true optimum.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest
import torch

import textdp.index as index_module
from textdp.index import (
    NeighbourIndex,
    _blocked_argmax,
    bf16_matmul_available,
    choose_backend,
    cpu_backends,
    int8_matmul_available,
)

NEEDS_INT8 = pytest.mark.skipif(not int8_matmul_available(),
                                reason="torch._int_mm does not run on CPU in this torch")
NEEDS_BF16 = pytest.mark.skipif(not bf16_matmul_available(),
                                reason="bfloat16 matmul does not run on CPU in this torch")
#: The approximate first stages, each re-ranked exactly.
FIRST_STAGES = [pytest.param("int8", marks=NEEDS_INT8), pytest.param("bf16", marks=NEEDS_BF16)]


@pytest.fixture(autouse=True)
def _own_rates_cache(monkeypatch, tmp_path):
    """Each test measures into its own user cache: "auto" keeps measured rates across
    processes (index.backend_rates), which would otherwise answer for faked timings."""
    monkeypatch.setenv("TEXTDP_CACHE", str(tmp_path / "textdp-cache"))


def _brute_force(data: np.ndarray, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    q, c = queries.astype(np.float64), data.astype(np.float64)
    d2 = np.maximum((q * q).sum(1)[:, None] - 2 * q @ c.T + (c * c).sum(1)[None, :], 0)
    ids = np.argsort(d2, axis=1, kind="stable")[:, :k]
    return np.sqrt(np.take_along_axis(d2, ids, axis=1)), ids


def _true_distances(data: np.ndarray, queries: np.ndarray, ids: np.ndarray) -> np.ndarray:
    diff = queries[:, None, :].astype(np.float64) - data[ids].astype(np.float64)
    return np.sqrt((diff ** 2).sum(axis=2))


@pytest.fixture(scope="module")
def embedding_like():
    """Anisotropic 'word vectors' (norms ~40 as in en_core_web_md) and noisy queries far from
    all of them, as multivariate-Laplace noise at small ε produces."""
    rng = np.random.default_rng(11)
    scales = np.linspace(0.5, 4.0, 64)
    data = (rng.standard_normal((4000, 64)) * scales).astype(np.float32)
    base = data[rng.integers(0, len(data), 1000)]
    direction = rng.standard_normal(base.shape)
    direction /= np.linalg.norm(direction, axis=1, keepdims=True)
    near = base + direction * rng.gamma(64, 0.1, (len(base), 1))   # noise norm ~6
    far = base + direction * rng.gamma(64, 4.0, (len(base), 1))    # noise norm ~250
    return data, near.astype(np.float32), far.astype(np.float32)


@pytest.mark.parametrize("stage", FIRST_STAGES)
@pytest.mark.parametrize("which", ["near", "far"])
def test_first_stage_agrees_with_brute_force(embedding_like, which, stage):
    data, near, far = embedding_like
    queries = near if which == "near" else far
    index = NeighbourIndex(data, backend=stage)
    assert index.backend == stage
    ref_d, ref_i = _brute_force(data, queries, 3)
    for k in (1, 3):
        dist, ids = index.search(queries, k=k)
        assert dist.shape == ids.shape == (len(queries), k) and ids.dtype == torch.int64
        agree = (ids.numpy() == ref_i[:, :k]).all(axis=1).mean()
        assert agree >= 0.99, (k, agree)
        # distances are the exact ones of the rows returned, sorted, never below the optimum
        np.testing.assert_allclose(dist.numpy(), _true_distances(data, queries, ids.numpy()),
                                   rtol=1e-4, atol=1e-3)
        assert (np.diff(dist.numpy(), axis=1) >= -1e-3).all()
        assert (dist.numpy()[:, 0] >= ref_d[:, 0] * (1 - 1e-5)).all()


@pytest.mark.parametrize("stage", FIRST_STAGES)
def test_first_stage_equals_exact_backend_on_far_queries(embedding_like, stage):
    data, _, far = embedding_like
    a = NeighbourIndex(data, backend=stage).search(torch.from_numpy(far), k=1)[1]
    b = NeighbourIndex(data, backend="exact").search(torch.from_numpy(far), k=1)[1]
    assert (a == b).double().mean() >= 0.99


@pytest.mark.parametrize("stage", FIRST_STAGES)
@pytest.mark.parametrize("rows", [1, 2, 5, 31, 32, 33, 97])
def test_first_stage_on_tiny_and_odd_sized_tables(rows, stage):
    """Fewer rows than one block or than the shortlist: padding rows are never returned."""
    rng = np.random.default_rng(rows)
    data = rng.standard_normal((rows, 6)).astype(np.float32)
    queries = (rng.standard_normal((50, 6)) * 3).astype(np.float32)
    k = min(3, rows)
    ref_d, ref_i = _brute_force(data, queries, k)
    dist, ids = NeighbourIndex(data, backend=stage).search(queries, k=k)
    assert int(ids.max()) < rows
    np.testing.assert_array_equal(ids.numpy(), ref_i)
    np.testing.assert_allclose(dist.numpy(), ref_d, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("stage", FIRST_STAGES)
def test_first_stage_edge_queries(stage):
    rng = np.random.default_rng(3)
    data = rng.standard_normal((300, 8)).astype(np.float32)
    index = NeighbourIndex(data, backend=stage)
    # no queries
    dist, ids = index.search(np.zeros((0, 8), np.float32), k=2)
    assert dist.shape == ids.shape == (0, 2)
    # all-zero queries (no quantization scale, no positive score: both fall back to the
    # exact path) and huge ones
    queries = np.vstack([np.zeros((4, 8)), rng.standard_normal((4, 8)) * 1e6,
                         rng.standard_normal((4, 8)) * 1e-30]).astype(np.float32)
    ref_d, ref_i = _brute_force(data, queries, 1)
    dist, ids = index.search(queries, k=1)
    np.testing.assert_array_equal(ids.numpy()[:8], ref_i[:8])
    np.testing.assert_allclose(dist.numpy(), ref_d, rtol=1e-4, atol=1e-5)


def test_chunks_and_workers_give_the_same_answer(monkeypatch, embedding_like):
    """Many chunks on the worker pool = one chunk in the calling thread; the caller's torch
    thread count is left as it was."""
    data, near, far = embedding_like
    queries = torch.from_numpy(np.vstack([near[:300], far[:300]]))
    backends = cpu_backends()  # exact, and the first stages that run here
    one = {b: NeighbourIndex(data, backend=b).search(queries, k=2) for b in backends}
    before = torch.get_num_threads()
    monkeypatch.setattr(index_module, "_CHUNK_CELLS", len(data) * 37)
    monkeypatch.setattr(index_module, "_STAGE_ROWS", 37)
    torch.set_num_threads(2)
    try:
        for backend in backends:
            index = NeighbourIndex(data, backend=backend)
            dist, ids = index.search(queries, k=2)
            assert torch.equal(ids, one[backend][1])
            torch.testing.assert_close(dist, one[backend][0])
            with torch.inference_mode():  # how the privatizer calls it
                assert torch.equal(index.search(queries, k=1)[1][:, 0], ids[:, 0])
        assert torch.get_num_threads() == 2
        seen = []
        t = threading.Thread(target=lambda: seen.append(torch.get_num_threads()))
        t.start()
        t.join()
        assert seen == [2]  # threads started later still get the caller's count
    finally:
        torch.set_num_threads(before)


def test_no_worker_outlives_its_search(monkeypatch, embedding_like):
    """Idle decode workers cost the caller's own multi-threaded torch work most of a core
    (the name tagger ran on ~1.2 of 2 cores while they existed): none may stay behind."""
    data, near, _ = embedding_like
    monkeypatch.setattr(index_module, "_STAGE_ROWS", 37)
    monkeypatch.setattr(index_module, "_CHUNK_CELLS", len(data) * 37)
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        for backend in cpu_backends():
            seen: list[str] = []
            real = index_module._chunk_pool

            def spying(workers, real=real, seen=seen):
                seen.append(f"{workers} workers")
                return real(workers)

            monkeypatch.setattr(index_module, "_chunk_pool", spying)
            NeighbourIndex(data, backend=backend).search(near, k=1)
            assert seen == ["2 workers"], backend  # the search did run on a pool
            alive = [t.name for t in threading.enumerate() if t.name.startswith("textdp-index")]
            assert alive == [], (backend, alive)
            assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


@pytest.mark.parametrize("threads", [1, 2])
def test_inference_mode_then_normal_mode(embedding_like, threads):
    """Buffers and outputs made under torch.inference_mode() do not break later calls."""
    data, _, far = embedding_like
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        for backend in cpu_backends():
            index = NeighbourIndex(data, backend=backend)
            with torch.inference_mode():
                a = index.search(far, k=1)[1]
            b = index.search(far, k=1)[1]
            with torch.inference_mode():
                c = index.search(far, k=1)[1]
            assert torch.equal(a, b) and torch.equal(b, c)
    finally:
        torch.set_num_threads(before)


def test_blocked_argmax_is_argmax():
    rng = np.random.default_rng(5)
    scores = torch.from_numpy(rng.integers(0, 6, (200, 64 * 3)).astype(np.float32))  # many ties
    top, idx = _blocked_argmax(scores)
    torch.testing.assert_close(top, scores.max(dim=1).values)
    assert torch.equal(idx, scores.argmax(dim=1))  # the first maximal column, as argmax


# Rates measured on real CPUs (queries/s, GloVe 33k × 300, one thread): a Sapphire Rapids
# Xeon with AMX, a Cascade Lake Xeon with VNNI, an AVX2-only EPYC.
MACHINES = {
    "amx": ({"exact": 7_000, "bf16": 35_000, "int8": 15_600}, "bf16"),
    "vnni": ({"exact": 4_400, "bf16": 1_900, "int8": 11_200}, "int8"),
    "avx2": ({"exact": 5_310, "bf16": 1_200, "int8": 314}, "exact"),
    "marginal": ({"exact": 5_000, "bf16": 6_000, "int8": 100}, "exact"),  # < AUTO_MIN_GAIN
}


@pytest.mark.parametrize("machine", sorted(MACHINES))
def test_auto_takes_the_backend_measured_fastest(monkeypatch, embedding_like, machine):
    """Faked timings: "auto" follows the measurement, not which kernels merely run."""
    rates, expected = MACHINES[machine]
    if expected not in cpu_backends():
        pytest.skip(f"{expected} does not run on this CPU build")
    available = {b: r for b, r in rates.items() if b in cpu_backends()}
    monkeypatch.setattr(index_module, "AUTO_EXACT_MAX_CELLS", 1000)
    monkeypatch.setattr(index_module, "measure_backends", lambda vectors: dict(available))
    index = NeighbourIndex(embedding_like[0], backend="auto")
    assert index.backend == choose_backend(available) == expected
    assert index.choice == {"rates": available, "chosen": expected}


def test_choose_backend_prefers_exact_unless_clearly_faster():
    assert choose_backend({"exact": 100.0}) == "exact"
    assert choose_backend({"exact": 100.0, "bf16": 124.0}) == "exact"
    assert choose_backend({"exact": 100.0, "bf16": 126.0, "int8": 125.5}) == "bf16"
    assert choose_backend({"exact": 300.0, "int8": 200.0}) == "exact"


def test_auto_measures_once_per_table_shape(monkeypatch, embedding_like):
    data = embedding_like[0]
    monkeypatch.setattr(index_module, "AUTO_EXACT_MAX_CELLS", 1000)
    monkeypatch.setattr(index_module, "_MEASURED", {})
    calls = []
    real = index_module.measure_backends

    def counting(vectors):
        calls.append(vectors.shape)
        return real(vectors)

    monkeypatch.setattr(index_module, "measure_backends", counting)
    first = NeighbourIndex(data, backend="auto")
    rates = first.choice["rates"] if first.choice else {}
    if len(cpu_backends()) > 1:
        assert set(rates) == set(cpu_backends()) and all(r > 0 for r in rates.values())
        assert first.backend == choose_backend(rates)
    second = NeighbourIndex(data, backend="auto")
    assert second.backend == first.backend  # built: the second one asked for rates
    # the user cache answered the second index (index.backend_rates), the timing ran once
    assert calls == ([data.shape] if len(cpu_backends()) > 1 else [])
    assert second.backend == first.backend and second.choice == first.choice
    # the second index asked again, but the timing ran once (a second timing would not give
    # the same rates to the query per second): the cache answered
    assert len(index_module._MEASURED) == (1 if len(cpu_backends()) > 1 else 0)


def test_first_stages_fall_back_to_exact_where_their_kernel_does_not_run(monkeypatch,
                                                                         embedding_like):
    data = embedding_like[0]
    monkeypatch.setattr(index_module, "_INT_MM_OK", False)
    monkeypatch.setattr(index_module, "_BF16_MM_OK", False)
    assert cpu_backends() == ("exact",)
    monkeypatch.setattr(index_module, "AUTO_EXACT_MAX_CELLS", 1000)
    assert NeighbourIndex(data, backend="auto").backend == "exact"  # nothing to measure
    for stage in ("int8", "bf16"):  # an explicit request falls back rather than failing
        index = NeighbourIndex(data, backend=stage)
        assert index.backend == "exact"
        ref_i = _brute_force(data, embedding_like[2][:50], 1)[1]
        np.testing.assert_array_equal(index.search(embedding_like[2][:50], k=1)[1].numpy(),
                                      ref_i)
