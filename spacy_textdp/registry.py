"""Registered functions for spaCy configs, under versioned names in ``registry.misc``.

Each is also declared in the ``spacy_misc`` entry-point group (``pyproject.toml``), so a config
that references one resolves in a process that never imported textdp::

    [components.dp_privatizer.table]
    @misc = "textdp.word2vec_table.v1"
    path = "vectors/glove.6B.300d.txt"

    [components.dp_privatizer.mechanism]
    @misc = "textdp.mechanism.v1"
    name = "mahalanobis"

    [components.dp_privatizer.mechanism.args]
    lam = 0.2

Tables and detectors are cached per process by their arguments: resolving the same config twice
(``spacy.load`` after ``nlp.to_disk``, ``init fill-config``) loads a table once.
"""

from __future__ import annotations

import functools
import warnings
from pathlib import Path
from typing import Any

from spacy.util import registry

from spacy_textdp.vectors import pipeline_table
from textdp.defaults import DEFAULT_EPSILON, resolve_table
from textdp.detect import SpacyNERDetector
from textdp.mechanisms import Mechanism, create_mechanism
from textdp.tables import EmbeddingTable

MECHANISM_V1 = "textdp.mechanism.v1"
SPACY_VECTORS_TABLE_V1 = "textdp.spacy_vectors_table.v1"
WORD2VEC_TABLE_V1 = "textdp.word2vec_table.v1"
TRANSFORMER_TABLE_V1 = "textdp.transformer_table.v1"
SPACY_NER_DETECTOR_V1 = "textdp.spacy_ner_detector.v1"


@registry.misc(MECHANISM_V1)
def make_mechanism(
    name: str, epsilon: float | None = None, args: dict[str, Any] | None = None
) -> Mechanism | dict[str, Any]:
    """A registered mechanism (``textdp mechanisms`` lists them) with its own arguments.

    name: registered mechanism name, e.g. ``"mlaplace"``, ``"mahalanobis"``, ``"tem"``.
    epsilon: ε per token. Leave it out to use the component's ``epsilon`` (then the result is
        the validated ``{"name": ..., **args}`` mapping the component completes); when given,
        it must equal the component's ``epsilon`` (``${components.dp_privatizer.epsilon}``).
    args: the mechanism's other arguments, e.g. ``{"lam": 0.2}``.
    RETURNS: a :class:`Mechanism`, or the mapping when ``epsilon`` is left out.

    Arguments are checked here, before any text is read (docs/architecture.md rule 5).
    """
    spec: dict[str, Any] = {"name": name, **(args or {})}
    if "epsilon" in spec:
        raise ValueError("give epsilon as the 'epsilon' argument of textdp.mechanism.v1, "
                         "not inside 'args'")
    if epsilon is not None:
        return create_mechanism(spec, epsilon)
    create_mechanism(spec, DEFAULT_EPSILON)  # validates name and arguments; result discarded
    return spec


@registry.misc(SPACY_VECTORS_TABLE_V1)
def make_spacy_vectors_table(model: str | None = None) -> EmbeddingTable:
    """The static vectors of a spaCy pipeline as the public candidate table.

    model: an installed package name (``"en_core_web_lg"``) or a pipeline directory;
        ``None`` for the embedded default table (``textdp.defaults.default_table``).
    """
    if model is None:
        return resolve_table(None, clip_norm=None)
    return _spacy_vectors_table(str(model))


@functools.lru_cache(maxsize=4)
def _spacy_vectors_table(model: str) -> EmbeddingTable:
    import spacy
    import spacy.util

    with warnings.catch_warnings():
        # Packaged pipelines built for an older spaCy minor version warn W095 on import and
        # load; that does not concern their vectors.
        warnings.filterwarnings("ignore", message=r".*\[W095\]")
        # Only the vocab (strings + vectors) is needed: exclude every component.
        path = spacy.util.get_package_path(model) if spacy.util.is_package(model) \
            else Path(model)
        meta = spacy.util.load_meta(path / "meta.json") if (path / "meta.json").exists() else {}
        exclude = list(meta.get("components", meta.get("pipeline", [])))
        nlp = spacy.load(model, exclude=exclude)
    name = f"{nlp.meta.get('lang', 'xx')}_{nlp.meta.get('name', 'pipeline')}"
    table = pipeline_table(nlp.vocab, name=name)
    if table is None:
        raise ValueError(f"spaCy pipeline {model!r} has no static word vectors to use as a table")
    return table


@registry.misc(WORD2VEC_TABLE_V1)
def make_word2vec_table(path: str, limit: int | None = None) -> EmbeddingTable:
    """A word2vec / GloVe text or fastText ``.vec`` file as the public candidate table.

    path: the vectors file (header line optional); parsed once and cached as ``.npy``.
    limit: read only the first ``limit`` entries (files are usually sorted by frequency).
    """
    if limit is not None and limit <= 0:
        raise ValueError(f"limit must be a positive integer or null, got {limit!r}")
    return _word2vec_table(str(path), limit)


@functools.lru_cache(maxsize=4)
def _word2vec_table(path: str, limit: int | None) -> EmbeddingTable:
    # The core's one resolver of table specs: the same checks (private embeddings refused).
    return resolve_table(path, clip_norm=None, limit=limit)


@registry.misc(TRANSFORMER_TABLE_V1)
def make_transformer_table(model: str | None = None, word_pieces: bool = False
                           ) -> EmbeddingTable:
    """A transformer's input-embedding matrix as the public candidate table.

    model: a local model folder or hub name; ``None`` for the embedded transformer
        (all-MiniLM-L6-v2, offline).
    word_pieces: also use ``##`` continuation pieces as lookup keys (never as outputs).
    """
    return _transformer_table(model, bool(word_pieces))


@functools.lru_cache(maxsize=2)
def _transformer_table(model: str | None, word_pieces: bool) -> EmbeddingTable:
    return EmbeddingTable.from_transformer(model, word_pieces=word_pieces)


@registry.misc(SPACY_NER_DETECTOR_V1)
def make_spacy_ner_detector(model: str | None = None, batch_size: int = 256
                            ) -> SpacyNERDetector:
    """Detect targets with a spaCy pipeline's NER (used where the pipeline has none).

    model: an installed package name or pipeline directory with an ``ner`` component;
        ``None`` for the embedded default pipeline. Loaded on first use.
    batch_size: docs per ``nlp.pipe`` batch.
    """
    if batch_size <= 0:
        raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")
    return SpacyNERDetector(model, batch_size=batch_size)


__all__ = [
    "MECHANISM_V1", "SPACY_NER_DETECTOR_V1", "SPACY_VECTORS_TABLE_V1", "TRANSFORMER_TABLE_V1",
    "WORD2VEC_TABLE_V1", "make_mechanism", "make_spacy_ner_detector", "make_spacy_vectors_table",
    "make_transformer_table", "make_word2vec_table",
]
