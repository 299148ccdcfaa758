"""Candidate tables from spaCy vectors, shared per process.

A table is keyed by a digest of the vectors it was built from, so a reloaded pipeline
(``spacy.load`` after ``nlp.to_disk``), a second copy of a pipeline, or a config that names the
same package gets the same :class:`EmbeddingTable` object, and so the same neighbour index
(``textdp.index.shared_index``): building HNSW over a 14k-word table takes seconds.
"""

from __future__ import annotations

import hashlib
import warnings
from collections import OrderedDict
from typing import Any

import numpy as np

from textdp.tables import EmbeddingTable

_TABLES: OrderedDict[str, EmbeddingTable] = OrderedDict()
_MAX_TABLES = 4


def pipeline_table(vocab: Any, *, name: str = "spacy") -> EmbeddingTable | None:
    """The candidate table of a spaCy ``Vocab``'s static vectors, or ``None`` when it has no
    usable ones (none at all, or floret vectors, which hash subwords and have no word rows).

    vocab (Vocab): the vocab, e.g. ``nlp.vocab``.
    name (str): a label for reports.
    """
    vectors = vocab.vectors
    if vectors.shape[0] == 0 or vectors.shape[1] == 0:
        return None
    if vectors.mode != "default" or len(vectors.key2row) == 0:
        warnings.warn(f"the pipeline's vectors ({vectors.mode} mode) have no word rows; using "
                      "the embedded default table (set `table` to choose one)", UserWarning,
                      stacklevel=3)
        return None
    digest = vectors_digest(vectors)
    table = _TABLES.get(digest)
    if table is None:
        table = _default_table_if_same(digest) or EmbeddingTable.from_spacy_vectors(
            vocab, name=name)
        _TABLES[digest] = table
        while len(_TABLES) > _MAX_TABLES:
            _TABLES.popitem(last=False)
    _TABLES.move_to_end(digest)
    return table


def vectors_digest(vectors: Any) -> str:
    """SHA-256 of a spaCy ``Vectors`` table: its matrix and its key → row map."""
    data = vectors.data
    data = np.ascontiguousarray(data.get() if hasattr(data, "get") else data)
    items = np.fromiter((v for kv in vectors.key2row.items() for v in kv), dtype=np.uint64)
    h = hashlib.sha256()
    h.update(str(data.shape).encode())
    h.update(data.tobytes())
    h.update(items.tobytes())
    return h.hexdigest()


def _default_table_if_same(digest: str) -> EmbeddingTable | None:
    """The embedded default table when it is already loaded and built from these vectors."""
    from textdp import defaults

    if defaults.default_table.cache_info().currsize == 0:
        return None
    vectors = defaults.load_pipeline().vocab.vectors
    if vectors.shape[0] and vectors_digest(vectors) == digest:
        return defaults.default_table()
    return None
