"""Subword embeddings trained on the user's documents (fastText style), and their file format.

A word's vector is the mean of its own row (when it is in the training vocabulary) and the rows
of its character n-grams: the n-grams of ``"<" + word + ">"`` of lengths ``minn`` to ``maxn``,
hashed into ``buckets`` with fastText's 32-bit FNV-1a (:func:`ngram_hash`; the same function as
fastText and gensim, so a gensim ``FastText`` model converts row for row). A spelling never seen
in training, a typo or an inflection still gets a vector from the n-grams it shares with
trained words; only a token none of whose n-grams was ever trained gets the zero vector.

**These embeddings are private.** They are trained on the user's own documents: their
vocabulary is those documents' words, and the vectors carry what the documents say about them.
They serve detection only (:class:`~textdp.detect.similarity.SimilarityDetector`). They are
never substitution candidates (docs/architecture.md rule 1): the saved file carries
:data:`textdp.tables.PRIVATE_EMBEDDINGS_KEY`, which :meth:`EmbeddingTable.from_word2vec
<textdp.tables.EmbeddingTable.from_word2vec>` refuses, so ``Privatizer(table=path)`` and
``textdp privatize --table path`` fail with :class:`~textdp.tables.PrivateEmbeddingsError`
before any output is written; and a :class:`SubwordEmbeddings` object is not an
``EmbeddingTable``, so the privatizer refuses it as a ``table``. Do not release the file.

File format (one ``.npz``, read with ``allow_pickle=False``): ``words`` (V,), ``word_rows``
(V, d), ``bucket_ids`` (K,) the trained n-gram buckets and ``bucket_rows`` (K, d) their rows,
``labels`` (L,) and ``label_directions`` (L, d) for PolarizedText, ``meta`` (a JSON string),
and the private marker.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from textdp.tables import PRIVATE_EMBEDDINGS_KEY, PrivateEmbeddingsError, is_private_embeddings

FORMAT_VERSION = 1
DEFAULT_MINN = 3
DEFAULT_MAXN = 6
DEFAULT_BUCKETS = 2_000_000  # fastText's and gensim's default

_FNV_OFFSET = 2166136261
_FNV_PRIME = 16777619


def ngram_hash(ngram: str) -> int:
    """fastText's hash of an n-gram: 32-bit FNV-1a over its UTF-8 bytes, each byte taken as a
    *signed* char (fastText's ``int8_t`` cast, kept by gensim's ``ft_hash_bytes``)."""
    h = _FNV_OFFSET
    for byte in ngram.encode("utf-8"):
        h ^= (byte - 256 if byte > 127 else byte) & 0xFFFFFFFF
        h = (h * _FNV_PRIME) & 0xFFFFFFFF
    return h


def char_ngrams(word: str, minn: int = DEFAULT_MINN, maxn: int = DEFAULT_MAXN) -> list[str]:
    """The character n-grams of ``"<" + word + ">"`` with ``minn <= n <= maxn`` (fastText's;
    the whole bracketed word is one of them when it is short enough)."""
    if minn < 1 or maxn < minn:
        raise ValueError(f"n-gram lengths must satisfy 1 <= minn <= maxn, got {minn}, {maxn}")
    if not word:
        return []
    padded = f"<{word}>"
    return [padded[i:i + n] for n in range(minn, maxn + 1) for i in range(len(padded) - n + 1)]


def ngram_buckets(word: str, minn: int, maxn: int, buckets: int) -> list[int]:
    """Bucket ids of ``word``'s n-grams (with repeats, as fastText averages them)."""
    return [ngram_hash(g) % buckets for g in char_ngrams(word, minn, maxn)]


def label_directions(n_labels: int, dim: int, strength: float = 1.0) -> np.ndarray:
    """PolarizedText's label directions: one coordinate axis per label, ``strength`` long.

    Label ``k`` gets ``strength * e_k``, so the directions are orthogonal by construction and
    each label owns one dimension of the space (the "external field" of that label).
    """
    if n_labels < 0 or n_labels > dim:
        raise ValueError(f"{n_labels} labels need at least as many dimensions; dim is {dim}")
    if not np.isfinite(strength) or strength <= 0:
        raise ValueError(f"label direction strength must be positive, got {strength!r}")
    return (np.eye(n_labels, dim) * strength).astype(np.float32)


class SubwordEmbeddings:
    """Word and character n-gram vectors trained on the user's documents. **Private.**

    Built by :func:`textdp.embeddings.train_embeddings` or :func:`load_embeddings`; used by
    :class:`~textdp.detect.similarity.SimilarityDetector` (``embeddings=``). Not an
    :class:`~textdp.tables.EmbeddingTable` on purpose: it has no candidates and is refused as
    a substitution table (module docstring).

    Args:
        words: the training vocabulary, one per row of ``word_rows``.
        word_rows: ``(V, d)`` the words' own input rows.
        bucket_ids: ``(K,)`` the n-gram buckets that were trained (distinct).
        bucket_rows: ``(K, d)`` their rows.
        minn, maxn, buckets: the n-gram lengths and the number of hash buckets.
        labels: PolarizedText label names (empty for plain embeddings).
        directions: ``(L, d)`` their directions (orthogonal).
        meta: training settings, kept in the file.
    """

    def __init__(self, words: Sequence[str], word_rows: np.ndarray, bucket_ids: np.ndarray,
                 bucket_rows: np.ndarray, *, minn: int = DEFAULT_MINN,
                 maxn: int = DEFAULT_MAXN, buckets: int = DEFAULT_BUCKETS,
                 labels: Sequence[str] = (), directions: np.ndarray | None = None,
                 meta: dict[str, Any] | None = None) -> None:
        word_rows = np.ascontiguousarray(word_rows, dtype=np.float32)
        bucket_rows = np.ascontiguousarray(bucket_rows, dtype=np.float32)
        bucket_ids = np.asarray(bucket_ids, dtype=np.int64)
        if word_rows.ndim != 2 or len(words) != word_rows.shape[0]:
            raise ValueError(f"{len(words)} words but word rows of shape {word_rows.shape}")
        dim = word_rows.shape[1]
        if bucket_rows.shape != (bucket_ids.size, dim):
            raise ValueError(f"bucket rows of shape {bucket_rows.shape} for {bucket_ids.size} "
                             f"buckets of dimension {dim}")
        if not (np.isfinite(word_rows).all() and np.isfinite(bucket_rows).all()):
            raise ValueError("embedding rows contain NaN or inf")
        if bucket_ids.size and (bucket_ids.min() < 0 or bucket_ids.max() >= buckets):
            raise ValueError(f"bucket ids must lie in [0, {buckets})")
        char_ngrams("", minn, maxn)  # validates minn, maxn
        self.words = list(words)
        self.word_rows = word_rows
        self.bucket_ids = bucket_ids
        self.bucket_rows = bucket_rows
        self.minn, self.maxn, self.buckets = int(minn), int(maxn), int(buckets)
        self.labels = [str(x) for x in labels]
        if directions is None:
            directions = np.zeros((0, dim), dtype=np.float32)
        self.directions = np.ascontiguousarray(directions, dtype=np.float32)
        if self.directions.shape != (len(self.labels), dim):
            raise ValueError(f"{len(self.labels)} labels but directions of shape "
                             f"{self.directions.shape}")
        self.meta = dict(meta or {})
        self.word_index = {w: i for i, w in enumerate(self.words)}
        self._bucket_row = {int(b): k for k, b in enumerate(self.bucket_ids.tolist())}
        self._vocab_vectors: np.ndarray | None = None

    @property
    def dim(self) -> int:
        """Dimension of the vectors."""
        return int(self.word_rows.shape[1])

    def __len__(self) -> int:
        """Number of vocabulary words."""
        return len(self.words)

    def __repr__(self) -> str:
        return (f"SubwordEmbeddings(private, words={len(self)}, ngram_rows={self.bucket_ids.size}"
                f", dim={self.dim}, labels={len(self.labels)})")

    # ------------------------------------------------------------------ vectors
    def _compose(self, word: str, own_row: int | None,
                 memo: dict[str, int] | None = None) -> np.ndarray:
        grams = char_ngrams(word, self.minn, self.maxn)
        if memo is None:
            ids = [ngram_hash(g) % self.buckets for g in grams]
        else:  # the vocabulary's words share most n-grams: hash each once
            ids = [memo[g] if g in memo else memo.setdefault(g, ngram_hash(g) % self.buckets)
                   for g in grams]
        rows = [self._bucket_row.get(b) for b in ids]
        parts = [self.bucket_rows[[r for r in rows if r is not None]]]
        if own_row is not None:
            parts.append(self.word_rows[own_row:own_row + 1])
        stacked = np.concatenate(parts)
        if stacked.shape[0] == 0:
            return np.zeros(self.dim, dtype=np.float32)
        return stacked.mean(axis=0)

    def vocab_vectors(self) -> np.ndarray:
        """``(V, d)`` composed vectors of the vocabulary words (computed once)."""
        if self._vocab_vectors is None:
            out = np.empty_like(self.word_rows)
            memo: dict[str, int] = {}
            for i, w in enumerate(self.words):
                out[i] = self._compose(w, i, memo)
            self._vocab_vectors = out
        return self._vocab_vectors

    def vectors(self, words: Iterable[str]) -> np.ndarray:
        """``(n, d)`` vectors of ``words``: a vocabulary word's composed vector, else the mean of
        its trained n-gram rows (zero when none of its n-grams was trained). Nothing about the
        words is kept after the call."""
        words = list(words)
        out = np.zeros((len(words), self.dim), dtype=np.float32)
        if not words:
            return out
        uniq, inverse = np.unique(np.asarray(words, dtype=object), return_inverse=True)
        vocab = self.vocab_vectors()
        rows = np.empty((len(uniq), self.dim), dtype=np.float32)
        for k, w in enumerate(uniq.tolist()):
            i = self.word_index.get(w)
            rows[k] = vocab[i] if i is not None else self._compose(w, None)
        out[:] = rows[inverse.reshape(-1)]
        return out

    def label_direction(self, label: str) -> np.ndarray:
        """The direction of one PolarizedText label."""
        if label not in self.labels:
            known = ", ".join(map(repr, self.labels)) or "none (plain embeddings)"
            raise ValueError(f"label {label!r} is not one of these embeddings' labels: {known}")
        return self.directions[self.labels.index(label)]

    # ------------------------------------------------------------------ files
    def save(self, path: str | os.PathLike[str] | Any) -> None:
        """Write the ``.npz`` (a path or a binary file object). The file is private."""
        meta = {**self.meta, "format_version": FORMAT_VERSION, "minn": self.minn,
                "maxn": self.maxn, "buckets": self.buckets,
                "private": "trained on the user's documents; never a substitution table"}
        np.savez(path, **{PRIVATE_EMBEDDINGS_KEY: np.asarray(FORMAT_VERSION)},
                 words=np.asarray(self.words, dtype=str), word_rows=self.word_rows,
                 bucket_ids=self.bucket_ids, bucket_rows=self.bucket_rows,
                 labels=np.asarray(self.labels, dtype=str), label_directions=self.directions,
                 meta=np.asarray(json.dumps(meta, sort_keys=True)))


def load_embeddings(path: str | os.PathLike[str]) -> SubwordEmbeddings:
    """Read embeddings written by :meth:`SubwordEmbeddings.save`."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"embeddings file {str(path)!r} does not exist")
    if not is_private_embeddings(path):
        raise ValueError(f"{str(path)!r} is not a textdp subword-embeddings file (written by "
                         "`textdp train-embeddings`)")
    with np.load(path, allow_pickle=False) as data:
        meta = json.loads(str(data["meta"]))
        if meta.get("format_version") != FORMAT_VERSION:
            raise ValueError(f"{str(path)!r}: format version {meta.get('format_version')!r}, "
                             f"this textdp reads {FORMAT_VERSION}")
        return SubwordEmbeddings(
            data["words"].tolist(), data["word_rows"], data["bucket_ids"], data["bucket_rows"],
            minn=meta["minn"], maxn=meta["maxn"], buckets=meta["buckets"],
            labels=data["labels"].tolist(), directions=data["label_directions"], meta=meta)


__all__ = ["PrivateEmbeddingsError", "SubwordEmbeddings", "char_ngrams", "label_directions",
           "load_embeddings", "ngram_buckets", "ngram_hash"]
