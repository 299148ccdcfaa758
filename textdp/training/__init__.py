"""Training of the packaged name taggers (``textdp train-detector``).

Training is not detection: it reads the annotated corpora, scores candidates on the dev splits
with :mod:`textdp.evaluate` and measures names surviving the whole
:class:`~textdp.privatizer.Privatizer`, so it sits above both (docs/architecture.md, "Layers").
No detector imports it.

* :mod:`textdp.training.spacy_tagger`: the spaCy name tagger (``--kind spacy``);
* :mod:`textdp.training.transformer_tagger`: the MiniLM name tagger (``--kind transformer``).
"""
