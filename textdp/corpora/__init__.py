"""The person-annotated corpora the name detectors are trained, chosen and evaluated on.

- :mod:`~textdp.corpora.conll` reads CoNLL files (documents of sentences with gold spans) and
  builds spaCy docs from their gold tokens;
- :mod:`~textdp.corpora.domains` names the domains (newswire, posts, tweets, e-mail) and reads
  their splits from ``../shared/data``.

Only reading lives here: training (:mod:`textdp.training`), evaluation and benchmarks share
one definition of the splits. No detector imports it (docs/architecture.md, layers).
"""
