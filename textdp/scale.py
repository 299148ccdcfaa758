"""How to read ε on a vector space: the distances a metric-DP ε multiplies.

Under metric DP two inputs at distance d are indistinguishable up to e^(ε·d), so ε means
nothing without the space's distances: the default static table has vector norms ≈ 41, MiniLM
layer-1 vectors ≈ 4. Two figures of the space the mechanism actually works in (after clipping)
are put beside ε in every report:

* ``name_distance``: the median distance between two common person names of the space (the
  US Census lists' 200 most frequent first names and surnames that are words of it), the
  distance that separates the two names of the typical privacy question "was it Merkel or
  Schmidt?";
* ``diameter``: no two inputs are further apart: twice the clipping radius (every input and
  candidate lies in that ball), or without clipping twice the longest vector of the table
  (inputs are then table rows or stand-ins inside their hull).

Both come from the public table only, never from the text being privatized.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from textdp.tables import EmbeddingTable

#: How many of each census list's most frequent names stand for "common person names".
COMMON_NAMES = 200


@dataclass(frozen=True)
class Scale:
    """Distances of one space: see the module docstring."""

    name_distance: float | None
    diameter: float


def common_name_rows(table: EmbeddingTable) -> np.ndarray:
    """Rows of ``table`` holding common census first names and surnames (Title case first,
    then the lower-case form that uncased vocabularies hold), each row once."""
    from textdp.detect.lexicon import first_names, surnames

    names = sorted(first_names(COMMON_NAMES) | surnames(COMMON_NAMES))
    rows = table.lookup([n.title() for n in names])
    missing = rows < 0
    if missing.any():
        rows[missing] = table.lookup([n for n, m in zip(names, missing) if m])
    return np.unique(rows[rows >= 0])


def space_scale(table: EmbeddingTable, radius: float | None) -> Scale:
    """The :class:`Scale` of ``table`` as the mechanism sees it (already clipped to
    ``radius`` when that is not ``None``)."""
    rows = common_name_rows(table)
    name_distance = None
    if len(rows) >= 2:
        vecs = table.lookup_vectors[rows].astype(np.float64)
        sq = (vecs * vecs).sum(axis=1)
        d2 = np.maximum(sq[:, None] + sq[None, :] - 2.0 * vecs @ vecs.T, 0.0)
        upper = np.triu_indices(len(rows), k=1)
        name_distance = float(np.median(np.sqrt(d2[upper])))
    if radius is None:
        diameter = 2.0 * float(np.linalg.norm(table.lookup_vectors, axis=1).max())
    else:
        diameter = 2.0 * float(radius)
    return Scale(name_distance=name_distance, diameter=diameter)
