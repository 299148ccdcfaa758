"""spaCy integration: the ``dp_privatizer`` pipeline component and registered functions.

The factory is declared through the ``spacy_factories`` entry point, so
``nlp.add_pipe("dp_privatizer")`` works without importing this package.
"""

from spacy_textdp.component import DPPrivatizer, make_dp_privatizer

__all__ = ["DPPrivatizer", "make_dp_privatizer"]
