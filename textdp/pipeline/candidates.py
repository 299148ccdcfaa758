"""Candidate space: the public words a draw may become, as the mechanism sees them.

One place resolves the public table (the embedded one, a word2vec/GloVe/fastText file, a
contextual index), clips it to ``clip_norm``, removes the excluded substitutes, builds the
shared nearest-neighbour index, prepares the mechanism on it, and holds what a draw decodes
to: the whole table, or with ``replace="name"`` the public name vocabulary per name kind
(:mod:`textdp.pseudonyms`). Out-of-vocabulary targets get public stand-in vectors from here
(docs/architecture.md rule 2).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from textdp.contextual import ContextualEncoder
from textdp.contextual_index import ContextualIndex
from textdp.index import shared_index
from textdp.mechanisms import Mechanism
from textdp.pseudonyms import CandidateSet, name_candidates
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
    """

    def __init__(self, table: EmbeddingTable, mechanism: Mechanism, *,
                 clip_norm: float | str | None, exclude: frozenset[str], index_backend: str,
                 device: torch.device, rng: RandomSource, replace: str,
                 name_required: bool) -> None:
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

    def decoder(self, kind: str) -> CandidateSet:
        """The candidates a draw of ``kind`` decodes to: ``"word"`` (the whole table) or a
        name kind (``"first"``, ``"last"``, ``"any"``) with ``replace="name"``."""
        if kind == "word":
            return CandidateSet(self.table)
        if kind not in self.names:
            raise ValueError(f"no {kind!r} candidates: name kinds decode with replace='name', "
                             f"this privatizer has replace={self.replace!r}")
        return self.names[kind]
