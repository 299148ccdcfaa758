"""NeighbourIndex: batched nearest-neighbour decode of many noisy vectors at once.

Decoding is post-processing (DESIGN.md rule 8): an approximate search never weakens the privacy
guarantee, it only changes which public word is written. Backends:

* ``"exact"``: torch matmul top-k in chunks on the chosen device (CPU or GPU);
* ``"flat"``: faiss exact L2 (``IndexFlatL2``; on GPU with faiss-gpu);
* ``"hnsw"``: faiss HNSW graph; ``recall`` sets ``efSearch``;
* ``"ivf"``: faiss inverted lists; ``recall`` sets ``nprobe``;
* ``"auto"``: exact on a GPU; on CPU exact for small tables, HNSW for large ones.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import torch

from textdp.validation import check_choice, check_open_unit

BACKENDS = ("auto", "exact", "flat", "hnsw", "ivf")

# Rows × dims above which a CPU decode switches from exact matmul to HNSW in "auto" mode.
# Measured in bench/static.py: exact top-1 over 14k×300 runs ~25k queries/s on 2 cores,
# HNSW (M=32, efSearch=64) ~3× that at >0.97 recall of the exact neighbour.
AUTO_EXACT_MAX_CELLS = 2_000_000
_CHUNK_CELLS = 1 << 24  # queries × rows per matmul chunk (64 MiB of float32 scores)


def resolve_device(device: str | torch.device | None) -> torch.device:
    """``"auto"``/``None`` → CUDA when present, else CPU; anything else is checked."""
    if device is None or device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError) as err:
        raise ValueError(f"device must be 'cpu', 'cuda', 'cuda:N' or 'auto', got {device!r}") \
            from err
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device={device!r} was asked for but no CUDA device is available")
    return dev


def _faiss() -> Any:
    import faiss

    return faiss


class NeighbourIndex:
    """Nearest public vectors for batches of query vectors.

    Args:
        vectors: ``(rows, dim)`` candidate vectors.
        backend: one of :data:`BACKENDS`.
        device: where the exact backend computes (and faiss-gpu when installed).
        recall: for approximate backends, the share of the search effort between 0 and 1:
            higher is slower and closer to exact.
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
        rows, dim = self.vectors.shape
        if backend == "auto":
            if self.device.type == "cuda" or rows * dim <= AUTO_EXACT_MAX_CELLS:
                backend = "exact"
            else:
                backend = "hnsw"
        self.backend = backend
        self.recall = recall
        self._matrix: torch.Tensor | None = None
        self._half_sq_norms: torch.Tensor | None = None
        self._faiss_index: Any = None
        if backend == "exact":
            self._matrix = torch.from_numpy(self.vectors).to(self.device)
            self._half_sq_norms = 0.5 * (self._matrix * self._matrix).sum(dim=1)
        else:
            self._faiss_index = self._build_faiss(backend, rows, dim)

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
            index.nprobe = max(1, int(round(nlist * self.recall**2)))
        index.add(self.vectors)
        if self.device.type == "cuda" and hasattr(faiss, "StandardGpuResources") \
                and backend != "hnsw":
            res = faiss.StandardGpuResources()
            index = faiss.index_cpu_to_gpu(res, self.device.index or 0, index)
        return index

    def __len__(self) -> int:
        return int(self.vectors.shape[0])

    def __repr__(self) -> str:
        return f"NeighbourIndex(backend={self.backend!r}, rows={len(self)}, device={self.device})"

    def search(self, queries: torch.Tensor | np.ndarray, k: int = 1) -> tuple[torch.Tensor,
                                                                               torch.Tensor]:
        """Return ``(distances, ids)`` of the ``k`` nearest rows for each query.

        Distances are Euclidean (not squared); both tensors are ``(n, k)`` on the index device.
        """
        if self.backend == "exact":
            q = torch.as_tensor(queries, device=self.device, dtype=torch.float32)
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

    def _exact(self, q: torch.Tensor, k: int) -> tuple[torch.Tensor, torch.Tensor]:
        assert self._matrix is not None and self._half_sq_norms is not None
        n = q.shape[0]
        out_d = torch.empty((n, k), device=self.device)
        out_i = torch.empty((n, k), dtype=torch.int64, device=self.device)
        step = max(1, _CHUNK_CELLS // max(1, len(self)))
        for start in range(0, n, step):
            chunk = q[start:start + step]
            # argmin ‖q − c‖² = argmax (q·c − ½‖c‖²): one GEMM per chunk.
            scores = chunk @ self._matrix.T
            scores -= self._half_sq_norms
            top, idx = torch.topk(scores, k, dim=1)
            q_sq = (chunk * chunk).sum(dim=1, keepdim=True)
            out_d[start:start + step] = torch.sqrt(torch.clamp(q_sq - 2 * top, min=0))
            out_i[start:start + step] = idx
        return out_d, out_i

    def distances_to(self, queries: torch.Tensor) -> torch.Tensor:
        """Full ``(n, rows)`` Euclidean distance matrix (for exponential mechanisms)."""
        matrix = torch.from_numpy(self.vectors).to(queries.device) if self._matrix is None \
            else self._matrix
        return torch.cdist(queries.float(), matrix)
