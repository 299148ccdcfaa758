"""spaCy integration: the ``dp_privatizer`` pipeline component and registered functions.

The factory is declared through the ``spacy_factories`` entry point and the registered
functions (``textdp.mechanism.v1``, ``textdp.spacy_vectors_table.v1``,
``textdp.word2vec_table.v1``, ``textdp.transformer_table.v1``, ``textdp.spacy_ner_detector.v1``)
through ``spacy_misc``, so ``nlp.add_pipe("dp_privatizer")`` and configs that reference them
work without importing this package.
"""

from spacy_textdp.component import DPPrivatizer, make_dp_privatizer
from spacy_textdp.registry import (
    make_mechanism,
    make_spacy_ner_detector,
    make_spacy_vectors_table,
    make_transformer_table,
    make_word2vec_table,
)
from spacy_textdp.vectors import pipeline_table

__all__ = [
    "DPPrivatizer", "make_dp_privatizer", "make_mechanism", "make_spacy_ner_detector",
    "make_spacy_vectors_table", "make_transformer_table", "make_word2vec_table",
    "pipeline_table",
]
