"""``nadp``: the Neighbourhood-Aware Differential Privacy mechanism (Bollegala et al. 2023).

NADP adds Gaussian noise whose scale depends on the *neighbourhood* a word lives in, rather than
on the diameter of the whole table (``gaussian``):

1. a nearest-neighbour graph over the candidates: an edge between u and v when one is among the
   other's ``graph_k = 2`` nearest neighbours **and** the Jaccard similarity of their
   ``list_k = 10`` nearest-neighbour lists (each word itself left out) is at least ``tau``;
2. its connected components (``scipy.sparse.csgraph``) are the neighbourhoods;
3. each neighbourhood's L2 sensitivity is its diameter, the largest distance between two of its
   words (exact). A word alone in its neighbourhood gets the distance to its nearest word;
4. σ per neighbourhood from the analytic Gaussian mechanism (Balle & Wang 2018) for (ε, δ) and
   that sensitivity. σ is linear in the sensitivity, so σ_C = Δ_C · σ(ε, δ, 1).

Graph, components and sensitivities depend on the public table only; they are computed once per
(table, τ) and cached as ``.npz`` under :func:`textdp.tables.cache_dir`.

Where the paper's text could not be consulted (only its abstract was available while this was
written), the choices are ours and stated here: Euclidean neighbours (the metric every textdp
mechanism decodes with), neighbour lists without the word itself, the diameter as the
sensitivity, the nearest-word distance for singletons, and ``tau = 0.2`` by default (on the
default table it needs 4 shared neighbours out of 10; it gives 7,641 neighbourhoods, the
largest of 512 words).

The mechanism protocol hands :meth:`NADP.sample` vectors, not word ids: each input vector is
mapped to its exact nearest candidate, whose neighbourhood sets σ. A table word maps to
itself; any other vector (an out-of-vocabulary fallback, a contextual vector) gets the σ of the
neighbourhood of its nearest word.

Guarantee, stated no stronger than it is: (ε, δ)-DP per token only between two words of the
same neighbourhood. Between words of different neighbourhoods the noise scales differ and
nothing is claimed, and a word alone in its neighbourhood (a singleton) has no guarantee
against any other word: its σ is calibrated to its nearest word, but that word is in another
neighbourhood with its own σ. ε here is a plain (ε, δ) budget, not multiplied by a distance,
so it must never be compared with the ε of the metric-DP mechanisms (``mlaplace``, ``tem``, ...).

How much of a table the guarantee covers is therefore part of the guarantee:
:func:`neighbourhood_shares` (or :meth:`NADP.shares` once prepared) counts it from the very
components ``prepare`` computed, and :func:`table_shares` does so for a table prepared as the
Privatizer prepares it. On the default table (15,248 candidates clipped to their median norm,
``tau = 0.2``, ``graph_k = 2``, ``list_k = 10``): 37.4 % of the words are singletons and 56.3 %
are in neighbourhoods of at most 3 words (7,641 neighbourhoods, median size 1, largest 512;
"John" is hidden among {John, James, Thomas} only).
"""

from __future__ import annotations

import functools
import hashlib
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from textdp.defaults import resolve_table
from textdp.files import atomic_output
from textdp.index import NeighbourIndex, nearest_other_rows, shared_index
from textdp.mechanisms.base import (
    NoiseMechanism,
    RadialLaw,
    register_mechanism,
    sphere_directions,
)
from textdp.mechanisms.gaussian import DEFAULT_DELTA, analytic_gaussian_sigma, chi_cdf
from textdp.rng import RandomSource
from textdp.tables import EmbeddingTable, cache_dir
from textdp.validation import check_closed_unit, check_open_unit, check_positive_int

DEFAULT_TAU = 0.2
GRAPH_NEIGHBOURS = 2
LIST_NEIGHBOURS = 10
# Rows per chunk of the pairwise-distance computation of a large neighbourhood (memory bound).
_DIAMETER_CHUNK = 2048
CACHE_VERSION = 1
# Neighbourhoods of at most this many words are "small" in :class:`NeighbourhoodShares`: a
# word in one is (ε, δ)-indistinguishable from at most two others.
SMALL_NEIGHBOURHOOD = 3


@dataclass(frozen=True)
class Neighbourhoods:
    """The connected components of a table's neighbour graph and their sensitivities.

    Attributes:
        labels: ``(rows,)`` component id of each candidate.
        sensitivity: ``(components,)`` L2 sensitivity of each component (its diameter; the
            nearest-word distance for a single word).
        sizes: ``(components,)`` number of words in each component.
    """

    labels: np.ndarray
    sensitivity: np.ndarray
    sizes: np.ndarray

    @property
    def count(self) -> int:
        """Number of neighbourhoods."""
        return int(self.sizes.shape[0])

    def row_sensitivity(self) -> np.ndarray:
        """``(rows,)`` sensitivity of each candidate's neighbourhood."""
        return self.sensitivity[self.labels]

    def summary(self) -> dict[str, Any]:
        """Counts, coverage shares and quantiles as plain values (for reports)."""
        per_row = self.row_sensitivity()
        shares = neighbourhood_shares(self)
        return {
            "neighbourhoods": self.count,
            "singletons": int((self.sizes == 1).sum()),
            "largest": int(self.sizes.max()),
            "singleton_share": shares.singleton_share,
            "small_share": shares.small_share,
            "sensitivity_per_word": {
                q: float(np.quantile(per_row, p))
                for q, p in (("min", 0.0), ("median", 0.5), ("p95", 0.95), ("max", 1.0))
            },
        }


@dataclass(frozen=True)
class NeighbourhoodShares:
    """How much of a table NADP's guarantee covers, which holds only within a neighbourhood.

    Attributes:
        words: number of candidate words (rows of the table).
        neighbourhoods: number of neighbourhoods (connected components).
        singleton_share: share of the words alone in their neighbourhood, in [0, 1]: no
            guarantee at all between such a word and any other.
        small_share: share of the words in neighbourhoods of at most ``small_limit`` words
            (singletons included): each is hidden among at most ``small_limit`` words.
        small_limit: the size bound of ``small_share``.
        median_size: median number of words per neighbourhood (over neighbourhoods).
        median_word_size: median size of a word's own neighbourhood (over words).
        largest: number of words in the largest neighbourhood.
    """

    words: int
    neighbourhoods: int
    singleton_share: float
    small_share: float
    small_limit: int
    median_size: float
    median_word_size: float
    largest: int

    def as_dict(self) -> dict[str, Any]:
        """The fields as plain JSON-friendly values."""
        return asdict(self)

    def line(self) -> str:
        """One human line, to print beside the guarantee."""
        return (f"guarantee covers pairs within one neighbourhood only: "
                f"{100 * self.singleton_share:.1f} % of the {self.words:,} words are alone in "
                f"theirs (no guarantee), {100 * self.small_share:.1f} % in neighbourhoods of "
                f"≤ {self.small_limit} words ({self.neighbourhoods:,} neighbourhoods, median "
                f"size {self.median_size:g}, largest {self.largest:,})")


def neighbourhood_shares(neighbourhoods: Neighbourhoods,
                         small_limit: int = SMALL_NEIGHBOURHOOD) -> NeighbourhoodShares:
    """The coverage shares of ``neighbourhoods`` (what :meth:`NADP.prepare` computed).

    Only the component sizes and labels are read, so this takes microseconds to milliseconds
    and can never disagree with the σ the mechanism uses.
    """
    small_limit = check_positive_int("small_limit", small_limit)
    sizes = np.asarray(neighbourhoods.sizes, dtype=np.int64)
    words = int(neighbourhoods.labels.shape[0])
    return NeighbourhoodShares(
        words=words,
        neighbourhoods=int(sizes.shape[0]),
        singleton_share=float((sizes == 1).sum() / words),
        small_share=float(sizes[sizes <= small_limit].sum() / words),
        small_limit=small_limit,
        median_size=float(np.median(sizes)),
        median_word_size=float(np.median(sizes[neighbourhoods.labels])),
        largest=int(sizes.max()),
    )


def neighbour_graph(neighbours: np.ndarray, tau: float, graph_k: int = GRAPH_NEIGHBOURS
                    ) -> Any:
    """The NADP graph: an edge u–v where v is among u's first ``graph_k`` neighbours (or the
    reverse) and the Jaccard similarity of their full neighbour lists is at least ``tau``
    (a ``scipy.sparse.coo_matrix``)."""
    from scipy.sparse import coo_matrix

    n, list_k = neighbours.shape
    graph_k = min(graph_k, list_k)
    u = np.repeat(np.arange(n), graph_k)
    v = neighbours[:, :graph_k].reshape(-1)
    # |A ∩ B| for every candidate edge at once: (edges, list_k, list_k) comparisons.
    shared = (neighbours[u][:, :, None] == neighbours[v][:, None, :]).sum(axis=(1, 2))
    jaccard = shared / (2 * list_k - shared)
    keep = jaccard >= tau
    return coo_matrix((np.ones(int(keep.sum()), dtype=np.int8), (u[keep], v[keep])),
                      shape=(n, n))


def component_diameters(vectors: np.ndarray, labels: np.ndarray, nearest: np.ndarray,
                        device: str | torch.device = "cpu") -> np.ndarray:
    """Exact diameter (largest pairwise distance) of every component; for a component of one
    word, ``nearest`` (its distance to the nearest other word)."""
    sizes = np.bincount(labels)
    out = np.zeros(sizes.shape[0], dtype=np.float64)
    single = sizes == 1
    single_rows = np.nonzero(single[labels])[0]
    out[labels[single_rows]] = nearest[single_rows]
    order = np.argsort(labels, kind="stable")
    starts = np.concatenate([[0], np.cumsum(sizes)])
    matrix = torch.from_numpy(np.ascontiguousarray(vectors, np.float32)).to(device)
    for comp in np.nonzero(~single)[0]:
        members = torch.from_numpy(order[starts[comp]:starts[comp + 1]]).to(device)
        points = matrix.index_select(0, members).double()
        best = 0.0
        for lo in range(0, points.shape[0], _DIAMETER_CHUNK):
            best = max(best, float(torch.cdist(points[lo:lo + _DIAMETER_CHUNK], points).max()))
        out[comp] = best
    return out


def compute_neighbourhoods(vectors: np.ndarray, tau: float = DEFAULT_TAU, *,
                           graph_k: int = GRAPH_NEIGHBOURS, list_k: int = LIST_NEIGHBOURS,
                           device: str | torch.device = "cpu") -> Neighbourhoods:
    """Neighbour graph, connected components and per-component sensitivity of ``vectors``."""
    tau = check_closed_unit("tau (NADP Jaccard threshold)", tau)
    graph_k = check_positive_int("graph_k", graph_k)
    list_k = check_positive_int("list_k", list_k)
    if graph_k > list_k:
        raise ValueError(f"graph_k must be <= list_k (edges come from the neighbour lists), "
                         f"got graph_k={graph_k}, list_k={list_k}")
    dist, ids = nearest_other_rows(vectors, list_k, device)
    from scipy.sparse.csgraph import connected_components

    graph = neighbour_graph(ids, tau, graph_k)
    _, labels = connected_components(graph, directed=False)
    labels = labels.astype(np.int64)
    sensitivity = component_diameters(vectors, labels, dist[:, 0], device)
    if not (sensitivity > 0).all():
        # Two identical vectors form a component of diameter 0: no σ can be calibrated to it.
        raise ValueError("the table has duplicate vectors with no other neighbour; NADP needs "
                         "distinct vectors (deduplicate the table)")
    return Neighbourhoods(labels, sensitivity, np.bincount(labels))


def table_digest(vectors: np.ndarray) -> str:
    """A digest of a candidate matrix (shape and bytes) for cache keys."""
    h = hashlib.sha256(repr(vectors.shape).encode())
    h.update(np.ascontiguousarray(vectors, np.float32).tobytes())
    return h.hexdigest()[:20]


def cached_neighbourhoods(vectors: np.ndarray, tau: float = DEFAULT_TAU, *,
                          graph_k: int = GRAPH_NEIGHBOURS, list_k: int = LIST_NEIGHBOURS,
                          cache: bool = True, device: str | torch.device = "cpu"
                          ) -> Neighbourhoods:
    """:func:`compute_neighbourhoods`, loaded from / saved to ``cache_dir()/nadp`` by default.

    The key is the candidate matrix's digest and the graph parameters; files are written to a
    temporary name and renamed, so concurrent processes never read half a file.
    """
    tau = check_closed_unit("tau (NADP Jaccard threshold)", tau)
    path = cache_dir() / "nadp" / (
        f"v{CACHE_VERSION}-{table_digest(vectors)}-tau{tau!r}-k{graph_k}-l{list_k}.npz")
    if cache and path.is_file():
        try:
            with np.load(path) as data:
                return Neighbourhoods(data["labels"], data["sensitivity"], data["sizes"])
        except (OSError, KeyError, ValueError):
            pass  # a damaged cache file is recomputed and replaced
    result = compute_neighbourhoods(vectors, tau, graph_k=graph_k, list_k=list_k,
                                    device=device)
    if cache:
        _save_npz(path, labels=result.labels, sensitivity=result.sensitivity,
                  sizes=result.sizes)
    return result


def _save_npz(path: Path, **arrays: np.ndarray) -> None:
    try:
        with atomic_output(path, binary=True) as f:
            np.savez(f, **arrays)
    except OSError:
        pass  # a read-only cache is no reason to fail; we recompute next time


@register_mechanism
class NADP(NoiseMechanism):
    """Gaussian noise scaled to each word's neighbourhood in the table's kNN graph.

    Guarantee: (ε, δ)-DP per token only between two words of the same neighbourhood (connected
    component of the kNN graph). There is no guarantee between words of different
    neighbourhoods, nor for a word alone in its neighbourhood (a singleton) against any other
    word. ε is not multiplied by a distance, so it must never be compared with the ε of the
    metric-DP mechanisms. How many words are singletons or in small neighbourhoods depends on
    the table: :meth:`shares` (once prepared), :meth:`describe` and :func:`table_shares` report
    it (on the default table 37.4 % of the words are singletons).

    Args:
        epsilon: ε of the (ε, δ) guarantee within a neighbourhood. Note the scale: this is a
            plain (ε, δ)-DP parameter over a neighbourhood's diameter, not the ε of the metric
            mechanisms (whose bound grows with distance), so never compare the two (see
            ``textdp evaluate privacy`` for what a value does to the output).
        delta: δ of the guarantee, in (0, 1).
        tau: Jaccard threshold in [0, 1] for an edge of the neighbour graph; a higher τ cuts
            more edges, giving smaller neighbourhoods and less noise per word.
        cache: keep the graph's components on disk (``cache_dir()/nadp``).
    """

    name = "nadp"
    table_words_only = True  # σ comes from the input word's neighbourhood in the table
    releases_table = True  # release(): what NADP was designed for
    description = ("Neighbourhood-aware DP: Gaussian noise with σ per kNN-graph neighbourhood "
                   "(analytic Gaussian mechanism), nearest word")
    guarantee = ("(ε, δ)-DP per token only between two words of the same neighbourhood "
                 "(connected component of the table's kNN graph); no guarantee between words "
                 "of different neighbourhoods, nor for a word alone in its neighbourhood "
                 "(singleton); ε is not multiplied by a distance: never compare it with the "
                 "metric-DP ε of the other mechanisms")

    def __init__(self, epsilon: float, delta: float = DEFAULT_DELTA, tau: float = DEFAULT_TAU,
                 cache: bool = True) -> None:
        super().__init__(epsilon)
        self._delta = check_open_unit("delta", delta)
        self.tau = check_closed_unit("tau (NADP Jaccard threshold)", tau)
        self.cache = bool(cache)
        self.neighbourhoods: Neighbourhoods | None = None
        self._shares: NeighbourhoodShares | None = None
        self.unit_sigma = analytic_gaussian_sigma(self.epsilon, self._delta, 1.0)
        self._row_sigma: torch.Tensor | None = None
        self._lookup: NeighbourIndex | None = None

    @property
    def delta(self) -> float:
        return self._delta

    def prepare(self, candidates: np.ndarray, index: NeighbourIndex, rng: RandomSource) -> None:
        super().prepare(candidates, index, rng)
        self.neighbourhoods = cached_neighbourhoods(candidates, self.tau, cache=self.cache,
                                                    device=index.device)
        self._shares = neighbourhood_shares(self.neighbourhoods)
        sigma = self.neighbourhoods.row_sensitivity() * self.unit_sigma
        self._row_sigma = torch.from_numpy(sigma.astype(np.float32)).to(index.device)
        # Finding a vector's neighbourhood must be exact (it sets the noise scale), even when
        # the decode index is approximate.
        self._lookup = index if index.backend == "exact" else NeighbourIndex(
            candidates, backend="exact", device=index.device)

    def shares(self) -> NeighbourhoodShares:
        """How much of the prepared table the guarantee covers (computed once, in
        :meth:`prepare`, from the neighbourhoods that set σ)."""
        if self._shares is None:
            raise RuntimeError("nadp's neighbourhood shares exist only after prepare()")
        return self._shares

    def shares_line(self) -> str:
        """:meth:`shares` as one human line, to print beside :attr:`guarantee`."""
        return self.shares().line()

    def describe(self) -> dict[str, Any]:
        """Name, parameters and guarantee; once prepared, also the table's neighbourhood
        shares (``neighbourhood_shares``) and their one-line form (``coverage``), because the
        guarantee means little without them."""
        out = super().describe()
        if self._shares is not None:
            out["neighbourhood_shares"] = self._shares.as_dict()
            out["coverage"] = self._shares.line()
        return out

    def rows_of(self, vectors: torch.Tensor) -> torch.Tensor:
        """The candidate row nearest to each vector (exact): whose neighbourhood it is in."""
        if self._lookup is None:
            raise RuntimeError("nadp was used before prepare()")
        return self._lookup.search(vectors, k=1)[1][:, 0]

    def sigma_of(self, vectors: torch.Tensor) -> torch.Tensor:
        """σ for each vector: that of the neighbourhood of its nearest candidate."""
        assert self._row_sigma is not None
        return self._row_sigma[self.rows_of(vectors).to(self._row_sigma.device)]

    def noise(self, n: int, dim: int, rng: RandomSource, device: torch.device) -> torch.Tensor:
        """Standard normal noise; :meth:`perturb` and :meth:`sample` scale it per row."""
        return rng.normal((n, dim), device)

    def perturb(self, vectors: torch.Tensor, rng: RandomSource) -> torch.Tensor:
        sigma = self.sigma_of(vectors).to(vectors.device)
        return vectors + self.noise(vectors.shape[0], vectors.shape[1], rng,
                                    vectors.device) * sigma[:, None]

    def sample(self, vectors: torch.Tensor, inverse: torch.Tensor, rng: RandomSource,
               index: NeighbourIndex | None = None) -> torch.Tensor:
        index = self._decode_index(index)
        vectors = vectors.to(index.device)
        inverse = inverse.to(index.device)
        sigma = self.sigma_of(vectors)[inverse]  # one lookup per distinct input
        tokens = vectors[inverse]
        noisy = tokens + self.noise(tokens.shape[0], tokens.shape[1], rng,
                                    index.device) * sigma[:, None]
        return index.search(noisy, k=1)[1][:, 0]

    def radial_law(self, rows: np.ndarray) -> RadialLaw:
        """A uniform direction times a chi(d) radius scaled by each word's neighbourhood σ."""
        if self.neighbourhoods is None:
            raise RuntimeError("nadp was used before prepare()")
        vectors = self.candidates
        dim = vectors.shape[1]
        sens = self.neighbourhoods.row_sensitivity()[rows][:, None]
        delta = self.delta
        return RadialLaw(vectors, vectors[rows], sphere_directions(dim),
                         lambda t, eps: chi_cdf(t / (sens * analytic_gaussian_sigma(
                             eps, delta, 1.0)), dim))

    def release(self, vectors: np.ndarray | torch.Tensor, rng: RandomSource) -> np.ndarray:
        """Noisy copies of ``vectors`` (e.g. the whole table) as a float32 array: each row gets
        the noise of its neighbourhood. Releasing a table is what NADP was designed for."""
        index = self._require_index()
        tensor = torch.as_tensor(vectors, dtype=torch.float32, device=index.device)
        return self.perturb(tensor, rng).cpu().numpy()

    def params(self) -> dict[str, Any]:
        return {"epsilon": self.epsilon, "delta": self._delta, "tau": self.tau}


def table_shares(table: EmbeddingTable | str | os.PathLike[str] | None = None, *,
                 tau: float = DEFAULT_TAU, clip_norm: float | str | None = "median"
                 ) -> NeighbourhoodShares:
    """NADP's neighbourhood shares on ``table``, prepared as the Privatizer prepares it.

    ``table``: ``None``/``"default"`` (the embedded vectors), a word2vec/GloVe/fastText file or
    an :class:`~textdp.tables.EmbeddingTable`; ``clip_norm`` as in
    :func:`~textdp.defaults.resolve_table` (the Privatizer's default ``"median"``). ε and δ
    do not change the neighbourhoods, only ``tau`` does. Results are cached per process (for
    the CLI, which may ask more than once; the last 8 tables, an ``EmbeddingTable`` by
    identity, which the cache keeps alive) and the components on disk as by
    :meth:`NADP.prepare`. On the default table the first call in a process takes about 1 s
    after the table is loaded (5-10 s), about 5 s more when the disk cache is cold.
    """
    if table is None or (isinstance(table, str) and table == "default"):
        table = None
    elif isinstance(table, os.PathLike):
        table = os.fspath(table)
    tau = check_closed_unit("tau (NADP Jaccard threshold)", tau)
    return _table_shares(table, tau, clip_norm)


@functools.lru_cache(maxsize=8)
def _table_shares(table: EmbeddingTable | str | None, tau: float,
                  clip_norm: float | str | None) -> NeighbourhoodShares:
    space = resolve_table(table, clip_norm)
    mech = NADP(epsilon=1.0, tau=tau)
    mech.prepare(space.vectors, shared_index(space, "auto", torch.device("cpu")),
                 RandomSource(0))
    return mech.shares()
