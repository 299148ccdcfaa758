"""Tokens close in embedding space to sensitive seed terms.

A token is a target when the cosine similarity of its vector to the nearest seed term's vector
reaches ``threshold``. The seeds are the user's (names of a client list, disease names, …);
by default a list of common given names and surnames, so the detector flags name-like words.
``textdp evaluate detection --detector similarity --seeds ...`` prints its ROC (TPR and FPR
over thresholds) against CoNLL-2003 person tokens, to pick a threshold.

Tokens without a vector score 0 (never flagged on their own): this detector is a recall
helper next to a tagger, not a replacement for one.

With ``embeddings=`` it scores with subword embeddings trained on the user's own documents
(``textdp train-embeddings``; :mod:`textdp.embeddings`) instead of the public table: every
spelling, unseen ones and typos included, gets a vector from its character n-grams, and
PolarizedText embeddings can be scored against their label directions (``directions=``)
instead of seed terms. Those embeddings are private: they only decide which tokens are
targets, never what replaces them (the privatizer refuses them as a table).
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from textdp.detect.base import Span, normalise_label
from textdp.detect.registry import register_detector
from textdp.embeddings.subword import SubwordEmbeddings, load_embeddings

# Common given names and surnames of many origins (public, generic; no one in particular).
DEFAULT_SEEDS = (
    "John", "Mary", "James", "Maria", "David", "Anna", "Michael", "Sarah", "Peter", "Laura",
    "Thomas", "Elena", "Robert", "Patricia", "William", "Linda", "Richard", "Susan", "Carlos",
    "Jose", "Juan", "Ahmed", "Mohammed", "Ali", "Fatima", "Wei", "Li", "Chen", "Hiroshi",
    "Yuki", "Ivan", "Olga", "Pierre", "Jean", "Hans", "Klaus", "Giovanni", "Marco", "Raj",
    "Priya", "Kwame", "Amina", "Smith", "Johnson", "Williams", "Brown", "Jones", "Miller",
    "Davis", "Garcia", "Rodriguez", "Martinez", "Wilson", "Anderson", "Taylor", "Thomas",
    "Moore", "Jackson", "Martin", "Lee", "Nguyen", "Kim", "Wang", "Zhang", "Singh", "Kumar",
    "Müller", "Schmidt", "Rossi", "Dubois", "Ivanov", "Kowalski", "Okafor", "Mensah",
)
DEFAULT_THRESHOLD = 0.5

# Row-normalised copies of tables' lookup vectors (one per table, freed with it).
_UNIT: weakref.WeakKeyDictionary[Any, np.ndarray] = weakref.WeakKeyDictionary()


def unit_rows(table: Any) -> np.ndarray:
    """``table.lookup_vectors`` scaled to unit length (zero rows stay zero)."""
    if table not in _UNIT:
        v = np.asarray(table.lookup_vectors, dtype=np.float32)
        norms = np.linalg.norm(v, axis=1, keepdims=True)
        _UNIT[table] = v / np.where(norms > 0, norms, 1.0)
    return _UNIT[table]


@register_detector("similarity")
class SimilarityDetector:
    """Marks tokens whose vector is within a cosine ``threshold`` of a seed term's.

    Args:
        seeds: sensitive seed terms (words of the table); by default :data:`DEFAULT_SEEDS`.
        threshold: minimum cosine similarity to the nearest seed, in ``[-1, 1]``.
        table: an :class:`~textdp.tables.EmbeddingTable`; by default
            :func:`textdp.defaults.default_table` (en_core_web_md vectors).
        label: the label of the spans it returns (``PERSON`` by default).
        capitalised_only: only flag tokens that start with a capital letter; by default
            on for the default (name) seeds and off for seeds or directions of your own.
        embeddings: private subword embeddings trained on your documents (a
            :class:`~textdp.embeddings.SubwordEmbeddings` or the path of a saved one), used
            instead of ``table``; seeds and tokens get vectors from their n-grams. Cosines
            run high in such spaces (on CoNLL-2003 the 3 % false-positive point of the default
            seeds sat at 0.99, not 0.5): choose ``threshold`` for them, not the default.
        directions: with PolarizedText ``embeddings``, label names whose directions replace
            the seeds (a token's score is its cosine to the nearest of them).
    """

    def __init__(self, seeds: Iterable[str] | None = None, *,
                 threshold: float = DEFAULT_THRESHOLD, table: Any = None,
                 label: str = "PERSON", capitalised_only: bool | None = None,
                 embeddings: Any = None, directions: Iterable[str] | None = None) -> None:
        if capitalised_only is None:
            capitalised_only = seeds is None and directions is None
        self._embeddings = _resolve_embeddings(embeddings, table, seeds, directions)
        self.directions = None if directions is None else list(directions)
        seeds = list(DEFAULT_SEEDS if seeds is None else seeds)
        if not seeds or not all(isinstance(s, str) and s.strip() for s in seeds):
            raise ValueError("seeds must be a non-empty list of words")
        threshold = float(threshold)
        if not -1.0 <= threshold <= 1.0:
            raise ValueError(f"threshold must be a cosine similarity in [-1, 1], got "
                             f"{threshold!r}")
        self.seeds = list(dict.fromkeys(s.strip() for s in seeds))
        self.threshold = threshold
        self.label = normalise_label(label)
        self.capitalised_only = bool(capitalised_only)
        self._table = table
        self._seed_matrix: np.ndarray | None = None

    @property
    def table(self) -> Any:
        if self._table is None:
            from textdp.defaults import default_table

            self._table = default_table()
        return self._table

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_seed_matrix"] = None
        from textdp import defaults

        if defaults.default_table.cache_info().currsize and \
                state["_table"] is defaults.default_table():
            state["_table"] = None  # the default reloads in the receiving process
        return state

    def seed_matrix(self) -> np.ndarray:
        """Unit vectors of the seeds found in the table, ``(n_seeds, dim)``."""
        if self._seed_matrix is None and self._embeddings is not None:
            emb = self._embeddings
            points = np.stack([emb.label_direction(d) for d in self.directions]) \
                if self.directions is not None else emb.vectors(self.seeds)
            points = _unit(points)
            points = points[np.linalg.norm(points, axis=1) > 0]
            if points.shape[0] == 0:
                raise ValueError("none of the seed terms has a vector in the embeddings")
            self._seed_matrix = points
        if self._seed_matrix is None:
            rows = self.table.lookup(self.seeds)
            rows = rows[rows >= 0]
            if rows.size == 0:
                raise ValueError("none of the seed terms has a vector in the table")
            self._seed_matrix = unit_rows(self.table)[np.unique(rows)]
        return self._seed_matrix

    def token_scores(self, words: Sequence[str]) -> np.ndarray:
        """Cosine similarity of each token to its nearest seed (0 for tokens without a
        vector, and for non-capitalised tokens when ``capitalised_only``)."""
        out = np.zeros(len(words), dtype=np.float32)
        if not words:
            return out
        if self._embeddings is not None:
            keep = [k for k, w in enumerate(words)
                    if not self.capitalised_only or w[:1].isupper()]
            if keep:
                vecs = _unit(self._embeddings.vectors([words[k] for k in keep]))
                out[keep] = (vecs @ self.seed_matrix().T).max(axis=1)
            return out
        rows = self.table.lookup(list(words))
        known = rows >= 0
        if self.capitalised_only:
            known &= np.array([w[:1].isupper() for w in words], dtype=bool)
        if known.any():
            uniq, inverse = np.unique(rows[known], return_inverse=True)
            sims = unit_rows(self.table)[uniq] @ self.seed_matrix().T
            out[known] = sims.max(axis=1)[inverse]
        return out

    def spans(self, words: Sequence[str]) -> list[Span]:
        """Runs of consecutive flagged tokens, as spans."""
        flagged = (self.token_scores(words) >= self.threshold).tolist()
        spans: list[Span] = []
        start = -1
        for k, (hit, w) in enumerate(zip([*flagged, False], [*words, ""])):
            hit = hit and any(c.isalpha() for c in w)  # a word, not punctuation
            if hit and start < 0:
                start = k
            elif not hit and start >= 0:
                spans.append((start, k, self.label))
                start = -1
        return spans

    def __call__(self, docs: Sequence[Any]) -> list[list[Span]]:
        return [self.spans([t.text for t in doc]) for doc in docs]

    def __repr__(self) -> str:
        points = f"seeds={len(self.seeds)}" if self.directions is None else \
            f"directions={len(self.directions)}"
        private = "" if self._embeddings is None else ", embeddings=<private>"
        return (f"SimilarityDetector({points}, threshold={self.threshold}, "
                f"label={self.label!r}{private})")


def _unit(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero)."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return (vectors / np.where(norms > 0, norms, 1.0)).astype(np.float32)


def _resolve_embeddings(embeddings: Any, table: Any, seeds: Any, directions: Any
                        ) -> SubwordEmbeddings | None:
    """Check the embeddings options together; load a saved file."""
    if embeddings is None:
        if directions is not None:
            raise ValueError("directions are the label directions of PolarizedText "
                             "embeddings: give embeddings too")
        return None
    if table is not None:
        raise ValueError("give either table (public vectors) or embeddings (trained on your "
                         "documents), not both")
    if directions is not None and seeds is not None:
        raise ValueError("give either seeds or directions, not both")
    if isinstance(embeddings, (str, os.PathLike)):
        embeddings = load_embeddings(embeddings)
    if not isinstance(embeddings, SubwordEmbeddings):
        raise ValueError(f"embeddings must be SubwordEmbeddings or the path of a saved file, "
                         f"got {type(embeddings).__name__}")
    if directions is not None:
        names = list(directions)
        if not names:
            raise ValueError("directions must name at least one label")
        for name in names:
            embeddings.label_direction(name)  # raises for an unknown label
    return embeddings
