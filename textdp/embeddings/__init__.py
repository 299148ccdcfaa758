"""Subword embeddings trained on the user's own documents, plain or PolarizedText.

* :mod:`textdp.embeddings.subword`: :class:`SubwordEmbeddings` (word + character n-gram vectors,
  fastText style: unseen spellings and typos get vectors from their n-grams) and the file format.
* :mod:`textdp.embeddings.skipgram`: the torch model, skip-gram with negative sampling over
  subwords plus PolarizedText's polarization term ``Σ_w log(1 + exp(−v_w · μ_label))`` with one
  orthogonal direction per document label.
* :mod:`textdp.embeddings.train`: the corpus reader, the training loop and
  ``textdp train-embeddings`` (gensim's ``FastText`` for plain fastText, when installed).

**Private by construction**: these vectors are trained on the documents being protected. They
serve the :class:`~textdp.detect.similarity.SimilarityDetector` (which tokens are targets) and
nothing else; they are never substitution candidates and must never be released. The saved
file is refused as a privatizer ``table`` (:class:`~textdp.tables.PrivateEmbeddingsError`).

Importing this package loads numpy only; torch is imported when training.
"""

from typing import Any

from textdp.embeddings.subword import (
    PrivateEmbeddingsError,
    SubwordEmbeddings,
    char_ngrams,
    label_directions,
    load_embeddings,
    ngram_hash,
)

__all__ = ["PrivateEmbeddingsError", "SubwordEmbeddings", "char_ngrams", "label_directions",
           "load_embeddings", "ngram_hash", "train_embeddings"]


def train_embeddings(*args: Any, **kwargs: Any) -> SubwordEmbeddings:
    """:func:`textdp.embeddings.train.train_embeddings` (imported on first use: torch)."""
    from textdp.embeddings.train import train_embeddings as train

    return train(*args, **kwargs)
