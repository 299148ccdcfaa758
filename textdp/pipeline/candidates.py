"""Candidate space: the public words a draw may become, as the mechanism sees them.

One place resolves the public table (the embedded one, a word2vec/GloVe/fastText file, a
contextual index), clips it to ``clip_norm``, removes the excluded substitutes, builds the
shared nearest-neighbour index, prepares the mechanism on it, and holds what a draw decodes
to: the whole table, or with ``replace="name"`` the public name vocabulary per name kind
(:mod:`textdp.name_vocabulary`). Out-of-vocabulary targets get public stand-in vectors from here
(docs/architecture.md rule 2).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from textdp.contextual import ContextualEncoder
from textdp.contextual_index import ContextualIndex
from textdp.index import NeighbourIndex, shared_index
from textdp.mechanisms import Mechanism
from textdp.name_vocabulary import NAME_KINDS, name_spaces
from textdp.place_vocabulary import PLACE_KINDS, place_spaces
from textdp.rng import RandomSource
from textdp.scale import Scale, space_scale
from textdp.tables import EmbeddingTable

# Public words whose mean vector stands in for an out-of-vocabulary person name.
NAME_ANCHORS = ("John", "Mary", "James", "Maria", "David", "Anna", "Michael", "Sarah",
                "Smith", "Johnson", "Miller", "Brown", "Peter", "Laura", "Thomas", "Elena")


def load_table(table: Any, encoder: ContextualEncoder | None = None,
               contextual_index: Any = None) -> EmbeddingTable:
    """The public candidate table of a configuration: the contextual index of ``encoder``
    (``contextual_index``: a folder, an index, or ``None`` for the model's vocabulary), else
    the static ``table`` (an :class:`EmbeddingTable`, ``None``/``"default"`` for the embedded
    one, or a word2vec/GloVe/fastText file)."""
    if isinstance(contextual_index, ContextualIndex):
        return contextual_index
    if encoder is not None:
        return ContextualIndex.default(encoder) if contextual_index is None else \
            ContextualIndex.load(contextual_index, encoder)
    from textdp.defaults import resolve_table

    return resolve_table(table, clip_norm=None)  # the space clips its own copy


def fallback_vectors(table: EmbeddingTable) -> dict[str, np.ndarray]:
    """Public stand-in vectors for out-of-vocabulary (and over-budget) targets: the mean of
    :data:`NAME_ANCHORS` for persons (``"PERSON"``), the table's mean for the rest (``"*"``)."""
    rows = table.lookup(list(NAME_ANCHORS))
    rows = rows[rows >= 0]
    general = table.vectors.mean(axis=0)
    person = table.lookup_vectors[rows].mean(axis=0) if rows.size else general
    return {"PERSON": person.astype(np.float32), "*": general.astype(np.float32)}


#: Each name or place draw moves to a uniformly random one of the NAME_SPREAD names nearest
#: the decoded one, the decoded one left out. The decoded name is a function of the noisy
#: vector; this step adds randomness that depends on neither the input nor the noise, so it is
#: post-processing. Without it, a few names with isolated vectors ("Kim", "Mick") came back
#: unchanged in 4-6 % of draws at ε 0.3 (a noisy point far out in their direction decodes to
#: them); spread over 16 with the decoded one among them, the largest share among CoNLL dev
#: person words fell to ~1-2 % and the mean halved (``textdp evaluate pseudonyms``). Leaving
#: the decoded one out means a draw that decodes to the input itself never writes it: a place
#: of the vocabulary came back as itself in 1.0 % of 11,700 draws at the default ε with it in,
#: 0.7 % without (``tests/test_place_vocabulary.py``).
NAME_SPREAD = 16


@dataclass(frozen=True)
class CandidateSet:
    """Public candidates a draw decodes to.

    Attributes:
        table: the candidates (``table.words``).
        index: their index in the mechanism's decode space, or ``None`` for the mechanism's
            own (the whole table).
        spread: per candidate, its ``k`` nearest other candidates (:func:`spread_table`); a
            decoded candidate is replaced by a uniformly random one of them. ``None``: no
            spreading.
        names: per candidate, the names it stands for (a name set's rows,
            :class:`~textdp.name_vocabulary.NameSet`): a decoded candidate is written as a
            uniformly random one of them. ``None``: the candidate's word.
    """

    table: EmbeddingTable
    index: NeighbourIndex | None = None
    spread: np.ndarray | None = None
    names: tuple[tuple[str, ...], ...] | None = None

    def draw(self, mechanism: Mechanism, vectors: torch.Tensor, inverse: torch.Tensor,
             rng: RandomSource) -> list[str]:
        """One candidate word per token (``vectors[inverse]``), drawn by ``mechanism``."""
        ids = mechanism.sample(vectors, inverse, rng) if self.index is None else \
            mechanism.sample(vectors, inverse, rng, index=self.index)
        picked = ids.cpu().numpy()
        if self.spread is not None:
            picked = self.spread[picked, rng.numpy.integers(0, self.spread.shape[1],
                                                            size=len(picked))]
        if self.names is not None:
            # Which name of the row: randomness that depends on neither input nor noise.
            u = rng.numpy.random(len(picked))
            return [row[int(x * len(row))] for row, x in
                    zip((self.names[i] for i in picked.tolist()), u.tolist())]
        words = self.table.words
        return [words[i] for i in picked.tolist()]

    def public_names(self, n: int, rng: RandomSource) -> list[str]:
        """``n`` candidates drawn uniformly, independent of any input (the further parts of a
        compound name, ``Seo-yeon`` -> ``Ji-woo``: post-processing)."""
        pool = [w for row in self.names for w in row] if self.names is not None \
            else self.table.words
        return [pool[i] for i in rng.numpy.integers(0, len(pool), size=n).tolist()]


def name_candidates(table: EmbeddingTable, mechanism: Mechanism, backend: str,
                    device: torch.device, exclude: frozenset[str] = frozenset(),
                    group: str | None = None) -> dict[str, CandidateSet]:
    """Per name kind, the name vocabulary of ``table`` (of origin ``group`` only, when
    given) with its index in ``mechanism``'s decode space and its :data:`NAME_SPREAD`
    nearest rows (computed on public data only). Raises ``KeyError`` when ``group`` has no
    names of a kind."""
    out = {}
    for kind in NAME_KINDS:
        name_set = name_spaces(table, exclude).get(kind, group)
        out[kind] = _candidate_set(name_set.table, mechanism, backend, device,
                                   names=name_set.names)
    return out


def place_candidates(table: EmbeddingTable, mechanism: Mechanism, backend: str,
                     device: torch.device, exclude: frozenset[str] = frozenset()
                     ) -> dict[str, CandidateSet]:
    """Per place kind, the place vocabulary of ``table``
    (:func:`~textdp.place_vocabulary.place_spaces`) with its index in ``mechanism``'s decode
    space and its :data:`NAME_SPREAD` nearest places, as :func:`name_candidates`."""
    spaces = place_spaces(table, exclude)
    return {kind: _candidate_set(spaces[kind], mechanism, backend, device)
            for kind in PLACE_KINDS}


def _candidate_set(candidates: EmbeddingTable, mechanism: Mechanism, backend: str,
                   device: torch.device,
                   names: tuple[tuple[str, ...], ...] | None = None) -> CandidateSet:
    """``candidates`` as a candidate set: its index in ``mechanism``'s decode space and each
    candidate's :data:`NAME_SPREAD` nearest (public data only); ``names``: the names each
    row stands for (:attr:`CandidateSet.names`)."""
    space = mechanism.decode_space(candidates.vectors)
    index = shared_index(candidates, backend, device) if space is candidates.vectors else \
        NeighbourIndex(space, backend=backend, device=device)
    return CandidateSet(candidates, index, spread_table(candidates.vectors, device), names)


def spread_table(vectors: np.ndarray, device: torch.device, k: int = NAME_SPREAD) -> np.ndarray:
    """Per row of ``vectors``, its ``k`` nearest other rows, nearest first (public data
    only; fewer where there are fewer rows; a lone row is its own). Cached in the user cache
    (:func:`_spread_cache`): the name vocabulary's three tables took 0.19 s of every start."""
    n = len(vectors)
    if n < 2:
        return np.zeros((n, 1), dtype=np.int64)
    k = min(k, n - 1)
    path = _spread_cache(vectors, k, device)
    try:
        cached = np.load(path, allow_pickle=False)
        if cached.shape == (n, k) and cached.dtype == np.int64:
            return cached
    except (OSError, ValueError):
        pass  # none yet, or unreadable: computed and written again
    spread = _nearest_others(vectors, device, k)
    with contextlib.suppress(OSError):  # a cache that cannot be written is no error
        from textdp.files import atomic_output

        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_output(path, binary=True) as f:
            np.save(f, spread, allow_pickle=False)
    return spread


def _spread_cache(vectors: np.ndarray, k: int, device: torch.device) -> Path:
    """Where the spread table of ``vectors`` is cached: the user cache
    (:func:`textdp.tables.cache_dir`), keyed by the vectors' bytes, ``k`` and the kind of
    device searched on (a GPU may order near-ties otherwise)."""
    import hashlib

    from textdp.tables import cache_dir

    digest = hashlib.blake2b(np.ascontiguousarray(vectors, dtype=np.float32).tobytes(),
                             digest_size=16)
    digest.update(f"|{vectors.shape}|{k}|{torch.device(device).type}".encode())
    return cache_dir() / "spread" / f"{digest.hexdigest()}.npy"


def _nearest_others(vectors: np.ndarray, device: torch.device, k: int) -> np.ndarray:
    """The ``k`` nearest other rows of each row of ``vectors``, by the exact index."""
    n = len(vectors)
    exact = NeighbourIndex(vectors, backend="exact", device=device)
    ids = exact.search(torch.from_numpy(vectors).to(device), k=k + 1)[1].cpu().numpy()
    # the row itself to the end (stably: the others keep their order), then cut: a row
    # whose duplicates crowd it out of its own k + 1 loses its farthest instead
    own = ids == np.arange(n)[:, None]
    return np.take_along_axis(ids, np.argsort(own, axis=1, kind="stable"), axis=1)[:, :k]


class CandidateSpace:
    """The candidates of one privatizer, ready to decode draws.

    Args:
        table: the public table (see :func:`load_table`).
        mechanism: prepared here on the clipped table and its index.
        clip_norm: ``"median"``, a radius, or ``None`` (see ``PrivatizerConfig``).
        exclude: lower-cased words never written as substitutes.
        index_backend, device: the nearest-neighbour backend and torch device.
        rng: the privatizer's random source (mechanisms that sample at preparation use it).
        replace: the effective ``replace``; ``"name"`` builds the name candidate sets.
        name_required: with ``replace="name"``, whether a table without a name vocabulary is
            an error (asked for) or falls back to ``"word"`` (the default).
        places: whether places are targets: with ``replace="name"`` the place candidate sets
            are built (:func:`place_candidates`).
    """

    def __init__(self, table: EmbeddingTable, mechanism: Mechanism, *,
                 clip_norm: float | str | None, exclude: frozenset[str], index_backend: str,
                 device: torch.device, rng: RandomSource, replace: str,
                 name_required: bool, places: bool = False) -> None:
        self.radius: float | None = table.median_norm() if clip_norm == "median" \
            else clip_norm
        space = table if self.radius is None else table.clipped(self.radius)
        self.table: EmbeddingTable = space.without(exclude) if exclude else space
        self.scale: Scale | None = space_scale(self.table, self.radius) \
            if mechanism.metric == "euclidean" else None
        self.index = shared_index(self.table, index_backend, device)
        mechanism.prepare(self.table.vectors, self.index, rng)
        self.fallback = fallback_vectors(self.table)
        self.names: dict[str, CandidateSet] = {}
        if replace == "name":
            try:
                self.names = name_candidates(self.table, mechanism, index_backend, device,
                                             exclude=exclude)
            except ValueError:
                if name_required:
                    raise  # asked for; the default falls back to "word" (see `replacing`)
        self.replace = "word" if replace == "name" and not self.names else replace
        self._build_names = (mechanism, index_backend, device, exclude)
        # Places decode to the place vocabulary where names decode to theirs; a table without
        # one decodes them to the whole table (place kinds then read "word").
        self.places: dict[str, CandidateSet] = {}
        if self.replace == "name" and places:
            with contextlib.suppress(ValueError):
                self.places = place_candidates(self.table, mechanism, index_backend, device,
                                               exclude=exclude)

    def decoder(self, kind: str) -> CandidateSet:
        """The candidates a draw of ``kind`` decodes to: ``"word"`` (the whole table) or a
        name kind (``"first"``, ``"last"``, ``"any"``) with ``replace="name"``, optionally of
        one origin group (``"first@romance"``, ``name_origin="keep"``), or a place kind
        (``"city"``, ``"country"``, ``"place"``): the place vocabulary, the whole table where
        there is none."""
        if kind in PLACE_KINDS:
            return self.places[kind] if self.places else CandidateSet(self.table)
        if kind == "word":
            return CandidateSet(self.table)
        if "@" in kind and kind not in self.names and self.names:
            # A kind of one origin group ("first@romance"): built on first use.
            group = kind.split("@", 1)[1]
            mechanism, backend, device, exclude = self._build_names
            try:
                sets = name_candidates(self.table, mechanism, backend, device,
                                       exclude=exclude, group=group)
            except KeyError:  # the group lacks a kind: every kind draws across all origins
                sets = {k: self.names[k] for k in NAME_KINDS}
            self.names.update({f"{k}@{group}": v for k, v in sets.items()})
        if kind not in self.names:
            raise ValueError(f"no {kind!r} candidates: name kinds decode with replace='name', "
                             f"this privatizer has replace={self.replace!r}")
        return self.names[kind]
